"""How well each bot level plays, as GNU Backgammon judges it: each level plays matches against
a reference player (bgsage's network, no noise) in this process, with seeded dice; every
match is written as a `.mat` file, which gnubg imports and analyses (`analyse match`, then
`show statistics match`). Prints, per level, gnubg's error rates in mEMG per decision
(checker play per unforced move, cube per close or actual cube decision, overall per both)
and gnubg's rating words, summed over all the matches as gnubg sums them.

    .venv/bin/python bench/bot_strength.py --matches 20 --length 5 [--plies 2]
        [--levels beginner,intermediate,expert] [--try NAME:PLIES:NOISE ...] [--jobs 2]

`--try` measures a level that is not (yet) one of the bots', to calibrate one.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # for tests.*

from fibs_server.bots import Level  # noqa: E402
from fibs_server.bots.analysis import rating_words  # noqa: E402
from fibs_server.bots.brain import LEVELS  # noqa: E402
from fibs_server.protocol.views.matfile import mat_games, write_mat  # noqa: E402
from fibs_server.rules.dice import SeededDice  # noqa: E402
from fibs_server.rules.match import Match  # noqa: E402
from tests.bots.helpers import play_bots  # noqa: E402
from tests.gnubg_analysis import Tally, gnubg_statistics  # noqa: E402

REFERENCE = Level("reference", plies=1, noise=0.0)
BOT_NAME, REFERENCE_NAME = "bot", "reference"


def play_match(level: Level, length: int, seed: int) -> str:
    """The bot (player 0) against the reference until the match is over, as `.mat` text."""
    match = Match(length, SeededDice(seed))
    play_bots(match, (level, REFERENCE), random.Random(seed))
    return write_mat((BOT_NAME, REFERENCE_NAME), length, mat_games(match))


def measure(level: Level, matches: int, length: int, plies: int, jobs: int,
            directory: Path) -> Tally:
    files = []
    for seed in range(matches):
        path = directory / f"{level.name}-{seed}.mat"
        path.write_text(play_match(level, length, seed))
        files.append(path)
    tally = Tally()
    with concurrent.futures.ThreadPoolExecutor(jobs) as workers:
        for statistics in workers.map(lambda path: gnubg_statistics(path, plies), files):
            tally.add(statistics)
    return tally


def tried_level(text: str) -> Level:
    name, plies, noise = text.split(":")
    return Level(name, plies=int(plies), noise=float(noise))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--length", type=int, default=5)
    parser.add_argument("--plies", type=int, default=2, help="gnubg's analysis level")
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--try", dest="tried", action="append", default=[], type=tried_level,
                        metavar="NAME:PLIES:NOISE")
    parser.add_argument("--jobs", type=int, default=2, help="gnubg processes at once")
    arguments = parser.parse_args()
    levels = [LEVELS[name] for name in arguments.levels.split(",") if name] + arguments.tried
    print(f"{arguments.matches} matches of {arguments.length} points per level against "
          f"bgsage's network, analysed by gnubg at {arguments.plies}-ply (mEMG per decision)")
    print(f"{'level':<14} {'plies':>5} {'noise':>6} {'moves':>6} {'checker':>8} "
          f"{'cube dec.':>9} {'cube':>6} {'overall':>8}  rating")
    with tempfile.TemporaryDirectory(prefix="bot-strength-") as directory:
        for level in levels:
            tally = measure(level, arguments.matches, arguments.length, arguments.plies,
                            arguments.jobs, Path(directory))
            checker, cube, overall = tally.rates()
            print(f"{level.name:<14} {level.plies:>5} {level.noise:>6} "
                  f"{tally.unforced_moves:>6} {checker:>8.1f} {tally.cube_decisions:>9} "
                  f"{cube:>6.1f} {overall:>8.1f}  {rating_words(overall)}", flush=True)


if __name__ == "__main__":
    main()
