"""Positions: layouts, gnubg Position IDs, pip counts, bar and borne-off counts."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fibs_server.rules import Position, Variant

START_ID = "4HPwATDgc/ABMA"


def board(mine: dict[int, int], theirs: dict[int, int], checkers_per_side: int = 15) -> Position:
    """A position from {own point: count} per side (25 = bar); side 0 is on roll."""
    sides = []
    for points in (mine, theirs):
        side = [0] * 25
        for point, count in points.items():
            side[point - 1] = count
        sides.append(tuple(side))
    return Position(tuple(sides), checkers_per_side)


def test_starting_position_id_round_trips():
    position = Position.from_position_id(START_ID)
    assert position == Position.initial()
    assert position.position_id() == START_ID


def test_position_id_of_known_gnubg_position():
    # Verified with gnubg: `set board sGfwATDgc/ABMA` shows the side not on roll with
    # 2 on its 5-point, 4 on its 6, 2 on its 8 (it has played 8/5 6/5).
    position = Position.from_position_id("sGfwATDgc/ABMA")
    assert position.checkers[1][4] == 2 and position.checkers[1][5] == 4
    assert position.checkers[1][7] == 2
    assert position.checkers[0] == Position.initial().checkers[0]
    played = board({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 2, 6: 4, 5: 2})
    assert played.position_id() == "sGfwATDgc/ABMA"


@st.composite
def positions(draw, checkers_per_side: int = 15) -> Position:
    """Random legal positions, often with checkers on the bar or all of the mover's home."""
    sides = [[0] * 25, [0] * 25]
    sides[0][24] = draw(st.integers(0, 2))
    sides[1][24] = draw(st.integers(0, 1))
    mover_points = range(6) if draw(st.booleans()) else range(24)
    for side, point in draw(st.lists(st.tuples(st.sampled_from([0, 1]), st.integers(0, 23)),
                                     max_size=2 * checkers_per_side)):
        if side == 0 and point not in mover_points:
            continue
        if sum(sides[side]) < checkers_per_side and not sides[1 - side][23 - point]:
            sides[side][point] += 1
    return Position((tuple(sides[0]), tuple(sides[1])), checkers_per_side)


@pytest.mark.parametrize("bad", ["4HPwATDgc/ABM", "4HPwATDgc/AB!A", "////////////////"])
def test_malformed_position_ids_are_rejected(bad):
    with pytest.raises(ValueError):
        Position.from_position_id(bad)


def test_too_many_checkers_are_rejected():
    with pytest.raises(ValueError):
        board({6: 16}, {6: 1})
    with pytest.raises(ValueError):
        Position.from_position_id("//////////////")


def test_both_sides_on_one_point_are_rejected():
    with pytest.raises(ValueError):
        board({6: 1}, {19: 1})  # the mover's 6-point is the opponent's 19-point


@pytest.mark.parametrize("variant, expected", [
    (Variant.STANDARD, {24: 2, 13: 5, 8: 3, 6: 5}),
    (Variant.NACKGAMMON, {24: 2, 23: 2, 13: 4, 8: 3, 6: 4}),
    (Variant.HYPERGAMMON, {24: 1, 23: 1, 22: 1}),
    (Variant.PORTES, {24: 2, 13: 5, 8: 3, 6: 5}),
])
def test_initial_layouts(variant, expected):
    position = Position.initial(variant)
    assert position.checkers_per_side == variant.checkers_per_side == sum(expected.values())
    assert position == board(expected, expected, variant.checkers_per_side)
    assert position.swap() == position
    assert variant.value == variant.name.lower()


def test_counts():
    position = board({25: 2, 6: 3, 2: 1}, {24: 4})
    assert position.on_bar(0) == 2 and position.on_bar(1) == 0
    assert position.borne_off(0) == 9 and position.borne_off(1) == 11
    assert position.pip_count(0) == 2 * 25 + 3 * 6 + 2
    assert position.pip_count(1) == 96
    assert Position.initial().pip_count(0) == Position.initial().pip_count(1) == 167


def test_positions_are_hashable_and_immutable():
    assert len({Position.initial(), Position.from_position_id(START_ID)}) == 1
    with pytest.raises(AttributeError):
        Position.initial().checkers = ()  # type: ignore[misc]


@given(positions())
def test_position_id_round_trips(position):
    assert Position.from_position_id(position.position_id()) == position
    assert position.swap().swap() == position
