"""A match's winning chances where it stands: what an abandoned rated match is settled by
(docs/FAIRNESS.md, "Abandoned matches").

Pure and blocking like the bots' decisions: the server runs `match_chances` in the bots'
worker (`BotPool.chances`), never on the event loop. At the analysis's depth (2-ply), cubeful,
with bgsage's match equity table: the chance of the player to act (on roll, to move, or the
doubler of an offer not answered) is their cubeful equity turned into a match winning chance
at the cube in play; between games it is the table's, at the score. A resignation offered and
not answered binds nobody: it is left out.
"""
from __future__ import annotations

from typing import Any

import bgbot_cpp

from fibs_server.rules.dice import ScriptedDice
from fibs_server.rules.match import Match, Phase

from . import analysis, engine

SETTLEMENT_PLIES = analysis.DEFAULT_PLIES


def match_chances(state: dict[str, Any], plies: int = SETTLEMENT_PLIES) -> float | None:
    """The chance that player 0 (the inviter) wins the match stored as `state` had it been
    played on from where it stands (the other's is 1 minus it). None where bgsage has none:
    an unlimited match, a variant it does not play, or a score past its match equity table
    (`engine.MATCH_TABLE_AWAY`)."""
    match = Match.from_dict(state, ScriptedDice([]))  # only read: it never rolls
    if match.length is None or not match.variant.facts.bgsage:
        return None
    if match.is_over:
        return 1.0 if match.winner == 0 else 0.0
    away = (match.length - match.score[0], match.length - match.score[1])
    if max(away) > engine.MATCH_TABLE_AWAY:
        return None
    match.resignation = None  # (a copy of the stored match) the offer binds nobody
    if match.phase in (Phase.NOT_STARTED, Phase.BETWEEN_GAMES):
        # The next game is the Crawford game if someone is at match point and none was played.
        crawford_played = match.is_crawford_game or match.is_post_crawford
        next_is_crawford = (match.crawford_rule and match.length > 1 and not crawford_played
                            and 1 in away)
        return float(bgbot_cpp.get_met(*away, not next_is_crawford))
    # To act: on roll, to move, or the doubler waiting for an answer.
    player = match.turn if match.double_offer is None else match.double_offer.offered_by
    chance = _chance_of_player_to_act(match, player, (away[player], away[1 - player]), plies)
    return chance if player == 0 else 1.0 - chance


def _chance_of_player_to_act(match: Match, player: int, away: tuple[int, int],
                             plies: int) -> float:
    owner = ("centered" if match.cube_owner is None
             else "player" if match.cube_owner == player else "opponent")
    cube = engine.Cube(match.cube, owner, away, match.is_crawford_game)
    board = engine.board_of(match.position_seen_by(player))
    if match.phase is Phase.MOVE:
        assert match.dice is not None  # the roll being played
        moves = engine.analyzer(plies).checker_play(board, *match.dice, cube.value, cube.owner,
                                                    beaver=False, **cube.options).moves
        return float(bgbot_cpp.eq2mwc(moves[0].equity, *away, cube.value, cube.is_crawford))
    if match.phase is Phase.DOUBLE_OFFERED:
        # The taker chooses: the doubler gets the smaller of a pass and a take.
        passed = away[0] - cube.value
        # A pass ends the game; the next is the Crawford game unless one was played (no
        # double happens in one) or the match has no Crawford rule.
        crawford_over = match.is_post_crawford or not match.crawford_rule
        by_pass = 1.0 if passed <= 0 else bgbot_cpp.get_met(passed, away[1], crawford_over)
        return min(by_pass, _pre_roll(board, cube, "opponent", 2 * cube.value, plies))
    return _pre_roll(board, cube, cube.owner, cube.value, plies)


def _pre_roll(board: list[int], cube: engine.Cube, owner: str, value: int, plies: int) -> float:
    """The chance of the side on roll before its roll, the cube at `value` owned by `owner`
    (bgsage's word, from that side)."""
    network, bearoff = engine.bare_network(1)
    equity = bgbot_cpp.cubeful_equity_nply(
        board, engine._CPP_OWNER[owner], network, plies, n_threads=1, cube_value=value,
        away1=cube.away[0], away2=cube.away[1], is_crawford=cube.is_crawford, jacoby=False,
        beaver=False, bearoff_db=bearoff)
    return float(bgbot_cpp.eq2mwc(equity, *cube.away, value, cube.is_crawford))
