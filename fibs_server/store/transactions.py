"""Where the store's transactions run. Every store method is a plain function of a sync
`Session` (a unit of work); a Transactions object runs it in one transaction, committed
before `run` returns, and gives back what it returned.

- ThreadTransactions (a SQLite file): the sqlite3 driver in threads of its own. A
  transaction is one trip from the event loop and back, whatever it does. Through
  aiosqlite, every statement was three or four trips (cursor, execute, fetch, close), each
  waiting for a turn of a busy loop: a move's save took 10 of them, a finished match 16
  (docs/PERFORMANCE.md, "Eighth session").
- AsyncTransactions (PostgreSQL, an in-memory SQLite database): the async driver, with the
  unit of work run through SQLAlchemy's greenlet bridge (`run_sync`).
"""
from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from sqlalchemy.engine import Connection, Engine
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker
from sqlalchemy.orm import Session

from fibs_server.lobby.metrics import STORE_SECONDS

T = TypeVar("T")
Work = Callable[[Session], T]


class ThreadTransactions:
    """Units of work on a sync engine, in as many threads as its pool has connections (one
    for SQLite's one writer, so its transactions queue in order for that thread).

    A unit of work already handed to a thread runs to its end even if its caller is
    cancelled, as a statement already sent to a database server would.

    Each thread keeps one of the pool's connections from its first transaction until `close`:
    taking it from the pool and giving it back (with the pool's rollback) at every
    transaction cost a tenth of a millisecond of CPU, a third of an empty transaction's."""

    def __init__(self, engine: Engine, name: str) -> None:
        self.engine = engine  # the engine whose events see every statement (tests hook it)
        self._threads = ThreadPoolExecutor(engine.pool.size(),  # type: ignore[attr-defined]
                                           thread_name_prefix=f"fibs-store-{name}")
        self._held = threading.local()  # its thread's connection
        self._connections: list[Connection] = []  # all the threads', for `close`

    async def run(self, work: Work[T]) -> T:
        # Timed here, on the loop's thread, so that the histogram needs no lock.
        started = time.monotonic()
        try:
            return await asyncio.get_running_loop().run_in_executor(self._threads, self._run,
                                                                    work)
        finally:
            STORE_SECONDS.observe(time.monotonic() - started)

    def _run(self, work: Work[T]) -> T:
        # A session on a connection not in a transaction begins one and commits it.
        with Session(self._connection(), expire_on_commit=False) as session, session.begin():
            return work(session)

    def _connection(self) -> Connection:
        connection: Connection | None = getattr(self._held, "connection", None)
        if connection is None:
            connection = self._held.connection = self.engine.connect()
            self._connections.append(connection)
        return connection

    async def close(self) -> None:
        """Close the connections once the work already queued is done."""
        await asyncio.to_thread(self._close)

    def _close(self) -> None:
        self._threads.shutdown()  # waits for the work queued
        for connection in self._connections:
            connection.close()
        self.engine.dispose()


class AsyncTransactions:
    """Units of work on an async engine, each statement awaited through `run_sync`."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.async_engine = engine
        self.engine = engine.sync_engine  # see ThreadTransactions.engine
        self._sessions = async_sessionmaker(engine, expire_on_commit=False)

    async def run(self, work: Work[T]) -> T:
        started = time.monotonic()
        try:
            async with self._sessions.begin() as session:
                return await session.run_sync(work)
        finally:
            STORE_SECONDS.observe(time.monotonic() - started)

    async def close(self) -> None:
        await self.async_engine.dispose()


Transactions = ThreadTransactions | AsyncTransactions
