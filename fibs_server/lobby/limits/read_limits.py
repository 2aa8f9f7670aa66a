"""How often one user (`dicetest`) or one address (/api/rating-history, and every HTTP
request: net/http.py) may ask for something: a token bucket per key. The heavy reads are
sums kept by the store, cheap whatever the archive's size; the limit keeps a loop of them
from costing the others anything.

Only keys whose bucket is not full again are kept, at most MAX_KEYS: a flood of invented
names or addresses cannot grow it without bound.
"""
from __future__ import annotations

import time
from collections.abc import Callable

from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.lobby.limits.token_bucket import TokenBuckets


class KeyedRateLimit:
    """`burst` requests at once per key, then `per_second` (lobby/limits/token_bucket.py)."""

    MAX_KEYS = 100_000  # beyond this the longest untouched keys go first, whatever their count

    def __init__(self, burst: int, per_second: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._buckets: TokenBuckets[str] = TokenBuckets(burst, per_second, self.MAX_KEYS)

    def wait_before(self, key: str) -> float:
        """0.0: go ahead (a token is taken); else the seconds until the key's next token is
        due (none is taken: a refused request costs the asker nothing more)."""
        return self._buckets.try_take(key, self.clock())

    def __len__(self) -> int:
        return len(self._buckets)


class HeavyReadLimits:
    """The lobby's limits on the heavy reads: per user, and per address for HTTP."""

    def __init__(self, limits: AbuseLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.by_user = KeyedRateLimit(limits.heavy_read_burst, limits.heavy_reads_per_second,
                                      clock)
        self.by_address = KeyedRateLimit(limits.heavy_read_burst,
                                         limits.heavy_reads_per_second, clock)
