"""Puzzles from our own matches (docs/ANALYSIS.md, "Puzzles"): the decisions a match's
analysis found blundered, served as "find the best play" or "find the best cube action",
checked against the analysis's own best; each player's puzzle rating and each puzzle's, by
Elo; the day's puzzle.

Pure: the analysis comes in as it is stored (`MatchAnalysis.to_dict()`), the day as a date.
"""
from __future__ import annotations

import dataclasses
import datetime
import hashlib
from collections.abc import Sequence
from typing import Any

from fibs_server.rules.board.notation import Colour, MoveError, parse_move
from fibs_server.rules.board.position import Position

from .analysis import BAD, Kind

# A puzzle: a counted decision that lost at least the analysis's "bad" (docs/ANALYSIS.md).
BLUNDER = BAD
PLAY, DOUBLE, ANSWER = "play", "double", "answer"  # find the play; double or not; take or pass
# What a cube puzzle asks, by the decision's kind, and the answers it takes.
CUBE_QUESTIONS = {Kind.NO_DOUBLE: DOUBLE, Kind.DOUBLE: DOUBLE, Kind.TAKE: ANSWER,
                  Kind.DROP: ANSWER}
ANSWERS = {DOUBLE: ("double", "no double"), ANSWER: ("take", "drop")}

START_RATING = 1500.0
PLAYER_K = 32.0  # a player's rating moves by at most this per puzzle
PUZZLE_K = 16.0  # a puzzle's, by at most this per attempt: many players try each
# A puzzle's first rating by its error: a larger blunder is easier to see.
EASIEST, HARDEST = 1250.0, 1750.0
ERROR_OF_EASIEST = 0.5


@dataclasses.dataclass(frozen=True)
class Puzzle:
    """One blundered decision, from the decider's side: `position_id` has the decider's
    checkers first (Position.from_position_id), `best` and `played` plays are steps in the
    decider's own numbering (24 down to 1, 25 its bar, 0 off)."""

    game: int
    turn: int
    player: int  # the decider, 0 or 1 in the match
    question: str  # PLAY, DOUBLE or ANSWER
    position_id: str
    dice: tuple[int, int] | None  # the roll to play (PLAY)
    cube: int
    cube_owner: int | None  # the player who owns the cube; None: centred
    score: tuple[int, int]  # the match's before the game, players 0 and 1
    best: str  # PLAY: the best play's steps ("8/5 6/5"); else the best answer ("double", ...)
    played: str  # what the player did, the same way
    error: float  # EMG the player lost

    @property
    def rating(self) -> float:
        return first_rating(self.error)


def first_rating(error: float) -> float:
    """A new puzzle's rating: HARDEST for an error of BLUNDER, down to EASIEST."""
    share = (min(max(error, BLUNDER), ERROR_OF_EASIEST) - BLUNDER) / (ERROR_OF_EASIEST - BLUNDER)
    return HARDEST - share * (HARDEST - EASIEST)


def puzzles_of(analysis: dict[str, Any], state: dict[str, Any]) -> list[Puzzle]:
    """The puzzles of a stored analysis of the match whose stored state is `state` (its
    whole history): each counted play or cube decision (not a resignation, not forced, not a
    beaver) that lost at least BLUNDER."""
    found = []
    owner: int | None = None
    doubler = None
    game = 0
    for decision in analysis.get("decisions", []):
        kind = Kind(decision["kind"])
        if decision["game"] != game:
            game, owner, doubler = decision["game"], None, None
        started = state["history"][game - 1][0]  # the game's GameStarted
        puzzle = _puzzle(decision, kind, started["x_player"], owner, tuple(started["score"]))
        if puzzle is not None:
            found.append(puzzle)
        # The cube as the page's review follows it: a take gives it to the doubler's
        # opponent (the first taker keeps it through instant redoubles).
        if kind is Kind.DOUBLE:
            doubler = decision["player"]
        elif kind is Kind.TAKE and doubler is not None:
            owner = 1 - doubler
    return found


def _puzzle(decision: dict[str, Any], kind: Kind, x_player: int, owner: int | None,
            score: tuple[int, int]) -> Puzzle | None:
    if not decision["counted"] or decision["forced"] or decision["error"] < BLUNDER:
        return None
    if kind is Kind.MOVE:
        colour = Colour.X if decision["player"] == x_player else Colour.O
        position = Position.from_position_id(decision["position_id"])
        dice = (decision["dice"][0], decision["dice"][1])
        try:
            best = parse_move(decision["best"], position, dice, colour)
            played = parse_move(decision["played"], position, dice, colour)
        except MoveError:  # the analysis's own plays: not seen, but no puzzle then
            return None
        question, answer, made = PLAY, steps_text(best.steps), steps_text(played.steps)
    elif kind in CUBE_QUESTIONS and decision["best"] in ANSWERS[CUBE_QUESTIONS[kind]]:
        question, answer, made = CUBE_QUESTIONS[kind], decision["best"], decision["played"]
    else:
        return None
    dice_played = (decision["dice"][0], decision["dice"][1]) if decision["dice"] else None
    return Puzzle(decision["game"], decision["turn"], decision["player"], question,
                  decision["position_id"], dice_played, decision["cube"], owner,
                  (score[0], score[1]), answer, made, decision["error"])


def steps_text(steps: Sequence[tuple[int, int]]) -> str:
    """Steps in own numbering as "8/5 6/5" ("bar/22", "4/off"), highest first."""
    def word(point: int) -> str:
        return "bar" if point == 25 else "off" if point == 0 else str(point)
    return " ".join(f"{word(start)}/{word(end)}" for start, end in sorted(steps, reverse=True))


def solves(question: str, position_id: str, dice: tuple[int, int] | None, best: str,
           answer: str) -> bool:
    """Whether `answer` is the puzzle's best: a cube answer's word, or a play's steps in own
    numbering ("8/5 6/5", in any order) that leave the position the best play leaves."""
    answer = " ".join(answer.lower().split())
    if question != PLAY:
        return answer == best
    assert dice is not None
    position = Position.from_position_id(position_id)
    return _result(position, dice, answer) == _result(position, dice, best) is not None


def _result(position: Position, dice: tuple[int, int], steps: str) -> str | None:
    """The position `steps` leave, if a legal play leaves it (None: no legal play does, or
    the steps are no steps); a play may be given in any order and any split of its dice."""
    try:
        pairs = [tuple(_point(word) for word in step.split("/")) for step in steps.split()]
        if not pairs or any(len(pair) != 2 or pair[0] <= pair[1] for pair in pairs):
            return None
        reached = position.apply(tuple(pairs)).result.position_id()  # type: ignore[arg-type]
    except (ValueError, IndexError):
        return None
    legal = {play.result.position_id() for play in position.legal_plays(dice)}
    return reached if reached in legal else None


def _point(word: str) -> int:
    point = {"bar": 25, "off": 0}.get(word)
    if point is None:
        point = int(word)
        if not 1 <= point <= 24:
            raise ValueError(word)
    return point


def expected_score(rating: float, opponent: float) -> float:
    """Elo's expected score of `rating` against `opponent` (0..1)."""
    return 1.0 / (1.0 + float(10.0 ** ((opponent - rating) / 400.0)))


def rated(player: float, puzzle: float, solved: bool) -> tuple[float, float]:
    """The player's and the puzzle's ratings after an attempt: the player gains what the
    puzzle loses, each by its own K (a solve is the player's win)."""
    surprise = (1.0 if solved else 0.0) - expected_score(player, puzzle)
    return player + PLAYER_K * surprise, puzzle - PUZZLE_K * surprise


def daily_index(day: datetime.date, count: int) -> int:
    """Which of `count` puzzles (in a fixed order) is the day's: the same all day, for
    everyone, and spread over the days by a hash rather than marching in order."""
    assert count > 0
    digest = hashlib.sha256(day.isoformat().encode()).digest()
    return int.from_bytes(digest[:8], "big") % count
