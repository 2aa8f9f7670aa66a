"""The built-in bots against GNU Backgammon: `fibs-gnubg-bot` (gnubg 0-ply, its own
`external` board parser) invites each bot level to matches, one after another, over the wire
to a server in this process. Prints the score per level.

With `--analyse`, every finished match is exported as a `.mat` file and judged as
bench/analysis_vs_gnubg.py judges its matches: by our analysis (bots/analysis.py, bgsage
`--plies`, the server's default 2) and by gnubg one ply less (the same depth). Prints per
level, for the bot and for gnubg's player, summed over the level's matches: unforced
decisions, the error rate (mEMG per unforced decision) by both, the PR (half the rate) and
gnubg's words for gnubg's rate. `--deep-expert` judges the expert's matches again one ply
deeper (ours 3-ply, gnubg 2-ply): the expert itself plays at 2-ply, which the default level
cannot fault (docs/ANALYSIS.md).

    .venv/bin/python bench/bots_vs_gnubg.py --matches 30 [--levels expert] [--length 1]
    .venv/bin/python bench/bots_vs_gnubg.py --levels beginner,intermediate,expert \\
        --matches 6 --length 3 --analyse [--deep-expert] [--jobs 2] [--seed 1]
"""
from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import dataclasses
import multiprocessing
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # for bench.*, tests.*

from bench.analysis_vs_gnubg import judged  # noqa: E402
from fibs_server.app import FibsServer, ServerConfig  # noqa: E402
from fibs_server.bots.analysis import DEFAULT_PLIES, performance_rating, rating_words  # noqa: E402
from fibs_server.lobby.ports.match_records import MatchRecord  # noqa: E402
from fibs_server.lobby.services.bot_players import BotConfig  # noqa: E402
from fibs_server.rules.dice import ScriptedDice  # noqa: E402
from fibs_server.rules.match import Match  # noqa: E402
from tests.gnubg_analysis import Comparison  # noqa: E402

GNUBG_NAME = "gnubg"
DEEP_PLIES = DEFAULT_PLIES + 1


def bot_name(level: str) -> str:
    return f"bot_{level}"


def judge_stored(state: dict[str, Any], names: tuple[str, str], plies: int, directory: Path,
                 name: str) -> tuple[Comparison, float]:
    """In a worker process: a stored match judged by ours at `plies` and by gnubg, and the
    CPU seconds of ours."""
    match = Match.from_dict(state, ScriptedDice([]))  # only replayed: it needs no dice
    _, comparison, seconds = judged(match, plies, directory, name, names)
    return comparison, seconds


@dataclasses.dataclass
class Sums:
    """One player's error (EMG) and unforced decisions over matches, by ours and by gnubg."""
    matches: int = 0
    our_error: float = 0.0
    our_decisions: int = 0
    gnubg_error: float = 0.0
    gnubg_decisions: int = 0

    def add(self, comparison: Comparison, side: int) -> None:
        ours, theirs = comparison.ours[side], comparison.gnubg[side]
        self.matches += 1
        self.our_error += ours.total_error
        self.our_decisions += ours.unforced_decisions
        self.gnubg_error += theirs.checker_error + theirs.cube_error
        self.gnubg_decisions += theirs.unforced_decisions

    @property
    def our_rate(self) -> float:
        return 1000 * self.our_error / self.our_decisions if self.our_decisions else 0.0

    @property
    def gnubg_rate(self) -> float:
        return 1000 * self.gnubg_error / self.gnubg_decisions if self.gnubg_decisions else 0.0


@dataclasses.dataclass
class Judging:
    """A finished match on its way through the analyses."""
    level: str
    record: MatchRecord
    analyses: dict[int, concurrent.futures.Future[tuple[Comparison, float]]]


async def play(levels: list[str], matches: int, length: int, seed: int, directory: Path,
               judges: concurrent.futures.Executor | None, depths: dict[str, list[int]]
               ) -> list[Judging]:
    """Each level's matches against gnubg, one at a time; each finished match handed to
    `judges` at the plies `depths` gives its level."""
    config = ServerConfig(host="127.0.0.1", port=0, bcrypt_rounds=4, dice_seed=seed,
                          database_url=f"sqlite:///{directory / 'bench.db'}",
                          bots=BotConfig(think_time=0, time_budget=30))
    server = FibsServer(config)
    await server.start()
    store = server.store
    finished: list[Judging] = []
    try:
        for level in levels:
            for _ in range(matches):
                process = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "fibs_server.gnubg_bot", "--host", "127.0.0.1",
                    "--port", str(server.port), "--name", GNUBG_NAME, "--password", "secret",
                    "--register", "--invite", bot_name(level), str(length),
                    "--log-level", "WARNING", stdin=asyncio.subprocess.DEVNULL)
                while len(records := await store.finished_matches(
                        GNUBG_NAME, len(finished) + 1)) <= len(finished):
                    await asyncio.sleep(0.2)
                process.terminate()
                await process.wait()
                record = records[0]  # the newest
                names = (record.player_a, record.player_b)
                analyses = {} if judges is None else {
                    plies: judges.submit(judge_stored, record.state, names, plies, directory,
                                         f"m{record.match_id}-{plies}")
                    for plies in depths[level]}
                finished.append(Judging(level, record, analyses))
                print(f"match {record.match_id}: {level}, won by {record.winner}", flush=True)
        print(f"bot pool {server.bots.pool.counts}")
    finally:
        await server.stop()
    return finished


def print_score(finished: list[Judging], levels: list[str], length: int) -> None:
    for level in levels:
        records = [judging.record for judging in finished if judging.level == level]
        won = sum(record.winner == GNUBG_NAME for record in records)
        points = {name: sum(max(record.state["score"]) for record in records
                            if record.winner == name) for name in (GNUBG_NAME, bot_name(level))}
        print(f"{len(records)} {length}-point matches: gnubg 0-ply won {won}, "
              f"{bot_name(level)} won {len(records) - won}; points won {points}")


MATCH_HEADER = (f"{'match':<28} {'plies':>5} {'ours bot/gnubg':>15} {'gnubg bot/gnubg':>16} "
                f"{'cpu s':>6}")
SUMS_HEADER = (f"{'player':<34} {'plies ours/gnubg':>16} {'matches':>7} {'won':>4} "
               f"{'decisions':>9} {'gnubg':>5} {'ours':>6} {'gnubg':>6} {'PR ours':>7} {'PR gnubg':>8}  words")


def print_analyses(finished: list[Judging], level: str) -> None:
    """The level's matches as their analyses finish, then the sums per player and depth."""
    bot = bot_name(level)
    sums: dict[tuple[int, str], Sums] = {}  # (plies, player)
    won = 0
    print(f"\n{MATCH_HEADER}")
    for judging in (judging for judging in finished if judging.level == level):
        won += judging.record.winner == bot
        sides = {bot: (judging.record.player_a, judging.record.player_b).index(bot)}
        sides[GNUBG_NAME] = 1 - sides[bot]
        for plies, analysis in judging.analyses.items():
            comparison, seconds = analysis.result()
            for player, side in sides.items():
                sums.setdefault((plies, player), Sums()).add(comparison, side)
            ours, theirs = comparison.ours, comparison.gnubg
            print(f"{judging.record.match_id:>3} {level:<24} {plies:>5} "
                  f"{ours[sides[bot]].error_rate:>7.1f} {ours[sides[GNUBG_NAME]].error_rate:>7.1f} "
                  f"{theirs[sides[bot]].error_rate:>8.1f} "
                  f"{theirs[sides[GNUBG_NAME]].error_rate:>7.1f} {seconds:>6.0f}", flush=True)
    print(SUMS_HEADER)
    for (plies, player), total in sums.items():
        role = bot if player == bot else f"gnubg 0-ply (against {level})"
        wins = won if player == bot else total.matches - won
        print(f"{role:<34} {f'{plies}/{plies - 1}':>16} {total.matches:>7} {wins:>4} "
              f"{total.our_decisions:>9} {total.gnubg_decisions:>5} {total.our_rate:>6.1f} {total.gnubg_rate:>6.1f} "
              f"{performance_rating(total.our_rate):>7.1f} "
              f"{performance_rating(total.gnubg_rate):>8.1f}  {rating_words(total.gnubg_rate)}",
              flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=30, help="per level")
    parser.add_argument("--levels", default="expert")
    parser.add_argument("--length", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--analyse", action="store_true")
    parser.add_argument("--plies", type=int, default=DEFAULT_PLIES, help="our analysis's")
    parser.add_argument("--deep-expert", action="store_true",
                        help=f"the expert's matches judged at {DEEP_PLIES}-ply too")
    parser.add_argument("--jobs", type=int, default=1, help="matches judged at once")
    arguments = parser.parse_args()
    levels = arguments.levels.split(",")
    depths = {level: [arguments.plies] for level in levels}
    if arguments.deep_expert and "expert" in depths:
        depths["expert"].append(DEEP_PLIES)
    with tempfile.TemporaryDirectory(prefix="bots-vs-gnubg-") as directory, \
            concurrent.futures.ProcessPoolExecutor(
                arguments.jobs, mp_context=multiprocessing.get_context("spawn")) as judges:
        finished = asyncio.run(play(levels, arguments.matches, arguments.length,
                                    arguments.seed, Path(directory),
                                    judges if arguments.analyse else None, depths))
        print_score(finished, levels, arguments.length)
        if arguments.analyse:
            print("\nerror rates in mEMG per unforced decision (ours, gnubg's); PR: half the "
                  "rate; words: gnubg's for its rate")
            for level in levels:
                print_analyses(finished, level)


if __name__ == "__main__":
    main()
