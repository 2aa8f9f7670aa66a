"""Tournaments, pure: knockout seeding and byes, Swiss pairing and tie-breaks, as examples
and as properties over random fields and results."""
from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fibs_server.rules.pairing.dutch import swiss_pairs
from fibs_server.rules.tournament import (
    Entrant,
    Format,
    RoundTerms,
    Tournament,
    bracket_order,
    next_round,
    record,
    standings,
    start,
    winner,
)


def field(count: int) -> list[Entrant]:
    """p1 is the highest rated, p<count> the lowest."""
    return [Entrant(f"p{index}", 2000.0 - index) for index in range(1, count + 1)]


def play_round(tournament: Tournament, pick: random.Random | None = None) -> Tournament:
    """Every undecided pairing of the current round won by its higher seed (or at random)."""
    assert tournament.current is not None
    for pairing in tournament.current.pairings:
        if not pairing.decided:
            players = list(pairing.players)
            won = (pick.choice(players) if pick
                   else min(players, key=tournament.seed_of))
            tournament = record(tournament, pairing.first, won)
    return tournament


def play_out(tournament: Tournament, pick: random.Random | None = None) -> Tournament:
    while True:
        tournament = play_round(tournament, pick)
        if tournament.finished:
            return tournament
        tournament = next_round(tournament)


# --- knockout ----------------------------------------------------------------------------

def test_the_bracket_keeps_the_top_seeds_apart():
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert bracket_order(2) == [1, 2]


def test_a_knockout_of_six_gives_byes_to_the_two_top_seeds():
    tournament = start(Format.KNOCKOUT, reversed(field(6)))
    assert tournament.round_count == 3
    first = tournament.current
    assert first is not None
    assert [(pairing.first, pairing.second) for pairing in first.pairings] == [
        ("p1", None), ("p4", "p5"), ("p2", None), ("p3", "p6")]
    assert [pairing.decided for pairing in first.pairings] == [True, False, True, False]


def test_a_knockout_is_won_by_the_last_one_standing():
    tournament = start(Format.KNOCKOUT, field(5))
    tournament = record(tournament, "p4", "p5")  # the 4-5 match
    tournament = play_round(tournament)
    tournament = next_round(tournament)
    second = tournament.current
    assert second is not None
    assert [(pairing.first, pairing.second) for pairing in second.pairings] == [
        ("p1", "p5"), ("p2", "p3")]
    tournament = record(tournament, "p1", "p5", forfeit=True)
    tournament = record(tournament, "p3", "p3")
    tournament = next_round(tournament)
    tournament = record(tournament, "p5", "p5")
    assert tournament.finished and winner(tournament) == "p5"
    assert [standing.name for standing in standings(tournament)][:2] == ["p5", "p3"]


def test_a_knockout_double_no_show_sends_the_higher_seed_through():
    tournament = record(start(Format.KNOCKOUT, field(4)), "p4", None, forfeit=True)
    pairing = tournament.current.pairing_of("p1")  # type: ignore[union-attr]
    assert pairing is not None and pairing.winner == "p1" and pairing.forfeit


def test_a_decided_pairing_stays_decided():
    tournament = record(start(Format.KNOCKOUT, field(2)), "p1", "p2")
    assert record(tournament, "p1", "p1") == tournament
    with pytest.raises(ValueError):
        next_round(tournament)  # that was the final


def test_a_tournament_needs_two_players():
    with pytest.raises(ValueError):
        start(Format.KNOCKOUT, field(1))
    with pytest.raises(ValueError):
        start(Format.SWISS, field(4), swiss_rounds=0)


def test_the_final_may_be_longer():
    terms = RoundTerms(length=3, final_length=7)
    assert [terms.length_of(number, 4) for number in (1, 2, 3, 4)] == [3, 3, 3, 7]


# --- Swiss -------------------------------------------------------------------------------

def test_a_swiss_first_round_pairs_top_half_against_bottom_half_and_byes_the_last():
    tournament = start(Format.SWISS, field(5), swiss_rounds=3)
    first = tournament.current
    assert first is not None
    assert [(pairing.first, pairing.second) for pairing in first.pairings] == [
        ("p1", "p3"), ("p2", "p4"), ("p5", None)]


def test_a_swiss_second_round_pairs_by_score_without_rematch():
    tournament = play_round(start(Format.SWISS, field(6), swiss_rounds=3))
    # p1-p4, p2-p5, p3-p6 won by p1, p2, p3: of the three with a point p1 meets p2 and
    # p3 floats down to meet the highest of the rest, p4; p5 meets p6.
    tournament = next_round(tournament)
    second = tournament.current
    assert second is not None
    assert [(pairing.first, pairing.second) for pairing in second.pairings] == [
        ("p1", "p2"), ("p3", "p4"), ("p5", "p6")]


def test_the_bye_goes_to_the_lowest_ranked_without_one():
    met: dict[str, set[str]] = {name: set() for name in "abcde"}
    points = dict.fromkeys("abcde", 0)
    assert swiss_pairs(list("abcde"), points, met, {"e"})[-1] == ("d", None)
    assert swiss_pairs(list("abcde"), points, met, set("abcde"))[-1] == ("e", None)


def test_swiss_tie_breaks_are_buchholz_then_sonneborn_berger_then_rating():
    tournament = play_out(start(Format.SWISS, field(4), swiss_rounds=3))
    table = standings(tournament)
    assert [(row.name, row.score) for row in table] == [
        ("p1", 3), ("p2", 2), ("p3", 1), ("p4", 0)]
    assert winner(tournament) == "p1"
    assert table[0].buchholz == 3 and table[0].sonneborn_berger == 3


def test_swiss_buchholz_breaks_a_tie_of_scores():
    tournament = start(Format.SWISS, field(4), swiss_rounds=2)
    tournament = record(record(tournament, "p1", "p3"), "p2", "p4")  # p3, p4 win
    tournament = next_round(tournament)  # p3-p4, p1-p2
    tournament = record(record(tournament, "p3", "p3"), "p1", "p1")
    table = standings(tournament)
    # p3 2 points; p1 and p4 1 each: p4 beat p2 (0) and lost to p3 (2): Buchholz 2;
    # p1 lost to p3 (2), beat p2 (0): Buchholz 2; Sonneborn-Berger 0 each; then rating.
    assert [row.name for row in table] == ["p3", "p1", "p4", "p2"]


def test_a_double_no_show_in_swiss_scores_nobody():
    tournament = record(start(Format.SWISS, field(2), swiss_rounds=1), "p1", None, True)
    assert tournament.finished
    assert [row.score for row in standings(tournament)] == [0, 0]


# --- properties ----------------------------------------------------------------------------

def perfect_matching_exists(names: list[str], met: dict[str, set[str]]) -> bool:
    if not names:
        return True
    top, rest = names[0], names[1:]
    return any(partner not in met[top]
               and perfect_matching_exists([n for n in rest if n != partner], met)
               for partner in rest)


def avoidable_rematch(tournament: Tournament, before: Tournament) -> bool:
    """Whether the current round has a rematch that some other pairing of the field would
    have avoided, with its bye (if any) to a player who has had none, if there is one."""
    current = tournament.current
    assert current is not None
    met: dict[str, set[str]] = {entrant.name: set() for entrant in before.entrants}
    for played in before.rounds:
        for pairing in played.pairings:
            if pairing.second is not None:
                met[pairing.first].add(pairing.second)
                met[pairing.second].add(pairing.first)
    rematches = [pairing for pairing in current.pairings
                 if pairing.second is not None and pairing.second in met[pairing.first]]
    if not rematches:
        return False
    names = [entrant.name for entrant in before.entrants]
    if len(names) % 2 == 0:
        return perfect_matching_exists(names, met)
    had_bye = {pairing.first for played in before.rounds for pairing in played.pairings
               if pairing.is_bye}
    eligible = [name for name in names if name not in had_bye] or names
    return any(perfect_matching_exists([n for n in names if n != out], met) for out in eligible)


swiss_fields = st.tuples(st.integers(2, 9), st.integers(1, 8), st.randoms(use_true_random=False))


@settings(max_examples=150)
@given(swiss_fields)
def test_swiss_properties(case):
    count, rounds, pick = case
    tournament = start(Format.SWISS, field(count), swiss_rounds=rounds)
    byes_had: dict[str, int] = {}
    while True:
        current = tournament.current
        assert current is not None
        # Every player paired exactly once per round.
        seen = [name for pairing in current.pairings for name in pairing.players]
        assert sorted(seen) == sorted(entrant.name for entrant in tournament.entrants)
        for pairing in current.pairings:
            if pairing.is_bye:
                byes_had[pairing.first] = byes_had.get(pairing.first, 0) + 1
        # At most one bye each while someone has had none.
        if any(byes_had.get(entrant.name, 0) == 0 for entrant in tournament.entrants):
            assert all(times <= 1 for times in byes_had.values())
        tournament = play_round(tournament, pick)
        if tournament.finished:
            break
        before = tournament
        tournament = next_round(tournament)
        assert not avoidable_rematch(tournament, before)
    assert winner(tournament) == standings(tournament)[0].name


@settings(max_examples=100)
@given(st.integers(2, 12), st.randoms(use_true_random=False))
def test_swiss_second_round_keeps_score_groups(count, pick):
    """After one round nobody has met anyone of their own score: each score group is paired
    inside itself but for one player floating down from each odd group."""
    tournament = play_round(start(Format.SWISS, field(count), swiss_rounds=2), pick)
    points = {row.name: row.score for row in standings(tournament)}
    tournament = next_round(tournament)
    groups = sorted(set(points.values()))
    odd_groups = sum(1 for score in groups
                     if sum(1 for value in points.values() if value == score) % 2)
    crossing = [pairing for pairing in tournament.current.pairings  # type: ignore[union-attr]
                if pairing.second is not None and points[pairing.first] != points[pairing.second]]
    assert len(crossing) <= odd_groups


@settings(max_examples=150)
@given(st.integers(2, 40), st.randoms(use_true_random=False))
def test_a_knockout_always_ends_with_one_winner(count, pick):
    tournament = play_out(start(Format.KNOCKOUT, field(count)), pick)
    assert tournament.round_count == len(tournament.rounds)
    finalists = tournament.rounds[-1].pairings
    assert len(finalists) == 1 and winner(tournament) == finalists[0].winner
    # Each player is in exactly one pairing per round while still in.
    for played in tournament.rounds:
        names = [name for pairing in played.pairings for name in pairing.players]
        assert len(names) == len(set(names))
    # Byes only in the first round, only to the top seeds.
    first_byes = [pairing.first for pairing in tournament.rounds[0].pairings if pairing.is_bye]
    assert first_byes == [] or sorted(first_byes, key=tournament.seed_of) == [
        entrant.name for entrant in tournament.entrants[:len(first_byes)]]
    assert all(not pairing.is_bye for played in tournament.rounds[1:] for pairing in played.pairings)


def test_a_large_swiss_pairs_quickly_enough_to_play():
    """128 players, seven rounds, random results: every round pairs without a rematch."""
    pick = random.Random(7)
    tournament = start(Format.SWISS, field(128), swiss_rounds=7)
    for _ in range(6):
        tournament = next_round(play_round(tournament, pick))
    met: set[frozenset[str]] = set()
    for played in tournament.rounds:
        for pairing in played.pairings:
            if pairing.second is not None:
                pair = frozenset(pairing.players)
                assert pair not in met
                met.add(pair)


def test_every_swiss_pairing_of_a_small_field_is_found_by_the_search():
    """A field of six in which only one pairing avoids every rematch: the search finds it."""
    names = list("abcdef")
    allowed = {frozenset("ad"), frozenset("be"), frozenset("cf")}
    met = {name: {other for other in names if other != name
                  and frozenset((name, other)) not in allowed} for name in names}
    pairs = swiss_pairs(names, dict.fromkeys(names, 0), met, set())
    assert {frozenset(pair) for pair in pairs} == allowed  # type: ignore[arg-type]
    assert list(itertools.chain.from_iterable(pairs))  # all six paired
