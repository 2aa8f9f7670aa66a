"""Why the rules refuse: a `Refusal` reason and the facts its reply needs.

The rules say why, not what to answer (as h11's errors carry a status hint, not a response):
`fibs_server.protocol.refusals` turns a reason, its facts and the opponent's name into
FIBS's words.
"""
from __future__ import annotations

import enum
from typing import Any


class Refusal(enum.Enum):
    """Each distinct reason the rules refuse an action or a typed move. The facts a reason
    comes with are named in its comment."""

    # Starting the match, and between games
    MATCH_ALREADY_STARTED = enum.auto()
    MATCH_NOT_STARTED = enum.auto()
    NO_NEXT_GAME = enum.auto()
    ALREADY_JOINED = enum.auto()  # the opponent has not joined the next game yet
    GAME_OVER = enum.auto()  # between games: join the next one first
    MATCH_OVER = enum.auto()
    # A double or resignation waits for its answer
    AWAITING_ANSWER_TO_RESIGNATION = enum.auto()  # the actor offered to resign
    AWAITING_ANSWER_TO_DOUBLE = enum.auto()  # the actor doubled or redoubled
    ANSWER_RESIGNATION_FIRST = enum.auto()  # the opponent offered to resign
    ANSWER_DOUBLE_FIRST = enum.auto()  # the opponent doubled or redoubled
    NOTHING_TO_ANSWER = enum.auto()  # accept or reject: no offer from the opponent
    # Rolling and moving
    NOT_YOUR_TURN_TO_ROLL = enum.auto()
    ALREADY_ROLLED = enum.auto()
    NOT_YOUR_TURN_TO_MOVE = enum.auto()
    ROLL_BEFORE_MOVING = enum.auto()
    ILLEGAL_MOVE = enum.auto()
    CANNOT_BEAR_OFF = enum.auto()  # no legal play bears a checker off
    # Doubling
    WAIT_FOR_OPPONENT_TO_MOVE = enum.auto()
    NOT_YOUR_TURN_TO_DOUBLE = enum.auto()
    CRAWFORD_GAME = enum.auto()
    CUBE_NOT_USED = enum.auto()  # a 1-point match, or a variant without the cube
    OPPONENT_OWNS_CUBE = enum.auto()
    DOUBLE_BEFORE_ROLLING = enum.auto()
    OPPONENT_DID_NOT_DOUBLE = enum.auto()  # a redouble with no double to answer
    REDOUBLES_ONLY_UNLIMITED = enum.auto()
    NO_MORE_REDOUBLES = enum.auto()
    WRONG_REDOUBLE_NAME = enum.auto()  # redouble_name: the animal typed
    # A typed move (`MoveError`); step_number 1 is the first from-to pair typed
    NO_LEGAL_MOVE = enum.auto()
    UNKNOWN_WORD = enum.auto()  # step_number, word
    TOO_MANY_MOVES = enum.auto()  # required: the number of pairs the dice need
    TOO_FEW_MOVES = enum.auto()  # required; also a pair without its destination
    FROM_OFF_OR_TO_BAR = enum.auto()  # step_number
    MUST_ENTER_FROM_BAR = enum.auto()  # step_number
    NO_CHECKER_ON_BAR = enum.auto()  # step_number
    NO_CHECKER_ON_POINT = enum.auto()  # point (absolute), step_number
    CANNOT_BEAR_OFF_CHECKER = enum.auto()
    MOVING_BACKWARDS = enum.auto()  # step_number
    NO_DIE_FOR_DISTANCE = enum.auto()  # distance (points), step_number
    POINT_BLOCKED = enum.auto()  # point (absolute), step_number
    MUST_PLAY_LARGER_DIE = enum.auto()  # die


class Refused(Exception):
    """A refusal by the rules: `reason`, and in `facts` what a reply to it needs to say."""

    def __init__(self, reason: Refusal, **facts: Any) -> None:
        super().__init__(reason)
        self.reason = reason
        self.facts = facts

    def __str__(self) -> str:
        # For logs and tracebacks; a player reads protocol.refusals' text instead.
        return f"{self.reason.name} {self.facts}" if self.facts else self.reason.name


class IllegalAction(Refused):
    """An action the rules forbid. The match is left as it was."""
