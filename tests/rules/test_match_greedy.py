"""Greedy bear-off: the play that bears off the most checkers."""
from __future__ import annotations

from fibs_server.rules.board.greedy import greedy_bearoff
from fibs_server.rules.board.position import Position

from .match_helpers import side

OPPONENT = side({12: 15})  # on our 13 point, out of the way


def test_bears_off_with_both_dice():
    position = Position((side({6: 2, 5: 2, 1: 11}), OPPONENT))
    play = greedy_bearoff(position, (6, 5))
    assert sorted(play.steps) == [(5, 0), (6, 0)]


def test_prefers_two_checkers_off_to_one_off_and_one_moved():
    position = Position((side({6: 1, 4: 1, 2: 13}), OPPONENT))
    play = greedy_bearoff(position, (6, 2))
    assert play.result.borne_off(0) == 2


def test_doubles_bear_off_four():
    position = Position((side({3: 4, 2: 11}), OPPONENT))
    play = greedy_bearoff(position, (3, 3))
    assert play.steps == ((3, 0),) * 4


def test_among_equal_plays_the_lowest_pip_count_wins():
    # 6-1 bears off one checker either way: 5/off 4/3 leaves 3 pips, 5/4 4/off leaves 4.
    position = Position((side({5: 1, 4: 1}), OPPONENT))
    play = greedy_bearoff(position, (6, 1))
    assert sorted(play.steps) == [(4, 3), (5, 0)]


def test_none_when_nothing_can_be_borne_off():
    not_all_home = Position((side({14: 1, 6: 14}), OPPONENT))
    assert greedy_bearoff(not_all_home, (6, 5)) is None
    blocked = Position((side({15: 15}), side({12: 2, 11: 2, 1: 11})))
    assert greedy_bearoff(blocked, (1, 2)) is None
