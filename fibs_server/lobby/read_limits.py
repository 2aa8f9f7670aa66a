"""How often one user (`dicetest`) or one address (/api/rating-history) may ask for the
archive's heavy reads: a token bucket per key. The reads are sums kept by the store, cheap
whatever the archive's size; the limit keeps a loop of them from costing the others anything.

Only keys whose bucket is not full again are kept, at most MAX_KEYS: a flood of invented
names or addresses cannot grow it without bound.
"""
from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

from fibs_server.lobby.throttle import AbuseLimits


class KeyedRateLimit:
    """`burst` requests at once per key, then `per_second`."""

    MAX_KEYS = 100_000  # beyond this the longest untouched keys go first, whatever their count

    def __init__(self, burst: int, per_second: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.burst = burst
        self.per_second = per_second
        self.clock = clock
        # key -> (tokens, when they were counted), the longest untouched first
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def wait_before(self, key: str) -> float:
        """0.0: go ahead (a token is taken); else the seconds until the key's next token is
        due (none is taken: a refused request costs the asker nothing more)."""
        now = self.clock()
        self._forget_full(now)
        tokens = self._tokens(key, now)
        if tokens < 1:
            return (1 - tokens) / self.per_second
        self._buckets.pop(key, None)
        self._buckets[key] = (tokens - 1, now)
        while len(self._buckets) > self.MAX_KEYS:
            self._buckets.popitem(last=False)
        return 0.0

    def __len__(self) -> int:
        return len(self._buckets)

    def _tokens(self, key: str, now: float) -> float:
        tokens, counted_at = self._buckets.get(key, (float(self.burst), now))
        return min(float(self.burst), tokens + (now - counted_at) * self.per_second)

    def _forget_full(self, now: float) -> None:
        # The longest untouched bucket is the fullest: stop at the first that is not full.
        while self._buckets:
            key = next(iter(self._buckets))
            if self._tokens(key, now) < self.burst:
                return
            del self._buckets[key]


class HeavyReadLimits:
    """The lobby's limits on the heavy reads: per user, and per address for HTTP."""

    def __init__(self, limits: AbuseLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.by_user = KeyedRateLimit(limits.heavy_read_burst, limits.heavy_reads_per_second,
                                      clock)
        self.by_address = KeyedRateLimit(limits.heavy_read_burst,
                                         limits.heavy_reads_per_second, clock)
