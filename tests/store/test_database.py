from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError
from sqlalchemy.pool import NullPool

from fibs_server.store import async_database_url, create_database_engine, create_read_engine
from fibs_server.store.database import SQLITE_POOL_TIMEOUT_S


@pytest.mark.parametrize("plain, expected", [
    ("sqlite:///fibs.db", "sqlite+aiosqlite:///fibs.db"),
    ("sqlite:////var/lib/fibs/fibs.db", "sqlite+aiosqlite:////var/lib/fibs/fibs.db"),
    ("postgresql://fibs:secret@db.example:5432/fibs",
     "postgresql+asyncpg://fibs:secret@db.example:5432/fibs"),
    ("postgres://fibs@localhost/fibs", "postgresql+asyncpg://fibs@localhost/fibs"),
    ("sqlite+aiosqlite:///fibs.db", "sqlite+aiosqlite:///fibs.db"),
    ("postgresql+asyncpg://fibs@localhost/fibs", "postgresql+asyncpg://fibs@localhost/fibs"),
])
def test_plain_urls_get_async_drivers(plain, expected):
    assert async_database_url(plain) == expected


def test_text_without_scheme_is_rejected():
    with pytest.raises(ValueError):
        async_database_url("fibs.db")


async def test_sqlite_connections_use_wal_foreign_keys_and_durable_commits(tmp_path: Path):
    engine = create_database_engine(f"sqlite:///{tmp_path / 'fibs.db'}", poolclass=NullPool)
    try:
        async with engine.connect() as connection:
            journal_mode = await connection.exec_driver_sql("PRAGMA journal_mode")
            foreign_keys = await connection.exec_driver_sql("PRAGMA foreign_keys")
            synchronous = await connection.exec_driver_sql("PRAGMA synchronous")
            assert journal_mode.scalar() == "wal"
            assert foreign_keys.scalar() == 1
            assert synchronous.scalar() == 2  # FULL
    finally:
        await engine.dispose()


async def test_a_sqlite_file_gets_one_write_connection_and_read_connections_that_cannot_write(
        tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'fibs.db'}"
    writer, reader = create_database_engine(url), create_read_engine(url)
    try:
        assert writer.pool.size() == 1 and reader.pool.size() > 1
        # A deep queue for the one write connection is worth waiting out (30 s by default).
        assert writer.pool.timeout() == reader.pool.timeout() == SQLITE_POOL_TIMEOUT_S
        async with writer.begin() as connection:
            await connection.exec_driver_sql("CREATE TABLE t (x INTEGER)")
        async with reader.begin() as connection:
            assert (await connection.exec_driver_sql("SELECT count(*) FROM t")).scalar() == 0
            with pytest.raises(OperationalError, match="readonly"):
                await connection.exec_driver_sql("INSERT INTO t VALUES (1)")
    finally:
        await reader.dispose()
        await writer.dispose()


def test_postgresql_reads_on_its_one_engine():
    # Its pool already reads concurrently (in-memory SQLite: tests/store/test_reads.py).
    assert create_read_engine("postgresql://fibs@localhost/fibs") is None
