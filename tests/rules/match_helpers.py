"""Building matches in a chosen state for the match tests."""
from __future__ import annotations

from fibs_server.rules.board.position import Play, Position
from fibs_server.rules.dice import ScriptedDice
from fibs_server.rules.match import Match

# Opening roll 3-1: player 0 starts and plays 8/5 6/5.
OPENING_31 = (3, 1)
POINT_MAKING_31 = ((8, 5), (6, 5))


def started(length: int | None = 5, script=(OPENING_31,), **options) -> tuple[Match, list]:
    match = Match(length, ScriptedDice(script), **options)
    return match, match.start()


def play_with(match: Match, steps) -> Play:
    """The legal play made of exactly these steps (in any order)."""
    wanted = sorted(steps)
    for play in match.legal_plays():
        if sorted(play.steps) == wanted:
            return play
    raise AssertionError(f"no legal play {steps} in {[p.steps for p in match.legal_plays()]}")


def arranged(position: Position, *, turn: int = 0, dice=None, script=(), length: int | None = 5,
             **options) -> Match:
    """A game-1 match with `position` (player `turn` on roll): moving `dice`, or without dice
    about to roll or double; later rolls come from `script`."""
    match, _ = started(length, script=(OPENING_31, OPENING_31), **options)  # Portes rolls again
    state = match.to_dict()
    state.update(position=position.position_id(), turn=turn,
                 dice=list(dice) if dice else None, phase="move" if dice else "roll or double")
    return Match.from_dict(state, ScriptedDice(script))


def side(points: dict[int, int], bar: int = 0) -> tuple[int, ...]:
    """25 counts in own numbering from {own point: checkers}."""
    counts = [0] * 25
    for point, count in points.items():
        counts[point - 1] = count
    counts[24] = bar
    return tuple(counts)


def bear_off_win(loser: tuple[int, ...]) -> Position:
    """The player on roll has one checker left, on its 1 point, against `loser`."""
    return Position((side({1: 1}), loser))
