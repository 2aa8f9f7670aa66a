"""Who may come in: password checks through the login throttle (lobby/limits/throttle.py) and the
bcrypt queue (lobby/limits/passwords.py), and new accounts within the registration limit.

A session carries out the steps of its login dialogue (protocol/login_dialogue.py) here.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from fibs_server.lobby.limits.passwords import HashingBusy, PasswordHasher
from fibs_server.lobby.limits.session_tokens import SessionTokens
from fibs_server.lobby.limits.shared_counts import LocalCounts, SharedCounts
from fibs_server.lobby.limits.throttle import (
    AbuseLimits,
    LoginThrottle,
    RegistrationLimit,
    Unchecked,
)
from fibs_server.lobby.ports.accounts import Account, AccountStore, NameTaken
from fibs_server.protocol import texts
from fibs_server.protocol.login_dialogue import NotChecked, RegistrationRefused

# What a wrong session token counts against besides its address: no account has the name.
WRONG_SESSION_TOKEN = "#session-token"


class Gatekeeper:
    def __init__(self, accounts: AccountStore, hasher: PasswordHasher,
                 limits: AbuseLimits, clock: Callable[[], float] = time.monotonic,
                 counts: SharedCounts | None = None) -> None:
        self.accounts = accounts
        self.hasher = hasher
        self.limits = limits
        # The limits' counts: this node's, or every node's (None: this node's).
        counts = LocalCounts() if counts is None else counts
        self.login_throttle = LoginThrottle(limits, counts=counts)
        self.session_tokens = SessionTokens(clock)  # web pages' (lobby/presence/reconnect.py)
        self.registrations = RegistrationLimit(limits, counts)
        # No account may pass for the server or a command (`who says: ...`, `tell shout ...`):
        # the reserved words and every command name, alias and administrator command.
        self._reserved_names = set(texts.RESERVED_NAMES)

    def reserve(self, names: Iterable[str]) -> None:
        """Names no one may register (the lobby's commands as they are added)."""
        self._reserved_names.update(name.lower() for name in names)

    async def authenticate(self, name: str, password: str, host: str,
                           hung_up: Callable[[], bool]) -> Account | NotChecked | None:
        """The account if `password` is its password, else None; NotChecked.BUSY if it could
        not be checked now (too many checks wait: not counted as a failure). An address the
        account logged in from before (this run, or its stored last login) is known good:
        not held back by the account's failures, and checked before everyone else. A peer
        that hung up while its attempt waited gets no check: bcrypt's time goes to those
        still there."""
        account = await self.accounts.find_account(name)
        known_good = self.login_throttle.knows(name, host) or (
            account is not None and account.last_login_at is not None
            and account.last_login_host == host)

        async def check() -> bool:
            if hung_up():
                return False
            try:
                ok = await self.hasher.check(
                    password, account.password_hash if account else None, host,
                    known_good=known_good, still_wanted=lambda: not hung_up())
            except HashingBusy:
                raise Unchecked from None
            # FIBS names are case-sensitive at login even though they are unique ignoring case.
            return ok and account is not None and account.name == name

        try:
            passed = await self.login_throttle.attempt(name, host, known_good, check)
        except Unchecked:
            return NotChecked.BUSY
        return account if passed else None

    async def session_token_owner(self, token: str, host: str,
                                  hung_up: Callable[[], bool]) -> str | None:
        """The lower-case name whose session token `token` is, or None: through the login
        throttle like a password, a wrong (or expired) token counting as a failed login from
        `host`; a right one is as good as a login from an address known good."""
        name = self.session_tokens.name_for(token)

        async def check() -> bool:
            return name is not None and not hung_up()

        passed = await self.login_throttle.attempt(name or WRONG_SESSION_TOKEN, host,
                                                   name is not None, check)
        return name if passed else None

    async def confirm_password(self, account: Account, password: str, host: str) -> bool:
        """Whether a logged-in user typed their own password (the `password` command). First
        in the bcrypt queue, but throttled as from an address not known good: whoever sits at
        a logged-in terminal must not guess freely."""
        async def check() -> bool:  # first: never refused (HashingBusy)
            return await self.hasher.check(password, account.password_hash, host, first=True)

        return await self.login_throttle.attempt(account.name, host, False, check)

    async def allows_registration(self, host: str) -> bool:
        return await self.registrations.allows(host)

    async def name_is_free(self, name: str) -> bool:
        return (name.lower() not in self._reserved_names
                and not name.lower().startswith(texts.VISITOR_PREFIX)
                and await self.accounts.find_account(name) is None)

    async def register(self, name: str, password: str, host: str
                       ) -> Account | RegistrationRefused:
        # Counted before the password is hashed: parallel dialogues from one address all
        # passed the limit's check at `name` (each count is atomic, here or in Redis).
        if not await self.registrations.take(host):
            return RegistrationRefused.TOO_MANY_REGISTRATIONS
        account = Account(name=name, password_hash=await self.hasher.hash(password, host),
                          created_at=int(time.time()), last_login_host=host)
        try:
            await self.accounts.create_account(account)
        except NameTaken:
            return RegistrationRefused.NAME_TAKEN
        return account

    def close(self) -> None:
        """At shutdown: drop the bcrypt checks still queued."""
        self.hasher.close()
