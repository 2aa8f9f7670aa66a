from __future__ import annotations

import hashlib
import hmac
import itertools
import random

import pytest

from fibs_server.rules.dice import (
    PlayerSalt,
    ScriptedDice,
    SecureDice,
    SeededDice,
    VerifiableDice,
    commitment_of,
    drawn_pairs,
    first_wrong_pair,
    salts_from_lists,
    salts_to_lists,
    valid_salt,
    verifiable_pair,
)
from fibs_server.rules.match import Match
from fibs_server.rules.variants import Variant
from tests.rules.test_match_properties import random_action


def test_seeded_dice_repeat_for_the_same_seed():
    first, second = SeededDice(7), SeededDice(7)
    assert [first.roll() for _ in range(50)] == [second.roll() for _ in range(50)]
    assert [first.opening() for _ in range(50)] == [second.opening() for _ in range(50)]


def test_seeded_dice_differ_between_seeds():
    assert [SeededDice(1).roll() for _ in range(20)] != [SeededDice(2).roll() for _ in range(20)]


@pytest.mark.parametrize("dice", [SecureDice(), SeededDice(3), VerifiableDice(b"seed")])
def test_every_face_comes_up_and_nothing_else(dice):
    faces = set()
    for _ in range(600):
        faces.update(dice.roll())
        faces.update(dice.opening())
    assert faces == {1, 2, 3, 4, 5, 6}


def test_scripted_dice_give_the_pairs_in_order_to_rolls_and_openings_alike():
    dice = ScriptedDice([(5, 5), (6, 2), (3, 1)])
    assert dice.opening() == (5, 5)
    assert dice.opening() == (6, 2)
    assert dice.remaining == 1
    assert dice.roll() == (3, 1)
    with pytest.raises(IndexError, match="exhausted"):
        dice.roll()


@pytest.mark.parametrize("bad", [(0, 1), (3, 7), (1, 2, 3)])
def test_scripted_dice_reject_impossible_pairs(bad):
    with pytest.raises(ValueError):
        ScriptedDice([bad])


@pytest.mark.parametrize("make", [SecureDice, lambda: SeededDice(7),
                                  lambda: ScriptedDice([(1, 2), (3, 4), (5, 6), (6, 6)] * 2),
                                  lambda: VerifiableDice(b"\x01" * 32)])
def test_every_source_gives_the_same_pairs_again_after_a_rewind_whatever_is_asked(make):
    dice = make()
    opening = dice.opening()
    mark = dice.drawn
    first = [dice.roll() for _ in range(3)]
    dice.rewind(mark)
    assert [dice.roll() for _ in range(3)] == first
    assert dice.drawn == 4
    fresh = dice.roll()
    dice.rewind(0)
    # Pair n is pair n, for a roll or an opening roll alike: an undo gets what it had.
    assert [dice.roll(), dice.opening(), *(dice.roll() for _ in range(3))] == \
        [opening, *first, fresh]


def spec_pair(seed: bytes, number: int, salt_a: bytes = b"", salt_b: bytes = b"") -> tuple[int, int]:
    """docs/FAIRNESS.md's generator, written out again from its words: the salts are those
    that have entered by pair `number` (b"": none), appended only if there is one."""
    salted = bytes([len(salt_a)]) + salt_a + bytes([len(salt_b)]) + salt_b
    suffix = salted if salt_a or salt_b else b""
    dice = []
    for block in itertools.count():
        digest = hmac.new(seed, number.to_bytes(8, "big") + block.to_bytes(4, "big") + suffix,
                          hashlib.sha256).digest()
        dice += [byte % 6 + 1 for byte in digest if byte < 252]
        if len(dice) >= 2:
            return dice[0], dice[1]


def test_verifiable_dice_are_the_documented_generator():
    seed = bytes(range(32))
    dice = VerifiableDice(seed)
    assert [dice.roll() for _ in range(200)] == [spec_pair(seed, n) for n in range(200)]
    assert dice.commitment == commitment_of(seed) == hashlib.sha256(seed).hexdigest()


def test_bytes_from_252_on_are_skipped_so_no_face_is_favoured():
    # A pair whose digest starts with a byte of 252 or more: it is not a die.
    seed, number = next((seed, 0) for seed in (i.to_bytes(4, "big") for i in range(10_000))
                        if hmac.new(seed, bytes(12), hashlib.sha256).digest()[0] >= 252)
    digest = hmac.new(seed, bytes(12), hashlib.sha256).digest()
    kept = [byte for byte in digest if byte < 252]
    assert verifiable_pair(seed, number) == (kept[0] % 6 + 1, kept[1] % 6 + 1)


def test_a_resumed_stream_goes_on_where_it_was():
    seed = b"s" * 32
    whole = VerifiableDice(seed)
    pairs = [whole.roll() for _ in range(30)]
    resumed = VerifiableDice(seed, drawn=12)
    assert [resumed.roll() for _ in range(18)] == pairs[12:]


@pytest.mark.parametrize("variant", list(Variant))
def test_a_match_history_holds_every_pair_drawn_in_order_and_they_recompute(variant):
    seed = hashlib.sha256(variant.value.encode()).digest()
    dice = VerifiableDice(seed)
    match = Match(None, dice, variant=variant)
    match.start()
    rng = random.Random(3)
    for _ in range(400):
        random_action(match, rng)
    pairs = drawn_pairs(match.to_dict()["history"])
    assert len(pairs) == dice.drawn > 20
    assert any(roller is None for roller, _ in pairs)
    assert first_wrong_pair(seed, [pair for _, pair in pairs]) is None


def test_a_tampered_record_fails():
    seed = b"t" * 32
    pairs = [verifiable_pair(seed, n) for n in range(50)]
    assert first_wrong_pair(seed, pairs) is None
    tampered = list(pairs)
    tampered[17] = (tampered[17][1], tampered[17][0]) if tampered[17][0] != tampered[17][1] \
        else (tampered[17][0] % 6 + 1, tampered[17][1])
    assert first_wrong_pair(seed, tampered) == 17
    assert first_wrong_pair(b"u" * 32, pairs) == 0


def test_the_same_seed_with_different_salts_gives_different_rolls():
    seed = b"v" * 32
    unsalted = [verifiable_pair(seed, n) for n in range(40)]
    rolls = {salts: [verifiable_pair(seed, n, salts) for n in range(40)]
             for salts in [(PlayerSalt("alice-1", 0), None), (PlayerSalt("alice-2", 0), None),
                           (None, PlayerSalt("alice-1", 0)),
                           (PlayerSalt("alice-1", 0), PlayerSalt("bob", 0))]}
    sequences = [unsalted, *rolls.values()]
    assert len({tuple(sequence) for sequence in sequences}) == len(sequences)


def test_a_salt_enters_from_the_pair_drawn_after_it_arrived_as_documented():
    seed = b"w" * 32
    dice = VerifiableDice(seed)
    before = [dice.opening(), dice.roll(), dice.roll()]
    alices = dice.add_salt(0, "a1b2")
    assert alices == PlayerSalt("a1b2", 3)
    middle = [dice.roll() for _ in range(4)]
    bobs = dice.add_salt(1, "Bob.salt")
    after = [dice.roll() for _ in range(20)]
    assert before == [spec_pair(seed, n) for n in range(3)]  # drawn already: unchanged
    assert middle == [spec_pair(seed, n, b"a1b2") for n in range(3, 7)]
    assert after == [spec_pair(seed, n, b"a1b2", b"Bob.salt") for n in range(7, 27)]
    assert dice.salts == (alices, bobs)
    # The record verifies with its salts, and not without them.
    pairs = before + middle + after
    assert first_wrong_pair(seed, pairs, dice.salts) is None
    assert first_wrong_pair(seed, pairs) == 3
    # An undo draws the same pairs again: the salts keep the pair they entered at.
    dice.rewind(1)
    assert [dice.roll() for _ in range(26)] == pairs[1:]


def test_the_server_cannot_know_a_salted_roll_before_the_salt_arrives():
    """Whatever the server draws before a salt arrives, the pairs after it depend on the salt:
    two salts sent at the same moment give different rolls from there on."""
    seed = b"x" * 32
    outcomes = []
    for salt in ("one", "two", "three"):
        dice = VerifiableDice(seed)
        drawn_before = [dice.opening(), dice.roll()]
        dice.add_salt(1, salt)
        outcomes.append((drawn_before, [dice.roll() for _ in range(10)]))
    assert len({tuple(before) for before, _ in outcomes}) == 1
    assert len({tuple(after) for _, after in outcomes}) == 3


def test_a_player_salts_once_and_a_salt_the_store_refused_can_be_sent_again():
    dice = VerifiableDice(b"y" * 32)
    dice.roll()
    dice.add_salt(1, "first")
    with pytest.raises(ValueError):
        dice.add_salt(1, "second")
    dice.remove_salt(1)
    assert dice.add_salt(1, "second") == PlayerSalt("second", 1)
    assert dice.salts[0] is None


def test_salts_are_stored_as_lists_and_read_back():
    salts = (PlayerSalt("abc", 0), None)
    stored = salts_to_lists(salts)
    assert salts_from_lists(stored) == salts
    assert salts_from_lists(None) == (None, None)  # a match stored before salts


@pytest.mark.parametrize("text,valid", [
    ("7f3a9c21e4", True), ("a", True), ("x" * 64, True), ("bXk=+/_.:-", True),
    ("", False), ("x" * 65, False), ("two words", False), ("caf\u00e9", False),
    ("semi;colon", False)])
def test_a_salt_is_1_to_64_plain_characters(text, valid):
    assert valid_salt(text) is valid
