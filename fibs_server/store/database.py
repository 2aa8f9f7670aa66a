"""Connecting to the database: the URL forms we accept and the async engine behind them."""
from __future__ import annotations

from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

DEFAULT_DATABASE_URL = "sqlite:///fibs.db"

# Plain URL schemes and the async drivers that serve them.
_ASYNC_SCHEMES = {
    "sqlite": "sqlite+aiosqlite",
    "postgresql": "postgresql+asyncpg",
    "postgres": "postgresql+asyncpg",
}

# How long a SQLite connection waits for another connection's write lock before failing.
SQLITE_BUSY_TIMEOUT_MS = 10_000


def async_database_url(url: str) -> str:
    """`url` with its async driver: sqlite:// -> sqlite+aiosqlite://,
    postgresql:// -> postgresql+asyncpg://; URLs naming a driver pass through unchanged."""
    scheme, separator, rest = url.partition("://")
    if not separator:
        raise ValueError(f"not a database URL: {url!r}")
    return f"{_ASYNC_SCHEMES.get(scheme, scheme)}://{rest}"


def create_database_engine(url: str, **engine_options: Any) -> AsyncEngine:
    """An async engine for `url` (plain or async form), with SQLite set up for concurrent use."""
    async_url = async_database_url(url)
    if (async_url.startswith("sqlite") and "poolclass" not in engine_options
            and ":memory:" not in async_url and async_url != "sqlite+aiosqlite://"):
        # SQLite runs one writer at a time, and every transaction here takes the write lock
        # (BEGIN IMMEDIATE). Connections competing for it poll in SQLite's busy handler, which
        # is unfair: under load some wait past the busy timeout ("database is locked"). One
        # connection makes them queue in order in the pool instead.
        engine_options = {"pool_size": 1, "max_overflow": 0, **engine_options}
    engine = create_async_engine(async_url, **engine_options)
    if engine.dialect.name == "sqlite":
        _prepare_sqlite(engine.sync_engine)
    return engine


def _prepare_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def configure_connection(dbapi_connection: Any, _connection_record: Any) -> None:
        # Let SQLAlchemy, not the sqlite3 module, decide when transactions begin
        # (see begin_immediately); sqlite3 would skip BEGIN before SELECT and DDL.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        # WAL lets readers proceed while a writer commits; foreign keys are off by default.
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        # A commit reaches the disk before it returns: an acknowledged action survives power
        # loss (WAL's usual NORMAL would only survive a crash of the process).
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def begin_immediately(connection: Any) -> None:
        # Taking the write lock up front means two transactions never both hold a read lock
        # and then wait on each other to write (SQLITE_BUSY, which no timeout resolves);
        # instead the later one waits up to the busy timeout. Our transactions are short.
        connection.exec_driver_sql("BEGIN IMMEDIATE")
