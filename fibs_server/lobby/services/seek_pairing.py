"""Quick play's pairing, pure: who plays whom, given the players waiting (their seeks) and the
time (docs/PROTOCOL.md, "Quick play").

A seek asks for one match (its length and terms, exactly) against a player whose rating is
within its range of the seeker's. The range widens as the seek waits, a step at a time, and
never narrows; a seek with no range (`any`) takes any rating. Two seeks pair when they ask
for the same match and each one's range, as it stands now, takes the other's rating.

The oldest seek is served first: it pairs with the oldest seek it can, then the oldest seek
left, and so on. Nobody pairs with themself, nor twice.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Collection, Hashable, Iterable


@dataclasses.dataclass(frozen=True)
class Widening:
    """How a seek's range grows while it waits: by `points` every `every` seconds."""
    every: float = 10.0
    points: float = 50.0


@dataclasses.dataclass(frozen=True)
class Seek:
    """`name` (rated `rating`) waits since `since` (on the lobby's clock) for the match
    `match` (any hashable: two seeks of equal `match` ask for the same one), against a rating
    at most `rating_range` from theirs at first (None: any)."""
    name: str
    rating: float
    since: float
    match: Hashable
    rating_range: float | None

    @property
    def key(self) -> str:
        return self.name.lower()


def reach(seek: Seek, now: float, widening: Widening) -> float:
    """How far from the seeker's rating `seek` accepts at `now`: its range, widened once for
    each whole step it has waited (infinite for a seek of any rating)."""
    if seek.rating_range is None:
        return math.inf
    return seek.rating_range + _steps(seek, now, widening) * widening.points


def acceptable(first: Seek, second: Seek, now: float, widening: Widening) -> bool:
    """Whether `first` and `second` may play each other at `now`."""
    if first.key == second.key or first.match != second.match:
        return False
    gap = abs(first.rating - second.rating)
    return gap <= reach(first, now, widening) and gap <= reach(second, now, widening)


def by_age(seeks: Iterable[Seek]) -> list[Seek]:
    """Oldest first; two of the same moment in the order of their names (a defined order,
    whichever node's letter came first)."""
    return sorted(seeks, key=lambda seek: (seek.since, seek.key))


def pairs(seeks: Collection[Seek], now: float, widening: Widening) -> list[tuple[Seek, Seek]]:
    """The pairs to start at `now`, each the older seek first, the oldest pair first: every
    seek, oldest first, with the oldest seek still free that it may play. Only seeks of one
    match can pair: a seek is compared with the younger seeks of its own match only."""
    waiting = by_age(seeks)
    of_match: dict[Hashable, list[Seek]] = {}
    place: list[int] = []  # each seek's place among its match's seeks, oldest first
    for seek in waiting:
        younger = of_match.setdefault(seek.match, [])
        place.append(len(younger))
        younger.append(seek)
    taken: set[str] = set()
    found = []
    for seek, seek_place in zip(waiting, place):
        if seek.key in taken:
            continue
        partner = next((other for other in of_match[seek.match][seek_place + 1:]
                        if other.key not in taken and acceptable(seek, other, now, widening)),
                       None)
        if partner is not None:
            taken |= {seek.key, partner.key}
            found.append((seek, partner))
    return found


def next_widening(seeks: Iterable[Seek], now: float, widening: Widening) -> float | None:
    """The first moment after `now` at which some seek's range widens (None: no seek has a
    range to widen)."""
    return min((_next_step(seek, now, widening) for seek in seeks
                if seek.rating_range is not None), default=None)


def _next_step(seek: Seek, now: float, widening: Widening) -> float:
    return seek.since + (_steps(seek, now, widening) + 1) * widening.every


# A step's moment, computed as `since + steps * every`, may divide back to a hair below the
# step: it counts as reached.
STEP_TOLERANCE = 1e-9


def _steps(seek: Seek, now: float, widening: Widening) -> int:
    """The whole steps `seek` has waited at `now`."""
    return max(0, math.floor((now - seek.since) / widening.every + STEP_TOLERANCE))
