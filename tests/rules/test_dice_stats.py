from __future__ import annotations

import random

import pytest

from fibs_server.rules.dice_stats import (ROLLS, DiceStatistics, add_to_tally, chance,
                                          chi_square_tail, empty_tally)


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
