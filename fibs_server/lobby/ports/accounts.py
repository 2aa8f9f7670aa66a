"""What the lobby knows about a registered user, and the storage it needs for them.

The store layer sits above the lobby, so the lobby defines the record and the interface
(`AccountStore`) and the store implements it; `app` wires the two together.
"""
from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Protocol

TOGGLE_DEFAULTS: dict[str, bool] = {
    "allowpip": True,
    "autoboard": True,
    "autodouble": False,
    "automove": False,
    "bell": False,
    "crawford": True,
    "double": True,
    "greedy": False,
    "moreboards": False,
    "moves": False,
    "notify": True,
    "ratings": False,
    "ready": False,
    "report": True,
    "silent": False,
    "telnet": True,
    "wrap": False,
}

# Toggles that hold for one game: back to these at each new game and at each login, as on
# FIBS (bots send `toggle double` at login and rely on the reset).
PER_GAME_TOGGLES: dict[str, bool] = {name: TOGGLE_DEFAULTS[name]
                                     for name in ("double", "greedy", "moves")}

SETTING_DEFAULTS: dict[str, str] = {
    "boardstyle": "2",  # FIBS's default; client programs set 3 after login
    "linelength": "0",
    "pagelength": "0",
    "redoubles": "none",
    "sortwho": "login",
    "timezone": "UTC",
}


class NameTaken(Exception):
    """Raised by `AccountStore.create_account` when the name exists (in any letter case)."""


@dataclasses.dataclass
class Account:
    name: str
    password_hash: bytes
    rating: float = 1500.0
    experience: int = 0
    toggles: dict[str, bool] = dataclasses.field(default_factory=lambda: dict(TOGGLE_DEFAULTS))
    settings: dict[str, str] = dataclasses.field(default_factory=lambda: dict(SETTING_DEFAULTS))
    email: str | None = None
    created_at: int = 0  # Unix seconds
    last_login_at: int | None = None
    last_login_host: str | None = None
    last_logout_at: int | None = None
    is_admin: bool = False


# Fields `update_account` may change; `name` and `created_at` never change.
UPDATABLE_FIELDS = frozenset(
    f.name for f in dataclasses.fields(Account) if f.name not in ("name", "created_at")
)


@dataclasses.dataclass(frozen=True)
class KeptForLogin:
    """Whether the store may keep anything of each kind a login's hooks read for the
    account: most logins have none, and asking for each kind cost a transaction apiece."""
    chat: bool = True  # messages, gags or blinds, a mute (lobby.chat_records.arrive)
    tournaments: bool = True  # an entry in a running tournament
    matches: bool = True  # an unfinished match


EVERYTHING_KEPT = KeptForLogin()
NOTHING_KEPT = KeptForLogin(False, False, False)


class AccountStore(Protocol):
    async def find_account(self, name: str) -> Account | None:
        """The account whose name equals `name` ignoring letter case, or None."""

    async def kept_for_login(self, name: str) -> KeptForLogin:
        """In one read, which kinds of what a login's hooks read the store may keep for the
        account `name` (as spelt): a kind said False has nothing to read."""

    async def create_account(self, account: Account) -> None:
        """Insert a new account; raise NameTaken if the name exists in any letter case."""

    async def update_account(self, name: str, **changes: object) -> None:
        """Persist the given fields (names from UPDATABLE_FIELDS) of the account `name`."""

    async def rated_accounts(self, min_experience: int) -> list[Account]:
        """Accounts with experience >= min_experience, best rating first (ties by name)."""

    async def ratings_page(self, min_experience: int, offset: int,
                           limit: int) -> tuple[int, list[Account]]:
        """How many accounts `rated_accounts` lists, and `limit` of them from `offset`."""


class AccountsWithVisitors:
    """The account store, and the accounts of visitors who play a bot without registering:
    found (by `whois`, say) while they are online, never stored."""

    def __init__(self, store: AccountStore) -> None:
        self._store = store
        self.visitors: dict[str, Account] = {}  # lower-case name -> account
        self._visitor_hosts: dict[str, str] = {}  # lower-case name -> the visitor's address
        self._visitors_from: Counter[str] = Counter()  # address -> its visitors

    def add_visitor(self, account: Account, host: str) -> None:
        key = account.name.lower()
        self.visitors[key] = account
        self._visitor_hosts[key] = host
        self._visitors_from[host] += 1

    def remove_visitor(self, account: Account) -> None:
        """The visitor's name is free again (it may have been removed already)."""
        key = account.name.lower()
        if self.visitors.get(key) is not account:
            return
        del self.visitors[key]
        host = self._visitor_hosts.pop(key)
        self._visitors_from[host] -= 1
        if not self._visitors_from[host]:
            del self._visitors_from[host]

    def visitors_from(self, host: str) -> int:
        return self._visitors_from[host]

    async def find_account(self, name: str) -> Account | None:
        visitor = self.visitors.get(name.lower())
        return visitor if visitor is not None else await self._store.find_account(name)

    async def kept_for_login(self, name: str) -> KeptForLogin:
        if name.lower() in self.visitors:
            return NOTHING_KEPT
        return await self._store.kept_for_login(name)

    async def create_account(self, account: Account) -> None:
        await self._store.create_account(account)

    async def update_account(self, name: str, **changes: object) -> None:
        if name.lower() not in self.visitors:
            await self._store.update_account(name, **changes)

    async def rated_accounts(self, min_experience: int) -> list[Account]:
        return await self._store.rated_accounts(min_experience)

    async def ratings_page(self, min_experience: int, offset: int,
                           limit: int) -> tuple[int, list[Account]]:
        return await self._store.ratings_page(min_experience, offset, limit)
