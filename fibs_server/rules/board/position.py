"""Backgammon positions and legal-play generation.

Each side's checkers are 25 counts in that side's own numbering (gnubg's anBoard layout):
index i (0..23) is the side's own point i + 1, index 24 its bar. The side on roll is
`checkers[0]` and moves from high points to low ones; its own point p is its opponent's
point 25 - p, so mover index i faces opponent index 23 - i.

Legal-play generation is the hot path of the server: bgsage's compiled generator
(`bgbot_cpp.possible_moves`, docs/DEPENDENCIES.md) lists the distinct resulting boards, and
a play's steps, result and hits are worked out from its board only when read (most plays of
a roll are only counted, or looked up by their result).
"""
from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import sub

import bgbot_cpp

from ..variants import Variant

BAR = 25
OFF = 0
_BAR_INDEX = 24
_POINTS = 24
_HOME_POINTS = 6

Steps = tuple[tuple[int, int], ...]
Board = tuple[int, ...]
_NO_CHECKERS = (0,) * _POINTS


@dataclass(frozen=True, slots=True)
class Position:
    """Checkers of the side on roll (`checkers[0]`) and of its opponent (`checkers[1]`)."""

    checkers: tuple[tuple[int, ...], tuple[int, ...]]
    checkers_per_side: int = 15

    def __post_init__(self) -> None:
        sides = tuple(tuple(side) for side in self.checkers)
        if len(sides) != 2 or any(len(side) != 25 for side in sides):
            raise ValueError("a position needs two sides of 25 counts (points 1..24, bar)")
        for side in sides:
            if min(side) < 0 or sum(side) > self.checkers_per_side:
                raise ValueError(f"each side has 0..{self.checkers_per_side} checkers, "
                                 f"got {side}")
        mine, theirs = sides
        for index in range(_POINTS):
            if mine[index] and theirs[23 - index]:
                raise ValueError(f"both sides on the on-roll side's point {index + 1}")
        object.__setattr__(self, "checkers", sides)

    @classmethod
    def initial(cls, variant: Variant = Variant.STANDARD) -> Position:
        side = [0] * 25
        for point, count in variant.starting_points.items():
            side[point - 1] = count
        layout = tuple(side)
        return _new_position((layout, layout), variant.checkers_per_side)

    @classmethod
    def from_position_id(cls, position_id: str, checkers_per_side: int = 15) -> Position:
        """Decode a gnubg Position ID; its second side is the side on roll."""
        if len(position_id) != 14:
            raise ValueError(f"a Position ID has 14 characters: {position_id!r}")
        try:
            raw = base64.b64decode(position_id + "==", validate=True)
        except ValueError as error:
            raise ValueError(f"not a Position ID: {position_id!r}") from error
        bits = int.from_bytes(raw, "little")
        sides: list[tuple[int, ...]] = []
        for _ in range(2):
            counts = []
            for _ in range(25):
                count = 0
                while bits & 1:
                    count += 1
                    bits >>= 1
                bits >>= 1
                counts.append(count)
            sides.append(tuple(counts))
        if bits:
            raise ValueError(f"Position ID has more than 2 × 25 points: {position_id!r}")
        not_on_roll, on_roll = sides
        return cls((on_roll, not_on_roll), checkers_per_side)

    def position_id(self) -> str:
        bits = 0
        shift = 0
        for side in (self.checkers[1], self.checkers[0]):
            for count in side:
                bits |= ((1 << count) - 1) << shift
                shift += count + 1
        return base64.b64encode(bits.to_bytes(10, "little")).decode("ascii")[:14]

    def swap(self) -> Position:
        return _new_position((self.checkers[1], self.checkers[0]), self.checkers_per_side)

    def on_bar(self, side: int) -> int:
        return self.checkers[side][_BAR_INDEX]

    def borne_off(self, side: int) -> int:
        return self.checkers_per_side - sum(self.checkers[side])

    def pip_count(self, side: int) -> int:
        return sum(point * count for point, count in enumerate(self.checkers[side], start=1))

    def legal_plays(self, dice: tuple[int, int]) -> list[Play]:
        """Every legal play of `dice`, one per distinct resulting position, in the compiled
        generator's order (the same for either order of the dice).

        Applies "use as many dice as possible" and "if only one die can be used, use the
        larger when possible". Empty when the side on roll cannot move.
        """
        high, low = sorted(dice, reverse=True)
        if not 1 <= low <= high <= 6:
            raise ValueError(f"dice are 1..6: {dice}")
        board = bgsage_board(*self.checkers)
        boards = bgbot_cpp.possible_moves(board, high, low)
        if len(boards) == 1 and boards[0] == list(board):  # bgsage's "no legal play"
            return []
        plays = list(map(Play, repeat((self, high, low), len(boards)), boards))
        if sum(self.checkers[0]) <= 4:
            # bgsage lets the last checkers bear off with fewer dice than can be played
            # (5/off beside 5/3*/off for 5-2); the rules want as many dice as possible.
            most = max(len(play.steps) for play in plays)
            plays = [play for play in plays if len(play.steps) == most]
        return plays

    def apply(self, steps: Steps) -> Play:
        """Play `steps` ((from, to) in own points, 25 = bar, 0 = off) without checking legality."""
        return self._play(tuple((start - 1, end - 1) for start, end in steps))

    def _play(self, index_steps: Steps) -> Play:
        mine = list(self.checkers[0])
        theirs: tuple[int, ...] | list[int] = self.checkers[1]
        hits: list[int] = []
        for start, end in index_steps:
            mine[start] -= 1
            if end >= 0:
                mine[end] += 1
                if theirs[23 - end] == 1:
                    if not isinstance(theirs, list):  # copied at the first hit
                        theirs = list(theirs)
                    theirs[23 - end] = 0
                    theirs[_BAR_INDEX] += 1
                    hits.append(end + 1)
        result = _new_position((tuple(mine), tuple(theirs)), self.checkers_per_side)
        steps = tuple((start + 1, end + 1 if end >= 0 else OFF) for start, end in index_steps)
        return _new_play(steps, result, tuple(hits))


class Play:
    """One legal play: its steps, one per die used, and the resulting position.

    `steps` are (from, to) in the mover's own numbering (25 = bar, 0 = off); `result` keeps
    the mover as the side on roll; `hits` are the mover's points where a blot was hit.
    A play of `Position.legal_plays` starts as the generator's resulting board and works
    out each of these when first read; equal plays compare and hash alike either way.
    """

    __slots__ = ("_roll", "_board", "_steps", "_result", "_hits")
    _roll: tuple[Position, int, int]  # the position played from and the dice, larger first
    _board: Sequence[int]  # bgsage's board of the result
    _steps: Steps
    _result: Position
    _hits: tuple[int, ...]

    def __init__(self, roll: tuple[Position, int, int], board: Sequence[int]) -> None:
        self._roll = roll
        self._board = board

    @property
    def steps(self) -> Steps:
        try:
            return self._steps
        except AttributeError:
            self._work_out_steps()
            return self._steps

    @property
    def hits(self) -> tuple[int, ...]:
        try:
            return self._hits
        except AttributeError:
            self._work_out_steps()
            return self._hits

    @property
    def result(self) -> Position:
        try:
            return self._result
        except AttributeError:
            self._result = _position_of_board(self._board, self._roll[0].checkers_per_side)
            return self._result

    @property
    def result_board(self) -> Board:
        """bgsage's board of the result (`bgsage_board`), without building the Position."""
        try:
            return tuple(self._board)
        except AttributeError:
            return bgsage_board(*self._result.checkers)

    def _work_out_steps(self) -> None:
        position, high, low = self._roll
        theirs = position.checkers[1]
        steps = _steps_to_board(position, high, low, self._board)
        hits: list[int] = []
        for _, end in steps:  # a blot is hit by the first checker landing on it
            if end >= 0 and theirs[23 - end] == 1 and end + 1 not in hits:
                hits.append(end + 1)
        self._steps = tuple((start + 1, end + 1 if end >= 0 else OFF) for start, end in steps)
        self._hits = tuple(hits)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Play):
            return NotImplemented
        return (self.steps, self.result, self.hits) == (other.steps, other.result, other.hits)

    def __hash__(self) -> int:
        return hash((self.steps, self.result, self.hits))

    def __repr__(self) -> str:
        return f"Play(steps={self.steps!r}, result={self.result!r}, hits={self.hits!r})"


@dataclass(frozen=True, slots=True)
class LegalResults:
    """What a roll's legal plays come to: how many there are, how many dice each uses, and
    the positions they reach: enough to check a play, typed (`notation.parse_move`) or
    chosen, without generating the plays again. Kept instead of the plays themselves: a
    list of Play and Position objects per running match would keep tens of thousands of
    objects alive for CPython's cyclic garbage collector to walk."""

    count: int
    pieces_to_move: int
    results: frozenset[Board]  # bgsage_board of each play's result

    @classmethod
    def of(cls, plays: Sequence[Play]) -> LegalResults:
        """Of a roll's legal plays: they all use as many dice, so the first tells how many."""
        return cls(len(plays), len(plays[0].steps) if plays else 0,
                   frozenset(play.result_board for play in plays))

    def reached_by(self, mine: tuple[int, ...], theirs: tuple[int, ...]) -> bool:
        """Whether a legal play leaves the mover with `mine` and the opponent with `theirs`
        (each in its own numbering, as Position.checkers)."""
        return bgsage_board(mine, theirs) in self.results


NO_LEGAL_PLAYS = LegalResults(0, 0, frozenset())


def bgsage_board(mine: tuple[int, ...], theirs: tuple[int, ...]) -> Board:
    """bgsage's board of a position from the side with `mine` (as Position.checkers): index
    0 the opponent's bar, 1..24 our points (ours positive, the opponent's negative), 25 our
    bar."""
    return (theirs[_BAR_INDEX], *map(sub, mine, theirs[23::-1]), mine[_BAR_INDEX])


def _position_of_board(board: Sequence[int], checkers_per_side: int) -> Position:
    mine = (*[count if count > 0 else 0 for count in board[1:25]], board[25])
    theirs = (*[-count if count < 0 else 0 for count in board[24:0:-1]], board[0])
    return _new_position((mine, theirs), checkers_per_side)


def _new_position(checkers: tuple[tuple[int, ...], tuple[int, ...]],
                  checkers_per_side: int) -> Position:
    """Build a Position from already valid tuples, skipping __post_init__'s checks."""
    position = object.__new__(Position)
    object.__setattr__(position, "checkers", checkers)
    object.__setattr__(position, "checkers_per_side", checkers_per_side)
    return position


def _new_play(steps: Steps, result: Position, hits: tuple[int, ...]) -> Play:
    play = object.__new__(Play)
    play._steps, play._result, play._hits = steps, result, hits
    return play


# --- a resulting board's steps ------------------------------------------------------------
# Indices below: 0..23 = the mover's points 1..24, 24 = its bar, negative = borne off. The
# steps chosen for a result are those the reference generator lists first (larger die first,
# then the highest source first; doubles by non-increasing sources): tests/rules prove them
# equal, so the same play reads the same in every text, whichever generator made it.


def _steps_to_board(position: Position, high: int, low: int, board: Sequence[int]) -> Steps:
    mine = position.checkers[0]
    after = [*map(max, board[1:25], _NO_CHECKERS), board[25]]
    if high == low:
        return _double_steps(mine, after, high)
    return _mixed_steps(position, after, board, high, low)


def _double_steps(mine: tuple[int, ...], after: list[int], die: int) -> Steps:
    """The steps of a double, highest source first. Only one set of steps of `die` pips
    turns `mine` into `after`: from the bar down, the checkers leaving an index are those
    that arrived on it from `die` pips higher, plus what it lost."""
    left = list(map(sub, mine, after))
    leaving = [0] * (_BAR_INDEX + 1 + die)
    steps: list[tuple[int, int]] = []
    for index in range(max(i for i, lost in enumerate(left) if lost > 0), -1, -1):
        leaving[index] = going = leaving[index + die] + left[index]
        if going:
            steps += [(index, index - die)] * going
    return tuple(steps)


def _mixed_steps(position: Position, after: list[int], board: Sequence[int], high: int,
                 low: int) -> Steps:
    """The steps of a non-double: among the sequences of one or two steps that turn the
    mover's checkers into `after` and hit the blots missing from `board`, the first the
    reference generator meets."""
    mine, theirs = position.checkers
    opponent_here = theirs[23::-1]
    hits = board[0] - theirs[_BAR_INDEX]
    left = list(map(sub, mine, after))  # checkers gone from each index
    lost = [index for index in range(_BAR_INDEX, -1, -1) if left[index] > 0]
    if len(lost) == 1 and left[lost[0]] == 2:
        lost.append(lost[0])
    candidates: list[Steps] = []
    for first, second in ((high, low), (low, high)):
        if len(lost) == 2:  # two checkers, one die each
            one, other = lost
            candidates += [((one, first), (other, second)), ((other, first), (one, second))]
        else:  # one checker both dice, or a checker moved onto the point another leaves
            (start,) = lost
            candidates += [((start, first), (start - first, second)),
                           ((start - second, first), (start, second))]
    candidates += [((lost[0], high),), ((lost[0], low),)]
    for candidate in candidates:
        if _reaches(mine, opponent_here, candidate, after, board, hits):
            return tuple((start, start - die) for start, die in candidate)
    raise AssertionError(f"no steps reach {board} from {position} with {high}-{low}")


def _reaches(mine: tuple[int, ...], opponent_here: tuple[int, ...], candidate: Steps,
             after: list[int], board: Sequence[int], hits: int) -> bool:
    """Whether the steps ((from, die) each) are legal in this order (the rules of
    docs/RULES.md, one step at a time), leave the mover with `after` and hit `hits` blots,
    those missing from `board`."""
    counts = list(mine)
    hit = set()
    for start, die in candidate:
        if not 0 <= start <= _BAR_INDEX or not counts[start]:
            return False
        if counts[_BAR_INDEX] and start != _BAR_INDEX:
            return False
        end = start - die
        counts[start] -= 1
        if end >= 0:
            if opponent_here[end] >= 2:
                return False
            if opponent_here[end] == 1:
                if board[end + 1] < 0:  # that blot is still there
                    return False
                hit.add(end)
            counts[end] += 1
        elif any(counts[_HOME_POINTS:]) or (end < -1 and any(counts[start + 1:_HOME_POINTS])):
            return False  # bearing off: all home, and exactly or from the highest point
    return counts == after and len(hit) == hits
