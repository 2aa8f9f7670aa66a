"""How the lobby persists what talking and moderation need: messages left for users, whom each
user gags or blinds, bans and mutes, the moderation log and the message of the day.

Implemented by the store layer (above the lobby), like AccountStore and MatchStore. Names are
matched ignoring letter case; times are Unix seconds.
"""
from __future__ import annotations

import dataclasses
from typing import Literal, Protocol

IgnoreKind = Literal["gag", "blind"]
SanctionKind = Literal["ban", "mute"]


@dataclasses.dataclass
class StoredMessage:
    sender: str
    sent_at: int
    text: str


@dataclasses.dataclass
class Sanction:
    """A ban (of an account and the address it used) or a mute, until `until` (None: for good)."""
    kind: SanctionKind
    name: str
    address: str | None
    until: int | None
    by: str  # the administrator


@dataclasses.dataclass
class ModerationEntry:
    at: int
    admin: str
    action: str
    target: str
    detail: str


@dataclasses.dataclass
class Arrival:
    """What a user who logs in brings along: whom they gag and blind, whether they are
    muted, and the messages kept for them (now handed over)."""
    gagged: list[str]
    blinded: list[str]
    muted: bool
    messages: list[StoredMessage]


class ChatRecords(Protocol):
    async def arrive(self, name: str) -> Arrival:
        """In one transaction: the user's gags, blinds and mute, and their kept messages,
        which are removed (each message is delivered exactly once)."""

    async def save_message(self, recipient: str, sender: str, text: str) -> None:
        """Keep a message for the account `recipient` (which must exist; LookupError if not)."""

    async def waiting_messages(self, recipient: str, sender: str) -> tuple[int, int]:
        """How many messages are kept for `recipient`: in all, and from `sender`."""

    async def ignored_names(self, owner: str, kind: IgnoreKind) -> list[str]:
        """The accounts `owner` gags (or blinds), as their names are spelt, sorted."""

    async def set_ignored(self, owner: str, kind: IgnoreKind, target: str, on: bool) -> None:
        """Start (on) or stop gagging/blinding the account `target`."""

    async def add_sanction(self, sanction: Sanction) -> None:
        """Record a ban or mute, and log it as a moderation action of `sanction.by`."""

    async def lift_sanctions(self, kind: SanctionKind, name: str, admin: str) -> int:
        """End the bans (or mutes) of account `name`, log it, and return how many ended."""

    async def active_sanction(self, kind: SanctionKind, name: str,
                              address: str | None) -> Sanction | None:
        """A ban (or mute) in force now for the account `name` or for `address`."""

    async def erase_account(self, name: str, admin: str) -> bool:
        """Delete the account with its matches, messages, gags and blinds, and log it.
        False if there is no such account."""

    async def log_moderation(self, admin: str, action: str, target: str, detail: str) -> None:
        """Log a moderation action that changes no stored data (kick, shutdown)."""

    async def stored_motd(self) -> tuple[str, ...] | None:
        """The message of the day an administrator set, or None for the built-in one."""

    async def set_motd(self, lines: tuple[str, ...], admin: str) -> None:
        """Replace the message of the day, and log it."""
