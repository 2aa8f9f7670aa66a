"""More right passwords at once from one address than its cap of bcrypt checks (a club, a
campus, a NAT): the checks beyond the cap wait for the address's turn, so none is told its
password is wrong and none counts as a failed login."""
from __future__ import annotations

import asyncio
import threading

import bcrypt

from fibs_server.lobby.limits.throttle import ACCOUNTS, ADDRESSES, AbuseLimits
from fibs_server.lobby.ports.accounts import Account
from fibs_server.net.limits import NetLimits
from tests.hostile.test_parallel_logins import clip_attempt, clip_connection
from tests.waiting import until

KNOWN_GOOD_CAP, OTHER_CAP = 4, 2


async def test_right_passwords_beyond_an_address_cap_are_let_in_and_never_counted_as_failures(
        make_harness, tracebacks, monkeypatch):
    harness = await make_harness(
        abuse=AbuseLimits(known_good_checks_per_address=KNOWN_GOOD_CAP,
                          hash_checks_per_address=OTHER_CAP),
        net=NetLimits(connections_per_address=40))
    lobby, port, club = harness.server.lobby, harness.server.port, "127.0.0.6"
    hasher = lobby.gatekeeper.hasher
    secret = await hasher.hash("secret")
    regulars = [f"regular{chr(97 + n)}" for n in range(3 * KNOWN_GOOD_CAP)]
    newcomers = [f"newcomer{chr(97 + n)}" for n in range(3 * OTHER_CAP)]
    for name in regulars:  # each logged in from the club's address before: known good
        await lobby.accounts.create_account(Account(name=name, password_hash=secret,
                                                    last_login_at=1, last_login_host=club))
    for name in newcomers:  # never logged in from there
        await lobby.accounts.create_account(Account(name=name, password_hash=secret))
    # The checks wait until every login has asked for one: all are under way at once.
    go, checkpw = threading.Event(), bcrypt.checkpw

    def held(password: bytes, hashed: bytes) -> bool:
        go.wait()
        return checkpw(password, hashed)

    monkeypatch.setattr(bcrypt, "checkpw", held)
    names = regulars + newcomers
    connections = [await clip_connection(port, club) for _ in names]
    try:
        attempts = [clip_attempt(c, name, "secret") for c, name in zip(connections, names)]
        logins = asyncio.gather(*attempts)

        def asked() -> int:
            return (sum(hasher._per_address.values())
                    + sum(len(w) for w in hasher._waiting_for_slot.values()))
        await until(lambda: asked() == len(names), "every login has asked for its check")
        assert hasher._per_address[(club, True)] == KNOWN_GOOD_CAP
        assert hasher._per_address[(club, False)] == OTHER_CAP
    finally:
        go.set()
    answers = await logins
    assert all(ok for _, ok in answers), answers  # none answered `login:` as if wrong
    counts = lobby.gatekeeper.login_throttle.counts
    assert counts.count((ADDRESSES, club)) == 0
    assert all(counts.count((ACCOUNTS, name)) == 0 for name in names)
    assert hasher._per_address == {} and hasher._waiting_for_slot == {}
