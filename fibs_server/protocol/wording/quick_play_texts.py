"""Quick play (`quickplay`, ours: FIBS has none): its words and texts. A classic session that
never types the command never reads one of them; a match it pairs is told with FIBS's own
texts for a joined invitation (game_texts)."""
from __future__ import annotations

from collections.abc import Iterable

from fibs_server.protocol.match_rules import VARIANT_CHOICE, MatchTerms
from fibs_server.protocol.wording.coded_texts import refusal
from fibs_server.protocol.wording.match_texts import match_kind

COMMAND = "quickplay"
CANCEL = "cancel"  # `quickplay cancel`
RANGE = "range"  # `range <points>` or `range any`
ANY = "any"
DEFAULT_RANGE = 200.0  # rating points either way a seek accepts at first
MIN_RANGE, MAX_RANGE = 10, 3000

QUICK_PLAY_USAGE = refusal(
    "quick_play_usage", f"** Type 'quickplay <points> [{VARIANT_CHOICE}] [lowstart] [nocube] "
    "[timer 30|60|bank <s> <r> [mode]] [unrated] [range <rating points>|any]' to be paired with "
    "whoever seeks the same match, 'quickplay cancel' to stop.", variant_words=VARIANT_CHOICE)
RANGE_USAGE = refusal("quick_play_range", f"** The range is {MIN_RANGE} to {MAX_RANGE} rating "
                      "points, or 'any'.", low=MIN_RANGE, high=MAX_RANGE)
NOT_SEEKING = refusal("not_seeking", "** You are not seeking a quick play match.")


def too_often(seconds: int) -> str:
    return refusal("quick_play_too_often",
                   f"** Too many quick play seeks: try again in {seconds} seconds.",
                   seconds=seconds)


CANCELLED = "Quick play: you stopped seeking."
STOPPED_PLAYING = "Quick play: you stopped seeking, as you play a match now."


def split_range(words: Iterable[str]) -> tuple[list[str], float | None | str]:
    """The words without `range <points>|any`, and the range they chose (DEFAULT_RANGE if
    none; None: any rating), or the refusal to send for a range that is none."""
    rest: list[str] = []
    chosen: float | None | str = DEFAULT_RANGE
    remaining = iter(words)
    for word in remaining:
        if word.lower() != RANGE:
            rest.append(word)
            continue
        value = next(remaining, "").lower()
        if value == ANY:
            chosen = None
        elif value.isascii() and value.isdigit() and MIN_RANGE <= int(value) <= MAX_RANGE:
            chosen = float(value)
        else:
            return rest, RANGE_USAGE
    return rest, chosen


def seeking(length: int, terms: MatchTerms, rating_range: float | None) -> str:
    """The seeker's confirmation."""
    unrated = "" if terms.rated else ", unrated"
    against = ("anyone" if rating_range is None
               else f"a rating within {rating_range:.0f} points of yours, wider as you wait")
    return (f"Quick play: you seek {match_kind(length, terms)}{unrated} against {against}. "
            "Type 'quickplay cancel' to stop.")


def paired(opponent: str) -> str:
    """To both players, before the match's own start lines."""
    return f"Quick play: you play {opponent}."


def not_started(opponent: str) -> str:
    """To a paired player whose match could not start after all (a store fault, or the
    opponent gone meanwhile): their seek goes on, waiting since it began."""
    return f"Quick play: your match with {opponent} could not start. You seek on."


def bot_offer(length: int, terms: MatchTerms) -> str:
    """Nobody came in time: a match against a bot instead, with the command that starts it
    (the seek goes on until the bot's match starts)."""
    unrated = "" if terms.rated else " unrated"
    return (f"Quick play: nobody has come yet. Type 'bot {length}{unrated}' to play a bot now, "
            "or wait on.")

