"""Rules-engine benchmark: legal-play generation and typed-move validation.

Cases are (position, roll) pairs met in seeded random self-play from the starting position,
so their mix (contact, bar, races, bear-offs, doubles) is that of real games.

    .venv/bin/python bench/engine.py [--cases 10000] [--gnubg-python /tmp/bench-venv/bin/python]

With --gnubg-python (a Python with PyPI's gnubg-nn, never a project dependency) it also
times gnubg's C generator on the same cases, in rounds interleaved with ours (so a busy
machine slows both alike), and prints the ratio. Generation is timed in CPU time (the
median round); it also times the pure-Python reference generator that tests/rules keeps as
the oracle, the server's generator until the compiled one replaced it.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from fibs_server.rules import Colour, Position, format_play, parse_move
from fibs_server.rules.board.position import LegalResults

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the oracle in tests/rules
from tests.rules.reference_plays import reference_legal_plays  # noqa: E402

SEED = 1
REPEATS = 3
ROUNDS = 5

# Runs inside the gnubg-nn Python: loads the boards sent on its first line, then times one
# pass of gnubg_nn.moves() over them in CPU time per line it reads.
# gnubg's board is (opponent, side on roll), each 25 counts in own numbering.
GNUBG_TIMER = """
import json, sys, time, gnubg_nn
cases = json.loads(sys.stdin.readline())
print("ready", flush=True)
for _ in sys.stdin:
    start = time.process_time()
    for board, a, b in cases:
        gnubg_nn.moves(board, a, b)
    print((time.process_time() - start) / len(cases), flush=True)
"""


def self_play_cases(count: int, seed: int = SEED) -> list[tuple[Position, tuple[int, int]]]:
    """(position, roll) pairs from random games, restarting whenever a side has borne off."""
    rng = random.Random(seed)
    cases = []
    position = Position.initial()
    while len(cases) < count:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        cases.append((position, dice))
        # Sorted: the same cases whatever order a generator lists its plays in.
        results = sorted(play.result.checkers for play in position.legal_plays(dice))
        if results:
            position = Position(rng.choice(results))
        position = Position.initial() if position.borne_off(0) == 15 else position.swap()
    return cases


def best_mean_seconds(run, count: int) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best / count


def generation_cpu_seconds(generate, cases) -> float:
    """CPU time per case of `generate(position, dice)`, each answer dropped at once as the
    server drops it: keeping every case's plays alive would also time CPython's garbage
    collector walking them all, again and again as they pile up."""
    start = time.process_time()
    for position, dice in cases:
        generate(position, dice)
    return (time.process_time() - start) / len(cases)


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

    gnubg = None
    if arguments.gnubg_python:
        gnubg = subprocess.Popen([arguments.gnubg_python, "-c", GNUBG_TIMER],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert gnubg.stdin is not None and gnubg.stdout is not None
        gnubg.stdin.write(json.dumps([[[position.checkers[1], position.checkers[0]], a, b]
                                      for position, (a, b) in cases]) + "\n")
        gnubg.stdin.flush()
        assert gnubg.stdout.readline().strip() == "ready"
    ours: list[float] = []
    reference: list[float] = []
    gnubg_rounds: list[float] = []
    for _ in range(ROUNDS):
        ours.append(generation_cpu_seconds(Position.legal_plays, cases))
        reference.append(generation_cpu_seconds(reference_legal_plays, cases))
        if gnubg is not None:
            assert gnubg.stdin is not None and gnubg.stdout is not None
            gnubg.stdin.write("go\n")
            gnubg.stdin.flush()
            gnubg_rounds.append(float(gnubg.stdout.readline()))
    generation = statistics.median(ours)
    print(f"legal-play generation: {generation * 1e6:8.1f} µs CPU per (position, roll), "
          f"median of {ROUNDS} rounds")
    print(f"reference generator:   {statistics.median(reference) * 1e6:8.1f} µs CPU "
          f"(pure Python, tests/rules/reference_plays.py)")

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

    if gnubg is not None:
        assert gnubg.stdin is not None
        gnubg.stdin.close()
        gnubg.wait()
        seconds = statistics.median(gnubg_rounds)
        ratios = sorted(mine / theirs for mine, theirs in zip(ours, gnubg_rounds))
        print(f"gnubg-nn moves():      {seconds * 1e6:8.1f} µs CPU per (position, roll); "
              f"our generator takes {generation / seconds:.1f}× as long "
              f"(rounds: {ratios[0]:.1f}–{ratios[-1]:.1f}×)")


if __name__ == "__main__":
    main()
