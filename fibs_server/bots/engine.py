"""The bgsage levels: checker play, cube and resignations from bgsage's neural networks.

bgsage's board (gnubg's "simple" board) is 26 counts from the side on roll: [0] the
opponent's bar, [1..24] the points of the side on roll in its own numbering (its checkers
positive, the opponent's negative), [25] its own bar. Its probabilities are those of the side
that has just moved; a position before a roll is evaluated as the opponent's position after
its move, and the probabilities turned round.

Cube decisions use bgsage's 1-ply formula (Janowski's cube life) on the probabilities of the
level's look-ahead. `BgBotAnalyzer.cube_action` gives the same answers at 1-ply but loads its
24 weight files again on every call (25 ms); `bgbot_cpp.cube_decision_1ply`, the formula it
applies, takes 10 µs (tests/bots/test_engine.py checks that both agree).
"""
from __future__ import annotations

import dataclasses
import functools
import random
from typing import Any

import bgbot_cpp  # bgsage's compiled core, installed with it
from bgsage import BgBotAnalyzer, Probabilities, can_double_match, flip_board, invert_probs

from fibs_server.rules.board.position import Position, bgsage_board
from fibs_server.rules.events import WinKind
from fibs_server.rules.match import Phase

from . import heuristic
from .situation import (
    ACCEPT_RESIGNATION,
    DOUBLE,
    DROP,
    REJECT_RESIGNATION,
    ROLL,
    TAKE,
    CubeOwner,
    Decision,
    Situation,
    move,
    resign,
)

# How close to certain a lost game must be before the bot resigns it, and how much a
# resignation may differ from playing on before the bot accepts it: in points of the game,
# i.e. a hundredth of what one game at this cube is worth (points for money; for a match,
# half the match winning chance between winning and losing it). Measured against the game,
# not the match: in a long match a whole game moves the match winning chance by less than a
# fixed 0.01, which would make every slightly worse game "lost".
CERTAINTY = 0.01
# bgsage's match equity table ends at 25 away: beyond it every score reads 0.5, so all plays,
# cube decisions and results of a game would look alike (equity 0 each). A match that long is
# evaluated as money: its games are then worth about their points, as money games are.
MATCH_TABLE_AWAY = 25
# FIBS plays unlimited matches without the Jacoby rule.
_FIBS_RULES = {"jacoby": False}
_BGSAGE_OWNER = {CubeOwner.CENTRED: "centered", CubeOwner.BOT: "player",
                 CubeOwner.OPPONENT: "opponent"}
_CPP_OWNER = {"centered": bgbot_cpp.CubeOwner.CENTERED, "player": bgbot_cpp.CubeOwner.PLAYER,
              "opponent": bgbot_cpp.CubeOwner.OPPONENT}
_OTHER_SIDE = {"centered": "centered", "player": "opponent", "opponent": "player"}
# A loser with a checker here (own points 19..24: the winner's home board; the bar) when the
# game ends loses a backgammon.
_WINNERS_HOME_AND_BAR = slice(18, 25)


def board_of(position: Position) -> list[int]:
    """bgsage's board of `position`, from its side on roll (checkers[0])."""
    return list(bgsage_board(*position.checkers))


@functools.cache
def analyzer(plies: int) -> BgBotAnalyzer:
    """One analyzer per look-ahead and process, kept: building one loads the networks.
    One thread each (bgsage still uses two from 2-ply on): the pool runs decisions side by
    side in processes."""
    return BgBotAnalyzer(eval_level=f"{plies}ply", parallel_threads=1)


def bare_network(plies: int) -> tuple[Any, Any]:
    """`analyzer(plies)`'s bare network (1-ply, exact in bear-offs) and its bear-off
    database, for bgbot_cpp's calls that take them."""
    inner = analyzer(plies)._analyzer._inner
    return inner._strategy_1ply, inner._bearoff_db


@dataclasses.dataclass(frozen=True)
class Cube:
    """The cube and the score as bgsage takes them, from one side."""

    value: int
    owner: str  # bgsage's "centered", "player" (this side) or "opponent"
    away: tuple[int, int]  # points this side and the other still need; (0, 0) for money
    is_crawford: bool

    def other_side(self) -> Cube:
        return Cube(self.value, _OTHER_SIDE[self.owner], self.away[::-1], self.is_crawford)

    @property
    def options(self) -> dict[str, Any]:
        """bgsage's keyword arguments for the score and the rules."""
        return {"away1": self.away[0], "away2": self.away[1], "is_crawford": self.is_crawford,
                **_FIBS_RULES}


@dataclasses.dataclass(frozen=True)
class CubeEquities:
    """A cube decision's three equities for the side on roll, per unit of the cube in play."""

    no_double: float
    take: float  # double/take
    drop: float  # double/pass


# Any chances: what double/pass is worth does not depend on them.
_ANY_CHANCES = [0.5, 0.0, 0.0, 0.0, 0.0]


def evaluated_as_money(situation: Situation) -> bool:
    return situation.is_money or max(situation.away) > MATCH_TABLE_AWAY


def _bots_cube(situation: Situation) -> Cube:
    return Cube(situation.cube, _BGSAGE_OWNER[situation.cube_owner],
                 (0, 0) if evaluated_as_money(situation) else situation.away,
                 situation.is_crawford_game)


def decide(situation: Situation, plies: int, noise: float, rng: random.Random) -> Decision:
    """A decision in a game (not between games) at `plies` look-ahead; `noise` is in equity,
    on each play's and each cube decision's value."""
    phase = situation.phase
    if phase is Phase.MOVE:
        return _move(situation, plies, noise, rng)
    if phase is Phase.ROLL_OR_DOUBLE:
        return _roll_or_double(situation, plies, noise, rng)
    if phase is Phase.DOUBLE_OFFERED:
        return _answer_double(situation, plies, noise, rng)
    return _answer_resignation(situation)


def _move(situation: Situation, plies: int, noise: float, rng: random.Random) -> Decision:
    position, dice, cube = situation.position, situation.dice, _bots_cube(situation)
    assert dice is not None  # the roll being played
    # beaver=False: FIBS players rarely allow redoubles (`set redoubles`: none by default).
    moves = analyzer(plies).checker_play(board_of(position), *dice, cube.value, cube.owner,
                                         beaver=False, **cube.options).moves
    kind = _resignation(situation, moves[0].probs)  # after the best play
    if kind:
        return resign(kind)
    plays = {play.result_board: play for play in position.legal_plays(dice)}
    # bgsage also offers bearing off the last checker with one die where both dice can be
    # played (5/off beside 5/3*/off); FIBS and gnubg require both, so only our plays count.
    legal = [analysed for analysed in moves if tuple(analysed.board) in plays]
    chosen = max(legal, key=lambda analysed: analysed.equity + rng.gauss(0.0, noise))
    return move(plays[tuple(chosen.board)])


def _roll_or_double(situation: Situation, plies: int, noise: float,
                    rng: random.Random) -> Decision:
    board, cube = board_of(situation.position), _bots_cube(situation)
    kind = _resignation(situation, _pre_roll_probabilities(board, cube, 1))
    if kind:
        return resign(kind)
    # can_double_match: whether the cube is alive in a match (it answers False for money).
    if situation.may_double and (evaluated_as_money(situation) or can_double_match(
            *cube.away, cube.value, cube.owner, cube.is_crawford)):
        double_gain, _ = cube_margins(board, cube, plies)
        if double_gain + rng.gauss(0.0, noise) > 0:
            return DOUBLE
    return ROLL


def _answer_double(situation: Situation, plies: int, noise: float,
                   rng: random.Random) -> Decision:
    if situation.bot_on_roll:
        # A redouble (beaver) of the bot's own double, unlimited matches only: dropping
        # loses half the new cube.
        probabilities = _pre_roll_probabilities(board_of(situation.position),
                                                _bots_cube(situation), 1)
        return TAKE if probabilities.equity >= -0.5 else DROP
    doubler_board = board_of(situation.position.swap())
    _, take_gain = cube_margins(doubler_board, _bots_cube(situation).other_side(), plies)
    return TAKE if take_gain + rng.gauss(0.0, noise) >= 0 else DROP


def _answer_resignation(situation: Situation) -> Decision:
    assert situation.offered_resignation is not None  # phase RESIGN_OFFERED
    points = situation.offered_resignation * situation.cube
    playing_on = _playing_on_value(situation, _bots_probabilities(situation))
    accepting = _outcome_value(situation, points)
    return (ACCEPT_RESIGNATION if accepting >= playing_on - _certainty(situation)
            else REJECT_RESIGNATION)


def _pre_roll_probabilities(board: list[int], cube: Cube, plies: int) -> Probabilities:
    """Of the side on roll, before its roll."""
    other = cube.other_side()
    after_opponents_move = analyzer(plies).post_move_analytics(
        flip_board(board), other.owner, other.value, **other.options)
    return _turned_round(after_opponents_move.probs)


def _bots_probabilities(situation: Situation) -> Probabilities:
    """Of the bot, now: with the roll being played if there is one (its best play)."""
    board, cube = board_of(situation.position), _bots_cube(situation)
    if situation.bot_on_roll:
        if situation.dice:
            return _best_play_probabilities(board, situation.dice, cube)
        return _pre_roll_probabilities(board, cube, 1)
    if situation.dice:
        return _turned_round(_best_play_probabilities(flip_board(board), situation.dice,
                                                      cube.other_side()))
    return analyzer(1).post_move_analytics(board, cube.owner, cube.value, **cube.options).probs


def _best_play_probabilities(board: list[int], dice: tuple[int, int],
                             cube: Cube) -> Probabilities:
    """Of the side on roll after its best play of `dice` at 1-ply."""
    moves = analyzer(1).checker_play(board, *dice, cube.value, cube.owner, beaver=False,
                                     **cube.options).moves
    return moves[0].probs  # a roll being played always has a legal play (the engine)


def _turned_round(probabilities: Probabilities) -> Probabilities:
    """The same chances from the other side."""
    return Probabilities.from_list(invert_probs(probabilities.to_list()))


def cube_equities(board: list[int], cube: Cube, plies: int) -> Any:
    """No double, double/take and double/pass for the side on roll (`equity_nd`, `equity_dt`,
    `equity_dp`): bgsage's 1-ply formula on the chances at `plies`; at 1-ply the same as
    `cube_action` except post-Crawford (module docstring)."""
    probabilities = _pre_roll_probabilities(board, cube, plies).to_list()
    cube_life = bgbot_cpp.cube_efficiency(probabilities, bgbot_cpp.is_race(board),
                                          *bgbot_cpp.pip_counts(board))
    return bgbot_cpp.cube_decision_1ply(probabilities, cube.value, _CPP_OWNER[cube.owner],
                                        cube_life, *cube.away, cube.is_crawford, jacoby=False)


# How far double/take as looked ahead here may be from bgsage's own (engine's docstring of
# cube_equities_in_depth), with a margin.
_TAKE_LOOKAHEAD_DIFFERS = 0.1
# Float32 rounding between two ways to the same equity.
_SAME_EQUITY = 1e-5
# The same for a take's equity, from the doubled cube's (4e-5 measured at 3.7 EMG).
_TAKE_ROUNDING = 1e-4


def cube_equities_in_depth(board: list[int], cube: Cube, plies: int,
                           no_double_needed: bool = True) -> CubeEquities:
    """bgsage's `cube_action` at `plies` (2 and more) from the networks already loaded (two
    look-aheads of 1-4 ms, against 25 ms to load the networks again) where they settle it;
    otherwise `cube_action` itself.

    bgsage's look-ahead from the cube as it stands returns the best of no double, double/take
    and double/pass: no double's value when it is far enough from the other two. Double/take
    comes from a look-ahead of its own, where each roll's play is chosen for the doubled cube
    (`cube_action` chooses them for the cube as it stands for both, and its two look-aheads
    share their work): up to 0.08 from bgsage's, and no double up to 0.01
    (tests/bots/test_engine.py). A clear no double needs double/take only to say whether the
    decision was close; and since bgsage's own double/take is never above the look-ahead's,
    no double's value above the latter settles a no double. Without `no_double_needed` (a
    double made: right, no double's value does not count, but the error of a wrong one needs
    bgsage's own double/take), a clear double/pass is settled too, no double read as
    double/pass."""
    network, bearoff = bare_network(1)
    rules = {"n_threads": 1, "away1": cube.away[0], "away2": cube.away[1],
             "is_crawford": cube.is_crawford, "jacoby": False, "beaver": False,
             "bearoff_db": bearoff}
    best = bgbot_cpp.cubeful_equity_nply(board, _CPP_OWNER[cube.owner], network, plies,
                                         cube_value=cube.value, **rules)
    taken = bgbot_cpp.cubeful_equity_nply(board, bgbot_cpp.CubeOwner.OPPONENT, network, plies,
                                          cube_value=2 * cube.value, **rules)
    # The taken cube's equity is per unit of the doubled cube: per unit of the cube in play.
    if cube.away == (0, 0):
        take = 2 * taken
    else:
        take = bgbot_cpp.mwc2eq(bgbot_cpp.eq2mwc(taken, *cube.away, 2 * cube.value,
                                                 cube.is_crawford),
                                *cube.away, cube.value, cube.is_crawford)
    # Double/pass depends on the score and the cube alone, not on the chances.
    drop = bgbot_cpp.cube_decision_1ply(_ANY_CHANCES, cube.value, _CPP_OWNER[cube.owner],
                                        0.0, *cube.away, cube.is_crawford,
                                        jacoby=False).equity_dp
    # The best is no double's value, double/pass's or bgsage's double/take's: no double's
    # when it is neither of the others.
    if abs(best - drop) > _SAME_EQUITY and abs(best - take) > _TAKE_LOOKAHEAD_DIFFERS:
        return CubeEquities(best, take, drop)
    # bgsage's own double/take is never above this look-ahead's (0 to 0.04 below on every
    # position measured: tests/bots/test_engine.py), so no double's value above the
    # look-ahead's double/take settles a no double, however close (the decision is counted
    # as close either way: within CLOSE_CUBE of double/take).
    if no_double_needed and abs(best - drop) > _SAME_EQUITY and best > take + _TAKE_ROUNDING:
        return CubeEquities(best, take, drop)
    if not no_double_needed and abs(best - drop) <= _SAME_EQUITY and (
            take > drop + _TAKE_LOOKAHEAD_DIFFERS):
        return CubeEquities(best, take, drop)
    action = analyzer(plies).cube_action(board, cube.value, cube.owner, beaver=False,
                                         **cube.options)
    return CubeEquities(action.equity_nd, action.equity_dt, action.equity_dp)


def cube_margins(board: list[int], cube: Cube, plies: int) -> tuple[float, float]:
    """For the side on roll: how much doubling gains over playing on, and how much taking
    gains the opponent over dropping (in cubeful equity; negative: the other choice)."""
    equities = cube_equities(board, cube, plies)
    no_double, take, drop = equities.equity_nd, equities.equity_dt, equities.equity_dp
    return min(take, drop) - no_double, drop - take


def _possible_only(probabilities: Probabilities, position: Position) -> Probabilities:
    """The bot's chances without the gammons and backgammons the position already rules out
    for the rest of the game (the networks give them a little weight all the same)."""
    win, win_gammon, win_backgammon, loss_gammon, loss_backgammon = probabilities.to_list()
    if position.borne_off(1):
        win_gammon = win_backgammon = 0.0
    if position.borne_off(0):
        loss_gammon = loss_backgammon = 0.0
    if not heuristic.has_contact(position):  # nobody is hit again: the home boards decide
        mine, theirs = position.checkers
        if not any(theirs[_WINNERS_HOME_AND_BAR]):
            win_backgammon = 0.0
        if not any(mine[_WINNERS_HOME_AND_BAR]):
            loss_backgammon = 0.0
    return Probabilities(win, win_gammon, win_backgammon, loss_gammon, loss_backgammon)


def _resignation(situation: Situation, probabilities: Probabilities) -> WinKind | None:
    """The smallest resignation that costs the bot nothing against playing on, when it
    costs its opponent nothing either (a game as good as lost, and by how much)."""
    playing_on = _playing_on_value(situation, probabilities)
    refused = situation.refused_resignation or 0
    for kind in WinKind:
        resigning = _outcome_value(situation, -kind * situation.cube)
        if kind > refused and abs(resigning - playing_on) <= _certainty(situation):
            return kind
    return None


def _playing_on_value(situation: Situation, probabilities: Probabilities) -> float:
    win, win_gammon, win_backgammon, loss_gammon, loss_backgammon = _possible_only(
        probabilities, situation.position).to_list()
    chances: dict[int, float] = {1: win - win_gammon, 2: win_gammon - win_backgammon,
                                 3: win_backgammon, -1: 1 - win - loss_gammon,
                                 -2: loss_gammon - loss_backgammon, -3: loss_backgammon}
    if not situation.variant.facts.backgammons:  # they count as gammons
        chances[2] += chances.pop(3)
        chances[-2] += chances.pop(-3)
    return sum(chance * _outcome_value(situation, kind * situation.cube)
               for kind, chance in chances.items())


def _outcome_value(situation: Situation, points: int) -> float:
    """What the game ending with `points` won by the bot (negative: lost) is worth to it:
    the points themselves for money (and a match too long for the table), the match winning
    chance for a match."""
    if evaluated_as_money(situation):
        return points
    mine, theirs = situation.away
    if points > 0:
        mine -= points
    else:
        theirs += points
    if mine <= 0 or theirs <= 0:
        return 1.0 if mine <= 0 else 0.0
    # The table's flag: whether the Crawford game is over after this game.
    crawford_over = situation.is_crawford_game or situation.is_post_crawford
    met: float = bgbot_cpp.get_met(mine, theirs, crawford_over)
    return met


def _certainty(situation: Situation) -> float:
    one_game = (_outcome_value(situation, situation.cube)
                - _outcome_value(situation, -situation.cube)) / 2
    return CERTAINTY * one_game
