"""Differential test: our legal plays against GNU Backgammon's, position by position.

Identical sets of resulting positions for 500 seeded random positions × all 21 rolls,
biased towards the tricky cases: entering from the bar, bearing off (also with a checker
hit during bear-off), no legal play and only one die playable.
"""
from __future__ import annotations

import random
from collections import Counter

import pytest

from fibs_server.rules import Position
from tests.conftest import skip_unless_ci

from .gnubg_oracle import GNUBG, gnubg_results

pytestmark = pytest.mark.gnubg


@pytest.fixture(autouse=True)
def _needs_gnubg():
    if not GNUBG.exists():
        skip_unless_ci(f"needs GNU Backgammon at {GNUBG} (apt-get install -y gnubg)")

ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]
POSITIONS = 500  # 10,500 plays compared; each situation below still comes up 300+ times
SEED = 20240601


def _place(rng, count, points, board, other_board):
    """Put `count` checkers on random indices of `points` where the other side has none
    (index i of one side faces index 23 - i of the other)."""
    free = [index for index in points if not other_board[23 - index]]
    for _ in range(count):
        board[rng.choice(free)] += 1


def random_position(rng: random.Random) -> tuple[Position, str]:
    """A random legal position and the kind of situation it was biased towards."""
    kind = rng.choice(["contact", "contact", "bar", "bear_off", "bear_off_hit", "prime"])
    mover = [0] * 25
    opponent = [0] * 25
    if kind in ("bear_off", "bear_off_hit"):
        hit = kind == "bear_off_hit"
        mover[24] = int(hit)
        _place(rng, rng.randint(1, 15 - hit), range(6), mover, opponent)
    elif kind == "bar":  # a strong home board against checkers on the bar
        for index in rng.sample(range(6), rng.randint(3, 6)):
            opponent[index] = 2
        mover[24] = rng.randint(1, 3)
    elif kind == "prime":  # long blocks leave one die or none playable
        first = rng.randint(0, 18)
        for index in range(first, first + rng.randint(4, 6)):
            opponent[index] = 2
    left = 15 - sum(opponent)
    _place(rng, rng.randint(max(0, left - 12), left), range(24), opponent, mover)
    if kind != "bear_off_hit" and rng.random() < 0.15:
        opponent[24] += min(2, 15 - sum(opponent))
    if kind in ("contact", "prime"):
        mover[24] = rng.choice([0, 0, 0, 1, 2])
    if kind not in ("bear_off", "bear_off_hit") or sum(mover) == 0:
        left = 15 - sum(mover)
        _place(rng, rng.randint(1, left), range(24), mover, opponent)
    return Position((tuple(mover), tuple(opponent))), kind


def _cases():
    rng = random.Random(SEED)
    return [random_position(rng) for _ in range(POSITIONS)]


def test_legal_plays_match_gnubg():
    cases = _cases()
    queries = [(position.position_id(), a, b) for position, _ in cases for a, b in ROLLS]
    expected = gnubg_results(queries)
    situations: Counter[str] = Counter()
    mismatches = []
    for position, kind in cases:
        situations[kind] += 1
        for a, b in ROLLS:
            plays = position.legal_plays((a, b))
            ours = {play.result.position_id() for play in plays}
            assert len(ours) == len(plays), "plays must have distinct results"
            theirs = expected[(position.position_id(), a, b)]
            if ours != theirs:
                mismatches.append((position.position_id(), (a, b), sorted(ours - theirs),
                                   sorted(theirs - ours)))
            situations["no play" if not plays else
                        "one die only" if a != b and len(plays[0].steps) == 1 else
                        "bar entry" if position.on_bar(0) else
                        "bearing off" if any(end == 0 for p in plays for _, end in p.steps)
                        else "other"] += 1
    assert not mismatches, f"{len(mismatches)} differences, e.g. {mismatches[:5]}"
    for situation in ("no play", "one die only", "bar entry", "bearing off"):
        assert situations[situation] >= 200, situations
