"""The Dutch system's Swiss pairing, pure: the handbook's published orders of transpositions
and exchanges, worked brackets, and properties over random histories."""
from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from fibs_server.rules.pairing.dutch import _Search, exchanges, homogeneous, swiss_pairs


def names(count: int) -> list[str]:
    return [f"p{index}" for index in range(1, count + 1)]


def never_met(players: list[str]) -> dict[str, set[str]]:
    return {name: set() for name in players}


def meet(met: dict[str, set[str]], *pairs: tuple[str, str]) -> dict[str, set[str]]:
    for first, second in pairs:
        met[first].add(second)
        met[second].add(first)
    return met


# --- the handbook's examples ------------------------------------------------------------------
# FIDE Handbook C.04.1, "D. Transposition and Exchange Procedures" (the Dutch system's orders):
# S1 is players 1 to 4 and S2 players 5 to 8.

def test_transpositions_of_s2_come_in_the_handbooks_order():
    players = [str(number) for number in range(1, 9)]
    search = _Search(players, never_met(players), 10_000)
    candidates = homogeneous(players, 4, search.mask(players), search)
    orders = [[second for _first, second in pairs]
              for pairs, _left, _unpaired in itertools.islice(candidates, 8)]
    assert orders == [list(order) for order in (
        "5678", "5687", "5768", "5786", "5867", "5876", "6578", "6587")]


def test_exchanges_come_in_the_handbooks_order():
    """The handbook's matrices: one player exchanged, a) 4 and 5, b) 4 and 6, c) 3 and 5
    ... i) 2 and 7; two, j) 3+4 with 5+6, k) 3+4 with 5+7, l) 2+4 with 5+6 ... r) 2+3 with
    6+7 (the matrices leave players 1 and 8 out: so does this comparison)."""
    def shown(moved_up: tuple[int, ...], moved_down: tuple[int, ...]) -> tuple[str, str]:
        return ("+".join(str(index + 1) for index in sorted(moved_down)),
                "+".join(str(index + 5) for index in sorted(moved_up)))

    in_matrices = [shown(up, down) for up, down in exchanges(4, 4)
                   if 0 not in down and 3 not in up]
    assert in_matrices[:9] == [("4", "5"), ("4", "6"), ("3", "5"), ("4", "7"), ("3", "6"),
                               ("2", "5"), ("3", "7"), ("2", "6"), ("2", "7")]
    assert in_matrices[9:18] == [
        ("3+4", "5+6"), ("3+4", "5+7"), ("2+4", "5+6"), ("3+4", "6+7"), ("2+4", "5+7"),
        ("2+3", "5+6"), ("2+4", "6+7"), ("2+3", "5+7"), ("2+3", "6+7")]


# --- worked brackets ----------------------------------------------------------------------

def test_a_first_round_pairs_the_top_half_against_the_bottom_half():
    players = names(8)
    assert swiss_pairs(players, dict.fromkeys(players, 0), never_met(players), set()) == [
        ("p1", "p5"), ("p2", "p6"), ("p3", "p7"), ("p4", "p8")]


def test_a_rematch_is_avoided_by_a_transposition_first():
    players = names(4)
    met = meet(never_met(players), ("p1", "p3"))
    assert swiss_pairs(players, dict.fromkeys(players, 0), met, set()) == [
        ("p1", "p4"), ("p2", "p3")]


def test_then_by_an_exchange_between_the_halves():
    players = names(4)
    met = meet(never_met(players), ("p1", "p3"), ("p1", "p4"))
    # p1 can meet only p2: p2 goes down to S2 and p3, the highest of S2, comes up.
    assert swiss_pairs(players, dict.fromkeys(players, 0), met, set()) == [
        ("p1", "p2"), ("p3", "p4")]


def test_the_lowest_of_an_odd_score_group_floats_to_the_highest_below():
    players = names(6)
    points = {"p1": 1, "p2": 1, "p3": 1, "p4": 0, "p5": 0, "p6": 0}
    met = meet(never_met(players), ("p1", "p4"), ("p2", "p5"), ("p3", "p6"))
    assert swiss_pairs(players, points, met, set()) == [
        ("p1", "p2"), ("p3", "p4"), ("p5", "p6")]


def test_a_floater_that_would_strand_the_group_below_is_chosen_otherwise():
    players = names(4)
    points = {"p1": 2, "p2": 2, "p3": 2, "p4": 0}
    # p4 has met p3 and p2: whoever floats down must be p1, so p2 meets p3.
    met = meet(never_met(players), ("p4", "p3"), ("p4", "p2"))
    assert swiss_pairs(players, points, met, set()) == [("p2", "p3"), ("p1", "p4")]


def test_rematches_only_when_every_pairing_has_one():
    players = names(2)
    met = meet(never_met(players), ("p1", "p2"))
    assert swiss_pairs(players, dict.fromkeys(players, 0), met, set()) == [("p1", "p2")]


def test_a_field_of_128_pairs_its_first_round_at_once():
    players = names(128)
    pairs = swiss_pairs(players, dict.fromkeys(players, 0), never_met(players), set())
    assert pairs == list(zip(players[:64], players[64:], strict=True))


# --- properties ---------------------------------------------------------------------------

def perfect_matching_exists(players: list[str], met: dict[str, set[str]]) -> bool:
    """By brute force (what was found unpairable remembered), apart from the search under
    test."""
    unpairable: set[frozenset[str]] = set()

    def pairable(remaining: list[str]) -> bool:
        if not remaining:
            return True
        if frozenset(remaining) in unpairable:
            return False
        top, rest = remaining[0], remaining[1:]
        if any(partner not in met[top] and pairable([n for n in rest if n != partner])
               for partner in rest):
            return True
        unpairable.add(frozenset(remaining))
        return False

    return pairable(players)


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[str], dict[str, int], dict[str, set[str]], set[str]]:
    """A field of 2 to 10 with random scores, random past meetings and byes, ranked."""
    count = draw(st.integers(2, 10))
    players = names(count)
    pick = draw(st.randoms(use_true_random=False))
    points = {name: pick.randint(0, 3) for name in players}
    met = never_met(players)
    for first, second in itertools.combinations(players, 2):
        if pick.random() < draw(st.sampled_from((0.0, 0.2, 0.5))):
            meet(met, (first, second))
    had_bye = {name for name in players if pick.random() < 0.2}
    ranked = sorted(players, key=lambda name: (-points[name], players.index(name)))
    return ranked, points, met, had_bye


@settings(max_examples=200)
@given(histories())
def test_pairing_properties(case):
    ranked, points, met, had_bye = case
    pairs = swiss_pairs(ranked, points, met, had_bye)
    # Each player exactly once; at most one bye, and only in an odd field.
    assert sorted(name for pair in pairs for name in pair if name is not None) == sorted(ranked)
    byes = [first for first, second in pairs if second is None]
    assert len(byes) == len(ranked) % 2
    played = [(first, second) for first, second in pairs if second is not None]
    # The higher ranked first in every pair.
    assert all(ranked.index(first) < ranked.index(second) for first, second in played)
    # No rematch when some pairing (with its bye to one without a bye, if any) avoids them.
    eligible = [name for name in reversed(ranked) if name not in had_bye] or [ranked[-1]]
    outs = eligible if byes else [None]
    avoidable = [out for out in outs
                 if perfect_matching_exists([name for name in ranked if name != out], met)]
    if avoidable:
        assert all(second not in met[first] for first, second in played)
        # The bye to the lowest-ranked player without one that leaves no rematch.
        assert byes == ([avoidable[0]] if byes else [])
    elif byes:
        assert byes == [eligible[0]]


@settings(max_examples=100)
@given(st.integers(1, 8).map(lambda half: 2 * half), st.randoms(use_true_random=False))
def test_an_even_score_group_with_nothing_in_the_way_pairs_top_half_against_bottom(
        size: int, pick: random.Random):
    """A score group of its own (the others ahead of or below it) whose natural pairing has
    no rematch is paired by that pairing, whatever the rest of the field has played."""
    players = names(size + 4)
    points = {name: (2 if index < 2 else 1 if index < size + 2 else 0)
              for index, name in enumerate(players)}
    met = never_met(players)
    group = players[2:size + 2]
    half = size // 2
    natural = set(zip(group[:half], group[half:], strict=True))
    for first, second in itertools.combinations(group, 2):
        if (first, second) not in natural and pick.random() < 0.5:
            meet(met, (first, second))
    pairs = swiss_pairs(players, points, met, set())
    assert natural <= set(pairs)


@settings(max_examples=100)
@given(st.integers(2, 12), st.randoms(use_true_random=False))
def test_score_groups_are_respected(count: int, pick: random.Random):
    """With no past meetings in the way (a first-round history), every pair is of one score
    but for one floater from each odd score group."""
    players = names(count)
    points = {name: pick.randint(0, 2) for name in players}
    ranked = sorted(players, key=lambda name: (-points[name], players.index(name)))
    pairs = swiss_pairs(ranked, points, never_met(players), set())
    played = [(first, second) for first, second in pairs if second is not None]
    scores = [points[name] for pair in played for name in pair]
    odd_groups = sum(1 for score in set(scores) if scores.count(score) % 2)
    crossing = [(first, second) for first, second in played if points[first] != points[second]]
    assert len(crossing) <= odd_groups
    # Each floater meets the highest-ranked of the group below it.
    for _first, second in crossing:
        below = [name for name in ranked if points[name] == points[second]]
        assert any(other == below[0] for _, other in crossing)
