"""The lobby's AccountStore on SQLAlchemy: a mixin of SqlStore (which gives `_writes`,
`_reads` for methods that only read, and `_updates`, its GroupCommit)."""
from __future__ import annotations

import dataclasses

from sqlalchemy import Row, bindparam, exists, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from fibs_server.lobby.ports.accounts import (
    SETTING_DEFAULTS,
    TOGGLE_DEFAULTS,
    UPDATABLE_FIELDS,
    Account,
    KeptForLogin,
    NameTaken,
)
from fibs_server.lobby.ports.tournament_records import Status
from fibs_server.store.group_commit import GroupCommit, RowsByKey
from fibs_server.store.models import (
    AccountRow,
    IgnoreRow,
    MatchRow,
    MessageRow,
    SanctionRow,
    TournamentEntrantRow,
    TournamentRow,
    name_key,
    table_of,
)
from fibs_server.store.transactions import Transactions

_ACCOUNT_FIELDS = [field.name for field in dataclasses.fields(Account)]

_ACCOUNTS = table_of(AccountRow)
ACCOUNTS_BY_NAME_KEY = RowsByKey(_ACCOUNTS.c.name_key)

# An account's columns, read as plain rows: loading ORM objects made `find_account`, read at
# every login, cost half as much again (0.8 against 0.55 ms of CPU on SQLite).
_ACCOUNT_COLUMNS = select(*(_ACCOUNTS.c[field] for field in _ACCOUNT_FIELDS))
_FIND_ACCOUNT = _ACCOUNT_COLUMNS.where(_ACCOUNTS.c.name_key == bindparam("key"))
# It and a login's other reads (`_KEPT_FOR_LOGIN`, chat_store's `_ACTIVE_SANCTION`) are Core
# selects run on the session's connection: `session.execute` takes any statement through the
# ORM's execution (events, options, autoflush), ~0.1 ms of CPU more a read on SQLite.


# `kept_for_login`'s one statement. A mute counts whether or not it is over (arrive tells).
_KEPT_FOR_LOGIN = select(
    or_(exists().where(MessageRow.recipient == bindparam("name")),
        exists().where(IgnoreRow.owner == bindparam("name")),
        exists().where(SanctionRow.name_key == bindparam("key"), SanctionRow.kind == "mute")),
    exists().where(TournamentEntrantRow.name_key == bindparam("key"),
                   TournamentRow.id == TournamentEntrantRow.tournament_id,
                   TournamentRow.status == Status.RUNNING.value),
    exists().where(~MatchRow.finished,
                   or_(MatchRow.player_a == bindparam("name"), MatchRow.player_b == bindparam("name"))))


class SqlAccountStore:
    """Accounts, found by name ignoring letter case."""
    _writes: Transactions
    _reads: Transactions
    _updates: GroupCommit

    async def find_account(self, name: str) -> Account | None:
        def read(session: Session) -> Account | None:
            row = session.connection().execute(_FIND_ACCOUNT,
                                               {"key": name_key(name)}).one_or_none()
            return None if row is None else _account_from_row(row)
        return await self._reads.run(read)

    async def kept_for_login(self, name: str) -> KeptForLogin:
        def read(session: Session) -> KeptForLogin:
            chat, tournaments, matches = session.connection().execute(
                _KEPT_FOR_LOGIN, {"name": name, "key": name_key(name)}).one()
            return KeptForLogin(chat, tournaments, matches)
        return await self._reads.run(read)

    async def create_account(self, account: Account) -> None:
        row = AccountRow(name_key=name_key(account.name), **dataclasses.asdict(account))
        try:
            await self._writes.run(lambda session: session.add(row))
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
                                   missing=no_account(name))

    async def rated_accounts(self, min_experience: int) -> list[Account]:
        query = (_ACCOUNT_COLUMNS.where(AccountRow.experience >= min_experience)
                 .order_by(AccountRow.rating.desc(), AccountRow.name_key))
        return await self._reads.run(
            lambda session: [_account_from_row(row) for row in session.execute(query)])

    async def ratings_page(self, min_experience: int, offset: int,
                           limit: int) -> tuple[int, list[Account]]:
        rated = AccountRow.experience >= min_experience
        query = (_ACCOUNT_COLUMNS.where(rated)
                 .order_by(AccountRow.rating.desc(), AccountRow.name_key)
                 .offset(offset).limit(limit))

        def read(session: Session) -> tuple[int, list[Account]]:
            total = session.scalar(select(func.count()).where(rated)) or 0
            return total, [_account_from_row(row) for row in session.execute(query)]
        return await self._reads.run(read)


def no_account(name: str) -> str:
    """What LookupError says when the account `name` is missing."""
    return f"no account named {name!r}"


def _account_from_row(row: Row) -> Account:
    account = Account(**row._mapping)
    # A toggle or setting added after the account was saved gets its default.
    account.toggles = {**TOGGLE_DEFAULTS, **account.toggles}
    account.settings = {**SETTING_DEFAULTS, **account.settings}
    return account
