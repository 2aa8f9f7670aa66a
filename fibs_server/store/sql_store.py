"""The lobby's AccountStore, MatchStore and ChatRecords on SQLAlchemy (SQLite or
PostgreSQL), in one object: SqlStore."""
from __future__ import annotations

import time
from collections.abc import Callable

from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from fibs_server.store.account_store import SqlAccountStore
from fibs_server.store.analysis_store import SqlAnalysisStore
from fibs_server.store.chat_store import ChatStore
from fibs_server.store.database import (
    create_database_engine,
    create_sqlite_file_engine,
    is_sqlite_file,
)
from fibs_server.store.group_commit import GroupCommit
from fibs_server.store.match_store import SqlMatchStore
from fibs_server.store.models import NodeLinkRow
from fibs_server.store.tournament_store import TournamentStore
from fibs_server.store.transactions import AsyncTransactions, ThreadTransactions, Transactions


class SqlStore(SqlAccountStore, SqlMatchStore, ChatStore, SqlAnalysisStore, TournamentStore):
    """Accounts and matches in a database whose schema is already migrated.

    Every method runs one short transaction and commits it before returning (concurrent
    account and match-state updates and match creations share one: see GroupCommit).
    Methods that only read run on `reads` (by default `writes` itself), so that on SQLite
    they need not wait for the write connection. Methods that change a record that does not
    exist raise LookupError.

    The methods are the mixins': accounts (account_store.py), matches (match_store.py) and
    talking and moderation (chat_store.py), match analyses (analysis_store.py), tournaments
    (tournament_store.py). SqlStore holds what they share.
    """

    def __init__(self, writes: Transactions, clock: Callable[[], float] = time.time, *,
                 reads: Transactions | None = None) -> None:
        self._writes = writes
        self._reads = reads or writes
        self._clock = clock
        self._updates = GroupCommit(writes)
        self._moved_games: dict[int, int] = {}  # see SqlMatchStore
        self._finished_matches_queued = None  # see SqlAnalysisStore

    @classmethod
    async def open(cls, url: str, clock: Callable[[], float] = time.time) -> SqlStore:
        """Connect to the database at `url` (plain or async form); does not migrate it.
        Connects once now, so a wrong URL fails at start rather than on first use. A SQLite
        file is read and written in threads (store/transactions.py), anything else through
        its async driver."""
        if is_sqlite_file(url):
            store = cls(ThreadTransactions(create_sqlite_file_engine(url, for_reads=False),
                                           name="writer"), clock,
                        reads=ThreadTransactions(create_sqlite_file_engine(url, for_reads=True),
                                                 name="reader"))
        else:
            store = cls(AsyncTransactions(create_database_engine(url)), clock)
        try:
            await store._writes.run(_connect)
        except BaseException:
            await store.close()
            raise
        return store

    async def answers(self) -> None:
        """A trivial query on the read connections (`/readyz`); raises if the store fails."""
        await self._reads.run(_select_one)

    # --- a witness of the nodes' links (fibs_server/readiness.py), on the database's clock ------

    async def note_link(self, link: str, node: str) -> None:
        """`node` found `link` working just now."""
        def note(session: Session) -> None:
            now = session.execute(text(_NOW[_dialect(session)])).scalar_one()
            row = session.get(NodeLinkRow, (node, link))
            if row is None:
                session.add(NodeLinkRow(node=node, link=link, seen_at=now))
            else:
                row.seen_at = now
        await self._writes.run(note)

    async def witness_time(self) -> float:
        def now(session: Session) -> float:
            return float(session.execute(text(_NOW[_dialect(session)])).scalar_one())
        return await self._reads.run(now)

    async def links_noted_since(self, link: str, since: float, other_than: str) -> int:
        """How many nodes but `other_than` found `link` working after `since`."""
        def count(session: Session) -> int:
            return session.execute(select(func.count()).where(
                NodeLinkRow.link == link, NodeLinkRow.seen_at > since,
                NodeLinkRow.node != other_than)).scalar_one()
        return await self._reads.run(count)

    async def close(self) -> None:
        if self._reads is not self._writes:
            await self._reads.close()
        await self._writes.close()

    def _now(self) -> int:
        return int(self._clock())


def _connect(session: Session) -> None:
    session.connection()


# The database's clock, in seconds since the epoch.
_NOW = {"postgresql": "SELECT EXTRACT(EPOCH FROM clock_timestamp())",
        "sqlite": "SELECT (julianday('now') - 2440587.5) * 86400.0"}


def _dialect(session: Session) -> str:
    return session.get_bind().dialect.name


def _select_one(session: Session) -> None:
    session.execute(text("SELECT 1"))
