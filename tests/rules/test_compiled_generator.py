"""The compiled generator (bgsage's `possible_moves` behind `Position.legal_plays`) against
the pure-Python reference generator (reference_plays.py), play by play: the same plays, each
with the same steps (so it reads the same in every text), result and hits, no result twice,
and the same summary for a typed move (`LegalResults`). GNU Backgammon checks the same
generator's results in test_gnubg_differential.py and test_gnubg_selfplay.py."""
from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from fibs_server.rules import Play, Position, Variant
from fibs_server.rules.board.position import LegalResults

from .reference_plays import reference_legal_plays
from .test_gnubg_differential import random_position
from .test_position import board, positions

ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]
SEED = 20261206
RANDOM_POSITIONS = 300  # × 21 rolls, biased to bar, bear-off, primes (see random_position)
SELF_PLAY_ROLLS = 1500  # per variant


def by_result(plays: list[Play]) -> dict[Position, tuple[tuple[tuple[int, int], ...],
                                                        tuple[int, ...]]]:
    return {play.result: (play.steps, play.hits) for play in plays}


def assert_same_plays(position: Position, dice: tuple[int, int]) -> list[Play]:
    """The reference's plays, once the compiled generator's are found the same."""
    compiled = position.legal_plays(dice)
    reference = reference_legal_plays(position, dice)
    context = (position.checkers, dice)
    assert len(compiled) == len(reference), context
    assert by_result(compiled) == by_result(reference), context
    assert LegalResults.of(compiled) == LegalResults.of(reference), context
    return reference


def self_play_checked(variant: Variant, rolls: int, rng: random.Random) -> None:
    """Random games of `variant`, a new game whenever one ends, each roll's plays checked;
    the next position is chosen among the plays the check has generated already."""
    position = Position.initial(variant)
    for _ in range(rolls):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = assert_same_plays(position, dice)
        if plays:
            position = rng.choice(plays).result
        if position.borne_off(0) == position.checkers_per_side:
            position = Position.initial(variant)
        else:
            position = position.swap()


def test_a_seeded_corpus_of_random_positions_and_every_roll():
    rng = random.Random(SEED)
    for _ in range(RANDOM_POSITIONS):
        position, _kind = random_position(rng)
        for dice in ROLLS:
            assert_same_plays(position, dice)


def test_seeded_self_play_of_every_variant():
    rng = random.Random(SEED)
    for variant in Variant:
        self_play_checked(variant, SELF_PLAY_ROLLS, rng)


@settings(max_examples=400)
@given(positions(), st.sampled_from(ROLLS))
def test_arbitrary_positions(position, dice):
    assert_same_plays(position, dice)


@settings(max_examples=200)
@given(positions(checkers_per_side=3), st.sampled_from(ROLLS))
def test_arbitrary_hypergammon_positions(position, dice):
    assert_same_plays(position, dice)


def test_the_last_checker_must_use_both_dice_when_it_can():
    # bgsage alone would also list 5/off for the last checker; 5/3*/off plays both dice.
    position = board({5: 1}, {22: 1, 12: 3})  # the opponent's blot on its 22: our 3
    plays = position.legal_plays((5, 2))
    assert [play.steps for play in plays] == [((5, 3), (3, 0))]
    assert plays[0].hits == (3,)
    assert_same_plays(position, (5, 2))


def test_the_order_of_the_dice_does_not_change_the_plays_or_their_order():
    position = Position.initial()
    for high, low in ROLLS:
        assert position.legal_plays((high, low)) == position.legal_plays((low, high))


def test_a_play_read_late_equals_one_built_from_its_steps():
    for play in Position.initial().legal_plays((6, 4)):
        assert Position.initial().apply(play.steps) == play
        assert hash(Position.initial().apply(play.steps)) == hash(play)
