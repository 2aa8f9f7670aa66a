"""What one round's Swiss pairing (`rules/pairing/dutch.py`) costs, the director's pass
waiting on it: random histories of small fields (2 to 11 players, random scores, none, a fifth or half of
the pairs met before), Swisses of 128 played out over 7 rounds with random results, and
small fields played over 15 rounds (rematches forced in the end).

    .venv/bin/python bench/swiss_pairing.py
"""
from __future__ import annotations

import itertools
import random
import time

from fibs_server.rules.pairing.dutch import swiss_pairs


def timed_round(ranked: list[str], points: dict[str, int], met: dict[str, set[str]],
                had_bye: set[str]) -> tuple[float, list[tuple[str, str | None]]]:
    began = time.perf_counter()
    pairs = swiss_pairs(ranked, points, met, had_bye)
    return time.perf_counter() - began, pairs


def played_out(count: int, rounds: int, seed: int) -> float:
    """The slowest round of a Swiss of `count` played over `rounds` random results."""
    pick = random.Random(seed)
    players = [f"p{index}" for index in range(count)]
    points = dict.fromkeys(players, 0)
    met: dict[str, set[str]] = {name: set() for name in players}
    had_bye: set[str] = set()
    slowest = 0.0
    for _ in range(rounds):
        ranked = sorted(players, key=lambda name: (-points[name], players.index(name)))
        took, pairs = timed_round(ranked, points, met, had_bye)
        slowest = max(slowest, took)
        for first, second in pairs:
            if second is None:
                had_bye.add(first)
                points[first] += 1
                continue
            met[first].add(second)
            met[second].add(first)
            points[pick.choice((first, second))] += 1
    return slowest


def main() -> None:
    slowest = total = 0.0
    for seed in range(3000):
        pick = random.Random(seed)
        players = [f"p{index}" for index in range(pick.randint(2, 11))]
        points = {name: pick.randint(0, 3) for name in players}
        met: dict[str, set[str]] = {name: set() for name in players}
        share = pick.choice((0.0, 0.2, 0.5))
        for first, second in itertools.combinations(players, 2):
            if pick.random() < share:
                met[first].add(second)
                met[second].add(first)
        ranked = sorted(players, key=lambda name: (-points[name], players.index(name)))
        took, _pairs = timed_round(ranked, points, met, set())
        slowest, total = max(slowest, took), total + took
    print(f"3000 random small rounds: {total:.2f} s in all, the slowest {slowest * 1e3:.1f} ms")
    for seed in range(3):
        print(f"128 players, 7 rounds, seed {seed}: the slowest round "
              f"{played_out(128, 7, seed) * 1e3:.1f} ms")
    for count in (5, 12, 16):
        print(f"{count} players, 15 rounds: the slowest round "
              f"{played_out(count, 15, 1) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
