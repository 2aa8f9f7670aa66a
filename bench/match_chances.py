"""The winning chances an abandoned rated match is settled by (bots/chances.py): the time of
`match_chances` in this process, over moments met in seeded 7-point matches played at random
(rolls before a roll, plays with the dice out). Figures: docs/BOTS.md, "Winning chances".

    .venv/bin/python bench/match_chances.py [--moments 200]
"""
from __future__ import annotations

import argparse
import random
import statistics
import time

from fibs_server.bots.chances import match_chances
from fibs_server.rules.dice import SeededDice
from fibs_server.rules.match import Match, Phase


def moment(seed: int, rng: random.Random) -> dict:
    """A 7-point match a random number of turns into its first game, as stored."""
    match = Match(7, SeededDice(seed))
    match.start()
    for _ in range(rng.randrange(2, 40)):
        if match.phase is Phase.MOVE:
            match.move(match.turn, rng.choice(match.legal_plays()))
        elif match.phase is Phase.ROLL_OR_DOUBLE:
            match.roll(match.turn)
        else:
            break
    return match.to_dict()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moments", type=int, default=200)
    arguments = parser.parse_args()
    rng = random.Random(1)
    match_chances(Match(7, SeededDice(0)).to_dict())  # the networks loaded, as in a worker
    times = []
    for seed in range(arguments.moments):
        state = moment(seed, rng)
        started = time.perf_counter()
        match_chances(state)
        times.append(time.perf_counter() - started)
    times.sort()
    print(f"{len(times)} moments: p50 {statistics.median(times) * 1000:.0f} ms, "
          f"p99 {times[int(len(times) * 0.99)] * 1000:.0f} ms, max {times[-1] * 1000:.0f} ms")


if __name__ == "__main__":
    main()
