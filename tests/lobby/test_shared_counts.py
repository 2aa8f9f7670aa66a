"""The abuse limits' counts in process (lobby/limits/shared_counts.py, `LocalCounts`: one node's, and
the fallback of a node whose Redis does not answer), on a fake clock: tallies forgotten their
memory after the latest, events in a sliding window, a refusal that counts nothing, and
bounded tables that one kind's keys cannot empty of another's."""
from __future__ import annotations

from fibs_server.lobby.limits.shared_counts import LocalCounts


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


ADDRESS = ("login-address", "10.0.0.1")
ACCOUNT = ("login-account", "alice")


async def test_a_tally_counts_up_and_is_forgotten_its_memory_after_the_latest():
    clock = Clock()
    counts = LocalCounts(clock)
    assert await counts.tally([ADDRESS, ACCOUNT], 60) == [1, 1]
    clock.now += 50
    assert await counts.tally([ADDRESS], 60) == [2]
    clock.now += 50  # 100 s after the first, 50 after the latest: kept
    assert counts.count(ADDRESS) == 2 and counts.count(ACCOUNT) == 0
    clock.now += 11
    assert counts.count(ADDRESS) == 0
    assert await counts.tally([ADDRESS], 60) == [1]  # from none again
    assert counts.tallied("login-account") == 0  # pruned, not kept


async def test_untally_and_forget():
    counts = LocalCounts(Clock())
    await counts.tally([ADDRESS, ADDRESS, ACCOUNT], 60)
    counts.untally(ADDRESS)
    counts.forget(ACCOUNT)
    assert counts.count(ADDRESS) == 1 and counts.count(ACCOUNT) == 0
    counts.untally(ADDRESS)
    counts.untally(ADDRESS)  # never below none
    counts.untally(("login-pair", "nobody"))  # nothing to take from
    assert counts.count(ADDRESS) == 0
    assert await counts.tally([ADDRESS], 60) == [1]


async def test_events_in_a_sliding_window_and_a_refusal_counts_nothing():
    clock = Clock()
    counts = LocalCounts(clock)
    key = ("registrations", "10.0.0.1")
    assert [await counts.take(key, 2, 3600) for _ in range(3)] == [True, True, False]
    assert await counts.recent(key, 3600) == 2  # the refused one is not among them
    assert await counts.recent(("registrations", "10.0.0.2"), 3600) == 0
    clock.now += 1800
    assert await counts.take(key, 3, 3600)
    clock.now += 1801  # the first two are over an hour old
    assert await counts.recent(key, 3600) == 1
    counts.untake(key)  # taken here, refused by the other nodes
    assert await counts.recent(key, 3600) == 0


async def test_each_kind_is_bounded_on_its_own(monkeypatch):
    monkeypatch.setattr(LocalCounts, "MAX_KEYS", 10)
    counts = LocalCounts(Clock())
    await counts.tally([ADDRESS], 60)
    for number in range(100):
        await counts.tally([("login-account", f"name{number}")], 60)
    assert counts.tallied("login-account") == 10
    assert counts.count(ADDRESS) == 1  # invented names push out no address
