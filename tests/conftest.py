"""Shared fixtures: one database per test, on SQLite always and on PostgreSQL when configured.

`FIBS_TEST_DATABASE_URL` names a PostgreSQL server (e.g. postgresql://postgres@127.0.0.1:5432/postgres);
each test then gets a fresh database created on that server and dropped afterwards. `.ci/run` sets
it, so in CI the PostgreSQL half always runs; elsewhere it skips with the reason below.
"""
from __future__ import annotations

import os
import uuid

import pytest

POSTGRES_URL_VARIABLE = "FIBS_TEST_DATABASE_URL"


def skip_unless_ci(reason: str) -> None:
    """Skip a test whose outside requirement is missing; in CI (CI=true) fail instead, since
    CI installs everything and a silent skip there would hide a broken setup."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run this test: {reason}")
    pytest.skip(reason)


@pytest.fixture(params=["sqlite", "postgresql"])
async def database_url(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'fibs-test.db'}"
        return
    server_url = os.environ.get(POSTGRES_URL_VARIABLE)
    if not server_url:
        skip_unless_ci(f"PostgreSQL tests need {POSTGRES_URL_VARIABLE} (CI sets it; e.g. "
                    "postgresql://postgres@127.0.0.1:5432/postgres)")
    import asyncpg

    admin_dsn = server_url.replace("postgresql+asyncpg://", "postgresql://")
    name = f"fibs_test_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(admin_dsn)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    base, _, _ = admin_dsn.rpartition("/")
    yield f"{base}/{name}"
    admin = await asyncpg.connect(admin_dsn)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()
