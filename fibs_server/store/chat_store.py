"""The lobby's ChatRecords on SQLAlchemy: a mixin of SqlStore (which gives `_sessions`,
`_read_sessions` for methods that only read, and `_now`). Every method is one short
transaction; moderation actions write their log entry in the same transaction as the change."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import delete, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from fibs_server.lobby.chat_records import (
    Arrival,
    IgnoreKind,
    ModerationEntry,
    Sanction,
    SanctionKind,
    StoredMessage,
)
from fibs_server.store.models import (
    AccountRow,
    IgnoreRow,
    MatchRow,
    MessageRow,
    ModerationRow,
    SanctionRow,
    ServerTextRow,
    name_key,
)

MOTD_KEY = "motd"


class ChatStore:
    _sessions: async_sessionmaker[AsyncSession]
    _read_sessions: async_sessionmaker[AsyncSession]
    _now: Callable[[], int]

    async def arrive(self, name: str) -> Arrival:
        # One transaction: a login costs the database (and SQLite's write lock) once.
        async with self._sessions.begin() as session:
            account = await _account_name(session, name)
            ignores = list(await session.execute(
                select(IgnoreRow.kind, IgnoreRow.target).where(IgnoreRow.owner == account)))
            muted = await _active_sanction(session, "mute", account, None, self._now())
            messages = await _take_messages(session, account)
        return Arrival(gagged=sorted(t for k, t in ignores if k == "gag"),
                       blinded=sorted(t for k, t in ignores if k == "blind"),
                       muted=muted is not None, messages=messages)

    async def save_message(self, recipient: str, sender: str, text: str) -> None:
        async with self._sessions.begin() as session:
            account = await _account_name(session, recipient)
            session.add(MessageRow(recipient=account, sender=sender, sent_at=self._now(),
                                   text=text))

    async def waiting_messages(self, recipient: str, sender: str) -> tuple[int, int]:
        async with self._read_sessions.begin() as session:
            rows = list(await session.execute(
                select(MessageRow.sender, func.count()).where(
                    MessageRow.recipient == await _account_name(session, recipient))
                .group_by(MessageRow.sender)))
        return (sum(count for _, count in rows),
                sum(count for name, count in rows if name.lower() == sender.lower()))

    async def ignored_names(self, owner: str, kind: IgnoreKind) -> list[str]:
        async with self._read_sessions.begin() as session:
            owner_name = await _account_name(session, owner)
            rows = await session.scalars(
                select(IgnoreRow.target).where(IgnoreRow.owner == owner_name,
                                               IgnoreRow.kind == kind))
            return sorted(rows, key=str.lower)

    async def set_ignored(self, owner: str, kind: IgnoreKind, target: str, on: bool) -> None:
        async with self._sessions.begin() as session:
            key = dict(owner=await _account_name(session, owner), kind=kind,
                       target=await _account_name(session, target))
            exists = await session.get(IgnoreRow, key)
            if on and exists is None:
                session.add(IgnoreRow(**key))
            elif not on and exists is not None:
                await session.delete(exists)

    async def add_sanction(self, sanction: Sanction) -> None:
        now = self._now()
        async with self._sessions.begin() as session:
            session.add(SanctionRow(kind=sanction.kind, name_key=name_key(sanction.name),
                                    name=sanction.name, address=sanction.address,
                                    until=sanction.until, created_by=sanction.by,
                                    created_at=now))
            detail = " ".join(part for part in (
                f"address {sanction.address}" if sanction.address else "",
                f"until {sanction.until}" if sanction.until is not None else "for good") if part)
            session.add(_log_row(now, sanction.by, sanction.kind, sanction.name, detail))

    async def lift_sanctions(self, kind: SanctionKind, name: str, admin: str) -> int:
        async with self._sessions.begin() as session:
            result = await session.execute(delete(SanctionRow).where(
                SanctionRow.kind == kind, SanctionRow.name_key == name_key(name)))
            session.add(_log_row(self._now(), admin, f"un{kind}", name,
                                 f"{result.rowcount} lifted"))
            return result.rowcount

    async def active_sanction(self, kind: SanctionKind, name: str,
                              address: str | None) -> Sanction | None:
        async with self._read_sessions.begin() as session:
            return await _active_sanction(session, kind, name, address, self._now())

    async def erase_account(self, name: str, admin: str) -> bool:
        async with self._sessions.begin() as session:
            account = await session.scalar(
                select(AccountRow).where(AccountRow.name_key == name_key(name)))
            if account is None:
                return False
            # Matches keep their players' names without a cascade: both players' records of
            # them go with the account. Messages, gags and blinds cascade.
            await session.execute(delete(MatchRow).where(or_(
                MatchRow.player_a == account.name, MatchRow.player_b == account.name,
                MatchRow.winner == account.name)))
            await session.delete(account)
            session.add(_log_row(self._now(), admin, "erase", account.name, ""))
            return True

    async def log_moderation(self, admin: str, action: str, target: str, detail: str) -> None:
        async with self._sessions.begin() as session:
            session.add(_log_row(self._now(), admin, action, target, detail))

    async def moderation_log(self, limit: int) -> list[ModerationEntry]:
        async with self._read_sessions.begin() as session:
            rows = await session.scalars(
                select(ModerationRow).order_by(ModerationRow.id.desc()).limit(limit))
            return [ModerationEntry(row.at, row.admin, row.action, row.target, row.detail)
                    for row in rows]

    async def stored_motd(self) -> tuple[str, ...] | None:
        async with self._read_sessions.begin() as session:
            row = await session.get(ServerTextRow, MOTD_KEY)
            return None if row is None else tuple(row.lines)

    async def set_motd(self, lines: tuple[str, ...], admin: str) -> None:
        async with self._sessions.begin() as session:
            await session.merge(ServerTextRow(key=MOTD_KEY, lines=list(lines)))
            session.add(_log_row(self._now(), admin, "motd", "-", " | ".join(lines)))


async def _take_messages(session: AsyncSession, recipient: str) -> list[StoredMessage]:
    rows = list(await session.scalars(
        select(MessageRow).where(MessageRow.recipient == recipient).order_by(MessageRow.id)))
    if rows:
        await session.execute(delete(MessageRow).where(MessageRow.id.in_([r.id for r in rows])))
    return [StoredMessage(row.sender, row.sent_at, row.text) for row in rows]


async def _active_sanction(session: AsyncSession, kind: SanctionKind, name: str,
                           address: str | None, now: int) -> Sanction | None:
    who: Any = SanctionRow.name_key == name_key(name)
    if address is not None:
        who = or_(who, SanctionRow.address == address)
    row = await session.scalar(
        select(SanctionRow).where(SanctionRow.kind == kind, who,
                                  or_(SanctionRow.until.is_(None), SanctionRow.until > now))
        # A sanction for good outranks any with an end; else the one that ends last.
        .order_by(SanctionRow.until.is_(None).desc(), SanctionRow.until.desc()).limit(1))
    return None if row is None else Sanction(row.kind, row.name, row.address,  # type: ignore[arg-type]
                                             row.until, row.created_by)


async def _account_name(session: AsyncSession, name: str) -> str:
    """The account's name as it is spelt; LookupError if there is none."""
    spelt = await session.scalar(select(AccountRow.name).where(AccountRow.name_key == name_key(name)))
    if spelt is None:
        raise LookupError(f"no account named {name!r}")
    return spelt


def _log_row(at: int, admin: str, action: str, target: str, detail: str) -> ModerationRow:
    return ModerationRow(at=at, admin=admin, action=action, target=target, detail=detail)
