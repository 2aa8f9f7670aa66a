"""The texts of match analysis: `analyse`, `analysis <match> [moves]` and the notice that one
is ready. Pure: each renders the stored form of an analysis (`MatchAnalysis.to_dict()`, whose
players carry their derived figures: error rate, PR, rating words; its decisions their error
and mark), so the JSON the web gets and what telnet shows are the same facts."""
from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping
from typing import Any

from fibs_server.protocol.match_rules import shown_variant
from fibs_server.protocol.wording.coded_texts import notice, refusal
from fibs_server.rules.variants import Variant

ANALYSE_USAGE = refusal("analyse_usage", "** usage: analyse <match id>, or analyse notify on|off")
ANALYSIS_USAGE = refusal("analysis_usage", "** usage: analysis <match id> [moves]")
NOT_ANALYSING = refusal("not_analysing", "** This server does not analyse matches ('analysis <match id>' reads old ones).")
NOTIFY_ON = "You will be told when the analysis of a match of yours is ready."
NOTIFY_OFF = "You won't be told when the analysis of a match is ready."
# gnubg's marks for a decision that lost more than 0.04, 0.08, 0.16 EMG (docs/ANALYSIS.md).
MARKS = {"doubtful": "?!", "bad": "?", "very bad": "??"}
MARKS_LEGEND = ("Marks: ?! doubtful (error over 0.040), ? bad (over 0.080), "
                "?? very bad, a blunder (over 0.160).")
# The smallest error rate (mEMG per unforced decision) the judge tells from perfect play: a
# player who plays as the judge does (the expert bot, bgsage at the analysis's own depth)
# scores 0.0-0.1 where gnubg finds about 2 (docs/ANALYSIS.md, "What the judge cannot see").
JUDGE_RESOLUTION = 2.0
UNSEEN = "played at the analysis's own depth: errors below its resolution are not seen"


def below_resolution(player: Mapping[str, Any]) -> bool:
    """Whether a player's error rate (a summary of the stored form) is below what the judge
    can see, so that a low figure may only mean play like the judge's own."""
    return bool(player["unforced_decisions"]) and player["error_rate"] < JUDGE_RESOLUTION


def no_finished_match(typed: str) -> str:
    return refusal("no_finished_match", f"** There is no finished match {typed}.", match=typed)


def not_readable(match_id: int) -> str:
    return refusal("analysis_not_readable", f"** Match {match_id} was not rated and you did not "
                   "play in it: its analysis is for its players.", match=match_id)


def queued(match_id: int) -> str:
    return f"Match {match_id} is queued for analysis. Type 'analysis {match_id}' when it is done."


def waiting_already(match_id: int) -> str:
    return f"Match {match_id} is waiting for its analysis already."


def done_already(match_id: int) -> str:
    return f"Match {match_id} is analysed already: type 'analysis {match_id}'."


def queue_full(limit: int) -> str:
    return refusal("analysis_queue_full",
                   f"** The analysis queue is full ({limit} matches). Please try again later.",
                   limit=limit)


def too_many_of_yours(limit: int) -> str:
    return refusal("too_many_analyses_waiting", f"** You have {limit} matches waiting for analysis "
                   "already. Ask again when one is done.", limit=limit)


def asked_too_often(seconds: int) -> str:
    return refusal("analyses_asked_too_often", f"** Too many analyses asked for: try again in "
                   f"{seconds} second{'s' if seconds != 1 else ''}.", seconds=seconds)


def read_too_often(seconds: int) -> str:
    return refusal("analyses_read_too_often", f"** Too many analyses read: try again in {seconds} "
                   f"second{'s' if seconds != 1 else ''}.", seconds=seconds)


def ready(match_id: int) -> str:
    return notice(f"** The analysis of match {match_id} is ready.")


def not_analysed(match_id: int, status: str | None) -> str:
    """`status`: the request's (queued, running, failed, done), None: never asked for."""
    if status == "queued":
        return f"Match {match_id} is queued for analysis."
    if status == "running":
        return f"Match {match_id} is being analysed now."
    if status == "failed":
        return refusal("analysis_failed", f"** Match {match_id} could not be analysed. "
                       f"Type 'analyse {match_id}' to try again.", match=match_id)
    return refusal("not_analysed", f"** Match {match_id} is not analysed. "
                   f"Type 'analyse {match_id}' to ask for it.", match=match_id)


def _heading(match_id: int, names: tuple[str, str], analysis: Mapping[str, Any]) -> list[str]:
    length = analysis["length"]
    match = "unlimited match" if length is None else f"{length} point match"
    variant = "".join(f" {name}" for name in shown_variant(Variant(analysis["variant"])))
    return [f"Analysis of match {match_id}: {names[0]} - {names[1]}, {match}{variant}.",
            f"Level: bgsage {analysis['plies']}-ply (gnubg's {analysis['plies'] - 1}-ply), "
            f"{analysis['move_filter']}."]


# Each row of the summary: its label and how it shows a player's figure.
_SUMMARY_ROWS: tuple[tuple[str, str, str], ...] = (
    ("Decisions", "decisions", "d"),
    ("Unforced decisions", "unforced_decisions", "d"),
    ("Error total EMG", "total_error", ".3f"),
    ("Error rate mEMG", "error_rate", ".1f"),
    ("PR", "pr", ".1f"),
    ("Unforced moves", "unforced_moves", "d"),
    ("Checker error EMG", "checker_error", ".3f"),
    ("Checker error rate mEMG", "checker_error_rate", ".1f"),
    ("Close cube decisions", "close_cube_decisions", "d"),
    ("Cube error EMG", "cube_error", ".3f"),
    ("Cube error rate mEMG", "cube_error_rate", ".1f"),
    ("Doubtful", "doubtful", "d"),
    ("Bad", "bad", "d"),
    ("Very bad", "very_bad", "d"),
    ("Luck EMG", "luck", "+.3f"),
    ("Rating", "rating", "s"),
)
_LABEL_WIDTH = 25


def summary(match_id: int, names: tuple[str, str], analysis: Mapping[str, Any]) -> list[str]:
    """Both players' figures side by side, as gnubg's `show statistics match` sums them."""
    lines = _heading(match_id, names, analysis)
    if not analysis["evaluated"]:
        return [*lines, f"A {analysis['variant']} match is not judged: bgsage's networks know "
                "15 checkers a side only."]
    players = analysis["players"]
    width = max(14, *(len(name) + 2 for name in names))
    lines.append(f"{'':<{_LABEL_WIDTH}}{names[0]:>{width}}{names[1]:>{width}}")
    for label, key, form in _SUMMARY_ROWS:
        cells = "".join(f"{format(player[key], form):>{width}}" for player in players)
        lines.append(f"{label:<{_LABEL_WIDTH}}{cells}")
    unseen = [line for player in players if below_resolution(player) for line in textwrap.wrap(
        f"{names[player['player']]}'s error rate is below the judge's resolution "
        f"({JUDGE_RESOLUTION:.1f} mEMG): {UNSEEN}.", 79)]
    return [*lines, *scale_lines(analysis["plies"]), *unseen,
            f"Type 'analysis {match_id} moves' for every decision."]


def scale_lines(plies: int) -> list[str]:
    """Which scale the figures are on, and at what depth they were judged."""
    return [f"Error rates: mEMG lost per unforced decision, judged at bgsage {plies}-ply, on",
            "gnubg's scale, with gnubg's rating words. PR: half the error rate (500 x EMG",
            "per decision), XG's scale; only XG counts a 1-point match's PR 1.5 times."]


def decisions(match_id: int, names: tuple[str, str], analysis: Mapping[str, Any]) -> list[str]:
    """Every decision with its error, marked by how bad it was; the best play after a
    decision that lost equity."""
    lines = [*_heading(match_id, names, analysis), MARKS_LEGEND]
    game = None
    for decision in analysis["decisions"]:
        if decision["game"] != game:
            game = decision["game"]
            lines.append(f"Game {game}:")
        lines.extend(decision_lines(decision, names))
    return lines


def decision_lines(decision: Mapping[str, Any], names: tuple[str, str]) -> list[str]:
    kind = decision["kind"]
    dice = decision["dice"]
    what = f"{kind} {dice[0]}{dice[1]}" if kind == "move" and dice else kind
    played = decision["played"] or "(no legal play)" if kind == "move" else ""
    error = decision["error"]
    judged = "forced" if decision["forced"] else f"{error:.3f} {MARKS.get(decision['skill'], '')}"
    line = f"  {decision['turn']:>3} {names[decision['player']]:<12} {what:<18} {played:<24} {judged}"
    lines = [line.rstrip()]
    if error >= 0.0005 and not decision["forced"]:
        lines.append(f"      best: {decision['best']}")
    return lines


# --- puzzles: the blunders of analysed rated matches (docs/ANALYSIS.md, "Puzzles") ---

PUZZLE_USAGE = refusal("puzzle_usage", "** usage: puzzle [daily | rating | <puzzle id> "
                       "[<answer>]]")
NO_PUZZLE_LEFT = refusal("no_puzzle_left", "** There is no puzzle for you just now: "
                         "they come from the blunders of analysed rated matches.")
PUZZLE_QUESTIONS = {"play": "find the best play", "double": "double or not",
                    "answer": "take or drop"}
PUZZLE_HINTS = {"play": "the play in your own point numbers, e.g. 8/5 6/5 (bar, off)",
                "double": "double, or no double", "answer": "take, or drop"}


def no_puzzle(typed: str) -> str:
    return refusal("no_puzzle", f"** There is no puzzle {typed}.", puzzle=typed)


def puzzles_too_often(seconds: int) -> str:
    return refusal("puzzles_too_often", f"** Too many puzzles asked for: try again in {seconds} "
                   f"second{'s' if seconds != 1 else ''}.", seconds=seconds)


def puzzle(puzzle_id: int, rating: float, match_id: int, players: tuple[str, str], game: int,
           question: str, position_id: str, dice: tuple[int, int] | None, cube: int,
           cube_is: str, score: tuple[int, int], length: int | None) -> list[str]:
    """A puzzle as telnet shows it: gnubg's Position ID, with the decider on roll."""
    of = "unlimited" if length is None else f"of {length}"
    roll = f", dice {dice[0]}-{dice[1]}" if dice else ""
    return [f"Puzzle {puzzle_id} (rating {rating:.0f}): match {match_id}, {players[0]} - "
            f"{players[1]}, game {game}: {PUZZLE_QUESTIONS[question]}.",
            f"  Position ID {position_id}{roll}, cube {cube} {cube_is}, score {score[0]}-"
            f"{score[1]} {of} (yours first).",
            f"  Type 'puzzle {puzzle_id} <answer>': {PUZZLE_HINTS[question]}."]


def puzzle_answered(solved: bool, best: str, played: str, first: bool, rating: float,
                    change: float) -> list[str]:
    said = (f"Right: {best}." if solved
            else f"Not the best: the analysis found {best} (the match saw {played}).")
    rated = (f"Your puzzle rating: {rating:.1f} ({change:+.1f})." if first
             else f"Your puzzle rating: {rating:.1f} (rated at your first try only).")
    return [said, rated]


def puzzle_rating(rating: float, attempts: int, solved: int) -> str:
    return f"Your puzzle rating: {rating:.1f}, {solved} of {attempts} puzzles solved."


# The tutor's texts (`tutor`, an extension: a classic session that never types it sees none
# of them). Equities in EMG, as the analysis's (docs/ANALYSIS.md).
TUTOR_USAGE = refusal("tutor_usage", "** usage: tutor on [<threshold 0.01-1.0>] | off | play")
TUTOR_RATED = refusal("tutor_rated", "** The tutor is not allowed in rated matches: it helps "
                      "in unrated matches and unrated matches against bots.")
TUTOR_UNAVAILABLE = refusal("tutor_unavailable", "** The tutor is not available on this server.")
TUTOR_NO_ANSWER = refusal("tutor_no_answer", "** The tutor has no answer just now: send "
                          "your decision again, or type 'tutor off'.")
TUTOR_NOTHING_HELD = refusal("tutor_nothing_held", "** The tutor holds no decision of yours back.")
TUTOR_SWITCHED_OFF = notice("** The tutor is off.")


def tutor_switched_on(threshold: float) -> str:
    return notice(f"** The tutor is on: it warns of a decision that loses more than "
                  f"{threshold:.3f} (unrated matches only).")


def tutor_status(threshold: float | None) -> str:
    return TUTOR_SWITCHED_OFF if threshold is None else tutor_switched_on(threshold)


def tutor_asked_too_often(wait: float) -> str:
    seconds = max(1, math.ceil(wait))
    return refusal("tutor_asked_too_often", f"** The tutor was asked too often: try again in "
                   f"{seconds} second{'s' if seconds != 1 else ''}.", seconds=seconds)


def tutor_warning(proposed: str, best: str, loss: float) -> str:
    return notice(f"** Tutor: {proposed} loses {loss:.3f} against {best}. Send it again or "
                  f"type 'tutor play' to play it anyway, or decide again.")
