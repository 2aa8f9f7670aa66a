"""Legal plays: one test per rule on hand-built positions, and properties on random ones."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fibs_server.rules import Position, Variant

from .test_position import board, positions

ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]


def results(position: Position, dice) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    return {play.result.checkers for play in position.legal_plays(dice)}


def steps(position: Position, dice) -> set[tuple[tuple[int, int], ...]]:
    return {play.steps for play in position.legal_plays(dice)}


def test_opening_three_one_has_sixteen_plays_including_the_five_point():
    plays = Position.initial().legal_plays((3, 1))
    assert len(plays) == 16
    assert ((8, 5), (6, 5)) in {play.steps for play in plays}
    assert Position.initial().legal_plays((1, 3))[0].steps == plays[0].steps


def test_checkers_on_the_bar_enter_first():
    position = board({25: 1, 13: 5, 6: 5}, {6: 5, 8: 3})
    for play in position.legal_plays((4, 2)):
        assert play.steps[0][0] == 25


def test_two_checkers_on_the_bar_use_both_dice_to_enter():
    position = board({25: 2, 13: 5}, {6: 5})
    assert steps(position, (4, 2)) == {((25, 21), (25, 23))}


def test_entering_onto_a_closed_point_is_impossible():
    # Opponent holds its 4-point and 2-point: the mover's 21 and 23.
    position = board({25: 1, 13: 5}, {4: 2, 2: 2, 13: 5})
    assert position.legal_plays((4, 2)) == []
    assert steps(position, (4, 3)) == {((25, 22), (22, 18)), ((25, 22), (13, 9))}


def test_no_play_when_the_board_is_closed():
    closed = {point: 2 for point in range(1, 7)}
    position = board({25: 1, 6: 14}, closed)
    assert all(position.legal_plays(roll) == [] for roll in ROLLS)


def test_hitting_a_blot_sends_it_to_the_bar():
    position = board({13: 2}, {15: 1, 24: 1})  # opponent's 15 is the mover's 10
    hit = [play for play in position.legal_plays((3, 1)) if play.hits]
    assert {play.steps for play in hit} >= {((13, 10), (13, 12)), ((13, 10), (10, 9))}
    play = next(play for play in hit if play.steps == ((13, 10), (13, 12)))
    assert play.hits == (10,)
    assert play.result.on_bar(1) == 1 and play.result.checkers[1][14] == 0


def test_hit_and_continue_differs_from_not_hitting():
    # 13/10*/9 and 13/12/9 end with the same checkers of the mover but only one hits.
    position = board({13: 1, 24: 1}, {15: 1, 3: 1})
    via_hit = [p for p in position.legal_plays((3, 1)) if p.result.checkers[0][8] and p.hits]
    quiet = [p for p in position.legal_plays((3, 1)) if p.result.checkers[0][8] and not p.hits]
    assert via_hit and quiet


def test_doubles_give_four_moves():
    plays = Position.initial().legal_plays((6, 6))
    assert {len(play.steps) for play in plays} == {4}
    assert ((24, 18), (24, 18), (13, 7), (13, 7)) in {play.steps for play in plays}


def test_doubles_stop_when_blocked():
    position = board({24: 1}, {13: 2})  # the mover's 12 is closed: 24/20/16 only
    assert steps(position, (4, 4)) == {((24, 20), (20, 16))}


def test_both_dice_must_be_used_when_possible():
    # 24/18 is closed, so the 1 must come first: 24/23/17, not 24/23 alone.
    position = board({24: 1}, {7: 2})
    assert steps(position, (6, 1)) == {((24, 23), (23, 17))}


def test_only_one_die_playable_must_be_the_larger():
    # A lone checker on 24 can move 5 or 2 but not both (17 is closed).
    position = board({24: 1}, {7: 2, 4: 2, 2: 2, 8: 2})  # closed: 18, 21, 23, 17
    assert steps(position, (5, 2)) == {((24, 19),)}


def test_smaller_die_when_the_larger_cannot_move():
    position = board({24: 1}, {6: 2, 2: 2, 4: 2, 8: 2})  # closed: 19, 23, 21, 17
    assert steps(position, (5, 2)) == {((24, 22),)}


def test_bearing_off_needs_every_checker_home():
    position = board({7: 1, 3: 2}, {12: 2})
    assert all(end != 0 for play in position.legal_plays((2, 1)) for _, end in play.steps)
    assert steps(position, (3, 3)) == {((7, 4), (4, 1), (3, 0), (3, 0))}


def test_bearing_off_exactly_or_from_the_highest_point():
    position = board({4: 1, 2: 1}, {12: 2})
    assert steps(position, (6, 5)) == {((4, 0), (2, 0))}
    # A 6 cannot bear off from 2 while the 4 is occupied: only 4/off with the 6.
    assert results(board({4: 1, 2: 1}, {12: 2}), (6, 1)) == {
        board({1: 1}, {12: 2}).checkers, board({2: 1}, {12: 2}).checkers}


def test_moving_inside_home_instead_of_bearing_off():
    position = board({6: 1, 5: 1}, {12: 2})
    assert results(position, (5, 2)) == {
        board({4: 1}, {12: 2}).checkers, board({3: 1, 1: 1}, {12: 2}).checkers}


def test_a_checker_hit_during_bear_off_comes_home_first():
    position = board({25: 1, 2: 3}, {12: 2})
    for play in position.legal_plays((6, 5)):
        assert all(end != 0 for _, end in play.steps)
    assert results(position, (6, 5)) == {
        board({14: 1, 2: 3}, {12: 2}).checkers}


def test_one_play_per_result_larger_die_first():
    position = board({13: 2}, {24: 1})
    plays = position.legal_plays((2, 5))
    assert len({play.result for play in plays}) == len(plays)
    assert ((13, 8), (13, 11)) in {play.steps for play in plays}
    assert ((13, 11), (13, 8)) not in {play.steps for play in plays}


def test_hypergammon_positions():
    plays = Position.initial(Variant.HYPERGAMMON).legal_plays((2, 1))
    assert plays and all(play.result.checkers_per_side == 3 for play in plays)


# --- properties against a straightforward reference ---------------------------------------

def reference_results(position: Position, dice) -> set:
    """Every resulting (mover, opponent) of the maximal step sequences, by brute force."""
    dice_values = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
    finished: dict[int, set] = {}

    def single_moves(mine, theirs, die):
        for start in range(25, 0, -1):
            if not mine[start - 1] or (mine[24] and start != 25):
                continue
            end = start - die
            if end >= 1:
                if theirs[24 - end] < 2:
                    yield start, end
            elif not sum(mine[6:]) and (end == 0 or not any(mine[start:6])):
                yield start, 0

    def explore(mine, theirs, left, used):
        moved = False
        for die in set(left):
            for start, end in single_moves(mine, theirs, die):
                moved = True
                next_mine, next_theirs = list(mine), list(theirs)
                next_mine[start - 1] -= 1
                if end:
                    next_mine[end - 1] += 1
                    if next_theirs[24 - end] == 1:
                        next_theirs[24 - end] = 0
                        next_theirs[24] += 1
                rest = list(left)
                rest.remove(die)
                explore(next_mine, next_theirs, rest, used + [die])
        if not moved:
            finished.setdefault(len(used), set()).add(
                (tuple(mine), tuple(theirs), max(used, default=0)))

    explore(list(position.checkers[0]), list(position.checkers[1]), dice_values, [])
    best = finished[max(finished)]
    if max(finished) == 1:  # only one die playable: the larger one if it can be
        larger = max(used for _, _, used in best)
        best = {entry for entry in best if entry[2] == larger}
    return {(mine, theirs) for mine, theirs, _ in best if max(finished) > 0}


@settings(max_examples=300)
@given(positions(), st.sampled_from(ROLLS))
def test_matches_a_brute_force_reference(position, dice):
    assert results(position, dice) == reference_results(position, dice)


@settings(max_examples=300)
@given(positions(), st.sampled_from(ROLLS))
def test_play_properties(position, dice):
    plays = position.legal_plays(dice)
    assert len({play.result for play in plays}) == len(plays), "results are distinct"
    assert len({len(play.steps) for play in plays}) <= 1, "every play uses as many dice"
    mover_total, opponent_total = (sum(side) for side in position.checkers)
    for play in plays:
        mine, theirs = play.result.checkers
        offs = sum(end == 0 for _, end in play.steps)
        assert sum(mine) + offs == mover_total and sum(theirs) == opponent_total
        assert play.result.borne_off(0) == position.borne_off(0) + offs
        for _, end in play.steps:
            assert end == 0 or position.checkers[1][24 - end] < 2, "never onto a closed point"
        assert position.apply(play.steps) == play
