"""The lobby's ChatRecords on SQLAlchemy: a mixin of SqlStore (which gives `_writes`,
`_reads` for methods that only read, and `_now`). Every method is one short
transaction; moderation actions write their log entry in the same transaction as the change."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from sqlalchemy import CursorResult, bindparam, delete, func, or_, select
from sqlalchemy.orm import Session

from fibs_server.lobby.ports.chat_records import (
    Arrival,
    IgnoreKind,
    ModerationEntry,
    Sanction,
    SanctionKind,
    StoredMessage,
)
from fibs_server.store.match_store import uncount_matches
from fibs_server.store.models import (
    AccountRow,
    IgnoreRow,
    MatchRow,
    MessageRow,
    ModerationRow,
    RollCountRow,
    SanctionRow,
    ServerTextRow,
    name_key,
)
from fibs_server.store.transactions import Transactions

MOTD_KEY = "motd"

# The sanction of a kind in force for a name or an address (None: the name's only, as `= NULL`
# holds for no row), built once: a ban check at every login built and compiled its statement
# and loaded an ORM object, 1.8 ms of CPU on SQLite.
_ACTIVE_SANCTION = (
    select(SanctionRow.name, SanctionRow.address, SanctionRow.until, SanctionRow.created_by)
    .where(SanctionRow.kind == bindparam("kind"),
           or_(SanctionRow.name_key == bindparam("key"), SanctionRow.address == bindparam("address")),
           or_(SanctionRow.until.is_(None), SanctionRow.until > bindparam("now")))
    # A sanction for good outranks any with an end; else the one that ends last.
    .order_by(SanctionRow.until.is_(None).desc(), SanctionRow.until.desc()).limit(1))


class ChatStore:
    _writes: Transactions
    _reads: Transactions
    _now: Callable[[], int]

    async def arrive(self, name: str) -> Arrival:
        now = self._now()

        # One transaction: a login costs the database (and SQLite's write lock) once.
        def arrive(session: Session) -> Arrival:
            account = _account_name(session, name)
            ignores = list(session.execute(
                select(IgnoreRow.kind, IgnoreRow.target).where(IgnoreRow.owner == account)))
            muted = _active_sanction(session, "mute", account, None, now)
            return Arrival(gagged=sorted(t for k, t in ignores if k == "gag"),
                           blinded=sorted(t for k, t in ignores if k == "blind"),
                           muted=muted is not None, messages=_take_messages(session, account))
        return await self._writes.run(arrive)

    async def save_message(self, recipient: str, sender: str, text: str) -> None:
        now = self._now()

        def save(session: Session) -> None:
            session.add(MessageRow(recipient=_account_name(session, recipient), sender=sender,
                                   sent_at=now, text=text))
        await self._writes.run(save)

    async def waiting_messages(self, recipient: str, sender: str) -> tuple[int, int]:
        def read(session: Session) -> list[Any]:
            return list(session.execute(
                select(MessageRow.sender, func.count()).where(
                    MessageRow.recipient == _account_name(session, recipient))
                .group_by(MessageRow.sender)))
        rows = await self._reads.run(read)
        return (sum(count for _, count in rows),
                sum(count for name, count in rows if name.lower() == sender.lower()))

    async def ignored_names(self, owner: str, kind: IgnoreKind) -> list[str]:
        def read(session: Session) -> list[str]:
            rows = session.scalars(
                select(IgnoreRow.target).where(IgnoreRow.owner == _account_name(session, owner),
                                               IgnoreRow.kind == kind))
            return sorted(rows, key=str.lower)
        return await self._reads.run(read)

    async def set_ignored(self, owner: str, kind: IgnoreKind, target: str, on: bool) -> None:
        def change(session: Session) -> None:
            key = dict(owner=_account_name(session, owner), kind=kind,
                       target=_account_name(session, target))
            exists = session.get(IgnoreRow, key)
            if on and exists is None:
                session.add(IgnoreRow(**key))
            elif not on and exists is not None:
                session.delete(exists)
        await self._writes.run(change)

    async def add_sanction(self, sanction: Sanction) -> None:
        now = self._now()
        detail = " ".join(part for part in (
            f"address {sanction.address}" if sanction.address else "",
            f"until {sanction.until}" if sanction.until is not None else "for good") if part)
        await self._writes.run(lambda session: session.add_all([
            SanctionRow(kind=sanction.kind, name_key=name_key(sanction.name),
                        name=sanction.name, address=sanction.address, until=sanction.until,
                        created_by=sanction.by, created_at=now),
            _log_row(now, sanction.by, sanction.kind, sanction.name, detail)]))

    async def lift_sanctions(self, kind: SanctionKind, name: str, admin: str) -> int:
        now = self._now()

        def lift(session: Session) -> int:
            # A DML statement's result is a CursorResult (Session.execute is typed as Result).
            result = cast(CursorResult[Any], session.execute(delete(SanctionRow).where(
                SanctionRow.kind == kind, SanctionRow.name_key == name_key(name))))
            session.add(_log_row(now, admin, f"un{kind}", name, f"{result.rowcount} lifted"))
            return result.rowcount
        return await self._writes.run(lift)

    async def active_sanction(self, kind: SanctionKind, name: str,
                              address: str | None) -> Sanction | None:
        now = self._now()
        return await self._reads.run(
            lambda session: _active_sanction(session, kind, name, address, now))

    async def erase_account(self, name: str, admin: str) -> bool:
        now = self._now()

        def erase(session: Session) -> bool:
            account = session.scalar(
                select(AccountRow).where(AccountRow.name_key == name_key(name)))
            if account is None:
                return False
            # Matches keep their players' names without a cascade: both players' records of
            # them go with the account, and out of the server's and the opponents' roll
            # counts. Messages, gags and blinds cascade.
            theirs = or_(MatchRow.player_a == account.name, MatchRow.player_b == account.name,
                         MatchRow.winner == account.name)
            uncount_matches(session.connection(), theirs)
            session.execute(delete(RollCountRow).where(RollCountRow.player == account.name))
            session.execute(delete(MatchRow).where(theirs))
            session.delete(account)
            session.add(_log_row(now, admin, "erase", account.name, ""))
            return True
        return await self._writes.run(erase)

    async def log_moderation(self, admin: str, action: str, target: str, detail: str) -> None:
        row = _log_row(self._now(), admin, action, target, detail)
        await self._writes.run(lambda session: session.add(row))

    async def moderation_log(self, limit: int) -> list[ModerationEntry]:
        query = select(ModerationRow).order_by(ModerationRow.id.desc()).limit(limit)
        return await self._reads.run(lambda session: [
            ModerationEntry(row.at, row.admin, row.action, row.target, row.detail)
            for row in session.scalars(query)])

    async def stored_motd(self) -> tuple[str, ...] | None:
        def read(session: Session) -> tuple[str, ...] | None:
            row = session.get(ServerTextRow, MOTD_KEY)
            return None if row is None else tuple(row.lines)
        return await self._reads.run(read)

    async def set_motd(self, lines: tuple[str, ...], admin: str) -> None:
        row = _log_row(self._now(), admin, "motd", "-", " | ".join(lines))

        def save(session: Session) -> None:
            session.merge(ServerTextRow(key=MOTD_KEY, lines=list(lines)))
            session.add(row)
        await self._writes.run(save)


def _take_messages(session: Session, recipient: str) -> list[StoredMessage]:
    rows = list(session.scalars(
        select(MessageRow).where(MessageRow.recipient == recipient).order_by(MessageRow.id)))
    if rows:
        session.execute(delete(MessageRow).where(MessageRow.id.in_([r.id for r in rows])))
    return [StoredMessage(row.sender, row.sent_at, row.text) for row in rows]


def _active_sanction(session: Session, kind: SanctionKind, name: str,
                     address: str | None, now: int) -> Sanction | None:
    # On the connection, as account_store's `_FIND_ACCOUNT` says.
    row = session.connection().execute(_ACTIVE_SANCTION, {
        "kind": kind, "key": name_key(name), "address": address, "now": now}).one_or_none()
    return None if row is None else Sanction(kind, *row)


def _account_name(session: Session, name: str) -> str:
    """The account's name as it is spelt; LookupError if there is none."""
    spelt = session.scalar(select(AccountRow.name).where(AccountRow.name_key == name_key(name)))
    if spelt is None:
        raise LookupError(f"no account named {name!r}")
    return spelt


def _log_row(at: int, admin: str, action: str, target: str, detail: str) -> ModerationRow:
    return ModerationRow(at=at, admin=admin, action=action, target=target, detail=detail)
