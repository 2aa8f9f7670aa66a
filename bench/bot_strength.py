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
import dataclasses
import random
import re
import subprocess
import tempfile
from pathlib import Path

from fibs_server.bots import Level, decide, situation_for
from fibs_server.bots.brain import LEVELS
from fibs_server.gnubg_bot.external import GNUBG
from fibs_server.lobby.archive_commands import mat_games
from fibs_server.protocol.matfile import write_mat
from fibs_server.rules.dice import SeededDice
from fibs_server.rules.match import Match

REFERENCE = Level("reference", plies=1, noise=0.0)
BOT_NAME, REFERENCE_NAME = "bot", "reference"
# The rows of `show statistics match` read here, in the order they come: chequer play, cube
# and overall each have an error total; the counts come before them.
_UNFORCED = re.compile(r"^Unforced moves\s+(\d+)")
_CLOSE_CUBE = re.compile(r"^Close or actual cube decisions\s+(\d+)")
_ERROR_TOTAL = re.compile(r"^Error total EMG \(MWC\)\s+([-+]?\d+\.\d+)")
_OVERALL_RATING = re.compile(r"^Overall rating\s+(.+?)\s{2,}")


@dataclasses.dataclass
class Tally:
    """gnubg's figures for the bot, summed over matches."""
    matches: int = 0
    unforced_moves: int = 0
    cube_decisions: int = 0
    checker_error: float = 0.0  # EMG, positive
    cube_error: float = 0.0

    def add(self, statistics: str) -> None:
        unforced = cube = 0
        errors: list[float] = []
        for line in statistics.splitlines():
            if match := _UNFORCED.match(line):
                unforced = int(match[1])
            elif match := _CLOSE_CUBE.match(line):
                cube = int(match[1])
            elif match := _ERROR_TOTAL.match(line):
                errors.append(-float(match[1]))
        if len(errors) != 3:
            raise RuntimeError(f"gnubg's statistics are not as expected:\n{statistics}")
        self.matches += 1
        self.unforced_moves += unforced
        self.cube_decisions += cube
        self.checker_error += errors[0]
        self.cube_error += errors[1]

    def rates(self) -> tuple[float, float, float]:
        """mEMG per unforced move, per cube decision, per decision (gnubg's three rates)."""
        def rate(error: float, count: int) -> float:
            return 1000 * error / count if count else 0.0
        return (rate(self.checker_error, self.unforced_moves),
                rate(self.cube_error, self.cube_decisions),
                rate(self.checker_error + self.cube_error,
                     self.unforced_moves + self.cube_decisions))


def rating_words(error_rate: float) -> str:
    """gnubg's words for an overall error rate in mEMG per decision."""
    for bound, words in ((2, "Supernatural"), (5, "World class"), (8, "Expert"),
                         (12, "Advanced"), (18, "Intermediate"), (26, "Casual player"),
                         (35, "Beginner")):
        if error_rate < bound:
            return words
    return "Awful!"


def play_match(level: Level, length: int, seed: int) -> str:
    """The bot (player 0) against the reference until the match is over, as `.mat` text."""
    match = Match(length, SeededDice(seed))
    rng = random.Random(seed)
    match.start()
    while not match.is_over:
        for player, player_level in ((0, level), (1, REFERENCE)):
            situation = situation_for(match, player)
            if situation is not None:
                decide(situation, player_level, rng).apply(match, player)
    return write_mat((BOT_NAME, REFERENCE_NAME), length, mat_games(match))


def gnubg_statistics(mat_file: Path, plies: int) -> str:
    """gnubg's `show statistics match` of the match in `mat_file`, the bot's column only."""
    commands = mat_file.with_suffix(".gnubg")
    commands.write_text(f"set analysis chequerplay evaluation plies {plies}\n"
                        f"set analysis cubedecision evaluation plies {plies}\n"
                        f"import mat {mat_file}\nanalyse match\nshow statistics match\n")
    output = subprocess.run([str(GNUBG), "-t", "-q", "-r", "-c", str(commands)],
                            stdin=subprocess.DEVNULL, capture_output=True, text=True,
                            timeout=3600, check=True).stdout
    return output[output.index("Chequerplay statistics"):]


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
