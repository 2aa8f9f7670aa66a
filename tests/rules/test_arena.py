"""An arena, pure: its pairing of whoever is free and its scoring (2 a win, 4 on fire after
two wins in a row, the streak out at a loss), as examples and as properties over random
arenas played in random order."""
from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from fibs_server.rules.pairing.arena import ArenaScore, arena_pairs, arena_scores
from fibs_server.rules.tournament import (
    Entrant,
    Format,
    Tournament,
    arena_round,
    busy,
    close,
    record,
    scores,
    standings,
    start,
    winner,
)


def field(count: int) -> list[Entrant]:
    return [Entrant(f"p{index}", 2000.0 - index) for index in range(1, count + 1)]


def rule_points(results: list[bool]) -> int:
    """The rule as stated, counted plainly: 2 a win, 4 a win after two wins in a row."""
    points, run = 0, 0
    for won in results:
        points += (4 if run >= 2 else 2) if won else 0
        run = run + 1 if won else 0
    return points


def test_a_streak_scores_double_until_a_loss():
    games = [("a", "b", "a"), ("a", "c", "a"), ("a", "d", "a"), ("a", "b", "a"),
             ("a", "c", "c"), ("a", "d", "a")]
    score = arena_scores("abcd", games)["a"]
    assert score == ArenaScore(points=2 + 2 + 4 + 4 + 0 + 2, streak=1, games=6, wins=5)
    assert arena_scores("ab", [("a", "b", None)])["a"] == ArenaScore(0, 0, 1, 0)


def test_pairs_nearest_in_rank_and_avoids_the_game_just_played():
    ranked = ["a", "b", "c", "d"]
    assert arena_pairs(ranked, {}) == [("a", "b"), ("c", "d")]
    # c and d just played each other: a meets c, b meets d rather than c meet d again.
    assert arena_pairs(ranked, {"c": "d", "d": "c"}) == [("a", "c"), ("b", "d")]
    # Nobody else free: the two play again.
    assert arena_pairs(["c", "d"], {"c": "d", "d": "c"}) == [("c", "d")]
    # Odd: the lowest waits; a just-played pair with a third free: the third plays.
    assert arena_pairs(["a", "b", "c"], {}) == [("a", "b")]
    assert arena_pairs(["a", "b", "c"], {"a": "b", "b": "a"}) == [("a", "c")]


def test_an_arena_pairs_whoever_is_free_and_ends_when_closed():
    arena = start(Format.ARENA, field(4))
    assert arena.rounds == () and not arena.finished
    arena = arena_round(arena, ["p1", "p2", "p3"])
    assert [p.players for p in arena.rounds[0].pairings] == [("p1", "p2")]
    arena = arena_round(arena, ["p1", "p2", "p3", "p4"])  # p1 and p2 busy
    assert [p.players for p in arena.rounds[1].pairings] == [("p3", "p4")]
    arena = record(arena, "p3", "p4", number=2)
    arena = arena_round(arena, ["p3", "p4"])  # only they are free: they meet again
    assert [p.players for p in arena.rounds[2].pairings] == [("p4", "p3")]
    arena = close(arena)
    assert arena_round(arena, ["p1"]) is arena
    assert not arena.finished
    arena = record(arena, "p1", "p1", number=1)
    arena = record(arena, "p4", "p4", number=3)
    assert arena.finished
    assert scores(arena) == {"p1": 2, "p2": 0, "p3": 0, "p4": 4}
    assert [(row.name, row.score, row.streak, row.games) for row in standings(arena)] == [
        ("p4", 4, 2, 2), ("p1", 2, 1, 1), ("p2", 0, 0, 1), ("p3", 0, 0, 2)]
    assert winner(arena) == "p4"


@st.composite
def arenas(draw: st.DrawFn) -> tuple[Tournament, list[tuple[str, str, str | None]]]:
    """An arena of 2 to 12 played for some steps: at each, a random set of players is free
    (some of them busy, some withdrawn), and some matches under way end at random."""
    count = draw(st.integers(2, 12))
    pick = random.Random(draw(st.integers(0, 2**32)))
    arena = start(Format.ARENA, field(count))
    names = [entrant.name for entrant in arena.entrants]
    decided: list[tuple[str, str, str | None]] = []
    for _step in range(draw(st.integers(1, 25))):
        if pick.random() < 0.1:
            arena = Tournament(arena.format, arena.entrants, 0, arena.rounds,
                               withdrawn=frozenset(pick.sample(names, pick.randint(0, 2))))
        free = [name for name in names if pick.random() < 0.8]
        before = busy(arena)
        paired = arena_round(arena, free)
        new = paired.rounds[len(arena.rounds):]
        for added in new:
            for pairing in added.pairings:
                assert pairing.first != pairing.second
                for name in pairing.players:
                    assert name in free and name not in before
                    assert name not in arena.withdrawn
        arena = paired
        for played in arena.rounds:
            for pairing in played.pairings:
                if not pairing.decided and pairing.second is not None and pick.random() < 0.5:
                    won = pick.choice([pairing.first, pairing.second, None])
                    arena = record(arena, pairing.first, won, number=played.number)
                    decided.append((pairing.first, pairing.second, won))
    return arena, decided


@settings(max_examples=150)
@given(arenas())
def test_arena_properties(played: tuple[Tournament, list[tuple[str, str, str | None]]]):
    arena, decided = played
    names = [entrant.name for entrant in arena.entrants]
    # Each player is in one undecided pairing at most: never paired while busy.
    undecided = [name for played_round in arena.rounds for pairing in played_round.pairings
                 if not pairing.decided for name in pairing.players]
    assert len(undecided) == len(set(undecided))
    # Each score is the rule summed over the player's games in the order they were paired
    # (a player plays one at a time, so that is the order they ended in).
    for name in names:
        results = [game[2] == name for game in _games_of(arena, name)]
        assert scores(arena)[name] == rule_points(results)
        streak = standings_row(arena, name).streak
        expected = 0
        for won in results:
            expected = expected + 1 if won else 0  # a loss puts the streak out
        assert streak == expected
    assert sum(row.games for row in standings(arena)) == 2 * len(
        [game for game in decided if game[1] is not None])


def _games_of(arena: Tournament, name: str) -> list[tuple[str, str, str | None]]:
    return [(pairing.first, pairing.second, pairing.winner) for played_round in arena.rounds
            for pairing in played_round.pairings
            if pairing.decided and pairing.second is not None and name in pairing.players]


def standings_row(arena: Tournament, name: str):
    return next(row for row in standings(arena) if row.name == name)


@settings(max_examples=200)
@given(st.lists(st.sampled_from("abcdefghij"), unique=True, max_size=10), st.data())
def test_arena_pairs_properties(ranked: list[str], data: st.DataObject):
    """Nobody twice, nobody with themself, all but one at most paired, and a pair that just
    played only when every pairing of as many pairs one."""
    just: dict[str, str] = {}
    for name in ranked:
        if name not in just and data.draw(st.booleans()):
            others = [other for other in ranked if other != name and other not in just]
            if others:
                other = data.draw(st.sampled_from(others))
                just[name], just[other] = other, name
    pairs = arena_pairs(ranked, just)
    paired = [name for pair in pairs for name in pair]
    assert len(paired) == len(set(paired))
    assert all(first != second for first, second in pairs)
    assert len(paired) >= len(ranked) - 1
    rematches = [pair for pair in pairs if just.get(pair[0]) == pair[1]]
    if rematches:
        assert not _avoidable(ranked, just)


def _avoidable(ranked: list[str], just: dict[str, str]) -> bool:
    """Whether some pairing of all (all but one, when odd) avoids every rematch."""
    if len(ranked) < 2:
        return True
    first, rest = ranked[0], ranked[1:]
    if any(just.get(first) != other and _avoidable([r for r in rest if r != other], just)
           for other in rest):
        return True
    return len(ranked) % 2 == 1 and _avoidable(rest, just)
