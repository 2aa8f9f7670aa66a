"""Our match analysis against GNU Backgammon's: matches between bot levels are played in this
process with seeded dice, analysed by bots/analysis.py at bgsage's `--plies` and, from the same
`.mat` file, by gnubg at one ply less (gnubg's 0-ply is bgsage's 1-ply). Prints, per match and
summed per player role, both error rates (mEMG per unforced decision) and how many of gnubg's
very bad decisions (more than 0.16 EMG) ours marks at least bad; then whether the sums meet
docs/ANALYSIS.md's bounds. `--cpu` instead times the analysis of 1-, 5- and 7-point matches
in CPU seconds: ours as it searches (gnubg's filter), ours with every play and cube decision in
full depth (the reference the filter is measured against), and gnubg's whole process at the
same depth; then the ratio of ours to gnubg's.

    .venv/bin/python bench/analysis_vs_gnubg.py [--plies 2] [--matches 32]
        [--lengths 1,3,5,7] [--pairs beginner:intermediate,intermediate:expert] [--jobs 2]
    .venv/bin/python bench/analysis_vs_gnubg.py --cpu [--plies 1,2] [--warm] [--filtered-only]
    .venv/bin/python bench/analysis_vs_gnubg.py --against-plays 8 [--runs 8]

`--against-plays N` times ours (`--cpu`'s 5- and 7-point matches, 2-ply) with the search as
it is and with the same search keeping N plays for full depth, alternating in one process:
each one's median CPU seconds and the ratio of each pair.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import functools
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # for tests.*

from fibs_server.bots.analysis import (  # noqa: E402
    EXHAUSTIVE,
    GNUBG_FILTER,
    MatchAnalysis,
    analyse_match,
)
from fibs_server.bots.brain import LEVELS, Level  # noqa: E402
from fibs_server.protocol.views.matfile import mat_games, write_mat  # noqa: E402
from fibs_server.rules.dice import SeededDice  # noqa: E402
from fibs_server.rules.match import Match  # noqa: E402
from tests.bots.helpers import play_bots  # noqa: E402
from tests.gnubg_analysis import (  # noqa: E402
    BLUNDERS_FOUND,
    Comparison,
    compare,
    gnubg_analysis,
    rates_agree,
    run_gnubg,
)

NAMES = ("left", "right")


def played(levels: tuple[Level, Level], length: int, seed: int) -> Match:
    match = Match(length, SeededDice(seed))
    play_bots(match, levels, random.Random(seed))
    return match


def judged(match: Match, plies: int, directory: Path, name: str,
           names: tuple[str, str] = NAMES) -> tuple[MatchAnalysis, Comparison, float]:
    """Our analysis (and its CPU seconds) and gnubg's of the same match, the players named
    `names` in the `.mat` file."""
    mat_file = directory / f"{name}.mat"
    mat_file.write_text(write_mat(names, match.length, mat_games(match), match.variant))
    started = time.process_time()
    ours = analyse_match(match, plies)
    seconds = time.process_time() - started
    return ours, compare(ours, gnubg_analysis(mat_file, names, plies - 1)), seconds


def played_and_judged(plies: int, lengths: list[int], pairs: list[tuple[Level, Level]],
                      directory: Path, number: int) -> tuple[Comparison, float]:
    """Match `number` of the comparison (its levels, length and seed follow from it), played
    and judged in a worker process."""
    match = played(pairs[number % len(pairs)], lengths[number % len(lengths)], seed=number)
    _, against, seconds = judged(match, plies, directory, f"m{number}")
    return against, seconds


def comparison(plies: int, matches: int, lengths: list[int],
               pairs: list[tuple[Level, Level]], jobs: int) -> bool:
    # Per role (left level, right level): our and gnubg's error and decisions, summed.
    sums: dict[str, list[float]] = {}
    blunders = found = 0
    print(f"our analysis at bgsage {plies}-ply, gnubg's at {plies - 1}-ply; error rates in "
          "mEMG per unforced decision")
    print(f"{'match':<34} {'ours':>12} {'gnubg':>12} {'blunders':>9} {'found':>6} {'cpu':>6}")
    with tempfile.TemporaryDirectory(prefix="analysis-vs-gnubg-") as folder, \
            concurrent.futures.ProcessPoolExecutor(jobs) as pool:
        judging = functools.partial(played_and_judged, plies, lengths, pairs, Path(folder))
        for number, (against, seconds) in enumerate(pool.map(judging, range(matches))):
            levels = pairs[number % len(pairs)]
            length = lengths[number % len(lengths)]
            for side in (0, 1):
                role = f"{levels[side].name} (against {levels[1 - side].name})"
                mine, theirs = against.ours[side], against.gnubg[side]
                row = sums.setdefault(role, [0.0, 0.0, 0.0, 0.0])
                row[0] += mine.total_error
                row[1] += mine.unforced_decisions
                row[2] += theirs.checker_error + theirs.cube_error
                row[3] += theirs.unforced_decisions
            blunders += len(against.blunders)
            found += against.blunders_found
            name = f"{number:>2} {length}p {levels[0].name}-{levels[1].name}"
            print(f"{name:<34} {against.ours[0].error_rate:>5.1f} "
                  f"{against.ours[1].error_rate:>5.1f}  {against.gnubg[0].error_rate:>5.1f} "
                  f"{against.gnubg[1].error_rate:>5.1f} "
                  f"{len(against.blunders):>9} {against.blunders_found:>6} {seconds:>6.1f}",
                  flush=True)
    good = True
    print(f"\n{'player':<34} {'ours':>6} {'gnubg':>6}  within bounds")
    for role, (error, count, their_error, their_count) in sums.items():
        our_rate, their_rate = 1000 * error / count, 1000 * their_error / their_count
        agree = rates_agree(our_rate, their_rate)
        good &= agree
        print(f"{role:<34} {our_rate:>6.1f} {their_rate:>6.1f}  {'yes' if agree else 'NO'}")
    share = found / blunders if blunders else 1.0
    good &= share >= BLUNDERS_FOUND
    print(f"gnubg's blunders marked at least bad by ours: {found} of {blunders} ({share:.0%})")
    return good


def children_cpu() -> float:
    """CPU seconds of this process's finished children (gnubg)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cpu(plies_list: list[int], directory: Path, warm: bool = False,
        filtered_only: bool = False) -> None:
    """CPU seconds of the analysis of whole matches (intermediate against expert): ours
    filtered and exhaustive, gnubg's at the same depth, measured one after the other.
    `warm`: each match analysed once before it is timed (the networks loaded: for runs of
    two checkouts interleaved); `filtered_only`: the exhaustive reference left out."""
    print(f"{'length':>6} {'plies':>5} {'decisions':>9} {'ours s':>7} {'exhaustive s':>12} "
          f"{'gnubg s':>7} {'ours/gnubg':>10} {'exhaustive/gnubg':>16}")
    for length in (1, 5, 7):
        match = played((LEVELS["intermediate"], LEVELS["expert"]), length, seed=length)
        mat_file = directory / f"cpu{length}.mat"
        mat_file.write_text(write_mat(NAMES, match.length, mat_games(match), match.variant))
        for plies in plies_list:
            if warm:
                analyse_match(match, plies)
            seconds = []
            for search in (GNUBG_FILTER,) if filtered_only else (GNUBG_FILTER, EXHAUSTIVE):
                started = time.process_time()
                analysis = analyse_match(match, plies, search)
                seconds.append(time.process_time() - started)
            started = children_cpu()
            run_gnubg(mat_file, plies - 1)
            gnubg = children_cpu() - started
            exhaustive = seconds[-1]  # the filtered run's own with filtered_only
            print(f"{length:>6} {plies:>5} {len(analysis.decisions):>9} {seconds[0]:>7.2f} "
                  f"{exhaustive:>12.2f} {gnubg:>7.2f} {seconds[0] / gnubg:>10.2f} "
                  f"{exhaustive / gnubg:>16.2f}", flush=True)


def against_plays(plays: int, runs: int) -> None:
    """Ours as it searches against the same search keeping `plays` plays, alternating."""
    other = dataclasses.replace(GNUBG_FILTER, plays=plays)
    print(f"{'length':>6} {'ours s':>7} {f'{plays} plays s':>10} {'ratios of the pairs'}")
    for length in (5, 7):
        match = played((LEVELS["intermediate"], LEVELS["expert"]), length, seed=length)
        analyse_match(match, 2)  # the networks loaded
        seconds: dict[str, list[float]] = {"ours": [], "other": []}
        for _ in range(runs):
            for name, search in (("other", other), ("ours", GNUBG_FILTER)):
                started = time.process_time()
                analyse_match(match, 2, search)
                seconds[name].append(time.process_time() - started)
        ratios = sorted(mine / theirs for mine, theirs in zip(seconds["ours"], seconds["other"],
                                                                strict=True))
        print(f"{length:>6} {statistics.median(seconds['ours']):>7.2f} "
              f"{statistics.median(seconds['other']):>10.2f} median "
              f"{statistics.median(ratios):.3f} ({ratios[0]:.3f}-{ratios[-1]:.3f})", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--plies", default="2", help="bgsage's; --cpu takes a list")
    parser.add_argument("--matches", type=int, default=32)
    parser.add_argument("--lengths", default="1,3,5,7")
    parser.add_argument("--pairs", default="beginner:intermediate,intermediate:expert")
    parser.add_argument("--jobs", type=int, default=1, help="matches judged at once")
    parser.add_argument("--cpu", action="store_true")
    parser.add_argument("--warm", action="store_true",
                        help="--cpu: each match analysed once before it is timed")
    parser.add_argument("--filtered-only", action="store_true",
                        help="--cpu: without the exhaustive reference (its columns repeat ours)")
    parser.add_argument("--against-plays", type=int,
                        help="time ours against the same search keeping this many plays")
    parser.add_argument("--runs", type=int, default=8, help="--against-plays: pairs")
    arguments = parser.parse_args()
    if arguments.against_plays:
        against_plays(arguments.against_plays, arguments.runs)
        return
    if arguments.cpu:
        with tempfile.TemporaryDirectory(prefix="analysis-cpu-") as folder:
            cpu([int(plies) for plies in arguments.plies.split(",")], Path(folder),
                arguments.warm, arguments.filtered_only)
        return
    pairs = [(LEVELS[a], LEVELS[b]) for a, b in
             (pair.split(":") for pair in arguments.pairs.split(","))]
    good = comparison(int(arguments.plies), arguments.matches,
                      [int(length) for length in arguments.lengths.split(",")], pairs,
                      arguments.jobs)
    sys.exit(0 if good else 1)


if __name__ == "__main__":
    main()
