"""What running matches leave for CPython's cyclic garbage collector to walk.

Plays --matches matches of the rules engine in one process (seeded dice, random legal
actions, as tests/rules/test_match_properties.py does) for --actions actions each, then
reports the collector-tracked objects each match adds and how long a full collection over
all of them takes. A full collection pauses the server's event loop for that long.

    .venv/bin/python bench/gc_objects.py --matches 1000 --actions 200
"""
from __future__ import annotations

import argparse
import collections
import gc
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fibs_server.rules.dice import SeededDice  # noqa: E402
from fibs_server.rules.match import Match  # noqa: E402
from tests.rules.test_match_properties import random_action  # noqa: E402


def play(matches: int, actions: int) -> list[Match]:
    rng = random.Random(1)
    played = []
    for number in range(matches):
        match = Match(7, SeededDice(number))
        match.start()
        for _ in range(actions):
            if match.is_over:
                break
            random_action(match, rng)
        played.append(match)
    return played


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--actions", type=int, default=200)
    arguments = parser.parse_args()
    gc.collect()
    gc.freeze()  # what imports built is not the matches' doing (the server freezes it too)
    before = collections.Counter(type(o).__name__ for o in gc.get_objects())
    matches = play(arguments.matches, arguments.actions)
    for _ in range(3):  # nested tuples and dicts of plain values drop out a level at a time
        gc.collect()
    after = collections.Counter(type(o).__name__ for o in gc.get_objects())
    added = after - before
    events = sum(len(game) for match in matches for game in match.history)
    started = time.perf_counter()
    gc.collect()
    full = time.perf_counter() - started
    print(f"{arguments.matches} matches, {events / len(matches):.0f} events each")
    print(f"tracked objects added per match: {sum(added.values()) / len(matches):.1f}")
    print(f"  by type: {', '.join(f'{name} {count / len(matches):.1f}' for name, count in added.most_common(8))}")
    print(f"full collection: {full * 1000:.1f} ms")


if __name__ == "__main__":
    main()
