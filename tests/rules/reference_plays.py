"""The pure-Python legal-play generator: the oracle the compiled one is proven against.

The server generated its plays with this code until bgsage's compiled generator took over
(fibs_server/rules/board/position.py); it stays here, off the server's path, as a second,
independent statement of the rules and of which steps name each play (tests/rules/
test_compiled_generator.py). It works on one mutable list, never builds intermediate
positions, and tells results apart by an integer key built step by step (one nibble per
point plus one bit per hit blot).
"""
from __future__ import annotations

from fibs_server.rules.board.position import Play, Position, Steps

_BAR_INDEX = 24
_POINTS = 24
_HOME_POINTS = 6

# Resulting-position key: the mover's count on index i lives in nibble i (counts never
# exceed 15), a hit on index i sets bit 128 + i, far above any nibble borrow or carry.
_NIBBLE = tuple(1 << (4 * index) for index in range(25))
_HIT = tuple(1 << (128 + index) for index in range(_POINTS))


def reference_legal_plays(position: Position, dice: tuple[int, int]) -> list[Play]:
    """Every legal play of `dice`, one per distinct result, in the order first met."""
    high, low = sorted(dice, reverse=True)
    mine = list(position.checkers[0])
    opponent_here = position.checkers[1][23::-1]  # opponent's count on each mover index 0..23
    if high == low:
        found = _double_plays(mine, opponent_here, high)
    else:
        found = _mixed_plays(mine, opponent_here, high, low)
    return [position.apply(tuple((start + 1, max(end + 1, 0)) for start, end in steps))
            for steps in found]


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
