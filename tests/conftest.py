"""Shared fixtures: one database per test, on SQLite always and, for the tests that touch the
store, on PostgreSQL too when configured.

A test that asks for `database_url` (directly, or through the e2e `harness`) runs on SQLite.
It runs on PostgreSQL as well when what it checks goes through the store in a way the two
databases could answer differently: every test under tests/store and tests/durability, and
elsewhere the tests marked `@pytest.mark.stored` (or a module's `pytestmark`): accounts,
save/resume, match results and ratings, the archive, fair-play records, what survives a
restart, races that meet in the store. Help, chat, who, login texts and bad input are the
lobby's and the protocol's, the same on either database: SQLite only.

`FIBS_TEST_DATABASE_URL` names a PostgreSQL server (e.g. postgresql://postgres@127.0.0.1:5432/postgres);
each test then gets a fresh database created on that server and dropped afterwards. `.ci/run` sets
it, so in CI the PostgreSQL half always runs; elsewhere it skips with the reason below.
"""
from __future__ import annotations

import contextlib
import os
import pathlib
import uuid
from collections.abc import AsyncIterator

import pytest

# Servers the tests start as commands run the engine's processes at normal priority, as
# tests/e2e/conftest.py's do: the tests check what bots and analyses decide, and beside other
# work idle-priority processes get no CPU at all (docs/TESTING.md).
os.environ["FIBS_WORKER_PRIORITY"] = "normal"

POSTGRES_URL_VARIABLE = "FIBS_TEST_DATABASE_URL"
# Test directories (under tests/) whose every database test runs on both databases.
STORE_DIRECTORIES = {"store", "durability"}
TESTS = pathlib.Path(__file__).parent


def skip_unless_ci(reason: str) -> None:
    """Skip a test whose outside requirement is missing; in CI (CI=true) fail instead, since
    CI installs everything and a silent skip there would hide a broken setup."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run this test: {reason}")
    pytest.skip(reason)


def touches_the_store(definition: pytest.Item) -> bool:
    """Whether a test runs on PostgreSQL as well as on SQLite (see above)."""
    if definition.get_closest_marker("stored") is not None:
        return True
    parts = definition.path.relative_to(TESTS).parts
    return len(parts) > 1 and parts[0] in STORE_DIRECTORIES


# The longest tests (30-50 s each on a slow machine), started first: collected in their place
# (rules, soak), a worker met them last and ran them alone at the end while the others had
# finished. The workers take the rest from the queue meanwhile (--dist worksteal).
LONGEST = ("soak/", "rules/test_gnubg_differential.py", "durability/test_crash.py",
           "durability/test_tournament_kill.py",
           "e2e/test_gnubg_bot_cube.py", "bots/test_analysis_vs_gnubg.py", "bots/test_strength.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def longest_first(item: pytest.Item) -> bool:
        return not item.path.relative_to(TESTS).as_posix().startswith(LONGEST)
    items.sort(key=longest_first)  # stable: the rest keep their order


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "database_url" in metafunc.fixturenames:
        kinds = ["sqlite", "postgresql"] if touches_the_store(metafunc.definition) else ["sqlite"]
        metafunc.parametrize("database_url", kinds, indirect=True)


@pytest.fixture
async def database_url(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'fibs-test.db'}"
        return
    async with fresh_postgresql_database() as url:
        yield url


@pytest.fixture
async def postgresql_url():
    """A fresh PostgreSQL database only: for what SQLite cannot be (several nodes' store)."""
    async with fresh_postgresql_database() as url:
        yield url


@contextlib.asynccontextmanager
async def fresh_postgresql_database() -> AsyncIterator[str]:
    server_url = os.environ.get(POSTGRES_URL_VARIABLE)
    if not server_url:
        skip_unless_ci(f"PostgreSQL tests need {POSTGRES_URL_VARIABLE} (CI sets it; e.g. "
                       "postgresql://postgres@127.0.0.1:5432/postgres)")
    assert server_url is not None
    import asyncpg

    admin_dsn = server_url.replace("postgresql+asyncpg://", "postgresql://")
    name = f"fibs_test_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(admin_dsn)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    base, _, _ = admin_dsn.rpartition("/")
    try:
        yield f"{base}/{name}"
    finally:
        admin = await asyncpg.connect(admin_dsn)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()
