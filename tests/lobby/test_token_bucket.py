"""The one token bucket of every rate limit (lobby/limits/token_bucket.py), on times the test gives:
a burst, then the rate; reservations queue, a refused take costs nothing, a forced take
never goes below empty; a table per key forgets full buckets and keeps at most its keys."""
from __future__ import annotations

import pytest

from fibs_server.lobby.limits.token_bucket import TokenBucket, TokenBuckets


def test_a_bucket_lets_its_burst_through_then_one_command_per_interval():
    bucket = TokenBucket(burst=3, per_second=2.0)
    assert [bucket.reserve(1, 0.0) for _ in range(5)] == [0, 0, 0, 0.5, 1.0]
    assert bucket.reserve(1, 10.0) == 0  # full again after a pause
    assert bucket.reserve(0.25, 10.0) == 0  # bytes cost a fraction of a command


def test_a_try_takes_only_a_token_that_is_there_and_says_when_the_next_is_due():
    bucket = TokenBucket(burst=2, per_second=0.5)
    assert [bucket.try_take(0.0) for _ in range(3)] == [0.0, 0.0, 2.0]
    assert bucket.try_take(1.5) == 0.5  # the refusal took nothing
    assert bucket.try_take(2.0) == 0.0
    assert not bucket.full(2.0) and bucket.full(6.0)


def test_a_forced_take_empties_the_bucket_but_never_below():
    bucket = TokenBucket(burst=1, per_second=1.0)
    assert bucket.try_take(0.0) == 0.0
    for _ in range(5):  # held broadcasts going out: none of them owes the next one
        bucket.take(0.0)
    assert bucket.try_take(0.0) == pytest.approx(1.0)
    assert bucket.try_take(1.0) == 0.0


def test_an_endless_rate_never_waits():
    bucket = TokenBucket(burst=1, per_second=float("inf"))
    assert all(bucket.reserve(1000, 0.0) == 0 for _ in range(100))
    assert all(bucket.try_take(0.0) == 0 for _ in range(100))


def test_a_table_forgets_buckets_that_are_full_again():
    table: TokenBuckets[str] = TokenBuckets(burst=2, per_second=1.0)
    for number in range(100):
        table.reserve(f"10.0.0.{number}", 1, float(number * 10))
    assert len(table) == 1


def test_a_table_keeps_each_keys_bucket_and_forgets_the_full_ones():
    table: TokenBuckets[str] = TokenBuckets(burst=1, per_second=1.0)
    assert table.try_take("alice", 0.0) == 0.0
    assert table.try_take("bob", 0.5) == 0.0
    assert table.try_take("alice", 0.5) == pytest.approx(0.5)  # her own, not bob's
    assert len(table) == 2
    assert table.reserve("bob", 1, 1.2) == pytest.approx(0.3)  # bob's queue: 0.3 s
    assert table.try_take("carol", 2.6) == 0.0  # alice and bob are full again: forgotten
    assert len(table) == 1


def test_a_table_keeps_at_most_its_keys_the_longest_untouched_going_first():
    table: TokenBuckets[str] = TokenBuckets(burst=1, per_second=0.001, max_keys=3)
    for name in ("a", "b", "c", "d"):
        table.try_take(name, 0.0)
    assert len(table) == 3
    assert table.try_take("a", 0.0) == 0.0  # forgotten: a fresh bucket
    assert table.try_take("d", 0.0) > 0  # kept: still empty
