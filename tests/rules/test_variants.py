"""Each variant's rules follow its facts (rules/variants.py): whatever a new variant's facts
say, these tests hold it to them, without a line about it here."""
from __future__ import annotations

import pytest

from fibs_server.rules.board.position import Position
from fibs_server.rules.events import GameOver, Rolled, WinKind
from fibs_server.rules.match import Phase
from fibs_server.rules.variants import MatchRules, Variant
from tests.rules.match_helpers import arranged, side, started

EVERY_VARIANT = pytest.mark.parametrize("variant", list(Variant), ids=lambda variant: variant.value)
# The opening roll (player 1 starts with 6-2), then the roll of a starter who rolls afresh.
OPENING_THEN_A_ROLL = [(2, 6), (4, 1)]


def test_one_variant_is_the_default_and_every_other_has_a_word_of_its_name():
    assert [variant for variant in Variant if variant.facts.word is None] == [Variant.STANDARD]
    for variant in Variant:
        assert variant.value == variant.facts.name and Variant(variant.facts.name) is variant
        assert variant.value.startswith(variant.facts.word or "")
    words = [variant.facts.word for variant in Variant]
    assert len(set(words)) == len(words)


@EVERY_VARIANT
def test_a_game_starts_from_the_variants_layout(variant):
    match, _ = started(script=OPENING_THEN_A_ROLL, variant=variant)
    for player in (0, 1):
        assert match.position_seen_by(player) == Position.initial(variant)
    start = Position.initial(variant)
    assert start.checkers[0] == start.checkers[1] == side(dict(variant.starting_points))
    assert sum(start.checkers[0]) == sum(start.checkers[1]) == variant.checkers_per_side


@EVERY_VARIANT
def test_the_opening_dice_are_the_first_roll_or_the_starter_rolls_afresh(variant):
    match, events = started(script=OPENING_THEN_A_ROLL, variant=variant)
    assert match.phase is Phase.MOVE
    assert match.dice == ((6, 2) if variant.facts.opening_dice_played else (4, 1))
    assert any(isinstance(event, Rolled) for event in events) != variant.facts.opening_dice_played


@EVERY_VARIANT
def test_the_cube_is_turned_only_in_a_variant_that_has_it(variant):
    assert MatchRules(variant).doubling == variant.facts.cube
    match, _ = started(script=OPENING_THEN_A_ROLL, variant=variant)
    assert match.cube_in_game == variant.facts.cube


@EVERY_VARIANT
def test_a_backgammon_counts_only_in_a_variant_that_has_backgammons(variant):
    kind = WinKind.BACKGAMMON if variant.facts.backgammons else WinKind.GAMMON
    match, _ = started(script=OPENING_THEN_A_ROLL, variant=variant)
    assert match.resign(0, WinKind.BACKGAMMON)[0].kind == kind
    # The last checker borne off against a loser with one on the bar and none off.
    checkers = variant.checkers_per_side
    position = Position((side({1: 1}), side({6: checkers - 1}, bar=1)), checkers)
    won = arranged(position, dice=(2, 1), variant=variant)
    assert won.move(0, won.legal_plays()[0])[-1] == GameOver(0, kind, kind, (kind, 0))
