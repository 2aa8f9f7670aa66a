"""Puzzles in the store, on both databases: kept once per decision with their analysis; the
day's, a player's next (the nearest untried to their rating); an answer moves both ratings at
the player's first try only, in one transaction."""
from __future__ import annotations

import datetime

from fibs_server.bots import puzzles
from tests.rules.match_helpers import started
from tests.store.test_analysis_records import RESULT, finished_match

OPENING = started(5)[0].position_seen_by(0).position_id()


def puzzle(turn: int, error: float) -> puzzles.Puzzle:
    return puzzles.Puzzle(1, turn, 0, puzzles.PLAY, OPENING, (3, 1), 1, None, (0, 0),
                          "8/5 6/5", "24/23 24/21", error)


async def test_puzzles_are_kept_once_served_and_rated_at_the_first_try(store, players):
    match_id = await finished_match(store)
    easy, hard = puzzle(1, 0.4), puzzle(3, 0.1)
    await store.store_analysis(match_id, 1, RESULT, [easy, hard])
    await store.store_analysis(match_id, 2, RESULT, [easy, hard])  # a deeper one: kept once

    daily = await store.daily_puzzle(datetime.date(2026, 12, 6))
    assert daily is not None and daily.puzzle in (easy, hard)
    assert daily == await store.daily_puzzle(datetime.date(2026, 12, 6))
    near_hard = await store.next_puzzle("alice", puzzles.HARDEST)
    assert near_hard.puzzle == hard and near_hard.rating == hard.rating
    assert near_hard.players == ("alice", "bob") and near_hard.length == 3
    assert (await store.puzzle_rating("Alice")) == (await store.puzzle_rating("alice"))

    tried = await store.attempt_puzzle("Alice", near_hard.puzzle_id, True)
    assert tried.first and tried.change > 0 and tried.puzzle_rating < hard.rating
    again = await store.attempt_puzzle("alice", near_hard.puzzle_id, False)
    assert not again.first and again.change == 0 and again.rating == tried.rating
    rating = await store.puzzle_rating("alice")
    assert (rating.rating, rating.attempts, rating.solved) == (tried.rating, 1, 1)
    shown = await store.puzzle(near_hard.puzzle_id)
    assert (shown.rating, shown.attempts, shown.solved) == (tried.puzzle_rating, 1, 1)
    # Tried: the next is the other one, then none is left.
    left = await store.next_puzzle("alice", puzzles.HARDEST)
    assert left.puzzle == easy
    await store.attempt_puzzle("alice", left.puzzle_id, False)
    assert await store.next_puzzle("alice", 0.0) is None
    assert (await store.next_puzzle("bob", 0.0)).puzzle == easy  # nearest bob's rating
    assert await store.puzzle(10**6) is None
