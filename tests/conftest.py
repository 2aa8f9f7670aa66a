"""Shared fixtures: one database per test, on SQLite always and, for the tests that touch the
store, on PostgreSQL too when configured.

A test that asks for `database_url` (directly, or through the e2e `harness`) runs on SQLite.
It runs on PostgreSQL as well when what it checks goes through the store in a way the two
databases could answer differently: every test under tests/store and tests/durability, and
elsewhere the tests marked `@pytest.mark.stored` (or a module's `pytestmark`): accounts,
save/resume, match results and ratings, the archive, fair-play records, what survives a
restart, races that meet in the store. Help, chat, who, login texts and bad input are the
lobby's and the protocol's, the same on either database: SQLite only.

The database a test gets is at the schema's head and empty; a test marked `blank_database`
(the migrations' own) gets one with no table.

`FIBS_TEST_DATABASE_URL` names a PostgreSQL server (e.g. postgresql://postgres@127.0.0.1:5432/postgres);
each test then gets a database on that server. `.ci/run` sets it, so in CI the PostgreSQL half
always runs; elsewhere it skips with the reason below.
"""
from __future__ import annotations

import contextlib
import functools
import os
import pathlib
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator

import pytest
from alembic.script import ScriptDirectory
from hypothesis import settings

from fibs_server.store.migrate import alembic_config, upgrade_database_async
from fibs_server.store.models import Base

# Servers the tests start as commands run the engine's processes at normal priority, as
# tests/e2e/conftest.py's do: the tests check what bots and analyses decide, and beside other
# work idle-priority processes get no CPU at all (docs/TESTING.md).
os.environ["FIBS_WORKER_PRIORITY"] = "normal"

# Hypothesis's default deadline (200 ms an example) is a wall-clock bound a loaded machine
# misses; a property's subject is what it computes, not how fast (docs/TESTING.md).
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")

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
    blank = request.node.get_closest_marker("blank_database") is not None
    if request.param == "sqlite":
        path = tmp_path / "fibs-test.db"
        if not blank:
            shutil.copyfile(await migrated_sqlite_template(), path)
        yield f"sqlite:///{path}"
        return
    async with postgresql_database(blank) as url:
        yield url


@pytest.fixture
async def postgresql_url():
    """A PostgreSQL database only, at the schema's head: for what SQLite cannot be (several
    nodes' store)."""
    async with postgresql_database(blank=False) as url:
        yield url


# Migrating a database costs a second or more and creating and dropping one on PostgreSQL as
# much again: a test's database is a copy of this worker's migrated SQLite file, or one of this
# worker's migrated PostgreSQL databases, emptied after the test and lent to the next.
_sqlite_template: pathlib.Path | None = None
_migrated_postgresql_databases: list[str] = []


async def migrated_sqlite_template() -> pathlib.Path:
    global _sqlite_template
    if _sqlite_template is None:
        template = pathlib.Path(tempfile.mkdtemp(prefix="fibs-test-template-")) / "head.db"
        await upgrade_database_async(f"sqlite:///{template}")
        _sqlite_template = template
    return _sqlite_template


def postgresql_admin_dsn() -> str:
    server_url = os.environ.get(POSTGRES_URL_VARIABLE)
    if not server_url:
        skip_unless_ci(f"PostgreSQL tests need {POSTGRES_URL_VARIABLE} (CI sets it; e.g. "
                       "postgresql://postgres@127.0.0.1:5432/postgres)")
    assert server_url is not None
    return server_url.replace("postgresql+asyncpg://", "postgresql://")


@contextlib.asynccontextmanager
async def postgresql_database(blank: bool) -> AsyncIterator[str]:
    """A database on the configured PostgreSQL server: blank (no table), created for the test
    and dropped after it; or at the schema's head and empty, lent from this worker's pool."""
    admin_dsn = postgresql_admin_dsn()
    base, _, _ = admin_dsn.rpartition("/")
    if blank:
        name = await create_postgresql_database(admin_dsn)
        try:
            yield f"{base}/{name}"
        finally:
            await drop_postgresql_database(admin_dsn, name)
        return
    if _migrated_postgresql_databases:
        name = _migrated_postgresql_databases.pop()
    else:
        name = await create_postgresql_database(admin_dsn)
        await upgrade_database_async(f"{base}/{name}")
    try:
        yield f"{base}/{name}"
    finally:
        if await emptied_at_head(f"{base}/{name}"):
            _migrated_postgresql_databases.append(name)
        else:
            await drop_postgresql_database(admin_dsn, name)


async def create_postgresql_database(admin_dsn: str) -> str:
    name = f"fibs_test_{uuid.uuid4().hex[:12]}"
    # A commit need not wait for the disk: the tests kill servers, never PostgreSQL, and a
    # commit is as visible to the next reader either way; waiting for the disk made a whole
    # match 8x as slow on PostgreSQL as on SQLite.
    await execute_on(admin_dsn, f'CREATE DATABASE "{name}"',
                     f'ALTER DATABASE "{name}" SET synchronous_commit TO off')
    return name


async def drop_postgresql_database(admin_dsn: str, name: str) -> None:
    await execute_on(admin_dsn, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def execute_on(dsn: str, *statements: str) -> None:
    import asyncpg

    connection = await asyncpg.connect(dsn)
    try:
        for statement in statements:
            await connection.execute(statement)
    finally:
        await connection.close()


# The tables of a database at the schema's head (tests/store/test_migrations.py holds the
# migrations to the models).
HEAD_TABLES = {*Base.metadata.tables, "alembic_version"}


async def emptied_at_head(url: str) -> bool:
    """Cut off whatever the test left connected, then empty every table of a database still at
    the schema's head; False (the database is not to be lent again) if it is elsewhere."""
    import asyncpg

    connection = await asyncpg.connect(url)
    try:
        # Each waited for until it has ended (5 s at most): one still ending holds its locks.
        await connection.execute("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity "
                                 "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        tables = {row["tablename"] for row in await connection.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
        if tables != HEAD_TABLES:
            return False
        if await connection.fetchval("SELECT version_num FROM alembic_version") != head_revision():
            return False
        # DELETE, not TRUNCATE: a test leaves a few rows, and TRUNCATE makes every table a new
        # file. The foreign keys' triggers are off while the rows go (a superuser may do so).
        sequences = [row["name"] for row in await connection.fetch(
            "SELECT format('%I.%I', schemaname, sequencename) AS name FROM pg_sequences")]
        async with connection.transaction():
            await connection.execute("SET LOCAL session_replication_role = replica")
            for table in sorted(tables - {"alembic_version"}):
                await connection.execute(f'DELETE FROM "{table}"')
            for sequence in sequences:
                await connection.execute(f"ALTER SEQUENCE {sequence} RESTART")
        return True
    except asyncpg.PostgresError:  # a connection that outlived the cut: the database goes
        return False
    finally:
        await connection.close()


@functools.cache
def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
    assert head is not None
    return head
