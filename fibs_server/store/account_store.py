"""The lobby's AccountStore on SQLAlchemy: a mixin of SqlStore (which gives `_sessions`,
`_read_sessions` for methods that only read, and `_updates`, its GroupCommit)."""
from __future__ import annotations

import dataclasses

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from fibs_server.lobby.accounts import (
    SETTING_DEFAULTS,
    TOGGLE_DEFAULTS,
    UPDATABLE_FIELDS,
    Account,
    NameTaken,
)
from fibs_server.store.group_commit import GroupCommit, RowsByKey
from fibs_server.store.models import AccountRow, name_key

_ACCOUNT_FIELDS = [field.name for field in dataclasses.fields(Account)]

ACCOUNTS_BY_NAME_KEY = RowsByKey(AccountRow.__table__.c.name_key)


class SqlAccountStore:
    """Accounts, found by name ignoring letter case."""
    _sessions: async_sessionmaker[AsyncSession]
    _read_sessions: async_sessionmaker[AsyncSession]
    _updates: GroupCommit

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
                                   missing=no_account(name))

    async def rated_accounts(self, min_experience: int) -> list[Account]:
        async with self._read_sessions.begin() as session:
            rows = await session.scalars(
                select(AccountRow)
                .where(AccountRow.experience >= min_experience)
                .order_by(AccountRow.rating.desc(), AccountRow.name_key))
            return [_account_from_row(row) for row in rows]


def no_account(name: str) -> str:
    """What LookupError says when the account `name` is missing."""
    return f"no account named {name!r}"


def _account_from_row(row: AccountRow) -> Account:
    account = Account(**{field: getattr(row, field) for field in _ACCOUNT_FIELDS})
    # A toggle or setting added after the account was saved gets its default.
    account.toggles = {**TOGGLE_DEFAULTS, **account.toggles}
    account.settings = {**SETTING_DEFAULTS, **account.settings}
    return account
