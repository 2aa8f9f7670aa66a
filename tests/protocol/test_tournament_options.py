"""`tournament create`'s options, pure: each round's length; the start time (`at`) and the
recurrence (`every`); a knockout's side flights; an arena's time."""
from __future__ import annotations

import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fibs_server.protocol.tournament_options import (
    ARENA_LENGTH,
    ARENA_TIME,
    BAD_LENGTHS,
    BAD_REPEAT,
    BAD_START_TIME,
    FLIGHTS_ARE_KNOCKOUT,
    LENGTHS_ALONE,
    ONE_START_TIME,
    REPEAT_NEEDS_START,
    START_OUT_OF_RANGE,
    OptionError,
    StartTime,
    parse_create,
    start_time,
)
from fibs_server.rules.tournament import Flight, Format


def test_lengths_set_each_round_the_finals_last():
    order = parse_create("knockout lengths 5,5,7,9,11".split())
    assert order.terms.lengths == (5, 5, 7, 9, 11)
    assert (order.terms.length, order.terms.final_length) == (5, 11)
    # Counted from the final: a knockout of three rounds plays 7, 9, 11; of seven, 5 for
    # each of the rounds before the list's first.
    assert [order.terms.length_of(number, 3) for number in (1, 2, 3)] == [7, 9, 11]
    assert [order.terms.length_of(number, 7) for number in range(1, 8)] == [
        5, 5, 5, 5, 7, 9, 11]


def test_without_lengths_every_round_but_the_last_plays_length():
    order = parse_create("swiss rounds 4 length 3 final 5".split())
    assert order.terms.lengths == ()
    assert [order.terms.length_of(number, 4) for number in (1, 2, 3, 4)] == [3, 3, 3, 5]


@pytest.mark.parametrize("words, reply", [
    ("knockout lengths", BAD_LENGTHS),
    ("knockout lengths 5,,7", BAD_LENGTHS),
    ("knockout lengths 5,26", BAD_LENGTHS),
    ("knockout lengths 0", BAD_LENGTHS),
    ("knockout lengths 5,x", BAD_LENGTHS),
    ("knockout lengths " + ",".join(["1"] * 16), BAD_LENGTHS),
    ("knockout lengths 5,7 final 9", LENGTHS_ALONE),
    ("swiss length 3 lengths 5,7", LENGTHS_ALONE),
    ("swiss consolation", FLIGHTS_ARE_KNOCKOUT),
    ("swiss rounds 4 lastchance", FLIGHTS_ARE_KNOCKOUT),
])
def test_lengths_refused(words, reply):
    with pytest.raises(OptionError) as refused:
        parse_create(words.split())
    assert refused.value.reply == reply


@pytest.mark.parametrize("words, flights", [
    ("knockout", (Flight.MAIN,)),
    ("knockout consolation", (Flight.MAIN, Flight.CONSOLATION)),
    # `lastchance` brings the consolation it follows, whether or not it is named.
    ("knockout lastchance", (Flight.MAIN, Flight.CONSOLATION, Flight.LAST_CHANCE)),
    ("knockout LastChance length 5 consolation",
     (Flight.MAIN, Flight.CONSOLATION, Flight.LAST_CHANCE)),
])
def test_a_knockouts_side_flights(words, flights):
    assert parse_create(words.split()).flights == flights


# --- the start time and the recurrence -------------------------------------------------------

DAY = 24 * 3600
# 2026-12-24 19:50:00 UTC
CHRISTMAS_EVE = int(datetime.datetime(2026, 12, 24, 19, 50, tzinfo=datetime.UTC).timestamp())


def start_of(words: str, now: int = CHRISTMAS_EVE) -> int | None:
    return start_time(parse_create(words.split()), now)


def test_at_a_time_of_day_is_the_next_one_to_come_utc():
    assert start_of("knockout at 20:00") == CHRISTMAS_EVE + 600
    assert start_of("knockout at 19:50") == CHRISTMAS_EVE + DAY  # now is not to come
    assert start_of("knockout at 7:05") == CHRISTMAS_EVE + DAY - (12 * 3600 + 45 * 60)
    assert start_of("knockout at 00:00") == CHRISTMAS_EVE + 4 * 3600 + 600


@given(now=st.integers(0, 4_000_000_000), hours=st.integers(0, 23), minutes=st.integers(0, 59))
def test_a_time_of_day_comes_within_a_day_at_that_time(now, hours, minutes):
    starts = start_of(f"swiss at {hours}:{minutes:02d}", now)
    assert starts is not None and now < starts <= now + DAY
    assert starts % DAY == hours * 3600 + minutes * 60


def test_at_a_date_and_time_utc_unless_it_names_its_offset():
    assert start_of("knockout at 2026-12-24T21:00") == CHRISTMAS_EVE + 70 * 60
    assert start_of("knockout at 2026-12-24t21:00z") == CHRISTMAS_EVE + 70 * 60
    assert start_of("knockout at 2026-12-24T21:00+01:00") == CHRISTMAS_EVE + 10 * 60
    assert start_of("knockout at 2026-12-31T19:50:00") == CHRISTMAS_EVE + 7 * DAY


@given(moment=st.datetimes(min_value=datetime.datetime(1990, 1, 1),
                           max_value=datetime.datetime(2090, 1, 1)))
def test_a_date_and_time_is_taken_to_the_minute_and_second_typed(moment):
    typed = moment.replace(microsecond=0)
    exact = int(typed.replace(tzinfo=datetime.UTC).timestamp())
    order = parse_create(["knockout", "at", typed.isoformat()])
    assert order.start_at == StartTime(moment=exact)
    if 0 < exact - CHRISTMAS_EVE <= 7 * DAY:
        assert start_time(order, CHRISTMAS_EVE) == exact
    else:
        with pytest.raises(OptionError) as refused:
            start_time(order, CHRISTMAS_EVE)
        assert refused.value.reply == START_OUT_OF_RANGE


def test_every_day_or_week_needs_a_start_time():
    assert parse_create("knockout at 20:00 every day".split()).repeat_seconds == DAY
    assert parse_create("swiss every week in 30".split()).repeat_seconds == 7 * DAY
    assert parse_create("knockout at 20:00".split()).repeat_seconds is None
    assert start_of("knockout in 30 every day") == CHRISTMAS_EVE + 1800
    assert start_of("knockout when 4") is None


@pytest.mark.parametrize("words, reply", [
    ("knockout at", BAD_START_TIME),
    ("knockout at 24:00", BAD_START_TIME),
    ("knockout at 20:60", BAD_START_TIME),
    ("knockout at 20:0:0", BAD_START_TIME),
    ("knockout at 8pm", BAD_START_TIME),
    ("knockout at 2026-12-24", BAD_START_TIME),
    ("knockout at 2026-13-24T20:00", BAD_START_TIME),
    ("knockout at 20:00 in 30", ONE_START_TIME),
    ("knockout every day", REPEAT_NEEDS_START),
    ("knockout at 20:00 every month", BAD_REPEAT),
    ("knockout at 20:00 every", BAD_REPEAT),
])
def test_start_times_and_recurrences_refused(words, reply):
    with pytest.raises(OptionError) as refused:
        parse_create(words.split())
    assert refused.value.reply == reply


@pytest.mark.parametrize("typed", ["knockout at 2026-12-24T19:50", "knockout at 2026-12-31T19:51",
                                   "knockout at 2020-01-01T00:00"])
def test_a_start_past_or_more_than_a_week_ahead_is_refused(typed):
    with pytest.raises(OptionError) as refused:
        start_of(typed)
    assert refused.value.reply == START_OUT_OF_RANGE


def test_an_arena_takes_its_minutes_first_then_the_options():
    order = parse_create("arena 45 length 1 bots cap 32".split())
    assert (order.format, order.arena_minutes, order.swiss_rounds) == (Format.ARENA, 45, 0)
    assert (order.terms.length, order.entry_cap, order.bots_allowed) == (1, 32, True)
    assert parse_create(["ARENA", "1"]).arena_minutes == 1
    assert parse_create("swiss rounds 2".split()).arena_minutes == 0


@pytest.mark.parametrize("words, reply", [
    ("arena", ARENA_TIME), ("arena 0", ARENA_TIME), ("arena 1441", ARENA_TIME),
    ("arena length 3", ARENA_TIME), ("arena 30 rounds 3", ARENA_LENGTH),
    ("arena 30 final 5", ARENA_LENGTH), ("arena 30 lengths 3,5", ARENA_LENGTH),
])
def test_arena_refused(words, reply):
    with pytest.raises(OptionError) as refused:
        parse_create(words.split())
    assert refused.value.reply == reply
