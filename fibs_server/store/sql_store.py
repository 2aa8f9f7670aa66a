"""The lobby's AccountStore and MatchStore on SQLAlchemy (SQLite or PostgreSQL)."""
from __future__ import annotations

import asyncio
import dataclasses
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from sqlalchemy import (
    Column,
    ColumnElement,
    Table,
    Update,
    and_,
    bindparam,
    delete,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
)

from fibs_server.lobby.accounts import (
    SETTING_DEFAULTS,
    TOGGLE_DEFAULTS,
    UPDATABLE_FIELDS,
    Account,
    NameTaken,
)
from fibs_server.lobby.match_records import MatchRecord, RatingUpdate
from fibs_server.store.chat_store import ChatStore
from fibs_server.store.database import create_database_engine, create_read_engine
from fibs_server.store.models import AccountRow, MatchGameRow, MatchRow, name_key

T = TypeVar("T")

_ACCOUNT_FIELDS = [field.name for field in dataclasses.fields(Account)]

_ACCOUNTS = AccountRow.__table__
_MATCHES = MatchRow.__table__
_MATCH_GAMES = MatchGameRow.__table__


class SqlStore(ChatStore):
    """Accounts and matches in a database whose schema is already migrated.

    Every method runs one short transaction and commits it before returning (concurrent
    account and match-state updates and match creations share one: see GroupCommit).
    Methods that only read run on `read_engine` (by default `engine` itself), so that on
    SQLite they need not wait for the write connection. Accounts are found by name ignoring
    letter case; matches name their players exactly as the accounts spell them. Methods that
    change a record that does not exist raise LookupError.

    A match's finished games are written once, as rows of match_games, and each save writes
    only the state with the current game's history (see MatchRow.moved_games); reads put the
    whole history back together.
    """

    def __init__(self, engine: AsyncEngine, clock: Callable[[], float] = time.time, *,
                 read_engine: AsyncEngine | None = None) -> None:
        self._engine = engine
        self._read_engine = read_engine or engine
        self._sessions = async_sessionmaker(engine, expire_on_commit=False)
        self._read_sessions = async_sessionmaker(self._read_engine, expire_on_commit=False)
        self._clock = clock
        self._updates = GroupCommit(engine)
        # Per match saved since start, how many of its games are surely in match_games, so a
        # save sends only the games finished since. Never more than are there: it is set
        # after a commit. Unknown (after a restart) counts as none: the next save sends every
        # finished game once, and the rows already there are kept.
        self._moved_games: dict[int, int] = {}

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

    # AccountStore

    async def find_account(self, name: str) -> Account | None:
        async with self._read_sessions.begin() as session:
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
        await self._updates.update(ACCOUNTS_BY_NAME_KEY, name_key(name), changes,
                                   missing=_no_account(name))

    async def rated_accounts(self, min_experience: int) -> list[Account]:
        async with self._read_sessions.begin() as session:
            rows = await session.scalars(
                select(AccountRow)
                .where(AccountRow.experience >= min_experience)
                .order_by(AccountRow.rating.desc(), AccountRow.name_key))
            return [_account_from_row(row) for row in rows]

    # MatchStore

    async def create_match(self, player_a: str, player_b: str, length: int | None,
                           state: dict[str, Any]) -> int:
        now = self._now()
        stored = _StoredState.of(state, moved_already=0)
        new_match = insert(_MATCHES).values(
            player_a=player_a, player_b=player_b, length=length, state=stored.state,
            moved_games=stored.moved_games, finished=False, started_at=now, updated_at=now)

        # Group-committed: with a transaction each, 1,000 match starts at once queued on the one
        # SQLite connection past its 30 s checkout timeout (docs/PERFORMANCE.md, "Limits").
        async def insert_match(connection: AsyncConnection) -> int:
            result = await connection.execute(new_match)
            match_id = result.inserted_primary_key[0]
            await RUNNING_MATCHES_BY_ID.add_dependents(connection, stored.game_rows(match_id))
            return match_id
        match_id = await self._updates.run(insert_match)
        self._moved_games[match_id] = stored.moved_games
        return match_id

    async def save_match_state(self, match_id: int, state: dict[str, Any]) -> None:
        stored = _StoredState.of(state, moved_already=self._moved_games.get(match_id, 0))
        await self._updates.update(
            RUNNING_MATCHES_BY_ID, match_id,
            {"state": stored.state, "moved_games": stored.moved_games,
             "updated_at": self._now()},
            missing=_no_running_match(match_id), dependents=stored.game_rows(match_id))
        self._moved_games[match_id] = stored.moved_games

    async def finish_match(self, match_id: int, state: dict[str, Any], winner: str | None,
                           ratings: list[RatingUpdate]) -> None:
        now = self._now()
        stored = _StoredState.of(state, moved_already=self._moved_games.get(match_id, 0))
        async with self._engine.begin() as connection:
            await RUNNING_MATCHES_BY_ID.update_one(
                connection, match_id, {"state": stored.state, "moved_games": stored.moved_games,
                                       "finished": True, "winner": winner,
                                       "finished_at": now, "updated_at": now},
                missing=_no_running_match(match_id))
            # After the update: a match that is not running gets no games.
            await RUNNING_MATCHES_BY_ID.add_dependents(connection, stored.game_rows(match_id))
            for rating in ratings:
                await ACCOUNTS_BY_NAME_KEY.update_one(
                    connection, name_key(rating.name),
                    {"rating": rating.rating, "experience": rating.experience},
                    missing=_no_account(rating.name))
        self._moved_games.pop(match_id, None)  # it is saved no more

    async def running_match(self, name_a: str, name_b: str) -> MatchRecord | None:
        between = or_(and_(MatchRow.player_a == name_a, MatchRow.player_b == name_b),
                      and_(MatchRow.player_a == name_b, MatchRow.player_b == name_a))
        async with self._read_sessions.begin() as session:
            row = await session.scalar(
                select(MatchRow).where(~MatchRow.finished, between)
                .order_by(MatchRow.id.desc()).limit(1))
            return None if row is None else (await _records(session, [row]))[0]

    async def running_matches(self, name: str) -> list[MatchRecord]:
        async with self._read_sessions.begin() as session:
            rows = await session.scalars(
                select(MatchRow).where(~MatchRow.finished, _plays_in(name))
                .order_by(MatchRow.id))
            return await _records(session, rows.all())

    async def delete_match(self, match_id: int) -> None:
        """Delete the running match `match_id`; finished matches stay in the archive, and
        deleting a match that is already gone does nothing."""
        async with self._sessions.begin() as session:
            # Its rows of match_games go with it (ON DELETE CASCADE).
            await session.execute(
                delete(MatchRow).where(MatchRow.id == match_id, ~MatchRow.finished))
        self._moved_games.pop(match_id, None)

    async def finished_matches(self, name: str, limit: int) -> list[MatchRecord]:
        async with self._read_sessions.begin() as session:
            rows = await session.scalars(
                select(MatchRow).where(MatchRow.finished, _plays_in(name))
                .order_by(MatchRow.finished_at.desc(), MatchRow.id.desc()).limit(limit))
            return await _records(session, rows.all())

    async def match_by_id(self, match_id: int) -> MatchRecord | None:
        """Any stored match, running or finished (`fibs-server export-match`)."""
        async with self._read_sessions.begin() as session:
            row = await session.get(MatchRow, match_id)
            return None if row is None else (await _records(session, [row]))[0]


@dataclasses.dataclass
class _StoredState:
    """How a match state is stored: every game of its history but the last (the one being
    played, or just ended) in match_games, the state holding the rest. A state without
    history (not a rules-engine match) is stored as it is."""
    state: dict[str, Any]
    moved_games: int
    new_games: dict[int, list[dict[str, Any]]]  # by game index: those not moved already

    @classmethod
    def of(cls, state: dict[str, Any], *, moved_already: int) -> _StoredState:
        if "history" not in state:
            return cls(state, 0, {})
        history = state["history"]
        moved = max(len(history) - 1, 0)
        return cls({**state, "history": history[moved:]}, moved,
                   {index: history[index] for index in range(moved_already, moved)})

    def game_rows(self, match_id: int) -> list[dict[str, Any]]:
        return [{"match_id": match_id, "game_index": index, "events": events}
                for index, events in self.new_games.items()]


async def _records(session: AsyncSession, rows: Sequence[MatchRow]) -> list[MatchRecord]:
    """`rows` as records, each state with its whole history: the games moved to match_games
    put back in front of those the state holds."""
    moved = {row.id: row.moved_games for row in rows if row.moved_games}
    games: defaultdict[int, list[list[dict[str, Any]]]] = defaultdict(list)
    if moved:
        found = await session.execute(
            select(MatchGameRow.match_id, MatchGameRow.game_index, MatchGameRow.events)
            .where(MatchGameRow.match_id.in_(moved))
            .order_by(MatchGameRow.match_id, MatchGameRow.game_index))
        for match_id, game_index, events in found:
            # On PostgreSQL each statement reads the latest commit: a save since the match's
            # row was read may have added games that its state still holds.
            if game_index < moved[match_id]:
                games[match_id].append(events)
    return [_record_from_row(row, games.get(row.id, [])) for row in rows]


# The bind parameter that names the row a RowsByKey statement updates: not a column of any
# table, so SQLAlchemy does not take it for a value to set.
_ROW_KEY = "row_key"


class RowsByKey:
    """A table's rows as GroupCommit and finish_match update them: one at a time, picked by
    `key`, among those `conditions` allow (only running matches, say). The statement is Core,
    not ORM-enabled (which cost about 1 ms of the event loop per update), and sets the columns
    named by each update's values."""

    def __init__(self, key: Column[Any], *conditions: ColumnElement[bool],
                 dependents: Table | None = None) -> None:
        self._statement: Update = update(key.table).where(key == bindparam(_ROW_KEY),
                                                          *conditions)
        # Rows of `dependents` belong to these rows and never change once written, so adding
        # one that is already there keeps it (a save may send a game stored before).
        self._add_dependents = None if dependents is None else {
            "sqlite": sqlite.insert(dependents).on_conflict_do_nothing(),
            "postgresql": postgresql.insert(dependents).on_conflict_do_nothing()}

    async def update_one(self, connection: AsyncConnection, key: Any, values: dict[str, Any],
                         *, missing: str) -> None:
        """Set `values` on the row `key` picks; LookupError(missing) if there is none."""
        result = await connection.execute(self._statement, {_ROW_KEY: key, **values})
        if result.rowcount == 0:
            raise LookupError(missing)

    async def update_many(self, connection: AsyncConnection,
                          values_by_key: dict[Any, dict[str, Any]]) -> list[Any]:
        """Set each row's values, all of them setting the same columns, as one executemany
        where the driver counts its rows (not asyncpg: there, one statement each). Returns
        the keys of the rows that are missing."""
        parameters = [{_ROW_KEY: key, **values} for key, values in values_by_key.items()]
        if len(parameters) > 1 and connection.dialect.supports_sane_multi_rowcount:
            result = await connection.execute(self._statement, parameters)
            if result.rowcount == len(parameters):
                return []
            # Some row is missing: running the updates again one at a time finds which (each
            # sets the same values again, so this changes nothing more).
        missing = []
        for one in parameters:
            if (await connection.execute(self._statement, one)).rowcount == 0:
                missing.append(one[_ROW_KEY])
        return missing

    async def add_dependents(self, connection: AsyncConnection,
                             new_rows: Sequence[dict[str, Any]]) -> None:
        """Insert `new_rows` into the dependent table (one executemany), keeping any row
        already there."""
        if new_rows:
            assert self._add_dependents is not None
            await connection.execute(self._add_dependents[connection.dialect.name], new_rows)


ACCOUNTS_BY_NAME_KEY = RowsByKey(_ACCOUNTS.c.name_key)
RUNNING_MATCHES_BY_ID = RowsByKey(_MATCHES.c.id, ~_MATCHES.c.finished, dependents=_MATCH_GAMES)


class GroupCommit:
    """Updates that arrive while a transaction commits share the next transaction and its one
    sync to disk; each caller still returns (with what its update returned) only once its own
    change is committed. With `synchronous=FULL` a commit costs about 2 ms here, so a
    transaction each would cap the server at a few hundred moves a second
    (docs/PERFORMANCE.md, "Load").

    Row updates (`update`) are Core statements: a transaction's updates of one row are
    merged, later values winning, and those that then set the same columns are one
    executemany. An update may bring rows of its table's dependents (a match's finished
    games), added in the same transaction only if its row was updated. An update of a missing
    row fails alone, with LookupError, as does an action
    (`run`) that raises LookupError having changed nothing; any other failure fails every
    caller in the transaction, with the same error."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._pending: list[_Action | _RowUpdate] = []
        self._writer: asyncio.Task[None] | None = None

    async def run(self, action: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        """Run `action` in the next transaction; returns what it returned."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._enqueue(_Action(action, future))
        return await future

    async def update(self, rows: RowsByKey, key: Any, values: dict[str, Any], *,
                     missing: str, dependents: Sequence[dict[str, Any]] = ()) -> None:
        """Set `values` on the row of `rows` that `key` picks and add its `dependents`, in
        the next transaction; LookupError(missing) if there is none."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._enqueue(_RowUpdate(rows, key, values, missing, dependents, future))
        await future

    def _enqueue(self, work: _Action | _RowUpdate) -> None:
        self._pending.append(work)
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_pending())

    async def _write_pending(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            actions = [work for work in batch if isinstance(work, _Action)]
            row_updates = [work for work in batch if isinstance(work, _RowUpdate)]
            results: dict[asyncio.Future[Any], Any] = {}
            try:
                async with self._engine.begin() as connection:
                    for action in actions:
                        try:
                            results[action.future] = await action.run(connection)
                        except LookupError as missing:  # changed nothing: fails alone
                            _fail(action.future, missing)
                    for row_update in await _write_row_updates(connection, row_updates):
                        _fail(row_update.future, LookupError(row_update.missing))
            except Exception as error:  # the whole batch failed: every caller hears why
                for work in batch:
                    _fail(work.future, error)
                continue
            for work in batch:
                if not work.future.done():
                    work.future.set_result(results.get(work.future))


@dataclasses.dataclass(eq=False)
class _Action:
    run: Callable[[AsyncConnection], Awaitable[Any]]
    future: asyncio.Future[Any]


@dataclasses.dataclass(eq=False)
class _RowUpdate:
    rows: RowsByKey
    key: Any
    values: dict[str, Any]
    missing: str
    dependents: Sequence[dict[str, Any]]
    future: asyncio.Future[None]


async def _write_row_updates(connection: AsyncConnection,
                             row_updates: list[_RowUpdate]) -> list[_RowUpdate]:
    """Write `row_updates`, those of one row merged and those then setting the same columns
    of the same table at once, then the dependents of those whose row is there; returns the
    ones whose row is missing."""
    by_row: defaultdict[tuple[RowsByKey, Any], list[_RowUpdate]] = defaultdict(list)
    for row_update in row_updates:
        by_row[row_update.rows, row_update.key].append(row_update)
    by_columns: defaultdict[tuple[RowsByKey, frozenset[str]], dict[Any, dict[str, Any]]] = \
        defaultdict(dict)
    for (rows, key), updates_of_row in by_row.items():
        values = {column: value for row_update in updates_of_row  # later values win
                  for column, value in row_update.values.items()}
        by_columns[rows, frozenset(values)][key] = values
    missing = []
    for (rows, _), values_by_key in by_columns.items():
        for key in await rows.update_many(connection, values_by_key):
            missing.extend(by_row[rows, key])
    missing_rows = set(missing)
    dependents: defaultdict[RowsByKey, list[dict[str, Any]]] = defaultdict(list)
    for row_update in row_updates:
        if row_update not in missing_rows:
            dependents[row_update.rows].extend(row_update.dependents)
    for rows, new_rows in dependents.items():
        await rows.add_dependents(connection, new_rows)
    return missing


def _fail(future: asyncio.Future[Any], error: BaseException) -> None:
    if not future.done():  # its caller may have been cancelled
        future.set_exception(error)


def _no_account(name: str) -> str:
    return f"no account named {name!r}"


def _no_running_match(match_id: int) -> str:
    return f"no running match with id {match_id}"


def _plays_in(name: str) -> ColumnElement[bool]:
    return or_(MatchRow.player_a == name, MatchRow.player_b == name)


def _account_from_row(row: AccountRow) -> Account:
    account = Account(**{field: getattr(row, field) for field in _ACCOUNT_FIELDS})
    # A toggle or setting added after the account was saved gets its default.
    account.toggles = {**TOGGLE_DEFAULTS, **account.toggles}
    account.settings = {**SETTING_DEFAULTS, **account.settings}
    return account


def _record_from_row(row: MatchRow, moved_games: list[list[dict[str, Any]]]) -> MatchRecord:
    state = row.state
    if moved_games:
        state = {**state, "history": [*moved_games, *state["history"]]}
    return MatchRecord(match_id=row.id, player_a=row.player_a, player_b=row.player_b,
                       length=row.length, state=state, finished=row.finished,
                       winner=row.winner, started_at=row.started_at,
                       finished_at=row.finished_at)
