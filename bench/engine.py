"""Rules-engine benchmark: legal-play generation and typed-move validation.

Cases are (position, roll) pairs met in seeded random self-play from the starting position,
so their mix (contact, bar, races, bear-offs, doubles) is that of real games.

    .venv/bin/python bench/engine.py [--cases 10000] [--gnubg-python /tmp/bench-venv/bin/python]

With --gnubg-python (a Python with PyPI's gnubg-nn, never a project dependency) it also
times gnubg's C generator on the same cases and prints the ratio.
"""
from __future__ import annotations

import argparse
import json
import random
import subprocess
import time

from fibs_server.rules import Colour, Position, format_play, parse_move
from fibs_server.rules.position import LegalResults

SEED = 1
REPEATS = 3

# Runs inside the gnubg-nn Python: times gnubg_nn.moves() over the boards sent on stdin.
# gnubg's board is (opponent, side on roll), each 25 counts in own numbering.
GNUBG_TIMER = f"""
import json, sys, time, gnubg_nn
cases = json.load(sys.stdin)
best = float("inf")
for _ in range({REPEATS}):
    start = time.perf_counter()
    for board, a, b in cases:
        gnubg_nn.moves(board, a, b)
    best = min(best, time.perf_counter() - start)
print(best / len(cases))
"""


def self_play_cases(count: int, seed: int = SEED) -> list[tuple[Position, tuple[int, int]]]:
    """(position, roll) pairs from random games, restarting whenever a side has borne off."""
    rng = random.Random(seed)
    cases = []
    position = Position.initial()
    while len(cases) < count:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        cases.append((position, dice))
        plays = position.legal_plays(dice)
        if plays:
            position = rng.choice(plays).result
        position = Position.initial() if position.borne_off(0) == 15 else position.swap()
    return cases


def best_mean_seconds(run, count: int) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--gnubg-python", help="Python with gnubg-nn for the C comparison")
    arguments = parser.parse_args()

    cases = self_play_cases(arguments.cases)
    doubles = sum(a == b for _, (a, b) in cases)
    plays_per_case = [position.legal_plays(dice) for position, dice in cases]
    print(f"{len(cases)} cases from seeded self-play ({doubles} doubles, "
          f"{sum(map(len, plays_per_case))} plays, "
          f"{sum(not plays for plays in plays_per_case)} without a legal play)")

    generation = best_mean_seconds(
        lambda: [position.legal_plays(dice) for position, dice in cases], len(cases))
    print(f"legal-play generation: {generation * 1e6:8.1f} µs per (position, roll)")

    rng = random.Random(SEED)
    typed = []
    for (position, dice), plays in zip(cases, plays_per_case):
        if plays:
            colour = rng.choice(list(Colour))
            typed.append((format_play(rng.choice(plays), colour), position, dice, colour,
                          LegalResults.of(plays)))
    validation = best_mean_seconds(
        lambda: [parse_move(*move) for move in typed], len(typed))
    print(f"typed-move validation: {validation * 1e6:8.1f} µs per move "
          f"({len(typed)} moves, legal plays already generated)")

    if arguments.gnubg_python:
        gnubg_cases = [[[position.checkers[1], position.checkers[0]], a, b]
                       for position, (a, b) in cases]
        seconds = float(subprocess.run(
            [arguments.gnubg_python, "-c", GNUBG_TIMER], input=json.dumps(gnubg_cases),
            capture_output=True, text=True, check=True).stdout)
        print(f"gnubg-nn moves():      {seconds * 1e6:8.1f} µs per (position, roll); "
              f"our generator takes {generation / seconds:.1f}× as long")


if __name__ == "__main__":
    main()
