"""FIBS move notation: writing plays in absolute numbering and validating typed moves."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fibs_server.rules import Colour, MoveError, Position, format_play, parse_move
from fibs_server.rules.board.position import LegalResults
from fibs_server.rules.refusals import Refusal

from .test_legal_plays import ROLLS
from .test_position import board, positions

START = Position.initial()


def error(text, position=START, dice=(3, 1), colour="O") -> tuple[Refusal, dict]:
    with pytest.raises(MoveError) as raised:
        parse_move(text, position, dice, colour)
    return raised.value.reason, raised.value.facts


@pytest.mark.parametrize("colour, text", [("O", "8-5 6-5"), ("X", "17-20 19-20")])
def test_point_making_three_one_in_absolute_numbering(colour, text):
    play = parse_move(text, START, (3, 1), colour)
    assert play.steps == ((8, 5), (6, 5))
    assert format_play(play, colour) == text
    assert format_play(play, Colour(colour)) == text


def test_bar_and_off_words():
    entering = board({25: 1, 13: 5}, {8: 5})
    play = next(play for play in entering.legal_plays((3, 6))
                if play.steps == ((25, 19), (19, 16)))
    assert format_play(play, "O") == "bar-19 19-16"
    assert format_play(play, "X") == "bar-6 6-9"
    bearing_off = board({4: 1, 2: 1}, {12: 2})
    assert format_play(bearing_off.legal_plays((6, 5))[0], "X") == "21-off 23-off"


@pytest.mark.parametrize("text", [
    "8-5 6-5", "8 5 6 5", "6-5 8-5", "6 - 5 8 -5", "8-5   6-5 ",
])
def test_separators_and_any_order(text):
    assert parse_move(text, START, (3, 1), "O").result == \
        parse_move("8-5 6-5", START, (3, 1), "O").result


def test_bar_spellings_with_four_pieces():
    position = board({25: 4, 6: 11}, {6: 5})  # enter four times with 5-5 onto own 20
    for text in ["bar-20 bar 20 bar - 20 bar -20", "b-20 b 20 B 20 b-20", "25 20 25-20 b 20 bar 20"]:
        assert parse_move(text, position, (5, 5), "O").steps == ((25, 20),) * 4
    assert parse_move("bar-5 bar 5 bar - 5 bar -5", position, (5, 5), "X").steps == \
        ((25, 20),) * 4


@pytest.mark.parametrize("text", ["4-off 2-off", "2-o 4-h", "4 home 2 off", "4-0 2-0"])
def test_bearing_off_words_and_larger_die_from_the_highest_point(text):
    position = board({4: 1, 2: 1}, {12: 2})
    assert parse_move(text, position, (6, 5), "O").result.borne_off(0) == 15


def test_steps_in_any_order_even_when_the_typed_order_is_illegal():
    # 2-off needs the larger die only after the 4 is gone; typed first, it still matches.
    position = board({4: 1, 2: 1}, {12: 2})
    assert parse_move("2-off 4-off", position, (6, 5), "O").result.borne_off(0) == 15
    # Entering typed after a move of the entered checker.
    entering = board({25: 1, 13: 5}, {8: 5})
    assert parse_move("19-16 bar-19", entering, (3, 6), "O").steps == ((25, 19), (19, 16))


def test_a_different_path_to_a_legal_result_is_accepted():
    play = parse_move("13-11 11-6", START, (5, 2), "O")  # the engine lists 13-8 8-6
    assert play.result in {legal.result for legal in START.legal_plays((5, 2))}
    assert play.steps == ((13, 11), (11, 6))


def test_move_count_errors():
    assert error("8-5") == (Refusal.TOO_FEW_MOVES, {"required": 2})
    assert error("8-5 6") == (Refusal.TOO_FEW_MOVES, {"required": 2})
    assert error("") == (Refusal.TOO_FEW_MOVES, {"required": 2})
    assert error("8-5 6-5 4-3") == (Refusal.TOO_MANY_MOVES, {"required": 2})
    assert error("8-5 6-5 4") == (Refusal.TOO_MANY_MOVES, {"required": 2})
    assert error("13-9", dice=(4, 4)) == (Refusal.TOO_FEW_MOVES, {"required": 4})


def test_word_errors_name_the_move():
    assert error("x-5 6-5") == (Refusal.UNKNOWN_WORD, {"step_number": 1, "word": "x"})
    assert error("8-5 6-ZZ") == (Refusal.UNKNOWN_WORD, {"step_number": 2, "word": "zz"})
    assert error("8-5 6-26") == (Refusal.UNKNOWN_WORD, {"step_number": 2, "word": "26"})
    assert error("1 2 3 4 5 6 7 8 9 x") == \
        (Refusal.UNKNOWN_WORD, {"step_number": 5, "word": "x"})
    assert error("off-5 6-5") == (Refusal.FROM_OFF_OR_TO_BAR, {"step_number": 1})
    assert error("8-5 6-bar") == (Refusal.FROM_OFF_OR_TO_BAR, {"step_number": 2})


def test_rule_errors():
    assert error("8-4 6-5") == (Refusal.NO_DIE_FOR_DISTANCE, {"distance": 4, "step_number": 1})
    assert error("8-5 6-4") == (Refusal.NO_DIE_FOR_DISTANCE, {"distance": 2, "step_number": 2})
    assert error("6-off 8-5") == (Refusal.CANNOT_BEAR_OFF_CHECKER, {})
    assert error("7-4 6-5") == (Refusal.NO_CHECKER_ON_POINT, {"point": 7, "step_number": 1})
    assert error("bar-22 6-5") == (Refusal.NO_CHECKER_ON_BAR, {"step_number": 1})
    assert error("6-8 6-5") == (Refusal.MOVING_BACKWARDS, {"step_number": 1})
    assert error("13-10 13-12", dice=(3, 1), colour="X") == \
        (Refusal.NO_CHECKER_ON_POINT, {"point": 13, "step_number": 1})
    entering = board({25: 1, 13: 5}, {8: 5})
    assert error("13-10 13-12", entering) == (Refusal.MUST_ENTER_FROM_BAR, {"step_number": 1})
    blocked = board({13: 2}, {15: 2, 14: 1})  # the mover's 10 is closed, 11 a blot
    assert error("13-10 13-12", blocked) == \
        (Refusal.POINT_BLOCKED, {"point": 10, "step_number": 1})


def test_larger_die_error():
    position = board({24: 1}, {7: 2, 4: 2, 2: 2, 8: 2})  # only 24-19 (5) or 24-22 (2), not both
    assert error("24-22", position, dice=(5, 2)) == (Refusal.MUST_PLAY_LARGER_DIE, {"die": 5})
    assert parse_move("24-19", position, (5, 2), "O").steps == ((24, 19),)


def test_no_legal_play():
    closed = board({25: 1, 6: 14}, {point: 2 for point in range(1, 7)})
    assert error("bar-22 6-5", closed) == (Refusal.NO_LEGAL_MOVE, {})


@settings(max_examples=300)
@given(positions(), st.sampled_from(ROLLS), st.sampled_from(list(Colour)), st.randoms())
def test_every_legal_play_is_accepted_in_any_order(position, dice, colour, rng):
    plays = position.legal_plays(dice)
    legal = LegalResults.of(plays)
    for play in plays:
        words = format_play(play, colour).split()
        rng.shuffle(words)
        accepted = parse_move(" ".join(words), position, dice, colour, legal)
        assert accepted.result == play.result
