"""`tournament create <format> [options]`: the words read into what the creator asks for
(docs/TOURNAMENTS.md, "Commands"). Pure; the lobby checks the server's limits after."""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from fibs_server.protocol.match_rules import (
    BANK_WORD,
    ONE_CLOCK,
    TURN_TIMES,
    VARIANT_CHOICE,
    VARIANT_WORDS,
    RulesWordError,
    parse_bank,
)
from fibs_server.protocol.wording.coded_texts import refusal
from fibs_server.rules.tournament import Flight, Format, RoundTerms
from fibs_server.rules.variants import Variant

CREATE_USAGE = refusal(
    "tournament_create_usage",
    "** usage: tournament create knockout|swiss [rounds <n>] [length <n>] [final <n>] "
    "[lengths <n>,<n>,...] "
    f"[{VARIANT_CHOICE}] [nocrawford] [timer 30|60|bank <s> <r> [mode]] [unrated] "
    "[in <minutes>] [when <n>] "
    "[cap <n>] [bots] [consolation] [lastchance]", variant_words=VARIANT_CHOICE)
LONGEST_MATCH = 25
MOST_SWISS_ROUNDS = 15
DEFAULT_SWISS_ROUNDS = 3
DEFAULT_CAP = 16
LATEST_START_MINUTES = 7 * 24 * 60  # a start time at most a week ahead
# The words that take a number after them, and the numbers each accepts.
NUMBERED = {"rounds": range(1, MOST_SWISS_ROUNDS + 1), "length": range(1, LONGEST_MATCH + 1),
            "final": range(1, LONGEST_MATCH + 1), "timer": TURN_TIMES,
            "in": range(1, LATEST_START_MINUTES + 1), "when": range(2, 10_000),
            "cap": range(2, 10_000)}
# A knockout's side flights: `lastchance` brings the consolation it follows.
FLIGHT_WORDS = {"consolation": (Flight.MAIN, Flight.CONSOLATION),
                "lastchance": (Flight.MAIN, Flight.CONSOLATION, Flight.LAST_CHANCE)}
FLAGS = ("nocrawford", "unrated", "bots", *VARIANT_WORDS, *FLIGHT_WORDS)
MOST_LENGTHS = MOST_SWISS_ROUNDS  # `lengths`: one for each round at most


@dataclasses.dataclass(frozen=True)
class TournamentOrder:
    """What a creator asked for. `start_in_minutes` and `start_when`: the sign-up closes at
    the first of the two; neither given: when the entry cap is reached."""

    format: Format
    terms: RoundTerms
    swiss_rounds: int
    entry_cap: int
    start_in_minutes: int | None
    start_when: int | None
    bots_allowed: bool
    flights: tuple[Flight, ...] = (Flight.MAIN,)  # a knockout's, the main one first


class OptionError(ValueError):
    def __init__(self, reply: str) -> None:
        super().__init__(reply)
        self.reply = reply


def parse_create(words: Sequence[str]) -> TournamentOrder:
    """The order the words make; OptionError with the reply when they make none."""
    if not words or words[0].lower() not in ("knockout", "swiss"):
        raise OptionError(CREATE_USAGE)
    numbers: dict[str, int] = {}
    flags: set[str] = set()
    bank = None
    lengths: tuple[int, ...] = ()
    lowered = [word.lower() for word in words[1:]]
    index = 0
    while index < len(lowered):
        word = lowered[index]
        index += 1
        if word == BANK_WORD:
            try:
                bank, taken = parse_bank(lowered[index:])
            except RulesWordError as error:
                raise OptionError(error.reply) from None
            index += taken
        elif word == "lengths":
            lengths = parse_lengths(lowered[index] if index < len(lowered) else "")
            index += 1
        elif word in NUMBERED:
            value = lowered[index] if index < len(lowered) else ""
            index += 1
            if not (value.isascii() and value.isdigit() and len(value) <= 5
                    and int(value) in NUMBERED[word]):
                raise OptionError(bad_number(word))
            numbers[word] = int(value)
        elif word in FLAGS:
            flags.add(word)
        else:
            raise OptionError(CREATE_USAGE)
    variants = [variant for word, variant in VARIANT_WORDS.items() if word in flags]
    if len(variants) > 1:
        raise OptionError(CREATE_USAGE)
    tournament_format = Format(words[0].lower())
    if tournament_format is Format.KNOCKOUT and "rounds" in numbers:
        raise OptionError(ROUNDS_ARE_SWISS)
    flights = max((FLIGHT_WORDS[word] for word in flags if word in FLIGHT_WORDS),
                  key=len, default=(Flight.MAIN,))
    if tournament_format is not Format.KNOCKOUT and len(flights) > 1:
        raise OptionError(FLIGHTS_ARE_KNOCKOUT)
    if bank is not None and "timer" in numbers:
        raise OptionError(ONE_CLOCK)
    if lengths and ("length" in numbers or "final" in numbers):
        raise OptionError(LENGTHS_ALONE)
    length = lengths[0] if lengths else numbers.get("length", RoundTerms.length)
    final = lengths[-1] if lengths else numbers.get("final", length)
    terms = RoundTerms(length=length, final_length=final, lengths=lengths,
                       variant=variants[0] if variants else Variant.STANDARD,
                       crawford="nocrawford" not in flags,
                       turn_seconds=numbers.get("timer", RoundTerms.turn_seconds),
                       rated="unrated" not in flags, bank=bank)
    swiss_rounds = (numbers.get("rounds", DEFAULT_SWISS_ROUNDS)
                    if tournament_format is Format.SWISS else 0)
    return TournamentOrder(tournament_format, terms, swiss_rounds,
                           numbers.get("cap", DEFAULT_CAP), numbers.get("in"),
                           numbers.get("when"), "bots" in flags, flights)


def parse_lengths(word: str) -> tuple[int, ...]:
    """`5,5,7,9,11`: the lengths of the last rounds, the final's last."""
    parts = word.split(",")
    if not (1 <= len(parts) <= MOST_LENGTHS and all(
            part.isascii() and part.isdigit() and len(part) <= 2
            and 1 <= int(part) <= LONGEST_MATCH for part in parts)):
        raise OptionError(BAD_LENGTHS)
    return tuple(int(part) for part in parts)


def bad_number(word: str) -> str:
    allowed = NUMBERED[word]
    shown = (" or ".join(map(str, allowed)) if not isinstance(allowed, range)
             else f"{allowed.start} to {allowed.stop - 1}")
    return refusal("tournament_bad_number", f"** '{word}' takes a number: {shown}.", word=word)


ROUNDS_ARE_SWISS = refusal("tournament_rounds_swiss", "** A knockout has as many rounds as its "
                           "field needs: 'rounds' is for a Swiss.")
FLIGHTS_ARE_KNOCKOUT = refusal(
    "tournament_flights_knockout", "** A consolation or last-chance flight is for a "
    "knockout: a Swiss plays everybody every round.")
BAD_LENGTHS = refusal(
    "tournament_bad_lengths", f"** 'lengths' takes the rounds' lengths, the final's last, "
    f"separated by commas: 5,5,7,9,11 (1 to {LONGEST_MATCH} each, {MOST_LENGTHS} at most).")
LENGTHS_ALONE = refusal("tournament_lengths_alone", "** 'lengths' sets every round's length: "
                        "give it without 'length' or 'final'.")
