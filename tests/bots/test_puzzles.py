"""Puzzles (bots/puzzles.py): which decisions of an analysis become puzzles and what they ask;
an answer checked against the analysis's best; the rating maths and the day's puzzle, with
hypothesis's properties."""
from __future__ import annotations

import datetime

from hypothesis import given
from hypothesis import strategies as st

from fibs_server.bots import puzzles
from tests.rules.match_helpers import started

OPENING = started(5)[0].position_seen_by(0).position_id()  # player 0 on roll, 3-1 to play


def decision(**fields):
    return {"game": 1, "turn": 1, "player": 0, "kind": "move", "position_id": OPENING,
            "dice": [3, 1], "cube": 1, "played": "24-21 24-23", "best": "8-5 6-5",
            "error": 0.2, "counted": True, "forced": False, **fields}


def state(x_player=1, score=(0, 0)):
    return {"history": [[{"event": "GameStarted", "game_number": 1, "x_player": x_player,
                          "score": score, "crawford": False}]]}


def test_a_blundered_play_is_a_puzzle_in_the_deciders_own_numbering():
    [puzzle] = puzzles.puzzles_of({"decisions": [decision()]}, state(x_player=1))
    assert (puzzle.question, puzzle.best, puzzle.played) == (puzzles.PLAY, "8/5 6/5", "24/23 24/21")
    assert puzzle.dice == (3, 1) and puzzle.score == (0, 0) and puzzle.cube_owner is None
    # Player 0 as X: the same plays were written in X's numbers.
    [as_x] = puzzles.puzzles_of({"decisions": [decision(played="1-4 1-2", best="17-20 19-20")]},
                                state(x_player=0))
    assert (as_x.best, as_x.played) == (puzzle.best, puzzle.played)


def test_small_errors_forced_plays_resignations_and_beavers_are_no_puzzles():
    small = decision(error=puzzles.BLUNDER / 2)
    forced = decision(forced=True)
    resign = decision(kind="resign", played="resign", best="play on")
    beaver = decision(kind="take", played="take", best="beaver")
    assert puzzles.puzzles_of({"decisions": [small, forced, resign, beaver]}, state()) == []


def test_cube_puzzles_ask_double_or_not_and_take_or_pass_with_the_cube_as_it_stood():
    double = decision(kind="double", played="double", best="double", error=0.0, dice=None)
    take = decision(kind="drop", player=1, played="drop", best="take", error=0.3, dice=None)
    redouble = decision(kind="no double", player=1, played="no double", best="double",
                        error=0.1, dice=None, cube=2, turn=5)
    found = puzzles.puzzles_of({"decisions": [double, take | {"kind": "take", "played": "take",
                                                              "error": 0.0}, redouble]}, state())
    assert [(p.question, p.best, p.cube_owner) for p in found] == [(puzzles.DOUBLE, "double", 1)]
    [answer] = puzzles.puzzles_of({"decisions": [double, take]}, state())
    assert (answer.question, answer.best, answer.played) == (puzzles.ANSWER, "take", "drop")


def test_an_answer_solves_in_any_order_and_split_but_only_the_best_play():
    for answer in ("8/5 6/5", "6/5 8/5", " 8/5   6/5 "):
        assert puzzles.solves(puzzles.PLAY, OPENING, (3, 1), "8/5 6/5", answer)
    for answer in ("24/21 24/23", "8/5", "13/10 8/7", "6/5 6/5", "bar/22 6/5", "", "8/5 x",
                   "99/5 6/5", "5/8 6/5"):
        assert not puzzles.solves(puzzles.PLAY, OPENING, (3, 1), "8/5 6/5", answer), answer
    assert puzzles.solves(puzzles.PLAY, OPENING, (3, 1), "24/21 21/20", "24/20")  # one checker
    assert puzzles.solves(puzzles.DOUBLE, OPENING, None, "no double", "No  Double")
    assert not puzzles.solves(puzzles.ANSWER, OPENING, None, "take", "drop")


ratings = st.floats(min_value=0, max_value=3000, allow_nan=False)


@given(ratings, ratings, st.booleans())
def test_an_attempt_moves_the_two_ratings_opposite_ways_within_their_k(player, puzzle, solved):
    after_player, after_puzzle = puzzles.rated(player, puzzle, solved)
    moved = after_player - player
    assert (moved >= 0) if solved else (moved <= 0)  # solving never costs, failing never pays
    assert abs(moved) <= puzzles.PLAYER_K
    assert abs(after_puzzle - puzzle) <= puzzles.PUZZLE_K
    # What one gains the other loses, each by its own K.
    assert abs(moved / puzzles.PLAYER_K + (after_puzzle - puzzle) / puzzles.PUZZLE_K) < 1e-9


@given(ratings, ratings, ratings)
def test_a_harder_puzzle_pays_more_for_a_solve(player, easier, harder):
    easier, harder = sorted((easier, harder))
    assert puzzles.rated(player, harder, True)[0] >= puzzles.rated(player, easier, True)[0]


@given(st.floats(min_value=0, max_value=5, allow_nan=False),
       st.floats(min_value=0, max_value=5, allow_nan=False))
def test_a_larger_blunder_starts_as_an_easier_puzzle(smaller, larger):
    smaller, larger = sorted((smaller, larger))
    assert puzzles.EASIEST <= puzzles.first_rating(larger) <= puzzles.first_rating(smaller) \
        <= puzzles.HARDEST


@given(st.dates(), st.integers(min_value=1, max_value=10_000))
def test_the_days_puzzle_is_one_of_them_and_the_same_all_day(day, count):
    index = puzzles.daily_index(day, count)
    assert 0 <= index < count and index == puzzles.daily_index(day, count)


def test_the_days_puzzles_change_from_day_to_day():
    first = datetime.date(2026, 12, 1)
    week = {puzzles.daily_index(first + datetime.timedelta(days=n), 1000) for n in range(7)}
    assert len(week) > 1
