"""Connecting to the database: the URL forms we accept and the engines behind them: async
ones for PostgreSQL (and migrations), sync ones in threads of their own for a SQLite file
(store/transactions.py says why)."""
from __future__ import annotations

from typing import Any

import orjson
from sqlalchemy import create_engine, event, make_url
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

# Connections for reads from a SQLite file (create_sqlite_file_engine): enough that a few
# reads at once do not queue behind each other; each has a thread (ThreadTransactions).
SQLITE_READ_CONNECTIONS = 4


def async_database_url(url: str) -> str:
    """`url` with its async driver: sqlite:// -> sqlite+aiosqlite://,
    postgresql:// -> postgresql+asyncpg://; URLs naming a driver pass through unchanged."""
    scheme, separator, rest = url.partition("://")
    if not separator:
        raise ValueError(f"not a database URL: {url!r}")
    return f"{_ASYNC_SCHEMES.get(scheme, scheme)}://{rest}"


def _json_text(value: Any) -> str:
    # Each action stores its match's state: with 1,000 matches running, the standard json
    # module's encoding took a tenth of the event loop.
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


_JSON_CODEC = {"json_serializer": _json_text, "json_deserializer": orjson.loads}


def create_database_engine(url: str, **engine_options: Any) -> AsyncEngine:
    """An async engine for `url` (plain or async form): the server's for PostgreSQL and an
    in-memory SQLite database; migrations' and tests' for a SQLite file too (the server's
    are create_sqlite_file_engine's)."""
    async_url = async_database_url(url)
    if not async_url.startswith("sqlite"):
        # A server connection that died (a restarted database, a terminated backend) is
        # replaced when next taken from the pool instead of failing the next write.
        engine_options = {"pool_pre_ping": True, **engine_options}
    engine = create_async_engine(async_url, **{**_JSON_CODEC, **engine_options})
    if engine.dialect.name == "sqlite":
        _prepare_sqlite(engine.sync_engine, for_reads=False)
    return engine


def create_sqlite_file_engine(url: str, *, for_reads: bool) -> Engine:
    """A sync engine (the sqlite3 driver) for the SQLite file at `url`, for the store's
    threads: `for_reads`, SQLITE_READ_CONNECTIONS connections whose transactions take no write
    lock (a plain, deferred BEGIN), so that under WAL they read the last commit while the
    writer works; else the one write connection. Each is held by one of the store's threads
    (ThreadTransactions) and closed from another at the end."""
    # SQLite runs one writer at a time, and every write transaction here takes the write lock
    # (BEGIN IMMEDIATE). Connections competing for it poll in SQLite's busy handler, which is
    # unfair: under load some waited past the busy timeout ("database is locked"). One
    # connection makes writes queue in order instead.
    connections = SQLITE_READ_CONNECTIONS if for_reads else 1
    engine = create_engine(make_url(async_database_url(url)).set(drivername="sqlite+pysqlite"),
                           pool_size=connections, max_overflow=0,
                           connect_args={"check_same_thread": False}, **_JSON_CODEC)
    _prepare_sqlite(engine, for_reads=for_reads)
    return engine


def is_sqlite_file(url: str) -> bool:
    """Whether `url` (plain or async form) names a SQLite database in a file."""
    async_url = async_database_url(url)
    in_memory = ":memory:" in async_url or async_url == "sqlite+aiosqlite://"
    return async_url.startswith("sqlite") and not in_memory


def _prepare_sqlite(engine: Engine, *, for_reads: bool) -> None:
    @event.listens_for(engine, "connect")
    def configure_connection(dbapi_connection: Any, _connection_record: Any) -> None:
        # Let SQLAlchemy, not the sqlite3 module, decide when transactions begin
        # (see begin_transaction); sqlite3 would skip BEGIN before SELECT and DDL.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        # WAL lets readers proceed while a writer commits; foreign keys are off by default.
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        # A commit reaches the disk before it returns: an acknowledged action survives power
        # loss (WAL's usual NORMAL would only survive a crash of the process).
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        if for_reads:
            # A write here would be a store method sent to the wrong engine: make it fail
            # rather than upgrade a deferred transaction's read lock (see begin_transaction).
            cursor.execute("PRAGMA query_only=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def begin_transaction(connection: Any) -> None:
        if for_reads:
            # Deferred: takes no lock until it reads, and a WAL reader never waits for the
            # writer. It sees what was committed when it first reads.
            connection.exec_driver_sql("BEGIN")
        else:
            # Taking the write lock up front means two transactions never both hold a read
            # lock and then wait on each other to write (SQLITE_BUSY, which no timeout
            # resolves); instead the later one waits up to the busy timeout. Our transactions
            # are short.
            connection.exec_driver_sql("BEGIN IMMEDIATE")
