"""Backgammon positions and legal-play generation.

Each side's checkers are 25 counts in that side's own numbering (gnubg's anBoard layout):
index i (0..23) is the side's own point i + 1, index 24 its bar. The side on roll is
`checkers[0]` and moves from high points to low ones; its own point p is its opponent's
point 25 - p, so mover index i faces opponent index 23 - i.

Legal-play generation is the hot path of the server, so it works on one mutable list,
never builds intermediate positions, and identifies resulting positions by an integer
key built incrementally (one nibble per point plus one bit per hit blot). Only the
distinct results found are turned into Position objects.
"""
from __future__ import annotations

import base64
from dataclasses import dataclass

from .variants import Variant

BAR = 25
OFF = 0
_BAR_INDEX = 24
_POINTS = 24
_HOME_POINTS = 6

# Resulting-position key: the mover's count on index i lives in nibble i (counts never
# exceed 15), a hit on index i sets bit 128 + i, far above any nibble borrow or carry.
_NIBBLE = tuple(1 << (4 * index) for index in range(25))
_HIT = tuple(1 << (128 + index) for index in range(_POINTS))

Steps = tuple[tuple[int, int], ...]


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
        """Every legal play of `dice`, one per distinct resulting position.

        Applies "use as many dice as possible" and "if only one die can be used, use the
        larger when possible". Empty when the side on roll cannot move.
        """
        high, low = sorted(dice, reverse=True)
        if not 1 <= low <= high <= 6:
            raise ValueError(f"dice are 1..6: {dice}")
        mine = list(self.checkers[0])
        opponent_here = self.checkers[1][23::-1]  # opponent's count on each mover index 0..23
        if high == low:
            found = _double_plays(mine, opponent_here, high)
        else:
            found = _mixed_plays(mine, opponent_here, high, low)
        return [self._play(steps) for steps in found]

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


@dataclass(frozen=True, slots=True)
class Play:
    """One legal play: its steps, one per die used, and the resulting position.

    `steps` are (from, to) in the mover's own numbering (25 = bar, 0 = off); `result` keeps
    the mover as the side on roll; `hits` are the mover's points where a blot was hit.
    """

    steps: Steps
    result: Position
    hits: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class LegalResults:
    """What a roll's legal plays come to: how many there are, how many dice each uses, and
    the positions they reach: enough to check a play, typed (`notation.parse_move`) or
    chosen, without generating the plays again. Kept instead of the plays themselves: a
    list of Play and Position objects per running match would keep tens of thousands of
    objects alive for CPython's cyclic garbage collector to walk."""

    count: int
    pieces_to_move: int
    results: frozenset[bytes]  # _result_key of each play's result

    @classmethod
    def of(cls, plays: list[Play]) -> LegalResults:
        return cls(len(plays), max((len(play.steps) for play in plays), default=0),
                   frozenset(_result_key(*play.result.checkers) for play in plays))

    def reached_by(self, mine: tuple[int, ...], theirs: tuple[int, ...]) -> bool:
        """Whether a legal play leaves the mover with `mine` and the opponent with `theirs`
        (each in its own numbering, as Position.checkers)."""
        return _result_key(mine, theirs) in self.results


NO_LEGAL_PLAYS = LegalResults(0, 0, frozenset())


def _result_key(mine: tuple[int, ...], theirs: tuple[int, ...]) -> bytes:
    return bytes(mine) + bytes(theirs)


def _new_position(checkers: tuple[tuple[int, ...], tuple[int, ...]],
                  checkers_per_side: int) -> Position:
    """Build a Position from already valid tuples, skipping __post_init__'s checks."""
    position = object.__new__(Position)
    object.__setattr__(position, "checkers", checkers)
    object.__setattr__(position, "checkers_per_side", checkers_per_side)
    return position


def _new_play(steps: Steps, result: Position, hits: tuple[int, ...]) -> Play:
    play = object.__new__(Play)
    object.__setattr__(play, "steps", steps)
    object.__setattr__(play, "result", result)
    object.__setattr__(play, "hits", hits)
    return play


# --- generation -----------------------------------------------------------------------
# Indices below: 0..23 = the mover's points 1..24, 24 = its bar, negative = borne off.


def _open_sources(opponent_here: tuple[int, ...], die: int, live: list[bool]) -> list[int]:
    """Indices from which `die` lands on a point that is not closed (fixed for the whole turn:
    hitting only removes blots, never a closed point), highest first, limited to `live` ones."""
    return [index for index in range(23, die - 1, -1)
            if live[index] and opponent_here[index - die] < 2]


def _sources(mine: list[int], opponent_here: tuple[int, ...], die: int, outside: int,
             candidates: list[int]) -> list[int]:
    """Indices from which a checker may legally move `die` pips now, highest first.

    `candidates` are the open sources (see _open_sources) still worth checking; `outside`
    counts the mover's checkers outside its home board, bar included.
    """
    if mine[_BAR_INDEX]:
        return [_BAR_INDEX] if opponent_here[_BAR_INDEX - die] < 2 else []
    found = [index for index in candidates if mine[index]]
    if not outside:
        found.extend(_bear_off_sources(mine, die))
    return found


def _bear_off_sources(mine: list[int], die: int) -> list[int]:
    """With every checker home: the exact point, else the highest one if lower than the die."""
    if mine[die - 1]:
        return [die - 1]
    for index in range(_HOME_POINTS - 1, -1, -1):
        if mine[index]:
            return [index] if index < die - 1 else []
    return []


def _mixed_plays(mine: list[int], opponent_here: tuple[int, ...], high: int,
                 low: int) -> list[Steps]:
    """Plays of a non-double roll: two steps if possible, else one, the larger die if possible."""
    outside = sum(mine[_HOME_POINTS:])
    occupied = [bool(count) for count in mine]
    both: dict[int, Steps] = {}
    single: dict[int, dict[int, Steps]] = {high: {}, low: {}}
    for first, second in ((high, low), (low, high)):
        second_candidates = _open_sources(opponent_here, second, occupied)
        for start in _sources(mine, opponent_here, first, outside,
                              _open_sources(opponent_here, first, occupied)):
            end = start - first
            mine[start] -= 1
            first_outside = outside
            if end >= 0:
                mine[end] += 1
                key = _NIBBLE[end] - _NIBBLE[start]
                if opponent_here[end] == 1:
                    key += _HIT[end]
                if start >= _HOME_POINTS > end:
                    first_outside -= 1
            else:
                key = -_NIBBLE[start]
            candidates = second_candidates
            # The checker just moved may go on from a point that was empty before.
            if end >= second and not occupied[end] and opponent_here[end - second] < 2:
                candidates = second_candidates + [end]
            seconds = _sources(mine, opponent_here, second, first_outside, candidates)
            for start2 in seconds:
                end2 = start2 - second
                key2 = key - _NIBBLE[start2]
                if end2 >= 0:
                    key2 += _NIBBLE[end2]
                    if opponent_here[end2] == 1 and end2 != end:
                        key2 += _HIT[end2]
                if key2 not in both:
                    both[key2] = ((start, end), (start2, end2))
            if not seconds and key not in single[first]:
                single[first][key] = ((start, end),)
            mine[start] += 1
            if end >= 0:
                mine[end] -= 1
    if both:
        return list(both.values())
    return list((single[high] or single[low]).values())


def _double_plays(mine: list[int], opponent_here: tuple[int, ...], die: int) -> list[Steps]:
    """Plays of a double: up to four steps, as many as possible.

    Steps are generated with non-increasing sources only: any legal sequence of equal steps
    can be reordered that way (moving higher checkers first never hinders entering, bearing
    off or the highest-point rule), which avoids visiting every permutation.
    """
    by_steps_used: list[dict[int, Steps]] = [{}, {}, {}, {}, {}]
    steps: list[tuple[int, int]] = []
    key = 0
    entering = mine[_BAR_INDEX]
    if entering:
        entry = _BAR_INDEX - die
        if opponent_here[entry] >= 2:
            return []
        entering = min(entering, 4)
        mine[_BAR_INDEX] -= entering
        mine[entry] += entering
        key = entering * (_NIBBLE[entry] - _NIBBLE[_BAR_INDEX])
        if opponent_here[entry] == 1:
            key += _HIT[entry]
        steps = [(_BAR_INDEX, entry)] * entering
        if entering == 4 or mine[_BAR_INDEX]:
            return [tuple(steps)]
    # Points a checker can stand on during this turn: occupied now or reachable by `die`.
    live = [False] * 25
    for index in range(_BAR_INDEX, -1, -1):
        above = index + die
        live[index] = bool(mine[index]) or (
            above <= _BAR_INDEX and live[above] and opponent_here[index] < 2)
    movers = _open_sources(opponent_here, die, live)
    hit = [False] * _POINTS
    if entering and opponent_here[_BAR_INDEX - die] == 1:
        hit[_BAR_INDEX - die] = True

    def extend(first_mover: int, used: int, key: int, outside: int) -> None:
        moved = False
        for position in range(first_mover, len(movers)):
            start = movers[position]
            if not mine[start]:
                continue
            end = start - die
            mine[start] -= 1
            mine[end] += 1
            next_key = key + _NIBBLE[end] - _NIBBLE[start]
            newly_hit = opponent_here[end] == 1 and not hit[end]
            if newly_hit:
                next_key += _HIT[end]
                hit[end] = True
            steps.append((start, end))
            if used == 3:
                if next_key not in by_steps_used[4]:
                    by_steps_used[4][next_key] = tuple(steps)
            else:
                extend(position, used + 1, next_key,  # noqa: F821 (see the del below)
                       outside - (start >= _HOME_POINTS > end))
            steps.pop()
            if newly_hit:
                hit[end] = False
            mine[start] += 1
            mine[end] -= 1
            moved = True
        if not outside:
            # Bearing off comes after every move inside the board (its sources are lower).
            for start in _bear_off_sources(mine, die):
                mine[start] -= 1
                next_key = key - _NIBBLE[start]
                steps.append((start, start - die))
                if used == 3:
                    if next_key not in by_steps_used[4]:
                        by_steps_used[4][next_key] = tuple(steps)
                else:
                    extend(len(movers), used + 1, next_key, 0)  # noqa: F821 (see the del below)
                steps.pop()
                mine[start] += 1
                moved = True
        if not moved and key not in by_steps_used[used]:
            by_steps_used[used][key] = tuple(steps)

    extend(0, len(steps), key, sum(mine[_HOME_POINTS:]))
    # The recursive closure refers to itself through its cell: clearing the cell frees it and
    # everything it holds now, not at the next run of the cyclic garbage collector.
    del extend
    for found in reversed(by_steps_used[1:]):
        if found:
            return list(found.values())
    return []
