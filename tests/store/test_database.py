from pathlib import Path

import pytest
from sqlalchemy.pool import NullPool

from fibs_server.store import async_database_url, create_database_engine


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
