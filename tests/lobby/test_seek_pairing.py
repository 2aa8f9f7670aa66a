"""Quick play's pairing (lobby/services/seek_pairing.py), pure: nobody plays themself or twice,
every pair may play (same match, both ranges as they stand), nobody who could play is left
waiting, the oldest seek is served first, and ranges only widen."""
from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from fibs_server.lobby.services.seek_pairing import (
    Seek,
    Widening,
    acceptable,
    by_age,
    next_widening,
    pairs,
    reach,
)

WIDENING = Widening(every=10.0, points=50.0)
NAMES = ["ann", "Ann", "bob", "cal", "dan", "eve", "fay", "gus", "hal"]  # "Ann" is ann

seeks = st.builds(
    Seek, st.sampled_from(NAMES), st.floats(1000, 2200, allow_nan=False),
    st.floats(0, 100, allow_nan=False), st.sampled_from([1, 3, 5]),
    st.none() | st.floats(10, 400, allow_nan=False))
seek_lists = st.lists(seeks, max_size=12)
moments = st.floats(100, 200, allow_nan=False)


@given(seek_lists, moments)
def test_nobody_plays_themself_or_twice(waiting, now):
    found = pairs(waiting, now, WIDENING)
    names = [seek.key for pair in found for seek in pair]
    assert len(names) == len(set(names))


@given(seek_lists, moments)
def test_every_pair_asks_the_same_match_within_both_ranges(waiting, now):
    for older, younger in pairs(waiting, now, WIDENING):
        assert older.match == younger.match
        gap = abs(older.rating - younger.rating)
        assert gap <= reach(older, now, WIDENING) and gap <= reach(younger, now, WIDENING)
        assert (older.since, older.key) <= (younger.since, younger.key)


@given(seek_lists, moments)
def test_nobody_who_could_play_is_left_waiting(waiting, now):
    found = pairs(waiting, now, WIDENING)
    paired = {seek.key for pair in found for seek in pair}
    left = [seek for seek in waiting if seek.key not in paired]
    assert not any(acceptable(a, b, now, WIDENING) for a in left for b in left)


@given(seek_lists, moments)
def test_the_oldest_seek_is_served_first_with_the_oldest_it_may_play(waiting, now):
    """Each pair's older seek took the oldest partner still free when its turn came: no
    seek older than its partner that it could play was left free, or taken later."""
    found = pairs(waiting, now, WIDENING)
    partner_of = {seek.key: index for index, pair in enumerate(found) for seek in pair}
    ordered = by_age(waiting)
    for index, (older, younger) in enumerate(found):
        for other in ordered[ordered.index(older) + 1:ordered.index(younger)]:
            if other.key in (older.key, younger.key) or not acceptable(older, other, now,
                                                                       WIDENING):
                continue
            # `other` was taken before this pair's turn, by an older seek.
            assert partner_of.get(other.key, math.inf) < index
    if waiting:
        first = ordered[0]
        partners = [other for other in ordered[1:] if acceptable(first, other, now, WIDENING)]
        if partners:
            assert found[0] == (first, partners[0])


@given(seeks, moments, st.floats(0, 100, allow_nan=False))
def test_a_range_only_widens(seek, now, later):
    assert reach(seek, now, WIDENING) <= reach(seek, now + later, WIDENING)
    if seek.rating_range is not None:
        assert reach(seek, seek.since, WIDENING) == seek.rating_range


@given(seeks, seeks, moments, st.floats(0, 100, allow_nan=False))
def test_a_pair_that_may_play_still_may_later(first, second, now, later):
    if acceptable(first, second, now, WIDENING):
        assert acceptable(first, second, now + later, WIDENING)


@given(seek_lists, moments)
def test_the_next_widening_is_the_first_moment_a_range_grows(waiting, now):
    due = next_widening(waiting, now, WIDENING)
    ranged = [seek for seek in waiting if seek.rating_range is not None]
    if not ranged:
        assert due is None
        return
    assert due is not None and due > now
    before = due - 1e-6 if due - 1e-6 > now else now
    assert all(reach(seek, before, WIDENING) == reach(seek, now, WIDENING) for seek in ranged)
    assert any(reach(seek, due, WIDENING) > reach(seek, now, WIDENING) for seek in ranged)


def test_an_example_oldest_first_and_widened():
    ann = Seek("ann", 1500, 0.0, 5, 100)
    bob = Seek("bob", 1740, 1.0, 5, 100)  # 240 away from ann: no pair at first
    cal = Seek("cal", 1560, 2.0, 5, 100)
    dan = Seek("dan", 1510, 3.0, 3, None)  # another match
    assert pairs([bob, cal, ann, dan], 5.0, WIDENING) == [(ann, cal)]
    assert pairs([ann, bob], 5.0, WIDENING) == []
    # 240 points need three steps for both: bob's third comes at 31 s.
    assert pairs([ann, bob], 30.9, WIDENING) == []
    assert pairs([ann, bob], 31.0, WIDENING) == [(ann, bob)]
