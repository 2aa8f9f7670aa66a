"""Our positions as bgsage's boards, and bgsage's answers as we use them."""
from __future__ import annotations

import itertools

import pytest
from bgsage import STARTING_BOARD, BgBotAnalyzer, possible_moves

from fibs_server.bots import engine
from fibs_server.rules.board.position import Position

from ..conftest import skip_unless_ci
from ..rules.match_helpers import side
from .gnubg_boards import GNUBG, gnubg_position_ids
from .helpers import self_play_positions

ROLLS = [(high, low) for high in range(1, 7) for low in range(1, high + 1)]


def test_the_starting_position_is_bgsages():
    assert engine.board_of(Position.initial()) == STARTING_BOARD


def test_bars_and_points_from_the_side_on_roll():
    position = Position((side({6: 3, 20: 1}, bar=2), side({1: 1, 24: 2}, bar=1)))
    board = engine.board_of(position)
    assert board[25] == 2 and board[0] == 1  # own bar last, the opponent's first
    assert board[6] == 3 and board[20] == 1
    assert board[24] == -1  # the opponent's own point 1 is our 24
    assert board[1] == -2  # and its 24 our 1
    assert sum(abs(count) for count in board) == 10


@pytest.mark.gnubg
def test_gnubg_reads_each_board_as_our_position():
    if not GNUBG.exists():
        skip_unless_ci(f"needs GNU Backgammon at {GNUBG} (apt-get install -y gnubg)")
    positions = self_play_positions(400, seed=1)
    assert any(position.on_bar(0) for position in positions)
    assert any(position.on_bar(1) for position in positions)
    ids = gnubg_position_ids([engine.board_of(position) for position in positions])
    assert ids == [position.position_id() for position in positions]


def test_bgsage_finds_our_legal_plays_on_each_board():
    """bgsage generates the plays from the board: any slip in the mapping (a side, a bar,
    a direction) would give other plays than ours."""
    for position, dice in itertools.product(self_play_positions(60, seed=2), ROLLS):
        board = engine.board_of(position)
        ours = {tuple(engine.board_of(play.result)) for play in position.legal_plays(dice)}
        # bgsage answers the unchanged board when no play is legal
        assert {tuple(result) for result in possible_moves(board, *dice)} == (ours or {
            tuple(board)}), (position.position_id(), dice)


CUBES = [engine.Cube(1, "centered", (0, 0), False), engine.Cube(2, "player", (0, 0), False),
         engine.Cube(1, "centered", (3, 5), False), engine.Cube(2, "player", (5, 4), False),
         engine.Cube(1, "centered", (2, 2), False)]


def test_our_cube_decisions_are_bgsages_1ply_cube_action():
    """Our fast path (the formula bgsage applies, without reloading its networks) agrees
    with its `cube_action`. Not post-Crawford: there bgsage's call has the trailer double
    even where the formula finds it too good to (the bots play on for the gammon then)."""
    analyzer = BgBotAnalyzer(eval_level="1ply")
    decisions = set()
    # Spread over several games: the drops come late in a game.
    for position, cube in itertools.product(self_play_positions(600, seed=3)[::40], CUBES):
        board = engine.board_of(position)
        full = analyzer.cube_action(board, cube.value, cube.owner, beaver=False,
                                    **cube.options)
        double_gain, take_gain = engine.cube_margins(board, cube, 1)
        assert (double_gain > 0, take_gain >= 0) == (full.should_double, full.should_take)
        decisions.add((full.should_double, full.should_take))
    assert len(decisions) == 4  # every answer met: (no) double, take or drop


# Money, match scores, post-Crawford (the trailer 4 away, the leader 1 away), the leader's side.
DEEP_CUBES = [*CUBES[:4], engine.Cube(1, "centered", (4, 1), False),
              engine.Cube(1, "centered", (1, 4), False)]


def test_our_cube_equities_in_depth_are_bgsages_2ply_cube_action():
    """The look-ahead from the networks already loaded against `cube_action`'s, which
    reloads them: equities within what the choice of plays in the look-ahead moves them
    (engine's docstring), its double/take never below bgsage's, and the same decision read
    off them."""
    analyzer = BgBotAnalyzer(eval_level="2ply", parallel_threads=1)
    decisions = set()
    for position, cube in itertools.product(self_play_positions(600, seed=3)[::30],
                                            DEEP_CUBES):
        board = engine.board_of(position)
        full = analyzer.cube_action(board, cube.value, cube.owner, beaver=False,
                                    **cube.options)
        ours = engine.cube_equities_in_depth(board, cube, 2)
        assert ours.no_double == pytest.approx(full.equity_nd, abs=0.01)
        assert ours.take == pytest.approx(full.equity_dt, abs=0.08)
        # Never below it, which settles a no double above the look-ahead's double/take.
        assert full.equity_dt <= ours.take + engine._TAKE_ROUNDING
        assert ours.drop == pytest.approx(full.equity_dp, abs=1e-5)
        # Read off the equities, as the analysis does: post-Crawford bgsage's own answer
        # has the trailer double even where playing on for the gammon is worth more.
        theirs = (min(full.equity_dt, full.equity_dp) > full.equity_nd,
                  full.equity_dt <= full.equity_dp)
        assert (min(ours.take, ours.drop) > ours.no_double, ours.take <= ours.drop) == theirs
        decisions.add(theirs)
    assert len(decisions) == 4
