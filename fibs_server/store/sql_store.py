"""The lobby's AccountStore and MatchStore on SQLAlchemy (SQLite or PostgreSQL)."""
from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, and_, delete, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from fibs_server.lobby.accounts import (
    SETTING_DEFAULTS,
    TOGGLE_DEFAULTS,
    UPDATABLE_FIELDS,
    Account,
    NameTaken,
)
from fibs_server.lobby.match_records import MatchRecord, RatingUpdate
from fibs_server.store.chat_store import ChatStore
from fibs_server.store.database import create_database_engine
from fibs_server.store.models import AccountRow, MatchRow, name_key

T = TypeVar("T")

_ACCOUNT_FIELDS = [field.name for field in dataclasses.fields(Account)]


class SqlStore(ChatStore):
    """Accounts and matches in a database whose schema is already migrated.

    Every method runs one short transaction and commits it before returning (concurrent
    account and match-state updates share one: see GroupCommit). Accounts are
    found by name ignoring letter case; matches name their players exactly as the accounts
    spell them. Methods that change a record that does not exist raise LookupError.
    """

    def __init__(self, engine: AsyncEngine, clock: Callable[[], float] = time.time) -> None:
        self._engine = engine
        self._sessions = async_sessionmaker(engine, expire_on_commit=False)
        self._clock = clock
        self._updates = GroupCommit(self._sessions)

    @classmethod
    async def open(cls, url: str, clock: Callable[[], float] = time.time) -> SqlStore:
        """Connect to the database at `url` (plain or async form); does not migrate it.
        Connects once now, so a wrong URL fails at start rather than on first use."""
        engine = create_database_engine(url)
        try:
            async with engine.connect():
                pass
        except BaseException:
            await engine.dispose()
            raise
        return cls(engine, clock)

    async def close(self) -> None:
        await self._engine.dispose()

    def _now(self) -> int:
        return int(self._clock())

    # AccountStore

    async def find_account(self, name: str) -> Account | None:
        async with self._sessions.begin() as session:
            row = await session.scalar(
                select(AccountRow).where(AccountRow.name_key == name_key(name)))
            return None if row is None else _account_from_row(row)

    async def create_account(self, account: Account) -> None:
        row = AccountRow(name_key=name_key(account.name), **dataclasses.asdict(account))
        try:
            async with self._sessions.begin() as session:
                session.add(row)
        except IntegrityError as error:
            # The only unique columns are name and name_key; relying on the constraint
            # (rather than looking first) also catches two registrations racing.
            raise NameTaken(account.name) from error

    async def update_account(self, name: str, **changes: object) -> None:
        unknown = sorted(changes.keys() - UPDATABLE_FIELDS)
        if unknown:
            raise ValueError(f"account fields that cannot be updated: {', '.join(unknown)}")
        if not changes:
            return
        await self._updates.run(lambda session: _update_account_row(session, name, changes))

    async def rated_accounts(self, min_experience: int) -> list[Account]:
        async with self._sessions.begin() as session:
            rows = await session.scalars(
                select(AccountRow)
                .where(AccountRow.experience >= min_experience)
                .order_by(AccountRow.rating.desc(), AccountRow.name_key))
            return [_account_from_row(row) for row in rows]

    # MatchStore

    async def create_match(self, player_a: str, player_b: str, length: int | None,
                           state: dict[str, Any]) -> int:
        now = self._now()
        row = MatchRow(player_a=player_a, player_b=player_b, length=length, state=state,
                       finished=False, started_at=now, updated_at=now)

        # Group-committed: with a transaction each, 1,000 match starts at once queued on the one
        # SQLite connection past its 30 s checkout timeout (docs/PERFORMANCE.md, "Limits").
        async def insert(session: AsyncSession) -> int:
            session.add(row)
            await session.flush()
            return row.id
        return await self._updates.run(insert)

    async def save_match_state(self, match_id: int, state: dict[str, Any]) -> None:
        now = self._now()
        await self._updates.run(lambda session: _update_running_match(
            session, match_id, state=state, updated_at=now))

    async def finish_match(self, match_id: int, state: dict[str, Any], winner: str | None,
                           ratings: list[RatingUpdate]) -> None:
        now = self._now()
        async with self._sessions.begin() as session:
            await _update_running_match(session, match_id, state=state, finished=True,
                                        winner=winner, finished_at=now, updated_at=now)
            for rating in ratings:
                await _update_account_row(
                    session, rating.name,
                    {"rating": rating.rating, "experience": rating.experience})

    async def running_match(self, name_a: str, name_b: str) -> MatchRecord | None:
        between = or_(and_(MatchRow.player_a == name_a, MatchRow.player_b == name_b),
                      and_(MatchRow.player_a == name_b, MatchRow.player_b == name_a))
        async with self._sessions.begin() as session:
            row = await session.scalar(
                select(MatchRow).where(~MatchRow.finished, between)
                .order_by(MatchRow.id.desc()).limit(1))
            return None if row is None else _record_from_row(row)

    async def running_matches(self, name: str) -> list[MatchRecord]:
        async with self._sessions.begin() as session:
            rows = await session.scalars(
                select(MatchRow).where(~MatchRow.finished, _plays_in(name))
                .order_by(MatchRow.id))
            return [_record_from_row(row) for row in rows]

    async def delete_match(self, match_id: int) -> None:
        """Delete the running match `match_id`; finished matches stay in the archive, and
        deleting a match that is already gone does nothing."""
        async with self._sessions.begin() as session:
            await session.execute(
                delete(MatchRow).where(MatchRow.id == match_id, ~MatchRow.finished))

    async def finished_matches(self, name: str, limit: int) -> list[MatchRecord]:
        async with self._sessions.begin() as session:
            rows = await session.scalars(
                select(MatchRow).where(MatchRow.finished, _plays_in(name))
                .order_by(MatchRow.finished_at.desc(), MatchRow.id.desc()).limit(limit))
            return [_record_from_row(row) for row in rows]

    async def match_by_id(self, match_id: int) -> MatchRecord | None:
        """Any stored match, running or finished (`fibs-server export-match`)."""
        async with self._sessions.begin() as session:
            row = await session.get(MatchRow, match_id)
            return None if row is None else _record_from_row(row)


class GroupCommit:
    """Updates that arrive while a transaction commits share the next transaction and its one
    sync to disk; each caller still returns (with what its update returned) only once its own
    change is committed. With `synchronous=FULL` a commit costs about 2 ms here, so a
    transaction each would cap the server at a few hundred moves a second
    (docs/PERFORMANCE.md, "Load")."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions
        self._pending: list[tuple[Callable[[AsyncSession], Awaitable[Any]],
                                  asyncio.Future[Any]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def run(self, update: Callable[[AsyncSession], Awaitable[T]]) -> T:
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._pending.append((update, future))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_pending())
        return await future

    async def _write_pending(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            results: dict[asyncio.Future[Any], Any] = {}
            try:
                async with self._sessions.begin() as session:
                    for update, future in batch:
                        try:
                            results[future] = await update(session)
                        except LookupError as missing:  # changed nothing: fails alone
                            if not future.done():
                                future.set_exception(missing)
            except Exception as error:  # the whole batch failed: every caller hears why
                for _, future in batch:
                    if not future.done():
                        future.set_exception(error)
                continue
            for _, future in batch:
                if not future.done():
                    future.set_result(results.get(future))


async def _update_account_row(session: AsyncSession, name: str, values: dict[str, Any]) -> None:
    result = await session.execute(
        update(AccountRow).where(AccountRow.name_key == name_key(name)).values(values))
    if result.rowcount == 0:
        raise LookupError(f"no account named {name!r}")


async def _update_running_match(session: AsyncSession, match_id: int, **values: Any) -> None:
    result = await session.execute(
        update(MatchRow).where(MatchRow.id == match_id, ~MatchRow.finished).values(values))
    if result.rowcount == 0:
        raise LookupError(f"no running match with id {match_id}")


def _plays_in(name: str) -> ColumnElement[bool]:
    return or_(MatchRow.player_a == name, MatchRow.player_b == name)


def _account_from_row(row: AccountRow) -> Account:
    account = Account(**{field: getattr(row, field) for field in _ACCOUNT_FIELDS})
    # A toggle or setting added after the account was saved gets its default.
    account.toggles = {**TOGGLE_DEFAULTS, **account.toggles}
    account.settings = {**SETTING_DEFAULTS, **account.settings}
    return account


def _record_from_row(row: MatchRow) -> MatchRecord:
    return MatchRecord(match_id=row.id, player_a=row.player_a, player_b=row.player_b,
                       length=row.length, state=row.state, finished=row.finished,
                       winner=row.winner, started_at=row.started_at,
                       finished_at=row.finished_at)
