"""The token bucket every rate limit of the server uses: commands per second (net/pacing.py),
HTTP requests per address (net/http.py), the heavy reads (lobby/limits/read_limits.py) and the
who-line broadcasts (lobby/limits/who_pacing.py).

A bucket holds `burst` tokens and gains `per_second` of them a second. It is kept as the time
at which it is full again (a generic cell rate algorithm: one float, no refill step), so an
empty bucket and a deep queue of reservations are the same arithmetic. Pure: the time comes
in as `now`, from whatever clock the caller was given (a test's fake one).
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

Key = TypeVar("Key", bound=Hashable)


class TokenBucket:
    __slots__ = ("seconds_per_token", "burst_seconds", "full_at")

    def __init__(self, burst: float, per_second: float) -> None:
        self.seconds_per_token = 1 / per_second
        self.burst_seconds = burst / per_second
        self.full_at = 0.0

    def reserve(self, cost: float, now: float) -> float:
        """Take `cost` tokens, beyond what the bucket holds if need be; the seconds until
        they are due (0: at once). Reservations beyond the burst queue in the order they
        came: a paced reader waits its turn."""
        self.full_at = max(self.full_at, now) + cost * self.seconds_per_token
        return max(0.0, self.full_at - now - self.burst_seconds)

    def try_take(self, now: float) -> float:
        """0.0, taking a token, if the bucket has one; else the seconds until one is due,
        taking nothing (a refused request costs its asker nothing more)."""
        # Compared as the backlog (exactly 0 for a full bucket) with what the burst leaves
        # for it: summing the times first made a fresh bucket refuse by a rounding error.
        backlog = max(self.full_at, now) - now
        wait = backlog - (self.burst_seconds - self.seconds_per_token)
        if wait > 0:
            return wait
        self.full_at = now + backlog + self.seconds_per_token
        return 0.0

    def take(self, now: float) -> None:
        """Take a token now, even from an empty bucket, which stays empty: a held broadcast
        that goes out when its token is due."""
        self.reserve(1, now)
        self.full_at = min(self.full_at, now + self.burst_seconds)

    def full(self, now: float) -> bool:
        return self.full_at <= now


class TokenBuckets(Generic[Key]):
    """A bucket per key (a user name, an address), forgotten once it is full again: a full
    bucket and none are the same, so the table holds only keys active lately. `max_keys`:
    beyond it the longest untouched go first, full or not."""

    def __init__(self, burst: float, per_second: float, max_keys: int | None = None) -> None:
        self.burst = burst
        self.per_second = per_second
        self.max_keys = max_keys
        # The longest untouched first: forgetting looks only at the front.
        self._buckets: OrderedDict[Key, TokenBucket] = OrderedDict()

    def reserve(self, key: Key, cost: float, now: float) -> float:
        """`TokenBucket.reserve` of `key`'s bucket."""
        bucket = self._touch(key)
        wait = bucket.reserve(cost, now)
        self._forget(now)
        return wait

    def try_take(self, key: Key, now: float) -> float:
        """`TokenBucket.try_take` of `key`'s bucket."""
        bucket = self._touch(key)
        wait = bucket.try_take(now)
        self._forget(now)
        return wait

    def __len__(self) -> int:
        return len(self._buckets)

    def _touch(self, key: Key) -> TokenBucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(self.burst, self.per_second)
        else:
            self._buckets.move_to_end(key)
        return bucket

    def _forget(self, now: float) -> None:
        buckets = self._buckets
        # The one just used is last: it is looked at only when every other was forgotten.
        while buckets and next(iter(buckets.values())).full(now):
            buckets.popitem(last=False)
        if self.max_keys is not None:
            while len(buckets) > self.max_keys:
                buckets.popitem(last=False)
