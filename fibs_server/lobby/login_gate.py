"""A login's password check through the throttle (lobby/throttle.py) and the bcrypt queue
(lobby/passwords.py)."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from fibs_server.lobby.accounts import Account
from fibs_server.lobby.passwords import HashingBusy

if TYPE_CHECKING:
    from fibs_server.lobby.lobby import Lobby


async def check_login(lobby: Lobby, name: str, password: str, host: str,
                      hung_up: Callable[[], bool]) -> Account | None:
    """The account if `password` is its password, else None. An address the account logged in
    from before (this run, or its stored last login) is known good: not held back by the
    account's failures, and checked before everyone else. A peer that hung up while its
    attempt waited gets no check: bcrypt's time goes to those still there."""
    account = await lobby.accounts.find_account(name)
    known_good = lobby.login_throttle.knows(name, host) or (
        account is not None and account.last_login_at is not None
        and account.last_login_host == host)

    async def check() -> bool:
        if hung_up():
            return False
        try:
            ok = await lobby.hasher.check(password, account.password_hash if account else None,
                                          host, first=known_good)
        except HashingBusy:
            return False
        # FIBS names are case-sensitive at login even though they are unique ignoring case.
        return ok and account is not None and account.name == name

    return account if await lobby.login_throttle.attempt(name, host, known_good, check) else None
