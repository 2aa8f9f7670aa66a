"""Abuse limits of the login and registration dialogues: growing delays for password guessing,
and a cap on new accounts per address.

Both keep only recent history, pruned as they go, so a flood of invented names or addresses
cannot grow them without bound.
"""
from __future__ import annotations

import asyncio
import dataclasses
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable

from fibs_server.protocol.texts import MAX_NAME_LENGTH


@dataclasses.dataclass(frozen=True)
class AbuseLimits:
    """Each field is also a command-line flag and a FIBS_* variable (see docs/SECURITY.md)."""
    account_free_failures: int = 5  # failed logins of one name before delays start
    address_free_failures: int = 20  # failed logins from one address (many users share NATs)
    login_delay: float = 1.0  # seconds before the first delayed attempt; doubles each failure
    max_login_delay: float = 60.0
    failure_memory: float = 900.0  # seconds after its last failure that a key is forgotten
    registrations_per_hour: int = 10  # new accounts per address
    # bcrypt checks queued or running for one address, and waiting in all (lobby/passwords.py)
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
    # The archive's heavy reads (lobby/read_limits.py): `dicetest` per user and
    # /api/rating-history per address, each a token bucket.
    heavy_read_burst: int = 10
    heavy_reads_per_second: float = 1.0
    # Visitors (`bot` at the login prompt, no account) online at once, from one address and
    # in all; bot matches under way (any way they start), per player's address and in all.
    visitors_per_address: int = 10
    max_visitors: int = 500
    bot_matches_per_address: int = 5
    max_bot_matches: int = 50
    # The same refused answer at a login-dialogue prompt this many times in a row closes the
    # connection: a program re-sending it would otherwise be answered for ever.
    repeated_refused_answers: int = 5


class _FailureCounts:
    """Attempts per key that failed or are under way, each key forgotten `memory` seconds
    after its latest; and when the latest delayed attempt of the key may start."""

    MAX_KEYS = 100_000  # beyond this the oldest keys go first, whatever their age

    def __init__(self, memory: float, clock: Callable[[], float]) -> None:
        self.memory = memory
        self.clock = clock
        # key -> [count, time of the latest attempt, start of the latest delayed one]
        self._counts: OrderedDict[str, list[float]] = OrderedDict()  # oldest first

    def count(self, key: str) -> int:
        self._prune()
        entry = self._counts.get(key)
        return int(entry[0]) if entry else 0

    def next_start(self, key: str) -> float:
        entry = self._counts.get(key)
        return entry[2] if entry else 0.0

    def add(self, key: str, start: float) -> None:
        entry = self._counts.pop(key, None) or [0, 0.0, 0.0]
        self._counts[key] = [entry[0] + 1, self.clock(), max(entry[2], start)]
        while len(self._counts) > self.MAX_KEYS:
            self._counts.popitem(last=False)

    def uncount(self, key: str) -> None:
        """One attempt under way succeeded: it is no failure."""
        entry = self._counts.get(key)
        if entry is not None:
            entry[0] = max(0, entry[0] - 1)

    def forget(self, key: str) -> None:
        self._counts.pop(key, None)

    def _prune(self) -> None:
        limit = self.clock() - self.memory
        while self._counts and next(iter(self._counts.values()))[1] < limit:
            self._counts.popitem(last=False)

    def __len__(self) -> int:
        return len(self._counts)


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
    own (account, address) pair delay it, counted like an account's."""

    MAX_KNOWN_GOOD = 100_000

    def __init__(self, limits: AbuseLimits, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.limits = limits
        self.clock = clock
        self.sleep = sleep
        self.accounts = _FailureCounts(limits.failure_memory, clock)
        self.addresses = _FailureCounts(limits.failure_memory, clock)
        self.pairs = _FailureCounts(limits.failure_memory, clock)  # known-good attempts
        self._known_good: OrderedDict[tuple[str, str], None] = OrderedDict()

    def knows(self, name: str, host: str) -> bool:
        """Whether `host` logged in to the account `name` while this server ran."""
        return (_account_key(name), host) in self._known_good

    async def attempt(self, name: str, host: str, known_good: bool,
                      check: Callable[[], Awaitable[bool]]) -> bool:
        """Wait as the counts say, then run `check` (the password check); its result, or
        False unchecked when the attempt would wait too long."""
        start = self._start(name, host, known_good)
        if start is None:
            return False
        succeeded = False
        try:
            await self.sleep(max(0.0, start - self.clock()))
            succeeded = await check()
        finally:
            self._finish(name, host, succeeded)
        return succeeded

    def _start(self, name: str, host: str, known_good: bool) -> float | None:
        """Count the attempt; when it may start (clock time), or None: refused."""
        now = self.clock()
        # Every attempt counts for the account and the address; a known-good one is held
        # back by its pair's count only, any other by the address's, and by the account's
        # once the address has failed before.
        holds_back = not known_good and self.addresses.count(host) > 0
        keys = [(self.addresses, host, self.limits.address_free_failures, not known_good),
                (self.accounts, _account_key(name), self.limits.account_free_failures,
                 holds_back)]
        if known_good:
            keys.append((self.pairs, _pair_key(name, host), self.limits.account_free_failures,
                         True))
        wait = 0.0  # seconds: after the key's previous delayed attempt, its own delay
        for table, key, free, applies in keys:
            delay = self._delay(table.count(key) - free) if applies else 0.0
            if delay > 0:
                wait = max(wait, max(0.0, table.next_start(key) - now) + delay)
        refused = wait > self.limits.max_login_delay
        start = now + wait
        for table, key, _, applies in keys:
            table.add(key, start if applies and not refused else now)
        return None if refused else start

    def _delay(self, over: int) -> float:
        if over < 0:
            return 0.0
        return min(self.limits.max_login_delay, self.limits.login_delay * 2.0 ** min(over, 30))

    def _finish(self, name: str, host: str, succeeded: bool) -> None:
        # A success clears the account only: logging in to one's own account must not
        # reset the count of an address that is guessing other people's passwords.
        if succeeded:
            self.accounts.forget(_account_key(name))
            self.pairs.forget(_pair_key(name, host))
            self.addresses.uncount(host)
            self._known_good[(_account_key(name), host)] = None
            self._known_good.move_to_end((_account_key(name), host))
            while len(self._known_good) > self.MAX_KNOWN_GOOD:
                self._known_good.popitem(last=False)


def _account_key(name: str) -> str:
    """Names ignore case; no account name is longer, so a 4 KB name is kept at that length."""
    return name.lower()[:MAX_NAME_LENGTH]


def _pair_key(name: str, host: str) -> str:
    return f"{_account_key(name)} {host}"  # names have no blanks


class RegistrationLimit:
    """At most `registrations_per_hour` new accounts per address in any hour."""

    WINDOW = 3600.0

    def __init__(self, limits: AbuseLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_hour = limits.registrations_per_hour
        self.clock = clock
        self._times: dict[str, deque[float]] = {}

    def allows(self, host: str) -> bool:
        return len(self._recent(host)) < self.per_hour

    def take(self, host: str) -> bool:
        """Count a new account from `host` if it is allowed one; whether it was."""
        recent = self._recent(host)
        if len(recent) >= self.per_hour:
            return False
        recent.append(self.clock())
        return True

    def _recent(self, host: str) -> deque[float]:
        limit = self.clock() - self.WINDOW
        for key in [k for k, times in self._times.items() if not times or times[-1] < limit]:
            del self._times[key]
        times = self._times.setdefault(host, deque())
        while times and times[0] < limit:
            times.popleft()
        return times
