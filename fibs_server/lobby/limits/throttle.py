"""Abuse limits of the login and registration dialogues: growing delays for password guessing,
and a cap on new accounts per address.

Both count through `SharedCounts` (this node's counts, or every node's), which keep only
recent history, pruned as they go, so a flood of invented names or addresses cannot grow them
without bound.
"""
from __future__ import annotations

import asyncio
import dataclasses
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from fibs_server.lobby.limits.shared_counts import Key, LocalCounts, SharedCounts
from fibs_server.protocol.texts import MAX_NAME_LENGTH

# The kinds of count the limits keep (lobby/limits/shared_counts.py).
ACCOUNTS = "login-account"  # failed logins of a name
ADDRESSES = "login-address"  # failed logins from an address
PAIRS = "login-pair"  # failed logins of a name from an address known good for it
REGISTRATIONS = "registrations"  # new accounts from an address


@dataclasses.dataclass(frozen=True)
class AbuseLimits:
    """Each field is also a command-line flag and a FIBS_* variable (see docs/SECURITY.md)."""
    account_free_failures: int = 5  # failed logins of one name before delays start
    address_free_failures: int = 20  # failed logins from one address (many users share NATs)
    login_delay: float = 1.0  # seconds before the first delayed attempt; doubles each failure
    max_login_delay: float = 60.0
    failure_memory: float = 900.0  # seconds after its last failure that a key is forgotten
    registrations_per_hour: int = 10  # new accounts per address
    # bcrypt checks queued or running for one address, and waiting in all (lobby/limits/passwords.py)
    hash_checks_per_address: int = 8
    hash_checks_waiting: int = 32
    # and those of logins from an address known good for their account, counted apart
    known_good_checks_per_address: int = 32
    # Who-lines about one user, broadcast to every CLIP client: a token bucket per user.
    who_broadcast_burst: int = 10
    who_broadcasts_per_second: float = 1.0
    messages_per_recipient: int = 50  # kept for one offline user
    messages_per_sender: int = 10  # kept from one user for one offline user
    max_message_length: int = 500  # characters of a `message`
    # Wrong `sit` codes in an hour, then no code is tried until the oldest is an hour old.
    wrong_table_codes_per_account: int = 10
    wrong_table_codes_per_address: int = 30
    # The archive's heavy reads (lobby/limits/read_limits.py): `dicetest` per user and
    # /api/rating-history per address, each a token bucket.
    heavy_read_burst: int = 10
    heavy_reads_per_second: float = 1.0
    # The tutor's judgements (lobby/services/tutor.py) per user: a token bucket each.
    tutor_burst: int = 10
    tutor_per_second: float = 1.0
    # Visitors (`bot` at the login prompt, no account) online at once, from one address and
    # in all; bot matches under way (any way they start), per player's address and in all.
    visitors_per_address: int = 10
    max_visitors: int = 500
    bot_matches_per_address: int = 5
    max_bot_matches: int = 50
    # The same refused answer at a login-dialogue prompt this many times in a row closes the
    # connection: a program re-sending it would otherwise be answered for ever.
    repeated_refused_answers: int = 5
    # Tournaments: open ones (in sign-up or running) per creator and in all, the players of
    # one, and the experience a creator needs (administrators need none: a very large figure
    # leaves creating them to administrators).
    open_tournaments_per_creator: int = 2
    max_open_tournaments: int = 20
    max_tournament_entrants: int = 128
    tournament_creator_experience: int = 0
    # Sign-ups and withdrawals told to a tournament's entrants and pages: a token bucket per
    # tournament; beyond it, one summary of the changes when a token is due.
    tournament_notice_burst: int = 10
    tournament_notices_per_second: float = 1.0


class Unchecked(Exception):
    """Raised by an attempt's check that could not be made now: the attempt counts for
    nothing, neither as a failure nor as under way."""


class LoginThrottle:
    """Growing delays for password attempts, per account name and per address.

    An attempt counts when it starts, as a failure until it succeeds: parallel attempts see
    each other. The delay comes *before* the password is checked (a guesser who hangs up early
    learns nothing, and only this attempt waits), and delayed attempts of one key queue behind
    each other: each starts its delay after the previous one's, so 30 parallel connections
    guess no faster than one. An attempt that would wait longer than `max_login_delay` is
    refused unchecked, answered like a wrong password.

    The account's count applies only to an address that has failed before and is not known
    good for the account (it logged in to it): guessing cannot lock the owner out. An attempt
    from a known-good address is held back by neither: it goes ahead of the address's other
    attempts (a club behind one NAT, with a guesser among them), and only the failures of its
    own (account, address) pair delay it, counted like an account's.

    With several nodes the counts are every node's (`counts`: lobby/limits/shared_counts.py), while
    the queue of a key's delayed attempts and the known-good addresses learned are this
    node's."""

    MAX_KNOWN_GOOD = 100_000
    MAX_NEXT_STARTS = 100_000

    def __init__(self, limits: AbuseLimits, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                 counts: SharedCounts | None = None) -> None:
        self.limits = limits
        self.clock = clock
        self.sleep = sleep
        # The failures (and attempts under way) of each account, address and known-good
        # (account, address) pair: this node's, or every node's (lobby/limits/shared_counts.py).
        self.counts: SharedCounts = LocalCounts(clock) if counts is None else counts
        # When the latest delayed attempt of a key may start: delayed attempts queue behind
        # each other on this node. Only future starts are kept (a past one holds nobody).
        self._next_starts: OrderedDict[Key, float] = OrderedDict()
        self._known_good: OrderedDict[tuple[str, str], None] = OrderedDict()

    def knows(self, name: str, host: str) -> bool:
        """Whether `host` logged in to the account `name` while this server ran."""
        return (_account_key(name), host) in self._known_good

    async def attempt(self, name: str, host: str, known_good: bool,
                      check: Callable[[], Awaitable[bool]]) -> bool:
        """Wait as the counts say, then run `check` (the password check); its result, or
        False unchecked when the attempt would wait too long. Unchecked from `check` goes
        through, the attempt uncounted."""
        succeeded = False
        try:
            start = await self._start(name, host, known_good)
            if start is None:
                return False
            await self.sleep(max(0.0, start - self.clock()))
            succeeded = await check()
        except Unchecked:
            for key in _keys(name, host, known_good):
                self.counts.untally(key)
            raise
        finally:
            self._finish(name, host, succeeded)
        return succeeded

    async def _start(self, name: str, host: str, known_good: bool) -> float | None:
        """Count the attempt; when it may start (clock time), or None: refused."""
        keys = _keys(name, host, known_good)
        # Every attempt counts for the account and the address, before it is judged.
        before = [count - 1 for count in await self.counts.tally(keys, self.limits.failure_memory)]
        now = self.clock()
        self._prune_next_starts(now)
        # A known-good attempt is held back by its pair's count only, any other by the
        # address's, and by the account's once the address has failed before.
        free = [self.limits.address_free_failures, self.limits.account_free_failures,
                self.limits.account_free_failures]
        applies = [not known_good, not known_good and before[0] > 0, True]
        wait = 0.0  # seconds: after the key's previous delayed attempt, its own delay
        for key, failures, free_failures, applying in zip(keys, before, free, applies):
            delay = self._delay(failures - free_failures) if applying else 0.0
            if delay > 0:
                wait = max(wait, max(0.0, self._next_starts.get(key, now) - now) + delay)
        if wait > self.limits.max_login_delay:
            return None
        start = now + wait
        if wait > 0:
            for key, applying in zip(keys, applies):
                if applying and start > self._next_starts.get(key, now):
                    self._next_starts[key] = start
                    self._next_starts.move_to_end(key)
            while len(self._next_starts) > self.MAX_NEXT_STARTS:
                self._next_starts.popitem(last=False)
        return start

    def _prune_next_starts(self, now: float) -> None:
        starts = self._next_starts
        while starts and next(iter(starts.values())) <= now:
            starts.popitem(last=False)

    def _delay(self, over: int) -> float:
        if over < 0:
            return 0.0
        return min(self.limits.max_login_delay, self.limits.login_delay * 2.0 ** min(over, 30))

    def _finish(self, name: str, host: str, succeeded: bool) -> None:
        # A success clears the account only: logging in to one's own account must not
        # reset the count of an address that is guessing other people's passwords.
        if succeeded:
            for key in ((ACCOUNTS, _account_key(name)), (PAIRS, _pair_key(name, host))):
                self.counts.forget(key)
                self._next_starts.pop(key, None)
            self.counts.untally((ADDRESSES, host))
            self._known_good[(_account_key(name), host)] = None
            self._known_good.move_to_end((_account_key(name), host))
            while len(self._known_good) > self.MAX_KNOWN_GOOD:
                self._known_good.popitem(last=False)


def _keys(name: str, host: str, known_good: bool) -> list[Key]:
    """What an attempt counts for: its address, its account, and a known-good pair."""
    keys = [(ADDRESSES, host), (ACCOUNTS, _account_key(name))]
    if known_good:
        keys.append((PAIRS, _pair_key(name, host)))
    return keys


def _account_key(name: str) -> str:
    """Names ignore case; no account name is longer, so a 4 KB name is kept at that length."""
    return name.lower()[:MAX_NAME_LENGTH]


def _pair_key(name: str, host: str) -> str:
    return f"{_account_key(name)} {host}"  # names have no blanks


class RegistrationLimit:
    """At most `registrations_per_hour` new accounts per address in any hour (this node's, or
    every node's: lobby/limits/shared_counts.py)."""

    WINDOW = 3600.0

    def __init__(self, limits: AbuseLimits, counts: SharedCounts | None = None) -> None:
        self.per_hour = limits.registrations_per_hour
        self.counts: SharedCounts = LocalCounts() if counts is None else counts

    async def allows(self, host: str) -> bool:
        return await self.counts.recent((REGISTRATIONS, host), self.WINDOW) < self.per_hour

    async def take(self, host: str) -> bool:
        """Count a new account from `host` if it is allowed one; whether it was."""
        return await self.counts.take((REGISTRATIONS, host), self.per_hour, self.WINDOW)
