from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError
from sqlalchemy.pool import NullPool

from fibs_server.store import async_database_url, create_database_engine
from fibs_server.store.database import (
    create_sqlite_file_engine,
    is_sqlite_file,
)


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


def test_the_servers_sqlite_file_engines_use_wal_foreign_keys_and_durable_commits(
        tmp_path: Path):
    for for_reads in (False, True):
        engine = create_sqlite_file_engine(f"sqlite:///{tmp_path / 'fibs.db'}",
                                           for_reads=for_reads)
        try:
            with engine.connect() as connection:
                assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
                assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
                assert connection.exec_driver_sql("PRAGMA synchronous").scalar() == 2
        finally:
            engine.dispose()


def test_a_sqlite_file_gets_one_write_connection_and_read_connections_that_cannot_write(
        tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'fibs.db'}"
    writer = create_sqlite_file_engine(url, for_reads=False)
    reader = create_sqlite_file_engine(url, for_reads=True)
    try:
        assert writer.pool.size() == 1 and reader.pool.size() > 1
        with writer.begin() as connection:
            connection.exec_driver_sql("CREATE TABLE t (x INTEGER)")
        with reader.begin() as connection:
            assert connection.exec_driver_sql("SELECT count(*) FROM t").scalar() == 0
            with pytest.raises(OperationalError, match="readonly"):
                connection.exec_driver_sql("INSERT INTO t VALUES (1)")
    finally:
        reader.dispose()
        writer.dispose()


@pytest.mark.parametrize("url, in_a_file", [
    ("sqlite:///fibs.db", True), ("sqlite+aiosqlite:////var/lib/fibs/fibs.db", True),
    ("sqlite:///:memory:", False), ("sqlite+aiosqlite://", False),
    ("postgresql://fibs@localhost/fibs", False),
])
def test_only_a_sqlite_file_gets_the_stores_threads(url, in_a_file):
    # PostgreSQL's async pool already reads concurrently; an in-memory SQLite database
    # lives on one connection (tests/store/test_reads.py).
    assert is_sqlite_file(url) is in_a_file
