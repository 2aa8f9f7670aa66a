"""`tournament create`'s options, pure: each round's length, a knockout's side flights."""
from __future__ import annotations

import pytest

from fibs_server.protocol.tournament_options import (
    BAD_LENGTHS,
    FLIGHTS_ARE_KNOCKOUT,
    LENGTHS_ALONE,
    OptionError,
    parse_create,
)
from fibs_server.rules.tournament import Flight


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
