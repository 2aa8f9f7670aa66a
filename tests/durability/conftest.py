"""The e2e harness (the real server on a fresh database) for the durability tests."""
from tests.e2e.conftest import harness  # noqa: F401  (a fixture, used by name)
