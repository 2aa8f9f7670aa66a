"""FIBS's replies to what the rules refuse (`fibs_server.rules.refusals`): one template per
reason, filled with the refusal's facts and the refused player's opponent's name.

Texts are FIBS's own where FIBS has one (docs/PROTOCOL.md, docs/RULES.md), punctuation
included: some lines end without a period, as FIBS's do.
"""
from __future__ import annotations

from fibs_server.protocol.texts import plural
from fibs_server.protocol.wording.coded_texts import RefusalText, refusal
from fibs_server.rules.refusals import Refusal, Refused

_ANSWER = "Type 'accept' or 'reject'."

TEMPLATES: dict[Refusal, str] = {
    Refusal.MATCH_ALREADY_STARTED: "** The match has already started.",
    Refusal.MATCH_NOT_STARTED: "** The match hasn't started yet.",
    Refusal.NO_NEXT_GAME: "** There's no next game to join.",
    Refusal.ALREADY_JOINED: "** Please wait for {opponent} to join too.",
    Refusal.GAME_OVER: "** The game is over. Type 'join' to play the next game.",
    Refusal.MATCH_OVER: "** The match is over.",
    Refusal.AWAITING_ANSWER_TO_RESIGNATION:
        "** Wait until {opponent} accepted or rejected your resign.",
    Refusal.AWAITING_ANSWER_TO_DOUBLE: "** Please wait for {opponent} to accept or reject.",
    Refusal.ANSWER_RESIGNATION_FIRST: "** {opponent} wanted to resign. " + _ANSWER,
    Refusal.ANSWER_DOUBLE_FIRST: "** {opponent} doubled. " + _ANSWER,
    Refusal.NOTHING_TO_ANSWER: "** {opponent} didn't double or resign.",
    Refusal.NOT_YOUR_TURN_TO_ROLL: "** It's not your turn to roll the dice.",
    Refusal.ALREADY_ROLLED: "** You did already roll the dice.",
    Refusal.NOT_YOUR_TURN_TO_MOVE: "** It's not your turn to move.",
    Refusal.ROLL_BEFORE_MOVING: "** You have to roll the dice before moving.",
    Refusal.ILLEGAL_MOVE: "** That move is not legal.",
    Refusal.CANNOT_BEAR_OFF: "** You can't bear off now.",
    Refusal.WAIT_FOR_OPPONENT_TO_MOVE: "** Please wait until {opponent} has moved.",
    Refusal.NOT_YOUR_TURN_TO_DOUBLE: "** It's not your turn to double",
    Refusal.CRAWFORD_GAME: "** You can't double in the Crawford game.",
    Refusal.CUBE_NOT_USED: "** The doubling cube is not used in this match.",
    Refusal.OPPONENT_OWNS_CUBE: "** {opponent} owns the cube. You can't double.",
    Refusal.DOUBLE_BEFORE_ROLLING: "** You can only double before you roll the dice.",
    Refusal.OPPONENT_DID_NOT_DOUBLE: "** {opponent} didn't double.",
    Refusal.REDOUBLES_ONLY_UNLIMITED: "** Redoubles are only allowed in unlimited matches.",
    Refusal.NO_MORE_REDOUBLES: "** No more redoubles are allowed in this match.",
    Refusal.WRONG_REDOUBLE_NAME: "** You can't {redouble_name} now. Type 'redouble'.",
    Refusal.NO_LEGAL_MOVE: "** You can't move.",
    Refusal.UNKNOWN_WORD:
        "** {ordinal} move: legal words are 'bar', 'home', 'off', 'b', 'h' and 'o'.",
    # "moves" for every count, as FIBS prints it (clients match `You must give [1-4] moves`).
    Refusal.TOO_MANY_MOVES: "** Please don't give more than {required} moves.",
    Refusal.TOO_FEW_MOVES: "** You must give {required} moves.",
    Refusal.FROM_OFF_OR_TO_BAR:
        "** {ordinal} move: move from a point or the bar to a point or off.",
    Refusal.MUST_ENTER_FROM_BAR:
        "** You have to remove pieces from the bar in your {ordinal} move.",
    Refusal.NO_CHECKER_ON_BAR: "** You can't move from the bar in your {ordinal} move.",
    Refusal.NO_CHECKER_ON_POINT: "** You can't move from {point} in your {ordinal} move.",
    Refusal.CANNOT_BEAR_OFF_CHECKER: "** You can't remove this piece",
    # FIBS's words for a step against the direction of play.
    Refusal.MOVING_BACKWARDS: "** You can't move home in your {ordinal} move.",
    Refusal.NO_DIE_FOR_DISTANCE: "** You can't move {points} in your {ordinal} move",
    Refusal.POINT_BLOCKED: "** You can't move to {point} in your {ordinal} move.",
    Refusal.MUST_PLAY_LARGER_DIE: "** You have to play the larger die ({die}).",
}

_ORDINALS = ("first", "second", "third", "fourth")


def refusal_text(refused: Refused, opponent: str) -> RefusalText:
    """The line FIBS answers `refused` with; `opponent` is the refused player's opponent.
    Its code is the reason's name, its params the facts and the opponent."""
    facts = refused.facts
    words = {**facts, "opponent": opponent}
    if "step_number" in facts:
        # FIBS counts to the fourth move; a bad word further on is blamed on the fourth.
        words["ordinal"] = _ORDINALS[min(facts["step_number"], 4) - 1]
    if "distance" in facts:
        words["points"] = plural(facts["distance"], "point")
    return refusal(refused.reason.name.lower(), TEMPLATES[refused.reason].format_map(words),
                   **facts, opponent=opponent)
