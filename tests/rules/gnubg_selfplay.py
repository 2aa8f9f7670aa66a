"""GNU Backgammon playing matches against itself, in separate processes (never imported GPL code).

This file has two roles, like `gnubg_oracle.py`. Imported by the tests, `selfplay_matches()`
runs one `gnubg` process per (seed, match length), in parallel, and returns each match record.
Run by gnubg itself (`gnubg -t -q -r -p THIS_FILE`, with the seed, length and record file named
in environment variables), it lets gnubg play both sides of a match at 0-ply with a seeded
Mersenne Twister (so the same seed gives the same match) and writes `gnubg.match()` as JSON.

A record is `{"match-info": {"match-length": n, ...}, "games": [{"info": ..., "game": [...]}]}`.
`info` has `score-X`, `score-O` (before the game), `winner` ("X" = gnubg's player 0,
"O" = player 1), `points-won`, `resigned` and, only in the Crawford game, `crawford`.
`game` lists the actions in order: `move` (`player`, `dice`, `move` = (from, to) steps in the
mover's own numbering, 25 = bar, 0 = off, empty when no play is legal, and `board`, the gnubg
Position ID before the move with the mover on roll), `double`, `take`, `drop` and `resign`
(`points` = 1, 2 or 3: the size resigned; gnubg records only accepted resignations).
Each `move` also gets `checkers`: its board decoded by gnubg as (side not on roll, mover).
"""
from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

SEED_VARIABLE = "GNUBG_SELFPLAY_SEED"
LENGTH_VARIABLE = "GNUBG_SELFPLAY_LENGTH"
RECORD_VARIABLE = "GNUBG_SELFPLAY_RECORD"


def selfplay_matches(matches: list[tuple[int, int]]) -> list[dict]:
    """The record of each (seed, match length) match that gnubg plays against itself."""
    with ThreadPoolExecutor(len(matches)) as pool:
        return list(pool.map(lambda match: _play_one_match(*match), matches))


def _play_one_match(seed: int, length: int) -> dict:
    from tests.gnubg_script import run_in_gnubg  # here: inside gnubg this file stands alone

    return json.loads(run_in_gnubg(
        __file__, inputs={}, values={SEED_VARIABLE: str(seed), LENGTH_VARIABLE: str(length)},
        output_variable=RECORD_VARIABLE, timeout=300))


def _play() -> None:
    """Inside gnubg: play the match and write its record."""
    import gnubg  # only exists inside gnubg's embedded Python

    commands = ["set rng mersenne", f"set seed {os.environ[SEED_VARIABLE]}"]
    for player in (0, 1):
        commands += [f"set player {player} gnubg",
                     f"set player {player} chequerplay evaluation plies 0",
                     f"set player {player} cubedecision evaluation plies 0"]
    for command in commands:
        gnubg.command(command)
    # With gnubg on both sides, `new match` plays the whole match before it returns.
    gnubg.command(f"new match {os.environ[LENGTH_VARIABLE]}")
    record = gnubg.match(analysis=0, boards=1, statistics=0, verbose=0)
    for game in record["games"]:
        for action in game["game"]:
            if action["action"] == "move":
                action["checkers"] = gnubg.positionfromid(action["board"])
    Path(os.environ[RECORD_VARIABLE]).write_text(json.dumps(record))


if __name__ == "__main__" and RECORD_VARIABLE in os.environ:
    _play()
