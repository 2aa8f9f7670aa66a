from __future__ import annotations

import pytest

from fibs_server.rules.dice import ReplayableDice, ScriptedDice, SecureDice, SeededDice


def test_seeded_dice_repeat_for_the_same_seed():
    first, second = SeededDice(7), SeededDice(7)
    assert [first.roll() for _ in range(50)] == [second.roll() for _ in range(50)]
    assert [first.opening() for _ in range(50)] == [second.opening() for _ in range(50)]


def test_seeded_dice_differ_between_seeds():
    assert [SeededDice(1).roll() for _ in range(20)] != [SeededDice(2).roll() for _ in range(20)]


@pytest.mark.parametrize("dice", [SecureDice(), SeededDice(3)])
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


def test_replayable_dice_give_the_same_dice_again_after_a_rewind():
    dice = ReplayableDice(SeededDice(7))
    opening = dice.opening()
    mark = dice.drawn
    first = [dice.roll() for _ in range(5)]
    dice.rewind(mark)
    assert [dice.roll() for _ in range(5)] == first
    assert dice.drawn == 6
    fresh = dice.roll()  # past what was given: drawn afresh, and remembered
    dice.rewind(0)
    assert dice.opening() == opening and [dice.roll() for _ in range(6)] == [*first, fresh]


def test_replayable_dice_forget_the_rest_when_another_kind_is_asked_for():
    dice = ReplayableDice(ScriptedDice([(1, 2), (3, 4), (5, 6), (6, 6)]))
    assert dice.roll() == (1, 2) and dice.roll() == (3, 4)
    dice.rewind(0)
    assert dice.opening() == (5, 6)  # not the remembered roll (1, 2)
    assert dice.roll() == (6, 6)
