"""Backgammon variants and their starting layouts."""
from __future__ import annotations

import dataclasses
import enum


class Variant(enum.Enum):
    STANDARD = "standard"
    NACKGAMMON = "nackgammon"
    HYPERGAMMON = "hypergammon"
    PORTES = "portes"

    @property
    def checkers_per_side(self) -> int:
        return 3 if self is Variant.HYPERGAMMON else 15

    @property
    def starting_points(self) -> dict[int, int]:
        """Checkers per own point (1..24) at the start; both sides use the same layout."""
        return _STARTING_POINTS[self]


_STANDARD_POINTS = {24: 2, 13: 5, 8: 3, 6: 5}

_STARTING_POINTS = {
    Variant.STANDARD: _STANDARD_POINTS,
    Variant.NACKGAMMON: {24: 2, 23: 2, 13: 4, 8: 3, 6: 4},
    Variant.HYPERGAMMON: {24: 1, 23: 1, 22: 1},
    # Portes differs from standard only in match rules (no cube, no backgammons).
    Variant.PORTES: _STANDARD_POINTS,
}


@dataclasses.dataclass(frozen=True)
class MatchRules:
    """What a match is played by beyond its length and the players' toggles: the variant and
    the house rules chosen on the invitation (`lower_die_starts`, `cube` False: no cube)."""

    variant: Variant = Variant.STANDARD
    lower_die_starts: bool = False
    cube: bool = True

    @property
    def doubling(self) -> bool:
        """Whether the cube may be turned at all (Portes never has it)."""
        return self.cube and self.variant is not Variant.PORTES
