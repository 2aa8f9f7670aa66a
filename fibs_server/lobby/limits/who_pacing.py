"""Pacing of the who-lines broadcast about one user.

Every change of a user's state (away, back, watch, unwatch, toggle ready, ...) sends their CLIP
5 line to every CLIP client: 100,000 `away`/`back` lines from one user were 576 MB for 40
others. A token bucket per user lets `burst` changes out at once and then `per_second`; a
change beyond that is not refused (the user's own reply is unaffected) but held back, and one
broadcast with the state as it is then goes out when the bucket has a token again: the final
state is never lost, however many changes came meanwhile.
"""
from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from fibs_server.lobby.limits.token_bucket import TokenBucket

# What a bucket is kept for: a user's session, in the lobby.
Subject = TypeVar("Subject", bound=Hashable)


class WhoPacing(Generic[Subject]):
    def __init__(self, burst: int, per_second: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.burst = burst
        self.per_second = per_second
        self.clock = clock
        # Per user. Weak: a session that is gone is dropped.
        self._buckets: weakref.WeakKeyDictionary[Subject, TokenBucket] = (
            weakref.WeakKeyDictionary())
        self._held: dict[Subject, asyncio.TimerHandle] = {}

    def now_or_later(self, about: Subject, later: Callable[[Subject], None]) -> bool:
        """True: broadcast about `about` now (a token is taken). False: `later(about)` runs
        when a token is due (once, however often this is asked meanwhile)."""
        if about in self._held:
            return False
        wait = self._bucket(about).try_take(self.clock())
        if not wait:
            return True
        self._held[about] = asyncio.get_running_loop().call_later(
            wait, self._release, about, later)
        return False

    def _release(self, about: Subject, later: Callable[[Subject], None]) -> None:
        del self._held[about]
        self._bucket(about).take(self.clock())
        later(about)

    def _bucket(self, about: Subject) -> TokenBucket:
        bucket = self._buckets.get(about)
        if bucket is None:
            bucket = self._buckets[about] = TokenBucket(self.burst, self.per_second)
        return bucket
