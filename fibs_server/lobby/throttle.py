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

TOO_MANY_REGISTRATIONS = ("** Too many new accounts from your address. "
                          "Please try again later.")


@dataclasses.dataclass(frozen=True)
class AbuseLimits:
    """Each field is also a command-line flag and a FIBS_* variable (see docs/SECURITY.md)."""
    account_free_failures: int = 5  # failed logins of one name before delays start
    address_free_failures: int = 20  # failed logins from one address (many users share NATs)
    login_delay: float = 1.0  # seconds before the first delayed attempt; doubles each failure
    max_login_delay: float = 60.0
    failure_memory: float = 900.0  # seconds after its last failure that a key is forgotten
    registrations_per_hour: int = 10  # new accounts per address


class _FailureCounts:
    """Failures per key, each forgotten `memory` seconds after its latest failure."""

    MAX_KEYS = 100_000  # beyond this the oldest keys go first, whatever their age

    def __init__(self, memory: float, clock: Callable[[], float]) -> None:
        self.memory = memory
        self.clock = clock
        self._counts: OrderedDict[str, tuple[int, float]] = OrderedDict()  # oldest first

    def count(self, key: str) -> int:
        self._prune()
        entry = self._counts.get(key)
        return entry[0] if entry else 0

    def add(self, key: str) -> None:
        count = self.count(key)
        self._counts.pop(key, None)
        self._counts[key] = (count + 1, self.clock())
        while len(self._counts) > self.MAX_KEYS:
            self._counts.popitem(last=False)

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

    The delay comes *before* the password is checked: a guesser who hangs up early learns
    nothing, and the event loop is free meanwhile (only this attempt waits)."""

    def __init__(self, limits: AbuseLimits, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> None:
        self.limits = limits
        self.sleep = sleep
        self.accounts = _FailureCounts(limits.failure_memory, clock)
        self.addresses = _FailureCounts(limits.failure_memory, clock)

    def delay(self, name: str, host: str) -> float:
        """Seconds the next attempt for `name` from `host` waits."""
        over = max(self.accounts.count(name.lower()) - self.limits.account_free_failures,
                   self.addresses.count(host) - self.limits.address_free_failures)
        if over < 0:
            return 0.0
        return min(self.limits.max_login_delay, self.limits.login_delay * 2.0 ** min(over, 30))

    async def wait(self, name: str, host: str) -> None:
        seconds = self.delay(name, host)
        if seconds > 0:
            await self.sleep(seconds)

    def record(self, name: str, host: str, succeeded: bool) -> None:
        # A success clears the account only: logging in to one's own account must not
        # reset the count of an address that is guessing other people's passwords.
        if succeeded:
            self.accounts.forget(name.lower())
        else:
            self.accounts.add(name.lower())
            self.addresses.add(host)


class RegistrationLimit:
    """At most `registrations_per_hour` new accounts per address in any hour."""

    WINDOW = 3600.0

    def __init__(self, limits: AbuseLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_hour = limits.registrations_per_hour
        self.clock = clock
        self._times: dict[str, deque[float]] = {}

    def allows(self, host: str) -> bool:
        return len(self._recent(host)) < self.per_hour

    def record(self, host: str) -> None:
        self._recent(host).append(self.clock())

    def _recent(self, host: str) -> deque[float]:
        limit = self.clock() - self.WINDOW
        for key in [k for k, times in self._times.items() if not times or times[-1] < limit]:
            del self._times[key]
        times = self._times.setdefault(host, deque())
        while times and times[0] < limit:
            times.popleft()
        return times
