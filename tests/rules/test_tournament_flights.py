"""A knockout's side flights, pure: the consolation among the main flight's first-match
losers, the last chance among the consolation's, as examples and as properties over random
fields, results and withdrawals."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fibs_server.rules.tournament import (
    Flight,
    Format,
    Pairing,
    RoundTerms,
    Tournament,
    bracket_order,
    flight_field,
    flight_round_count,
    flight_round_of,
    flight_rounds,
    flight_winner,
    next_round,
    record,
    start,
    winner,
    withdraw,
)
from tests.rules.test_tournament import field, play_out

ALL = (Flight.MAIN, Flight.CONSOLATION, Flight.LAST_CHANCE)


def first_match_losers(tournament: Tournament, feeder: Flight) -> set[str]:
    """Those whose first match (a bye is none) of `feeder` was lost, found from each
    player's own history, not as the rules find them."""
    lost = set()
    for name in {name for _number, pairings in flight_rounds(tournament, feeder)
                 for pairing in pairings for name in pairing.players}:
        matches = [pairing for _number, pairings in flight_rounds(tournament, feeder)
                   for pairing in pairings if name in pairing.players and not pairing.is_bye]
        if matches and matches[0].winner not in (None, name):
            lost.add(name)
    return lost


def test_eight_with_a_consolation_play_side_by_side_to_two_winners():
    tournament = start(Format.KNOCKOUT, field(8), flights=ALL[:2])
    tournament = play_out(tournament)  # every match won by the higher seed
    assert winner(tournament) == "p1"
    # p5..p8 lost in round 1; their consolation (seeded as the main flight) plays in rounds
    # 2 and 3, beside the main flight's rounds 2 and 3.
    assert flight_field(tournament, Flight.CONSOLATION) == ("p5", "p6", "p7", "p8")
    assert [(number, [pairing.players for pairing in pairings]) for number, pairings
            in flight_rounds(tournament, Flight.CONSOLATION)] == [
        (2, [("p5", "p8"), ("p6", "p7")]), (3, [("p5", "p6")])]
    assert flight_winner(tournament, Flight.CONSOLATION) == "p5"
    assert len(tournament.rounds) == 3


def test_the_last_chance_follows_the_consolation():
    tournament = play_out(start(Format.KNOCKOUT, field(8), flights=ALL))
    assert flight_field(tournament, Flight.LAST_CHANCE) == ("p7", "p8")
    assert [number for number, _pairings in flight_rounds(tournament, Flight.LAST_CHANCE)] == [3]
    assert flight_winner(tournament, Flight.LAST_CHANCE) == "p7"
    assert tournament.finished


def test_a_bye_holder_who_loses_their_first_match_joins_the_consolation():
    # Six: p1 and p2 have byes; round 1 is p3-p6 and p4-p5. In round 2, p1 beats p4 and p5...
    tournament = start(Format.KNOCKOUT, field(6), flights=ALL[:2])
    tournament = record(record(tournament, "p3", "p3"), "p4", "p5")  # p5 beats p4
    assert flight_field(tournament, Flight.CONSOLATION) is None  # the byes' first matches to come
    tournament = next_round(tournament)
    assert flight_rounds(tournament, Flight.CONSOLATION) == []
    tournament = record(record(tournament, "p1", "p5"), "p2", "p2")  # p1 and p3 lose
    # p1 lost their first match (after a bye); p3 won theirs, so is not in it.
    assert flight_field(tournament, Flight.CONSOLATION) == ("p1", "p4", "p6")
    tournament = next_round(tournament)
    assert [pairing.players for pairing in tournament.current.pairings
            if pairing.flight is Flight.CONSOLATION] == [("p1",), ("p4", "p6")]


def test_a_player_withdrawn_before_the_flight_is_paired_is_not_in_it():
    tournament = start(Format.KNOCKOUT, field(4), flights=ALL[:2])
    tournament = withdraw(record(record(tournament, "p1", "p1"), "p2", "p2"), "p4")
    assert flight_field(tournament, Flight.CONSOLATION) == ("p3",)
    assert flight_round_count(tournament, Flight.CONSOLATION) == 0  # fewer than two: not played
    tournament = play_out(next_round(tournament))
    assert tournament.finished and flight_winner(tournament, Flight.CONSOLATION) is None


def test_no_consolation_no_last_chance():
    tournament = play_out(start(Format.KNOCKOUT, field(2), flights=ALL))
    assert tournament.finished and len(tournament.rounds) == 1
    assert flight_field(tournament, Flight.CONSOLATION) == ("p2",)
    assert flight_field(tournament, Flight.LAST_CHANCE) == ()
    assert flight_round_count(tournament, Flight.LAST_CHANCE) == 0


def test_a_side_flight_counts_its_lengths_back_from_its_own_final():
    terms = RoundTerms(length=3, final_length=7)
    tournament = play_out(start(Format.KNOCKOUT, field(8), flights=ALL[:2]))
    assert [terms.length_of(*flight_round_of(tournament, number, Flight.CONSOLATION))
            for number, _pairings in flight_rounds(tournament, Flight.CONSOLATION)] == [3, 7]


def test_flights_need_a_knockout_and_the_flight_before():
    with pytest.raises(ValueError):
        start(Format.SWISS, field(4), 3, flights=ALL[:2])
    with pytest.raises(ValueError):
        start(Format.KNOCKOUT, field(4), flights=(Flight.MAIN, Flight.LAST_CHANCE))


def bracket_byes(pairings: tuple[Pairing, ...], field: tuple[str, ...]) -> None:
    """A first round as the main bracket lays one out: the byes to the top seeds."""
    size = 1 << (len(field) - 1).bit_length()
    order = bracket_order(size)
    assert [pairing.players for pairing in pairings] == [
        (field[top - 1],) if bottom > len(field) else (field[top - 1], field[bottom - 1])
        for top, bottom in zip(order[::2], order[1::2], strict=True)]


@settings(max_examples=150)
@given(st.integers(2, 40), st.randoms(use_true_random=False), st.booleans(),
       st.floats(0, 0.15))
def test_flight_properties(count, pick, last_chance, withdrawing):
    flights = ALL if last_chance else ALL[:2]
    tournament = start(Format.KNOCKOUT, field(count), flights=flights)
    withdrawn_before = {1: frozenset[str]()}  # round -> those withdrawn when it was paired
    while True:
        assert tournament.current is not None
        # No one plays two matches in one round of the tournament.
        names = [name for pairing in tournament.current.pairings for name in pairing.players]
        assert len(names) == len(set(names))
        for pairing in tournament.current.pairings:
            players = list(pairing.players)
            tournament = record(tournament, pairing.first, pick.choice(players))
        for name in names:
            if pick.random() < withdrawing:
                tournament = withdraw(tournament, name)
        if tournament.finished:
            break
        withdrawn_before[tournament.current.number + 1] = tournament.withdrawn
        tournament = next_round(tournament)
    for flight in flights[1:]:
        feeder = {Flight.CONSOLATION: Flight.MAIN, Flight.LAST_CHANCE: Flight.CONSOLATION}[flight]
        rounds = flight_rounds(tournament, flight)
        entered = [name for pairing in rounds[0][1] for name in pairing.players] if rounds else []
        # Every first-match loser of the flight before is in it once (but those withdrawn
        # before it was paired).
        assert len(entered) == len(set(entered))
        losers = first_match_losers(tournament, feeder)
        assert set(entered) <= losers
        if not rounds:  # not played: fewer than two of them were left to play it
            assert len(losers - tournament.withdrawn) < 2
        else:
            assert losers - set(entered) <= withdrawn_before[rounds[0][0]]
            # Its byes as the main bracket's, and exactly one winner.
            bracket_byes(rounds[0][1], flight_field(tournament, flight) or ())
            assert len(entered) >= 2
            assert flight_winner(tournament, flight) is not None
            assert len(rounds) == flight_round_count(tournament, flight)
    assert winner(tournament) is not None
