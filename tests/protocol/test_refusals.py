"""FIBS's replies to the rules' refusals: one per reason, checked against exact text."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fibs_server.protocol.refusals import TEMPLATES, refusal_text
from fibs_server.rules.board.notation import MoveError, parse_move
from fibs_server.rules.match import IllegalAction
from fibs_server.rules.refusals import Refusal
from tests.rules.test_legal_plays import ROLLS
from tests.rules.test_position import positions

ANSWER = "Type 'accept' or 'reject'."
LEGAL_WORDS = "legal words are 'bar', 'home', 'off', 'b', 'h' and 'o'."


def test_every_reason_has_a_text():
    assert set(TEMPLATES) == set(Refusal)


@pytest.mark.parametrize("reason, facts, text", [
    (Refusal.MATCH_ALREADY_STARTED, {}, "** The match has already started."),
    (Refusal.MATCH_NOT_STARTED, {}, "** The match hasn't started yet."),
    (Refusal.NO_NEXT_GAME, {}, "** There's no next game to join."),
    (Refusal.ALREADY_JOINED, {}, "** Please wait for alice to join too."),
    (Refusal.GAME_OVER, {}, "** The game is over. Type 'join' to play the next game."),
    (Refusal.MATCH_OVER, {}, "** The match is over."),
    (Refusal.AWAITING_ANSWER_TO_RESIGNATION, {},
     "** Wait until alice accepted or rejected your resign."),
    (Refusal.AWAITING_ANSWER_TO_DOUBLE, {}, "** Please wait for alice to accept or reject."),
    (Refusal.ANSWER_RESIGNATION_FIRST, {}, f"** alice wanted to resign. {ANSWER}"),
    (Refusal.ANSWER_DOUBLE_FIRST, {}, f"** alice doubled. {ANSWER}"),
    (Refusal.NOTHING_TO_ANSWER, {}, "** alice didn't double or resign."),
    (Refusal.NOT_YOUR_TURN_TO_ROLL, {}, "** It's not your turn to roll the dice."),
    (Refusal.ALREADY_ROLLED, {}, "** You did already roll the dice."),
    (Refusal.NOT_YOUR_TURN_TO_MOVE, {}, "** It's not your turn to move."),
    (Refusal.ROLL_BEFORE_MOVING, {}, "** You have to roll the dice before moving."),
    (Refusal.ILLEGAL_MOVE, {}, "** That move is not legal."),
    (Refusal.CANNOT_BEAR_OFF, {}, "** You can't bear off now."),
    (Refusal.WAIT_FOR_OPPONENT_TO_MOVE, {}, "** Please wait until alice has moved."),
    (Refusal.NOT_YOUR_TURN_TO_DOUBLE, {}, "** It's not your turn to double"),
    (Refusal.CRAWFORD_GAME, {}, "** You can't double in the Crawford game."),
    (Refusal.CUBE_NOT_USED, {}, "** The doubling cube is not used in this match."),
    (Refusal.OPPONENT_OWNS_CUBE, {}, "** alice owns the cube. You can't double."),
    (Refusal.DOUBLE_BEFORE_ROLLING, {}, "** You can only double before you roll the dice."),
    (Refusal.OPPONENT_DID_NOT_DOUBLE, {}, "** alice didn't double."),
    (Refusal.REDOUBLES_ONLY_UNLIMITED, {},
     "** Redoubles are only allowed in unlimited matches."),
    (Refusal.NO_MORE_REDOUBLES, {}, "** No more redoubles are allowed in this match."),
    (Refusal.WRONG_REDOUBLE_NAME, {"redouble_name": "raccoon"},
     "** You can't raccoon now. Type 'redouble'."),
])
def test_match_refusals(reason, facts, text):
    assert refusal_text(IllegalAction(reason, **facts), "alice") == text


@pytest.mark.parametrize("reason, facts, text", [
    (Refusal.NO_LEGAL_MOVE, {}, "** You can't move."),
    (Refusal.UNKNOWN_WORD, {"step_number": 1, "word": "x"}, f"** first move: {LEGAL_WORDS}"),
    (Refusal.UNKNOWN_WORD, {"step_number": 4, "word": "x"}, f"** fourth move: {LEGAL_WORDS}"),
    # FIBS's words stop at the fourth move.
    (Refusal.UNKNOWN_WORD, {"step_number": 5, "word": "x"}, f"** fourth move: {LEGAL_WORDS}"),
    (Refusal.TOO_MANY_MOVES, {"required": 2}, "** Please don't give more than 2 moves."),
    (Refusal.TOO_FEW_MOVES, {"required": 1}, "** You must give 1 moves."),
    (Refusal.FROM_OFF_OR_TO_BAR, {"step_number": 2},
     "** second move: move from a point or the bar to a point or off."),
    (Refusal.MUST_ENTER_FROM_BAR, {"step_number": 1},
     "** You have to remove pieces from the bar in your first move."),
    (Refusal.NO_CHECKER_ON_BAR, {"step_number": 1},
     "** You can't move from the bar in your first move."),
    (Refusal.NO_CHECKER_ON_POINT, {"point": 7, "step_number": 3},
     "** You can't move from 7 in your third move."),
    (Refusal.CANNOT_BEAR_OFF_CHECKER, {}, "** You can't remove this piece"),
    (Refusal.MOVING_BACKWARDS, {"step_number": 1},
     "** You can't move home in your first move."),
    (Refusal.NO_DIE_FOR_DISTANCE, {"distance": 4, "step_number": 1},
     "** You can't move 4 points in your first move"),
    (Refusal.NO_DIE_FOR_DISTANCE, {"distance": 1, "step_number": 2},
     "** You can't move 1 point in your second move"),
    (Refusal.POINT_BLOCKED, {"point": 10, "step_number": 1},
     "** You can't move to 10 in your first move."),
    (Refusal.MUST_PLAY_LARGER_DIE, {"die": 5}, "** You have to play the larger die (5)."),
])
def test_typed_move_refusals(reason, facts, text):
    assert refusal_text(MoveError(reason, **facts), "alice") == text


# The FIBS message classifiers' patterns (the cookie monster's Java port, written against
# live FIBS) that these refusals must match: a line no pattern matches is unknown to them.
@pytest.mark.parametrize("reason, facts, pattern", [
    (Refusal.NO_CHECKER_ON_POINT, {"point": 7, "step_number": 2},
     r"^\*\* You can't move .*move\."),
    (Refusal.NO_CHECKER_ON_BAR, {"step_number": 1}, r"^\*\* You can't move .*move\."),
    (Refusal.MOVING_BACKWARDS, {"step_number": 1}, r"^\*\* You can't move .*move\."),
    (Refusal.POINT_BLOCKED, {"point": 14, "step_number": 2}, r"^\*\* You can't move .*move\."),
    (Refusal.AWAITING_ANSWER_TO_RESIGNATION, {},
     r"^\*\* Wait until [a-zA-Z_<>]+ accepted or rejected your resign\."),
])
def test_fibs_refusals_are_known_to_the_classic_classifiers(reason, facts, pattern):
    assert re.match(pattern, refusal_text(MoveError(reason, **facts), "alice"))


def test_a_refusal_carried_over_from_a_typed_move_reads_the_same():
    error = MoveError(Refusal.NO_CHECKER_ON_POINT, point=7, step_number=1)
    assert (refusal_text(IllegalAction(error.reason, **error.facts), "alice")
            == refusal_text(error, "alice"))


@settings(max_examples=300)
@given(positions(), st.sampled_from(ROLLS), st.sampled_from("XO"),
       st.text(st.sampled_from("0123456789 -bar offhmxz"), max_size=30))
def test_every_refused_typed_move_has_a_text(position, dice, colour, text):
    try:
        parse_move(text, position, dice, colour)
    except MoveError as error:
        assert refusal_text(error, "alice").startswith("** ")
