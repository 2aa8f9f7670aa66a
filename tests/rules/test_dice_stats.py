from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fibs_server.rules.dice import VerifiableDice, drawn_pairs
from fibs_server.rules.dice_stats import (
    ROLLS,
    DiceStatistics,
    RollTally,
    add_to_tally,
    chance,
    chi_square_tail,
    empty_tally,
)
from fibs_server.rules.match import Match, Phase
from tests.rules.test_match_properties import random_action


def statistics(pairs) -> DiceStatistics:
    return DiceStatistics.of(add_to_tally(empty_tally(), pairs))


def test_the_21_rolls_and_their_chances():
    assert len(ROLLS) == 21 and len(set(ROLLS)) == 21
    assert sum(chance(roll) for roll in ROLLS) == pytest.approx(1)


def test_counts_of_rolls_faces_and_doubles():
    counted = statistics([(1, 2), (2, 1), (6, 6), (3, 5)])
    assert counted.rolls == 4 and counted.doubles == 1
    assert counted.by_roll[ROLLS.index((2, 1))] == 2
    assert counted.faces == (2, 2, 1, 0, 1, 2)


def test_the_chi_square_figure_and_its_tail():
    # Exactly as often as fair dice give them: no spread at all.
    even = DiceStatistics.of([36 * 10 * (1 if high == low else 2) // 36 for high, low in ROLLS])
    assert even.chi_square == 0 and even.p_value == pytest.approx(1)
    # The tables' 5% and 1% points of chi-square with 20 degrees of freedom.
    assert chi_square_tail(31.410) == pytest.approx(0.05, abs=1e-4)
    assert chi_square_tail(37.566) == pytest.approx(0.01, abs=1e-4)


def test_fair_dice_look_fair_and_loaded_dice_do_not():
    rng = random.Random(4)
    fair = statistics((rng.randint(1, 6), rng.randint(1, 6)) for _ in range(5000))
    assert fair.enough_rolls and not fair.unusual
    loaded = statistics(((6, 6) if rng.random() < 0.1 else (rng.randint(1, 6), rng.randint(1, 6)))
                        for _ in range(5000))
    assert loaded.unusual


def test_too_few_rolls_are_never_called_unusual():
    few = statistics([(6, 6)] * 50)
    assert not few.enough_rolls and not few.unusual


def naive_tally(history) -> list[list[int]]:
    tally = [empty_tally() for _ in range(3)]
    for roller, pair in drawn_pairs(history):
        add_to_tally(tally[2 if roller is None else roller], [pair])
    return tally


def test_a_roll_tally_counts_each_finished_game_once_and_follows_an_undo_back():
    match = Match(None, VerifiableDice(b"r" * 32))
    match.start()
    rng = random.Random(6)
    tally = RollTally()
    states = []
    while match.game_number < 6:
        if match.phase is Phase.BETWEEN_GAMES:
            match.join(min({0, 1} - match.joined))
        else:
            random_action(match, rng)
        states.append(match.to_dict())
        assert tally.of(states[-1]["history"]) == naive_tally(states[-1]["history"])
    early = next(state for state in states if len(state["history"]) == 2)  # back in game 2
    assert tally.of(early["history"]) == naive_tally(early["history"])
    assert tally.of(states[-1]["history"]) == naive_tally(states[-1]["history"])


@settings(max_examples=60)
@given(seed=st.integers(0, 2**16),
       steps=st.lists(st.tuples(st.integers(-3, 12) | st.integers(-40, 40), st.booleans()),
                      max_size=30))
def test_a_roll_tally_counts_what_each_save_holds_through_actions_and_rewinds(seed, steps):
    """Each step plays that many actions (saving after each) or goes back that many saves:
    an undo, which saves the match gone back to, or a failed save, after which the match is
    restored as it was and nothing is saved until the next action. Either builds the match
    again from the state it goes back to."""
    dice = VerifiableDice(seed.to_bytes(32, "big"))
    match = Match(None, dice)
    match.start()
    rng = random.Random(seed)
    tally = RollTally()
    saves = [(match.to_dict(), dice.drawn)]
    for count, saved_when_back in steps:
        if count < 0:
            del saves[max(len(saves) + count, 1):]
            state, drawn = saves[-1]
            dice.rewind(drawn)
            match = Match.from_dict(state, dice)
            if saved_when_back:
                assert tally.of(match.to_dict()["history"]) == naive_tally(state["history"])
            continue
        for _ in range(count):
            random_action(match, rng)
            saves.append((match.to_dict(), dice.drawn))
            assert tally.of(saves[-1][0]["history"]) == naive_tally(saves[-1][0]["history"])


def test_a_roll_tally_forgets_a_roll_whose_save_failed_when_another_action_takes_its_place():
    dice = VerifiableDice(b"d" * 32)
    match = Match(None, dice)
    match.start()
    rng = random.Random(3)
    while not (match.phase is Phase.ROLL_OR_DOUBLE and match.may_double(match.turn)):
        random_action(match, rng)
    tally = RollTally()
    before, drawn = match.to_dict(), dice.drawn
    tally.of(before["history"])
    match.roll(match.turn)
    tally.of(match.to_dict()["history"])  # the save that fails: the match goes back
    dice.rewind(drawn)
    match = Match.from_dict(before, dice)
    match.double(match.turn)  # as many events as the roll was, none of them a roll
    history = match.to_dict()["history"]
    assert len(history[-1]) == len(before["history"][-1]) + 1
    assert tally.of(history) == naive_tally(history)
