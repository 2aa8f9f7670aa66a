"""Bot decisions: time per decision and level, strength, and whether bgsage releases the GIL.

    .venv/bin/python bench/bot_decisions.py                  # decision times, in-process
    .venv/bin/python bench/bot_decisions.py --pool           # the same through BotPool
    .venv/bin/python bench/bot_decisions.py --gil            # 1 thread against 2
    .venv/bin/python bench/bot_decisions.py --strength 100   # one-point games between levels
    .venv/bin/python bench/bot_decisions.py --concurrency 1,8,24,48,96 [--seconds 20]

Decision times: each level plays --matches seeded 5-point matches against itself; every
decision it makes is timed (the CPU of one decision, or with --pool the wait of the asking
coroutine: queueing, pickling and the worker). Figures: docs/BOTS.md.

Concurrency: N coroutines ask the pool for expert decisions back to back (moments met in
seeded matches), at the server's time budget, while one more asks an intermediate decision
every 0.1 s; per N, the useful decisions a second (the engine's own, in time), the share
that ran out of time (the fallback), and the waits. Figures: docs/PERFORMANCE.md.
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import dataclasses
import hashlib
import itertools
import random
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fibs_server.bots import (  # noqa: E402  # noqa: E402
    BEGINNER,
    EXPERT,
    INTERMEDIATE,
    LEVELS,
    BotPool,
    Level,
    brain,
    decide,
    engine,
    situation_for,
)
from fibs_server.lobby.services.bot_players import BotConfig  # noqa: E402
from fibs_server.rules import Match, Phase, Position, SeededDice  # noqa: E402

MATCH_LENGTH = 5


def kind_of(phase: Phase) -> str:
    return "move" if phase is Phase.MOVE else "cube/resign/join"


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


HEADER = f"{'level':13} {'decisions':17} {'count':>6} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}"


def report(name: str, times: dict[str, list[float]]) -> None:
    for kind, values in sorted(times.items()):
        milliseconds = [value * 1000 for value in values]
        print(f"{name:13} {kind:17} {len(values):6} {statistics.median(milliseconds):8.2f}"
              f" {percentile(milliseconds, 0.99):8.2f} {max(milliseconds):8.2f}")


def play(level: Level, seed: int, ask) -> dict[str, list[float]]:
    """A match of `level` against itself; `ask(situation)` returns (decision, seconds)."""
    times = collections.defaultdict(list)
    match = Match(MATCH_LENGTH, SeededDice(seed))
    match.start()
    while not match.is_over:
        for player in (0, 1):
            situation = situation_for(match, player)
            if situation:
                decision, seconds = ask(situation)
                times[kind_of(situation.phase)].append(seconds)
                times["all"].append(seconds)
                decision.apply(match, player)
                break
    return times


def decision_times(matches: int) -> None:
    """CPU time (bgsage's own threads included) and wall time of each decision."""
    brain.warm_up()  # as the pool's workers do when they start
    for clock in (time.process_time, time.perf_counter):
        print(f"in-process, {clock.__name__}")
        print(HEADER)
        for level in LEVELS.values():
            rng = random.Random(1)

            def ask(situation):
                start = clock()
                decision = decide(situation, level, rng)
                return decision, clock() - start

            merged = collections.defaultdict(list)
            for seed in range(matches):
                for kind, values in play(level, seed, ask).items():
                    merged[kind] += values
            report(level.name, merged)


async def pool_times(matches: int) -> None:
    pool = BotPool(time_budget=10.0)
    await pool.start()
    print(f"BotPool, {pool.workers} worker(s); wall time of pool.decide")
    print(HEADER)
    loop = asyncio.get_running_loop()
    seeds = itertools.count()
    for level in LEVELS.values():
        merged = collections.defaultdict(list)
        for seed in range(matches):
            # The match runs in a thread that asks the pool on the loop, one decision at a time.
            def ask(situation):
                start = time.perf_counter()
                decision = asyncio.run_coroutine_threadsafe(
                    pool.decide(situation, level, next(seeds)), loop).result()
                return decision, time.perf_counter() - start

            times = await loop.run_in_executor(None, play, level, seed, ask)
            for kind, values in times.items():
                merged[kind] += values
        report(level.name, merged)
    print(pool.counts)
    await pool.close()


def gil(calls: int) -> None:
    """The same work in one thread, then split over two: twice as fast if the GIL is free."""
    board = engine.board_of(Position.initial())
    one_ply, two_ply = engine.analyzer(1), engine.analyzer(2)
    data = b"x" * 50_000_000
    work = {
        "control: hashlib.sha256 of 50 MB (releases the GIL)":
            (lambda: hashlib.sha256(data).digest(), 8),
        "bgsage 1-ply checker play (6-5, opening)":
            (lambda: one_ply.checker_play(board, 6, 5), calls),
        "bgsage 1-ply probabilities (post_move_analytics)":
            (lambda: one_ply.post_move_analytics(board), calls * 10),
        "bgsage 2-ply checker play (6-5, opening)":
            (lambda: two_ply.checker_play(board, 6, 5), max(4, calls // 20)),
    }
    for name, (call, count) in work.items():
        def run(times, call=call):
            for _ in range(times):
                call()

        run(1)  # warm caches
        start = time.perf_counter()
        run(count)
        alone = time.perf_counter() - start
        with ThreadPoolExecutor(2) as threads:
            start, start_cpu = time.perf_counter(), time.process_time()
            list(threads.map(run, [count // 2, count - count // 2]))
            shared = time.perf_counter() - start
            cores = (time.process_time() - start_cpu) / shared
        # Cores: CPU time over wall time. Work holding the GIL stays near 1 however idle the
        # machine; the speed-up also depends on what else runs.
        print(f"{name}: {count} calls, 1 thread {alone:.2f} s, 2 threads {shared:.2f} s, "
              f"speed-up {alone / shared:.2f}, cores used {cores:.2f}")


def strength(games: int) -> None:
    pairs = [(EXPERT, BEGINNER), (INTERMEDIATE, BEGINNER), (EXPERT, INTERMEDIATE)]
    for stronger, weaker in pairs:
        wins = 0
        start = time.perf_counter()
        for game in range(games):
            side = game % 2
            levels = (stronger, weaker) if side == 0 else (weaker, stronger)
            match = Match(1, SeededDice(game))
            match.start()
            rng = random.Random(game)
            while not match.is_over:
                for player in (0, 1):
                    situation = situation_for(match, player)
                    if situation:
                        decide(situation, levels[player], rng).apply(match, player)
                        break
            wins += match.score[side] > match.score[1 - side]
        print(f"{stronger.name} against {weaker.name}: {wins} of {games} one-point games "
              f"({time.perf_counter() - start:.0f} s)")


def met_situations(count: int) -> list:
    """Moments the bots decide at, from seeded matches of the quick intermediate."""
    situations: list = []
    seeds = itertools.count()
    while len(situations) < count:
        rng = random.Random(seed := next(seeds))

        def ask(situation):
            if situation.phase in (Phase.MOVE, Phase.ROLL_OR_DOUBLE):
                situations.append(situation)
            return decide(situation, INTERMEDIATE, rng), 0.0

        play(INTERMEDIATE, seed, ask)
    return situations[:count]


async def concurrency(levels_of_load: list[int], seconds: float) -> None:
    situations = met_situations(2000)
    server = BotConfig()  # the server's defaults
    pool = BotPool(workers=server.workers, time_budget=server.time_budget,
                   cpu_share=server.cpu_share)
    await pool.start()
    print(f"BotPool, {pool.workers} worker(s) and one for the quick levels, time budget "
          f"{pool.time_budget} s; {seconds:.0f} s per row")
    print(f"{'concurrent':>10} {'asked':>6} {'useful/s':>9} {'late %':>7} {'expert p50':>11} "
          f"{'p99 ms':>7} {'intermediate p50':>17} {'p99 ms':>7}")
    loop = asyncio.get_running_loop()
    for concurrent in levels_of_load:
        waits: list[float] = []
        quick_waits: list[float] = []
        before = dataclasses.replace(pool.counts)
        stop_at = loop.time() + seconds
        picks = itertools.count(concurrent * 7919)

        async def ask_back_to_back() -> None:
            while loop.time() < stop_at:
                situation = situations[next(picks) % len(situations)]
                start = time.perf_counter()
                await pool.decide(situation, EXPERT, seed=1)
                waits.append(time.perf_counter() - start)

        async def ask_quick_now_and_then() -> None:
            while loop.time() < stop_at:
                situation = situations[next(picks) % len(situations)]
                start = time.perf_counter()
                await pool.decide(situation, INTERMEDIATE, seed=1)
                quick_waits.append(time.perf_counter() - start)
                await asyncio.sleep(0.1)

        await asyncio.gather(ask_quick_now_and_then(),
                             *(ask_back_to_back() for _ in range(concurrent)))
        counts = pool.counts
        asked = (counts.decided + counts.late + counts.refused + counts.failed
                 - before.decided - before.late - before.refused - before.failed
                 - len(quick_waits))
        useful = counts.decided - before.decided - len(quick_waits)
        late = counts.late - before.late
        print(f"{concurrent:>10} {asked:>6} {useful / seconds:>9.1f} "
              f"{100 * late / max(1, asked):>7.1f} "
              f"{statistics.median(waits) * 1000:>11.0f} {percentile(waits, 0.99) * 1000:>7.0f} "
              f"{statistics.median(quick_waits) * 1000:>17.1f} "
              f"{percentile(quick_waits, 0.99) * 1000:>7.1f}", flush=True)
    await pool.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=4, help="5-point matches per level")
    parser.add_argument("--pool", action="store_true", help="through BotPool")
    parser.add_argument("--gil", action="store_true", help="1 thread against 2")
    parser.add_argument("--calls", type=int, default=400, help="bgsage calls for --gil")
    parser.add_argument("--strength", type=int, metavar="GAMES", help="one-point games")
    parser.add_argument("--concurrency", metavar="N,N,...",
                        help="expert requests at once, one row each")
    parser.add_argument("--seconds", type=float, default=20.0, help="per --concurrency row")
    arguments = parser.parse_args()
    if arguments.gil:
        gil(arguments.calls)
    elif arguments.concurrency:
        asyncio.run(concurrency([int(n) for n in arguments.concurrency.split(",")],
                                arguments.seconds))
    elif arguments.strength:
        strength(arguments.strength)
    elif arguments.pool:
        asyncio.run(pool_times(arguments.matches))
    else:
        decision_times(arguments.matches)


if __name__ == "__main__":
    main()
