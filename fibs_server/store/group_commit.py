"""Writes that share transactions: GroupCommit gathers the updates that arrive while a
transaction commits into the next one, and RowsByKey says how a table's rows are updated one by
one or many at once (docs/STORE.md, "Group commit")."""
from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from sqlalchemy import Column, ColumnElement, Connection, Table, Update, bindparam, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from fibs_server.store.transactions import Transactions

T = TypeVar("T")

# The bind parameter that names the row a RowsByKey statement updates: not a column of any
# table, so SQLAlchemy does not take it for a value to set.
_ROW_KEY = "row_key"

# What an update of a missing row fails with: LookupError(text), or the LookupError a
# function finds in the update's transaction (why no row was updated: a row that is gone,
# or one that `conditions` no longer allow to this writer).
Missing = str | Callable[[Connection], LookupError]


def missing_error(connection: Connection, missing: Missing) -> LookupError:
    return LookupError(missing) if isinstance(missing, str) else missing(connection)


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

    def update_one(self, connection: Connection, key: Any, values: dict[str, Any],
                   *, missing: Missing) -> None:
        """Set `values` on the row `key` picks; its `missing` error if there is none."""
        result = connection.execute(self._statement, {_ROW_KEY: key, **values})
        if result.rowcount == 0:
            raise missing_error(connection, missing)

    def update_many(self, connection: Connection,
                    values_by_key: dict[Any, dict[str, Any]]) -> list[Any]:
        """Set each row's values, all of them setting the same columns, as one executemany
        where the driver counts its rows (not asyncpg: there, one statement each). Returns
        the keys of the rows that are missing."""
        parameters = [{_ROW_KEY: key, **values} for key, values in values_by_key.items()]
        if len(parameters) > 1 and connection.dialect.supports_sane_multi_rowcount:
            result = connection.execute(self._statement, parameters)
            if result.rowcount == len(parameters):
                return []
            # Some row is missing: running the updates again one at a time finds which (each
            # sets the same values again, so this changes nothing more).
        missing = []
        for one in parameters:
            if connection.execute(self._statement, one).rowcount == 0:
                missing.append(one[_ROW_KEY])
        return missing

    def add_dependents(self, connection: Connection,
                       new_rows: Sequence[dict[str, Any]]) -> None:
        """Insert `new_rows` into the dependent table (one executemany), keeping any row
        already there."""
        if new_rows:
            assert self._add_dependents is not None
            connection.execute(self._add_dependents[connection.dialect.name], new_rows)


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

    def __init__(self, transactions: Transactions) -> None:
        self._transactions = transactions
        self._pending: list[_Action | _RowUpdate] = []
        self._writer: asyncio.Task[None] | None = None

    async def run(self, action: Callable[[Session], T]) -> T:
        """Run `action` in the next transaction; returns what it returned."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._enqueue(_Action(action, future))
        return await future

    async def update(self, rows: RowsByKey, key: Any, values: dict[str, Any], *,
                     missing: Missing, dependents: Sequence[dict[str, Any]] = ()) -> None:
        """Set `values` on the row of `rows` that `key` picks and add its `dependents`, in
        the next transaction; its `missing` error if there is none."""
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
            try:
                outcomes = await self._transactions.run(functools.partial(_write_batch,
                                                                          batch=batch))
            except Exception as error:  # the whole batch failed: every caller hears why
                for work in batch:
                    _fail(work.future, error)
                continue
            # Futures are settled here, on the event loop, not where the batch was written.
            for work in batch:
                outcome = outcomes.get(work)
                if isinstance(outcome, LookupError):
                    _fail(work.future, outcome)
                elif not work.future.done():
                    work.future.set_result(outcome)


@dataclasses.dataclass(eq=False)
class _Action:
    run: Callable[[Session], Any]
    future: asyncio.Future[Any]


@dataclasses.dataclass(eq=False)
class _RowUpdate:
    rows: RowsByKey
    key: Any
    values: dict[str, Any]
    missing: Missing
    dependents: Sequence[dict[str, Any]]
    future: asyncio.Future[None]


def _write_batch(session: Session, batch: list[_Action | _RowUpdate]
                 ) -> dict[_Action | _RowUpdate, Any]:
    """Write `batch` in `session`'s transaction: the actions, then the row updates. Returns
    each action's result, and a LookupError for each action or update that failed alone."""
    outcomes: dict[_Action | _RowUpdate, Any] = {}
    for action in batch:
        if isinstance(action, _Action):
            try:
                outcomes[action] = action.run(session)
            except LookupError as missing:  # changed nothing: fails alone
                outcomes[action] = missing
    row_updates = [work for work in batch if isinstance(work, _RowUpdate)]
    connection = session.connection()
    for row_update in _write_row_updates(connection, row_updates):
        outcomes[row_update] = missing_error(connection, row_update.missing)
    return outcomes


def _write_row_updates(connection: Connection,
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
        for key in rows.update_many(connection, values_by_key):
            missing.extend(by_row[rows, key])
    missing_rows = set(missing)
    dependents: defaultdict[RowsByKey, list[dict[str, Any]]] = defaultdict(list)
    for row_update in row_updates:
        if row_update not in missing_rows:
            dependents[row_update.rows].extend(row_update.dependents)
    for rows, new_rows in dependents.items():
        rows.add_dependents(connection, new_rows)
    return missing


def _fail(future: asyncio.Future[Any], error: BaseException) -> None:
    if not future.done():  # its caller may have been cancelled
        future.set_exception(error)
