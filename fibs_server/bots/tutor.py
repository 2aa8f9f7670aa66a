"""The tutor's judgement: what a proposed decision loses against the best one (docs/BOTS.md,
"The tutor").

Pure and blocking like the bots' decisions: the server runs `judge` in the bots' quick worker
(`BotPool.judge`), never on the event loop. It judges at bgsage's bare network (1-ply, about
3 ms a play), the quick bots' level: a hint for a player learning, not the match's analysis.
Equities are cubeful, in EMG per unit of the cube in play, from the decider's side, as the
analysis's (docs/ANALYSIS.md).
"""
from __future__ import annotations

import dataclasses

from fibs_server.rules.match import Phase

from . import engine
from .situation import DOUBLE, DROP, ROLL, TAKE, Action, Decision, Situation, move

TUTOR_PLIES = 1


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The proposed decision's equity and the best decision's, from the decider's side."""

    proposed_equity: float
    best: Decision
    best_equity: float

    @property
    def loss(self) -> float:
        """What the proposal gives away (never negative)."""
        return max(0.0, self.best_equity - self.proposed_equity)


def judged(situation: Situation, proposal: Decision) -> bool:
    """Whether the tutor has a judgement of `proposal` here: a play of a roll, a double or a
    roll where doubling is possible, a take or a drop; in a variant bgsage knows."""
    if not situation.variant.facts.bgsage or not situation.bot_on_roll \
            and situation.phase is not Phase.DOUBLE_OFFERED:
        return False
    if situation.phase is Phase.MOVE:
        return proposal.action is Action.MOVE
    if situation.phase is Phase.ROLL_OR_DOUBLE:
        return proposal.action in (Action.ROLL, Action.DOUBLE) and situation.may_double
    if situation.phase is Phase.DOUBLE_OFFERED:
        # A redouble (beaver) of one's own double is left alone.
        return not situation.bot_on_roll and proposal.action in (Action.TAKE, Action.DROP)
    return False


def judge(situation: Situation, proposal: Decision, plies: int = TUTOR_PLIES) -> Verdict:
    """`proposal` (for which `judged` holds) against the best decision in `situation`."""
    assert judged(situation, proposal)
    cube = engine._bots_cube(situation)
    if situation.phase is Phase.MOVE:
        assert situation.dice is not None and proposal.play is not None
        moves = engine.analyzer(plies).checker_play(
            engine.board_of(situation.position), *situation.dice, cube.value, cube.owner,
            beaver=False, **cube.options).moves
        plays = {play.result_board: play for play in situation.position.legal_plays(situation.dice)}
        values = {tuple(analysed.board): analysed.equity for analysed in moves
                  if tuple(analysed.board) in plays}
        best_board = max(values, key=lambda board: values[board])
        return Verdict(values[proposal.play.result_board], move(plays[best_board]),
                       values[best_board])
    if situation.phase is Phase.ROLL_OR_DOUBLE:
        equities = engine.cube_equities(engine.board_of(situation.position), cube, plies)
        options = {ROLL: equities.equity_nd,
                   DOUBLE: min(equities.equity_dt, equities.equity_dp)}
    else:  # answering the opponent's double: their equities, turned round
        equities = engine.cube_equities(engine.board_of(situation.position.swap()),
                                        cube.other_side(), plies)
        options = {TAKE: -equities.equity_dt, DROP: -equities.equity_dp}
    best = max(options, key=lambda option: options[option])
    return Verdict(options[proposal], best, options[best])
