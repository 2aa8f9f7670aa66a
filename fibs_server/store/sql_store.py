"""The lobby's AccountStore, MatchStore and ChatRecords on SQLAlchemy (SQLite or
PostgreSQL), in one object: SqlStore."""
from __future__ import annotations

import time
from collections.abc import Callable

from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker

from fibs_server.store.account_store import SqlAccountStore
from fibs_server.store.chat_store import ChatStore
from fibs_server.store.database import create_database_engine, create_read_engine
from fibs_server.store.group_commit import GroupCommit
from fibs_server.store.match_store import SqlMatchStore


class SqlStore(SqlAccountStore, SqlMatchStore, ChatStore):
    """Accounts and matches in a database whose schema is already migrated.

    Every method runs one short transaction and commits it before returning (concurrent
    account and match-state updates and match creations share one: see GroupCommit).
    Methods that only read run on `read_engine` (by default `engine` itself), so that on
    SQLite they need not wait for the write connection. Methods that change a record that
    does not exist raise LookupError.

    The methods are the mixins': accounts (account_store.py), matches (match_store.py) and
    talking and moderation (chat_store.py). SqlStore holds what they share.
    """

    def __init__(self, engine: AsyncEngine, clock: Callable[[], float] = time.time, *,
                 read_engine: AsyncEngine | None = None) -> None:
        self._engine = engine
        self._read_engine = read_engine or engine
        self._sessions = async_sessionmaker(engine, expire_on_commit=False)
        self._read_sessions = async_sessionmaker(self._read_engine, expire_on_commit=False)
        self._clock = clock
        self._updates = GroupCommit(engine)
        self._moved_games: dict[int, int] = {}  # see SqlMatchStore

    @classmethod
    async def open(cls, url: str, clock: Callable[[], float] = time.time) -> SqlStore:
        """Connect to the database at `url` (plain or async form); does not migrate it.
        Connects once now, so a wrong URL fails at start rather than on first use."""
        engine = create_database_engine(url)
        read_engine = create_read_engine(url)
        try:
            async with engine.connect():
                pass
        except BaseException:
            if read_engine is not None:
                await read_engine.dispose()
            await engine.dispose()
            raise
        return cls(engine, clock, read_engine=read_engine)

    async def close(self) -> None:
        if self._read_engine is not self._engine:
            await self._read_engine.dispose()
        await self._engine.dispose()

    def _now(self) -> int:
        return int(self._clock())
