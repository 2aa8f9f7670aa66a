"""The bots' resignations judged by GNU Backgammon: a bot resigns only what it would lose
anyway, in points of the game, at every match length. (A resignation measured in match
winning chance alone looks free in a long match, where one game moves the match little.)"""
from __future__ import annotations

import random

import pytest
from bgbot_cpp import get_met

from fibs_server.bots import EXPERT, INTERMEDIATE, Action, decide, situation_for
from fibs_server.bots.engine import MATCH_TABLE_AWAY, board_of
from fibs_server.rules.board.position import Position
from fibs_server.rules.match import Match

from ..conftest import skip_unless_ci
from ..rules.match_helpers import ScriptedDice, arranged
from .gnubg_boards import GNUBG
from .gnubg_evaluations import gnubg_chances
from .helpers import self_play_positions
from .test_decisions import LOST_BACKGAMMON, LOST_GAMMON, LOST_SINGLE

# (length, score of the bot, score of its opponent); None: money.
MATCHES = [(None, 0, 0), (1, 0, 0), (3, 0, 0), (7, 4, 5), (25, 0, 0), (49, 0, 0), (49, 30, 46),
           (99, 0, 0)]
# How much more than playing on would lose (gnubg's 0-ply against the bots' own 1-ply) a
# resignation may give up, in games: points per cube for money, for a match the change in
# match winning chance over half the difference between winning and losing a single game.
TOLERANCE = 0.05


def candidates() -> list[Position]:
    """Positions of random games where the side on roll is well behind (where resignations
    come up), and the three lost for certain."""
    behind = [position for position in self_play_positions(4000, seed=5)
              if position.pip_count(0) - position.pip_count(1) > 30 or position.borne_off(1) > 8]
    return [LOST_SINGLE, LOST_GAMMON, LOST_BACKGAMMON, *behind[::max(1, len(behind) // 60)]]


def with_the_opponents_cube(position: Position, length: int | None, score: tuple[int, int]) -> Match:
    """The bot (player 0) about to roll, the opponent owning a 2-cube (so the bot decides
    only whether to resign, not whether to double; a 1-point match has no cube)."""
    state = arranged(position, length=length).to_dict()
    state.update(score=list(score))
    if length != 1:
        state.update(cube=2, cube_owner=1)
    return Match.from_dict(state, ScriptedDice(()))


def match_value(points: int, length: int | None, away: tuple[int, int]) -> float:
    """What a game ending with `points` for the side on roll is worth to it: the points for
    money and for matches longer than the match equity table, otherwise the match winning
    chance after it (the table's)."""
    if length is None or max(away) > MATCH_TABLE_AWAY:
        return points
    mine, theirs = away[0] - max(points, 0), away[1] + min(points, 0)
    return 1.0 if mine <= 0 else 0.0 if theirs <= 0 else get_met(mine, theirs, False)


def playing_on(chances: tuple[float, ...], cube: int, length: int | None,
               away: tuple[int, int]) -> float:
    win, win_gammon, win_backgammon, lose_gammon, lose_backgammon = chances
    results = {1: win - win_gammon, 2: win_gammon - win_backgammon, 3: win_backgammon,
               -1: 1 - win - lose_gammon, -2: lose_gammon - lose_backgammon, -3: lose_backgammon}
    return sum(chance * match_value(kind * cube, length, away) for kind, chance in results.items())


def test_the_match_table_ends_where_the_engine_says_it_does():
    assert get_met(MATCH_TABLE_AWAY, MATCH_TABLE_AWAY - 1, False) < 0.5
    assert get_met(MATCH_TABLE_AWAY + 1, MATCH_TABLE_AWAY, False) == 0.5  # flat beyond it


@pytest.mark.gnubg
@pytest.mark.parametrize("level", [INTERMEDIATE, EXPERT], ids=lambda level: level.name)
def test_a_bot_never_resigns_more_than_gnubg_says_it_would_lose(level):
    if not GNUBG.exists():
        skip_unless_ci(f"needs GNU Backgammon at {GNUBG} (apt-get install -y gnubg)")
    positions = candidates()
    judged = dict(zip(positions, gnubg_chances([board_of(p) for p in positions])))
    resigned: dict[int | None, int] = {}
    for position in positions:
        for length, mine, theirs in MATCHES:
            match = with_the_opponents_cube(position, length, (mine, theirs))
            decision = decide(situation_for(match, 0), level, random.Random(1))
            if decision.action is not Action.RESIGN:
                continue
            resigned[length] = resigned.get(length, 0) + 1
            cube = match.cube
            away = (0, 0) if length is None else (length - mine, length - theirs)
            one_game = (match_value(cube, length, away) - match_value(-cube, length, away)) / 2
            resigning = match_value(-int(decision.resignation) * cube, length, away)
            expected = playing_on(judged[position], cube, length, away)
            assert resigning >= expected - TOLERANCE * one_game, (
                f"{length}-point match at {mine}-{theirs}: resigned {decision.resignation!r} "
                f"of {position.position_id()}, worth {resigning:.4f} where playing on is worth "
                f"{expected:.4f} by gnubg's chances (a game: {one_game:.4f})")
    # The lost ones are resigned at every length (the property is not met by never resigning).
    assert all(resigned.get(length, 0) >= 3 for length, _, _ in MATCHES), resigned
