"""Our own bot play, without bgsage: rules of thumb, counted in pips.

It plays the beginner level (with noise), every level in hypergammon (bgsage's networks know
15 checkers a side only), and every decision the engine does not make within the time budget,
so it must stay cheap enough for the event loop: about a millisecond for a move.
"""
from __future__ import annotations

import random

from fibs_server.rules.board.position import Play, Position
from fibs_server.rules.events import WinKind
from fibs_server.rules.match import Phase

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
)

# Rolls out of 36 that hit a lone checker at each distance, nothing in the way.
_SHOTS = {1: 11, 2: 12, 3: 14, 4: 15, 5: 15, 6: 17, 7: 6, 8: 6, 9: 5, 10: 3, 11: 2, 12: 3}
# What a made point is worth, by own point: the home board and the bar point block most,
# the opponent's 5 and 4 points are the best anchors.
_POINT_VALUE = {1: 0.5, 2: 2, 3: 2, 4: 4, 5: 5, 6: 4, 7: 4, 8: 2, 9: 2, 10: 2, 11: 2,
                20: 3, 21: 3}
_ANCHOR_VALUE = 1
_PRIME_VALUE = 3  # per point of a run of made points beyond two
_CLOSED_POINT_VALUE = 1.5  # per closed home point and opposing checker on the bar
_BORNE_OFF_VALUE = 6  # more than the pips a bear-off with a larger die wastes
# The race's rules of thumb (the 8-9-12 rule), as the leader's lead over its own pip count.
_DOUBLE_LEAD = 0.08
_REDOUBLE_LEAD = 0.09
_TAKE_LEAD = 0.12
_CONTACT_TAKE_LEAD = 0.25
_GAMMON_LEAD = 0.30


def decide(situation: Situation, noise: float, rng: random.Random) -> Decision:
    """A decision in a game (not between games); `noise` is in pips, on each play's value."""
    phase = situation.phase
    if phase is Phase.MOVE:
        assert situation.dice is not None  # the roll being played
        return move(best_play(situation.position, situation.dice, noise, rng))
    if phase is Phase.ROLL_OR_DOUBLE:
        return DOUBLE if situation.may_double and _wants_to_double(situation) else ROLL
    if phase is Phase.DOUBLE_OFFERED:
        return TAKE if _takes(situation) else DROP
    return ACCEPT_RESIGNATION if _accepts_resignation(situation) else REJECT_RESIGNATION


def best_play(position: Position, dice: tuple[int, int], noise: float,
              rng: random.Random) -> Play:
    return max(position.legal_plays(dice),
               key=lambda play: value(play.result) + rng.gauss(0.0, noise))


def value(position: Position) -> float:
    """How good a position is for checkers[0], who has just moved, in pips."""
    mine, theirs = position.checkers
    # The opponent's checkers by own point of checkers[0]: its bar is point 0 (it enters on
    # our points 1..6) and it moves up our numbering.
    theirs_at = [theirs[24]] + [theirs[24 - point] for point in range(1, 25)]
    score: float = (position.pip_count(1) - position.pip_count(0)
             + _BORNE_OFF_VALUE * position.borne_off(0))
    if not has_contact(position):
        return score
    run = 0
    for point in range(1, 25):
        count = mine[point - 1]
        if count >= 2:
            score += _POINT_VALUE.get(point, _ANCHOR_VALUE if point > 18 else 0)
            run += 1
            score += _PRIME_VALUE if run > 2 else 0
        else:
            run = 0
            if count == 1:
                score -= _hit_chance(point, theirs_at) * (25 - point)
    closed_home = sum(count >= 2 for count in mine[:6])
    return score + _CLOSED_POINT_VALUE * closed_home * theirs[24]


def has_contact(position: Position) -> bool:
    """Whether a checker of either side still has to pass one of the other side."""
    mine, theirs = position.checkers
    my_rearmost = max((index + 1 for index, count in enumerate(mine) if count), default=0)
    # Their rearmost checker, in our numbering: their own point p is our 25 - p, their bar 0.
    their_rearmost = min((24 - index for index, count in enumerate(theirs) if count),
                         default=25)
    return my_rearmost > their_rearmost


def _hit_chance(point: int, theirs_at: list[int]) -> float:
    miss = 1.0
    for distance, shots in _SHOTS.items():
        if point - distance >= 0 and theirs_at[point - distance]:
            miss *= 1 - shots / 36
    return 1 - miss


def race_lead(position: Position) -> float:
    """The lead of checkers[0] in the race, as a part of its own pip count."""
    mine = position.pip_count(0)
    return (position.pip_count(1) - mine) / mine


def _wants_to_double(situation: Situation) -> bool:
    position = situation.position  # the bot on roll
    if has_contact(position) or _cube_is_dead(situation):
        return False
    needed = _DOUBLE_LEAD if situation.cube_owner is CubeOwner.CENTRED else _REDOUBLE_LEAD
    return race_lead(position) >= needed


def _cube_is_dead(situation: Situation) -> bool:
    """Match play: a single win already wins the bot the match at the current cube."""
    return not situation.is_money and situation.away[0] <= situation.cube


def _takes(situation: Situation) -> bool:
    if not situation.bot_on_roll:  # a double by the opponent, on roll
        doubler_view = situation.position.swap()
        if not situation.is_money and situation.away[1] <= situation.cube:
            return True  # dropping loses the match anyway
        limit = _TAKE_LEAD if not has_contact(doubler_view) else _CONTACT_TAKE_LEAD
        return race_lead(doubler_view) <= limit
    return True  # a redouble of the bot's own double: it thought itself ahead


def _accepts_resignation(situation: Situation) -> bool:
    offered = situation.offered_resignation
    assert offered is not None  # phase RESIGN_OFFERED
    points = offered * situation.cube
    if not situation.is_money and points >= situation.away[0]:
        return True  # wins the match
    return offered >= WinKind.GAMMON or not _may_win_gammon(situation)


def _may_win_gammon(situation: Situation) -> bool:
    position = situation.position
    return position.borne_off(1) == 0 and race_lead(position) >= _GAMMON_LEAD
