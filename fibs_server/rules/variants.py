"""Backgammon variants: each one's facts in one place (docs/RULES.md, "Variants").

Every other module reads a variant through its `VariantFacts` (`variant.facts`): the rules,
the texts, the bots, the analysis and the page (the `hello` message lists them all). Adding a
variant is adding a member here, its names in the page's catalogues, and its tests
(docs/RULES.md, "Adding a variant").
"""
from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from types import MappingProxyType


@dataclasses.dataclass(frozen=True)
class VariantFacts:
    """What sets a variant apart from the others."""

    # How texts, typed messages and the store name it (`nackgammon`); after an invitation's
    # length any unique prefix of it chooses it.
    name: str
    # The short word usage texts show and `tournament create` takes (`nack`), a prefix of the
    # name; None: the default variant, which no word chooses and texts leave unsaid.
    word: str | None
    # gnubg's name of it in a `.mat` header (`; [Variation "NackGammon"]`); None: written as
    # standard backgammon (gnubg knows no other name for it).
    gnubg_name: str | None
    # Checkers per own point (1..24) at the start; both sides use the same layout.
    starting_points: Mapping[int, int]
    cube: bool = True  # whether the doubling cube is used at all
    backgammons: bool = True  # False: a backgammon counts as a gammon
    # Whether the opening roll's dice are the starter's first roll; False: the starter rolls
    # afresh. (An opening tie is rolled again in every variant.)
    opening_dice_played: bool = True
    # Whether bgsage's networks play and judge it (they know 15 checkers a side only); False:
    # bots play it by rules of thumb and the analysis judges none of its decisions.
    bgsage: bool = True

    @property
    def checkers_per_side(self) -> int:
        return sum(self.starting_points.values())


_STANDARD_POINTS = MappingProxyType({24: 2, 13: 5, 8: 3, 6: 5})


class Variant(enum.Enum):
    """The variants, each with its facts; the value is the facts' name (`Variant("portes")`)."""

    _value_: str
    facts: VariantFacts

    STANDARD = VariantFacts("standard", None, None, _STANDARD_POINTS)
    NACKGAMMON = VariantFacts("nackgammon", "nack", "NackGammon",
                              MappingProxyType({24: 2, 23: 2, 13: 4, 8: 3, 6: 4}))
    # gnubg's hypergammon has 1, 2 or 3 checkers; ours 3.
    HYPERGAMMON = VariantFacts("hypergammon", "hyper", "HyperGammon (3)",
                               MappingProxyType({24: 1, 23: 1, 22: 1}), bgsage=False)
    PORTES = VariantFacts("portes", "portes", None, _STANDARD_POINTS, cube=False,
                          backgammons=False, opening_dice_played=False)

    def __new__(cls, facts: VariantFacts) -> Variant:
        member = object.__new__(cls)
        member._value_ = facts.name
        member.facts = facts
        return member

    @property
    def checkers_per_side(self) -> int:
        return self.facts.checkers_per_side

    @property
    def starting_points(self) -> Mapping[int, int]:
        """Checkers per own point (1..24) at the start; both sides use the same layout."""
        return self.facts.starting_points


@dataclasses.dataclass(frozen=True)
class MatchRules:
    """What a match is played by beyond its length and the players' toggles: the variant and
    the house rules chosen on the invitation (`lower_die_starts`, `cube` False: no cube)."""

    variant: Variant = Variant.STANDARD
    lower_die_starts: bool = False
    cube: bool = True

    @property
    def doubling(self) -> bool:
        """Whether the cube may be turned at all (never in a variant without it)."""
        return self.cube and self.variant.facts.cube
