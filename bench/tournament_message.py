"""What one change of a large tournament costs the pages that follow it: the size of its
`tournament` message and the time to make and encode it (once per change, for every page).

    .venv/bin/python bench/tournament_message.py [--players 128] [--rounds 7]

A Swiss of `--players` after `--rounds` rounds, each pairing decided: the largest message a
tournament within the entry cap sends.
"""
from __future__ import annotations

import argparse
import time

from fibs_server.protocol.views import web_events
from fibs_server.protocol.wording.tournament_texts import Listed, Shown
from fibs_server.rules import tournament as rules
from fibs_server.rules.tournament import Entrant, Format, RoundTerms

REPEATS = 50


def finished_swiss(players: int, rounds: int) -> Shown:
    field = [Entrant(f"player{index:03d}", 1500 + index) for index in range(players)]
    played = rules.start(Format.SWISS, field, swiss_rounds=rounds)
    while True:
        assert played.current is not None
        for pairing in played.current.pairings:
            played = rules.record(played, pairing.first, pairing.first)
        if played.finished:
            break
        played = rules.next_round(played)
    entry = Listed(1, Format.SWISS, "finished", field[0].name, RoundTerms(), players, players,
                   rules.winner(played), rounds)
    return Shown(entry, None, None, played.entrants, played)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args()
    shown = finished_swiss(options.players, options.rounds)
    timings = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        line = web_events.encode(web_events.tournament(shown))
        timings.append(time.perf_counter() - started)
    print(f"{options.players}-player Swiss after {options.rounds} rounds: {len(line)} bytes, "
          f"made and encoded in {min(timings) * 1000:.2f} ms (best of {REPEATS}), "
          f"median {sorted(timings)[REPEATS // 2] * 1000:.2f} ms")


if __name__ == "__main__":
    main()
