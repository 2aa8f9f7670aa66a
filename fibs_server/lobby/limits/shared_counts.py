"""The counts the abuse limits keep (lobby/limits/throttle.py): failed logins per account and per
address, registrations per address. On one node they are this process's (`LocalCounts`);
across nodes they are kept in Redis (net/redis_counts.py), so that an address spreading its
attempts over N nodes gets the limits once, not N times (docs/SECURITY.md, "Across nodes").

A count is named by a `Key`: its kind (one of the limits: `login-account`, `registrations`)
and what it counts for (a name, an address). Two sorts of count:

- a *tally*: attempts, forgotten `memory` seconds after the latest (a failed login's);
- *events* within a sliding window (registrations in the last hour).

`tally`, `recent` and `take` are awaited (across nodes they ask Redis); `untally` and
`forget` are not: they come after a success, which waits for nobody.
"""
from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from typing import Protocol

Key = tuple[str, str]  # (kind, key): ("login-address", "10.0.0.1")


class SharedCounts(Protocol):
    async def tally(self, keys: Sequence[Key], memory: float) -> list[int]:
        """One more for each of `keys`, each forgotten `memory` seconds after its latest; the
        counts with it, in order."""

    def untally(self, key: Key) -> None:
        """One less for `key` (never below none): an attempt under way succeeded."""

    def forget(self, key: Key) -> None:
        """`key`'s tally is none."""

    async def recent(self, key: Key, window: float) -> int:
        """`key`'s events in the last `window` seconds."""

    async def take(self, key: Key, limit: int, window: float) -> bool:
        """Count an event for `key` if it had fewer than `limit` in the last `window`
        seconds; whether it was counted (a refusal counts nothing)."""


class LocalCounts:
    """`SharedCounts` in this process: what one node counts, and what a node whose Redis does
    not answer falls back to. Each kind keeps at most MAX_KEYS keys (beyond them the longest
    untouched go first, whatever their age), and only recent ones, pruned as they go: a flood
    of invented names or addresses cannot grow them without bound, nor push one kind's keys
    out with another's. Every method is synchronous underneath: the awaited ones never
    suspend, so counting happens before the caller's first real wait."""

    MAX_KEYS = 100_000

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        # kind -> key -> [count, when it is forgotten], the longest untouched first
        self._tallies: dict[str, OrderedDict[str, list[float]]] = {}
        # kind -> key -> the times of its events, oldest first
        self._events: dict[str, dict[str, deque[float]]] = {}

    async def tally(self, keys: Sequence[Key], memory: float) -> list[int]:
        return self.tally_now(keys, memory)

    def tally_now(self, keys: Sequence[Key], memory: float) -> list[int]:
        now = self.clock()
        counts = []
        for kind, key in keys:
            table = self._tally_table(kind, now)
            entry = table.pop(key, None)
            count = 1 + (int(entry[0]) if entry is not None and entry[1] >= now else 0)
            table[key] = [count, now + memory]
            while len(table) > self.MAX_KEYS:
                table.popitem(last=False)
            counts.append(count)
        return counts

    def count(self, key: Key) -> int:
        """`key`'s tally now."""
        kind, name = key
        entry = self._tally_table(kind, self.clock()).get(name)
        return int(entry[0]) if entry is not None else 0

    def untally(self, key: Key) -> None:
        table = self._tallies.get(key[0])
        entry = table.get(key[1]) if table is not None else None
        if entry is not None:
            entry[0] = max(0, entry[0] - 1)

    def forget(self, key: Key) -> None:
        table = self._tallies.get(key[0])
        if table is not None:
            table.pop(key[1], None)

    def tallied(self, kind: str) -> int:
        """How many keys of `kind` have a tally kept."""
        return len(self._tally_table(kind, self.clock()))

    async def recent(self, key: Key, window: float) -> int:
        return self.recent_now(key, window)

    def recent_now(self, key: Key, window: float) -> int:
        return len(self._recent_events(key, window))

    async def take(self, key: Key, limit: int, window: float) -> bool:
        return self.take_now(key, limit, window)

    def take_now(self, key: Key, limit: int, window: float) -> bool:
        events = self._recent_events(key, window)
        if len(events) >= limit:
            return False
        events.append(self.clock())
        return True

    def untake(self, key: Key) -> None:
        """Uncount `key`'s latest event (taken here, then refused by the other nodes' count)."""
        events = self._events.get(key[0], {}).get(key[1])
        if events:
            events.pop()

    def _tally_table(self, kind: str, now: float) -> OrderedDict[str, list[float]]:
        table = self._tallies.setdefault(kind, OrderedDict())
        while table and next(iter(table.values()))[1] < now:
            table.popitem(last=False)
        return table

    def _recent_events(self, key: Key, window: float) -> deque[float]:
        kind, name = key
        limit = self.clock() - window
        table = self._events.setdefault(kind, {})
        for stale in [key for key, times in table.items() if not times or times[-1] < limit]:
            del table[stale]
        events = table.setdefault(name, deque())
        while events and events[0] < limit:
            events.popleft()
        return events
