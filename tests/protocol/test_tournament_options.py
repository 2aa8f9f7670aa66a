"""`tournament create`'s options, pure: each round's length, an arena's time."""
from __future__ import annotations

import pytest

from fibs_server.protocol.tournament_options import (
    ARENA_LENGTH,
    ARENA_TIME,
    BAD_LENGTHS,
    LENGTHS_ALONE,
    OptionError,
    parse_create,
)
from fibs_server.rules.tournament import Format


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
])
def test_lengths_refused(words, reply):
    with pytest.raises(OptionError) as refused:
        parse_create(words.split())
    assert refused.value.reply == reply


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
