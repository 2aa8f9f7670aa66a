"""FIBS move notation: writing plays and checking what players type after `move`.

FIBS numbers points absolutely: O moves from 24 down to 1 and bears off at 0, so O's own
numbering is the absolute one; X moves from 1 up to 24 and bears off at 25, so X's own point
p is absolute 25 - p. Plays in the engine use own numbering (25 = bar, 0 = off).
"""
from __future__ import annotations

import enum
from collections.abc import Iterator
from itertools import permutations

from ..refusals import Refusal, Refused
from .position import BAR, OFF, LegalResults, Play, Position

Step = tuple[int, int]  # (from, to) in own numbering
Checkers = tuple[tuple[int, ...], tuple[int, ...]]  # (mover, opponent), as Position.checkers

_FROM_WORDS = {"bar": BAR, "b": BAR}
_TO_WORDS = {"off": OFF, "o": OFF, "home": OFF, "h": OFF}


class Colour(enum.Enum):
    X = "X"  # moves from absolute 1 up to 24
    O = "O"  # moves from absolute 24 down to 1

    def absolute(self, own_point: int) -> int:
        """The absolute FIBS number of an own point (0..25); the mapping is its own inverse."""
        return own_point if self is Colour.O else 25 - own_point


class MoveError(Refused, ValueError):
    """A typed move FIBS would refuse: its `reason` and `facts` (see `Refusal`)."""


def format_play(play: Play, colour: Colour | str) -> str:
    """FIBS text of a play, one from-to pair per die: `8-5 6-5`, `bar-22 22-16`, `4-off`."""
    return format_steps(play.steps, colour)


def format_steps(steps: tuple[tuple[int, int], ...], colour: Colour | str) -> str:
    """FIBS text of (from, to) steps in own numbering, as `format_play` writes them."""
    colour = Colour(colour)
    return " ".join(f"{_point_word(start, colour)}-{_point_word(end, colour)}"
                    for start, end in steps)


def _point_word(own_point: int, colour: Colour) -> str:
    if own_point == BAR:
        return "bar"
    if own_point == OFF:
        return "off"
    return str(colour.absolute(own_point))


def parse_move(text: str, position: Position, dice: tuple[int, int], colour: Colour | str,
               legal: LegalResults | None = None) -> Play:
    """The play a player typed (`8-5 6-5`, `bar 22 22 16`, `b-5 4-o`), or MoveError.

    `text` is what follows `move`/`m`; `position` has the player on roll; `legal` is what
    `position.legal_plays(dice)` come to, when the caller knows it already (a running match
    does: MatchState.legal_results). Steps may come in any order; the play must use as many
    dice as the legal plays do. Returns a Play with the player's steps (in an order that is
    legal) and the resulting position.
    """
    colour = Colour(colour)
    if legal is None:
        legal = LegalResults.of(position.legal_plays(dice))
    if not legal.count:
        raise MoveError(Refusal.NO_LEGAL_MOVE)
    steps = _read_steps(text, colour, required=legal.pieces_to_move)
    dice_left = [dice[0]] * len(steps) if dice[0] == dice[1] else list(dice)
    for order in dict.fromkeys(permutations(steps)):
        for mine, theirs in _playings(position, list(order), dice_left):
            if legal.reached_by(mine, theirs):
                return position.apply(order)
    problem = _first_problem(position, steps, dice_left, colour)
    if problem:
        raise problem
    raise MoveError(Refusal.MUST_PLAY_LARGER_DIE, die=max(dice))


def _read_steps(text: str, colour: Colour, required: int) -> list[tuple[int, int]]:
    """(from, to) pairs in own numbering, after the syntax and the count are checked."""
    words = text.replace("-", " ").lower().split()
    points = []
    for index, word in enumerate(words):
        point = _word_point(word, colour)
        if point is None:
            raise MoveError(Refusal.UNKNOWN_WORD, step_number=index // 2 + 1, word=word)
        points.append(point)
    given = (len(points) + 1) // 2
    if given > required:
        raise MoveError(Refusal.TOO_MANY_MOVES, required=required)
    if given < required or len(points) % 2:
        raise MoveError(Refusal.TOO_FEW_MOVES, required=required)
    steps = list(zip(points[::2], points[1::2]))
    for index, (start, end) in enumerate(steps):
        if start == OFF or end == BAR:
            raise MoveError(Refusal.FROM_OFF_OR_TO_BAR, step_number=index + 1)
    return steps


def _word_point(word: str, colour: Colour) -> int | None:
    """Own point of a typed word; absolute 0 and 25 stand for bar and off as FIBS counts."""
    if word in _FROM_WORDS:
        return BAR
    if word in _TO_WORDS:
        return OFF
    if word.isdigit() and int(word) <= 25:
        return colour.absolute(int(word))
    return None


def _playings(position: Position, steps: list[Step], dice_left: list[int]) -> Iterator[Checkers]:
    """Every result (mover, opponent checkers) of playing `steps` in this order, one per
    legal way of assigning dice (bearing off with a larger die may use either die)."""
    return _playings_from(steps, 0, list(position.checkers[0]), list(position.checkers[1]),
                          dice_left)


# A module function rather than a closure: a recursive closure refers to itself, a reference
# cycle that only the cyclic garbage collector frees (docs/PERFORMANCE.md, "Garbage
# collection").
def _playings_from(steps: list[Step], index: int, mine: list[int], theirs: list[int],
                   dice_left: list[int]) -> Iterator[Checkers]:
    if index == len(steps):
        yield tuple(mine), tuple(theirs)
        return
    start, end = steps[index]
    for die in _usable_dice(mine, theirs, start, end, dice_left):
        next_mine, next_theirs = _move(mine, theirs, start, end)
        remaining = list(dice_left)
        remaining.remove(die)
        yield from _playings_from(steps, index + 1, next_mine, next_theirs, remaining)


def _usable_dice(mine: list[int], theirs: list[int], start: int, end: int,
                 dice_left: list[int]) -> list[int]:
    """Dice that legally move a checker from `start` to `end` now (own numbering)."""
    if mine[24] and start != BAR or not mine[start - 1]:
        return []
    distance = start - end
    if end != OFF:
        return [distance] if distance in dice_left and theirs[24 - end] < 2 else []
    if sum(mine[6:]):
        return []
    if distance in dice_left:
        return [distance]
    if any(mine[start:6]):
        return []
    return sorted({die for die in dice_left if die > distance})


def _move(mine: list[int], theirs: list[int], start: int,
          end: int) -> tuple[list[int], list[int]]:
    mine = list(mine)
    mine[start - 1] -= 1
    if end != OFF:
        mine[end - 1] += 1
        if theirs[24 - end] == 1:
            theirs = list(theirs)
            theirs[24 - end] = 0
            theirs[24] += 1
    return mine, theirs


def _first_problem(position: Position, steps: list[Step], dice_left: list[int],
                   colour: Colour) -> MoveError | None:
    """The refusal of the first step, in the typed order, that cannot be played."""
    mine, theirs = list(position.checkers[0]), list(position.checkers[1])
    for index, (start, end) in enumerate(steps):
        usable = _usable_dice(mine, theirs, start, end, dice_left)
        if not usable:
            return _step_problem(mine, theirs, start, end, dice_left, colour, index + 1)
        dice_left = list(dice_left)
        dice_left.remove(usable[0])
        mine, theirs = _move(mine, theirs, start, end)
    return None


def _step_problem(mine: list[int], theirs: list[int], start: int, end: int,
                  dice_left: list[int], colour: Colour, step_number: int) -> MoveError:
    if mine[24] and start != BAR:
        return MoveError(Refusal.MUST_ENTER_FROM_BAR, step_number=step_number)
    if not mine[start - 1]:
        if start == BAR:
            return MoveError(Refusal.NO_CHECKER_ON_BAR, step_number=step_number)
        return MoveError(Refusal.NO_CHECKER_ON_POINT, point=colour.absolute(start),
                         step_number=step_number)
    if end == OFF:
        return MoveError(Refusal.CANNOT_BEAR_OFF_CHECKER)
    distance = start - end
    if distance <= 0:
        return MoveError(Refusal.MOVING_BACKWARDS, step_number=step_number)
    if distance not in dice_left:
        return MoveError(Refusal.NO_DIE_FOR_DISTANCE, distance=distance,
                         step_number=step_number)
    return MoveError(Refusal.POINT_BLOCKED, point=colour.absolute(end), step_number=step_number)
