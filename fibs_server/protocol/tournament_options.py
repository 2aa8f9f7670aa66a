"""`tournament create <format> [options]`: the words read into what the creator asks for
(docs/TOURNAMENTS.md, "Commands"). Pure; the lobby checks the server's limits after."""
from __future__ import annotations

import dataclasses
import datetime
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
    "** usage: tournament create knockout|swiss|arena <minutes> [rounds <n>] [length <n>] [final <n>] "
    "[lengths <n>,<n>,...] "
    f"[{VARIANT_CHOICE}] [nocrawford] [timer 30|60|bank <s> <r> [mode]] [unrated] "
    "[in <minutes>|at <hh:mm>|at <yyyy-mm-ddThh:mm>] [every day|week] [when <n>] "
    "[cap <n>] [bots] [consolation] [lastchance]", variant_words=VARIANT_CHOICE)
LONGEST_MATCH = 25
MOST_SWISS_ROUNDS = 15
ARENA_MINUTES = range(1, 24 * 60 + 1)  # an arena lasts a minute to a day
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
# `every day|week`: a recurring tournament's period, in seconds.
REPEATS = {"day": 24 * 3600, "week": 7 * 24 * 3600}
REPEAT_WORDS = {seconds: word for word, seconds in REPEATS.items()}


@dataclasses.dataclass(frozen=True)
class StartTime:
    """`at <time>` as typed: a time of day (the next one to come, UTC) or a moment."""

    time_of_day: tuple[int, int] | None = None  # (hours, minutes)
    moment: int | None = None  # Unix seconds


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
    start_at: StartTime | None = None  # `at`: the sign-up closes then (instead of `in`)
    repeat_seconds: int | None = None  # `every day|week`: the next one that much later
    flights: tuple[Flight, ...] = (Flight.MAIN,)  # a knockout's, the main one first
    arena_minutes: int = 0  # an arena's time


class OptionError(ValueError):
    def __init__(self, reply: str) -> None:
        super().__init__(reply)
        self.reply = reply


def parse_create(words: Sequence[str]) -> TournamentOrder:
    """The order the words make; OptionError with the reply when they make none."""
    if not words or words[0].lower() not in {kind.value for kind in Format}:
        raise OptionError(CREATE_USAGE)
    tournament_format = Format(words[0].lower())
    arena_minutes = 0
    if tournament_format is Format.ARENA:
        minutes = words[1] if len(words) > 1 else ""
        if not (minutes.isascii() and minutes.isdigit() and len(minutes) <= 5
                and int(minutes) in ARENA_MINUTES):
            raise OptionError(ARENA_TIME)
        arena_minutes = int(minutes)
        words = [words[0], *words[2:]]
    numbers: dict[str, int] = {}
    flags: set[str] = set()
    bank = None
    lengths: tuple[int, ...] = ()
    start_at = None
    repeat_seconds = None
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
        elif word == "at":
            start_at = parse_start_time(lowered[index] if index < len(lowered) else "")
            index += 1
        elif word == "every":
            repeat_seconds = REPEATS.get(lowered[index] if index < len(lowered) else "")
            index += 1
            if repeat_seconds is None:
                raise OptionError(BAD_REPEAT)
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
    if tournament_format is Format.ARENA and (lengths or {"rounds", "final"} & set(numbers)):
        raise OptionError(ARENA_LENGTH)
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
    if start_at is not None and "in" in numbers:
        raise OptionError(ONE_START_TIME)
    if repeat_seconds is not None and start_at is None and "in" not in numbers:
        raise OptionError(REPEAT_NEEDS_START)
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
                           numbers.get("when"), "bots" in flags, start_at, repeat_seconds,
                           flights, arena_minutes)


def parse_start_time(word: str) -> StartTime:
    """`20:00` (the next 20:00 UTC) or an ISO date and time, `2026-12-24T20:00` (UTC unless
    it names its offset: `...+01:00`, `...Z`)."""
    hours, colon, minutes = word.partition(":")
    if colon and all(part.isascii() and part.isdigit() and len(part) <= 2
                     for part in (hours, minutes)):
        if int(hours) < 24 and int(minutes) < 60:
            return StartTime(time_of_day=(int(hours), int(minutes)))
        raise OptionError(BAD_START_TIME)
    if not (word.isascii() and "t" in word.lower() and len(word) <= 32):
        raise OptionError(BAD_START_TIME)
    try:
        moment = datetime.datetime.fromisoformat(word.upper())
    except ValueError:
        raise OptionError(BAD_START_TIME) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return StartTime(moment=int(moment.timestamp()))


def start_time(order: TournamentOrder, now: int) -> int | None:
    """When the order's sign-up closes (Unix seconds), `now` being the time it is made; None
    for no such time. OptionError when that time is past or more than a week ahead."""
    if order.start_in_minutes is not None:
        return now + 60 * order.start_in_minutes
    start = order.start_at
    if start is None:
        return None
    if start.time_of_day is not None:
        hours, minutes = start.time_of_day
        today = datetime.datetime.fromtimestamp(now, datetime.UTC).replace(
            hour=hours, minute=minutes, second=0, microsecond=0)
        moment = int(today.timestamp())
        return moment if moment > now else moment + REPEATS["day"]
    assert start.moment is not None
    if not now < start.moment <= now + 60 * LATEST_START_MINUTES:
        raise OptionError(START_OUT_OF_RANGE)
    return start.moment


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
ARENA_TIME = refusal("tournament_arena_time", "** An arena takes its time in minutes: "
                     f"'tournament create arena <minutes>', {ARENA_MINUTES.start} to "
                     f"{ARENA_MINUTES.stop - 1}.")
ARENA_LENGTH = refusal("tournament_arena_length", "** An arena plays every match to 'length': "
                       "'rounds', 'final' and 'lengths' are for a knockout or a Swiss.")
LENGTHS_ALONE = refusal("tournament_lengths_alone", "** 'lengths' sets every round's length: "
                        "give it without 'length' or 'final'.")
BAD_START_TIME = refusal(
    "tournament_bad_start_time", "** 'at' takes a time of day, UTC ('20:00'), or a day and "
    "time ('2026-12-24T20:00').")
START_OUT_OF_RANGE = refusal("tournament_start_out_of_range",
                             "** A tournament starts after now and within a week.")
ONE_START_TIME = refusal("tournament_one_start_time",
                         "** Give one start time: 'in <minutes>' or 'at <time>'.")
BAD_REPEAT = refusal("tournament_bad_repeat", "** 'every' takes 'day' or 'week'.")
REPEAT_NEEDS_START = refusal("tournament_repeat_needs_start", "** A recurring tournament needs "
                             "a start time: 'at <time>' (or 'in <minutes>').")
