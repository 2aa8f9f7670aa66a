"""Match analysis on a busy server: is every match analysed soon after its end?

Each run is bench/load.py's matches phase (its flags; run E by default) on a server of its own
with analysis on, and beside it --per-minute finished matches a minute: pairs of scripted
players (their own client process) each playing one --length-point match at full speed (no
think time, so that it ends a few seconds after it starts), a pair started every
60 / --per-minute seconds. Run E's own pairs and bot matches play --match-length point
matches, 9 here (load.py's default is 3; 9 is the longest the bench's accounts, with no
rating-list experience, may play): at 3 points they finish about 55 a minute on their own,
ten times the busy server's five; at 9 few finish within a run (the report counts them), and
the matches that finish are mostly the five a minute beside it (--match-length 3: the
harder case). The analysis queue is read every 5 s from the server's database (queued and
running requests), and after the run each finished match's wait: from the transaction that
queued it to its analysis stored (`analysis_requests.requested_at` to
`analysis_results.analysed_at`, whole seconds). The kinds of run alternate (--runs of each):
--least-shares lists the server's `--analysis-least-share` of each (0: the hold as it was,
an analysis waiting for as long as the server or its bots are busy).

    TMPDIR=/dev/shm .venv/bin/python bench/busy_analysis.py --sessions 2052 --matches 1000 \\
        --bot-matches 50 --duration 300 --warmup 45 --least-shares 0,0.25 --runs 1
"""
from __future__ import annotations

import asyncio
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/load.py
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.e2e.bot

import load  # noqa: E402

TARGET_SECONDS = 120.0  # every match analysed within this of its end
SAMPLE_SECONDS = 5.0


class FastSender:
    """What Bot calls `client`: sends at once (a match over in seconds)."""

    def __init__(self, client: load.Client) -> None:
        self.client = client

    async def send(self, line: str) -> None:
        self.client.send(line)


class FinisherWorker(load.Worker):
    async def finishers(self, port: int, names: list[str], interval: float, length: int,
                        duration: float) -> dict:
        """Pairs of `names` log in; one pair starts a `length`-point match every `interval`
        seconds (the pairs in turn) until `duration` is over."""
        from tests.e2e.bot import Bot  # imports the engine: only the players need it
        logins = await self.log_in(port, names, load.LOGIN_CONCURRENCY)
        deadline = time.monotonic() + duration
        stats: dict[str, Any] = {"started": 0, "finished": 0, "refusals": [],
                                 "login_failures": logins["failures"]}

        async def one_match(inviter: str, invitee: str) -> None:
            over = asyncio.Event()

            async def play(name: str, opponent: str, invites: bool) -> None:
                client = self.sessions[name]
                lines: asyncio.Queue[str] = asyncio.Queue()
                client.on_line = lambda line, received: lines.put_nowait(line)
                player = Bot(FastSender(client), name, seed=hash(name) + stats["started"],
                             doubles=False)
                if invites:
                    client.send(f"invite {opponent} {length}")
                while not over.is_set() and time.monotonic() < deadline:
                    try:
                        line = await asyncio.wait_for(lines.get(), 1.0)
                    except asyncio.TimeoutError:
                        continue
                    if line.startswith(f"{opponent} wants to play"):
                        client.send(f"join {opponent}")
                    elif load.MATCH_OVER.fullmatch(line):
                        if invites:
                            stats["finished"] += 1
                        over.set()
                    else:
                        await player.react(line)
                stats["refusals"] += player.refusals

            await asyncio.gather(play(inviter, invitee, True), play(invitee, inviter, False))

        # A busy server may time a login out: the pairs of those logged in.
        pairs = [(a, b) for a, b in zip(names[::2], names[1::2], strict=True)
                 if a in self.sessions and b in self.sessions]
        running: list[asyncio.Task] = []
        next_start = time.monotonic()
        while next_start < deadline:
            await asyncio.sleep(max(0.0, next_start - time.monotonic()))
            for name in (pair := pairs[stats["started"] % len(pairs)]):
                self.sessions[name].send("set boardstyle 3")
            running.append(asyncio.create_task(one_match(*pair)))
            stats["started"] += 1
            next_start += interval
        await asyncio.gather(*running)
        return stats


def finisher_client(connection: Any, target_kind: str) -> None:
    load.client_process(connection, target_kind, FinisherWorker)


def waiting_now(database: Path) -> int:
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
        return connection.execute("SELECT count(*) FROM analysis_requests "
                                  "WHERE status IN ('queued', 'running')").fetchone()[0]


class FinishingBeside:
    """The finishing matches' players, and the queue's length sampled meanwhile."""

    def __init__(self, database: Path, per_minute: float, length: int, pairs: int) -> None:
        self.database = database
        self.interval = 60.0 / per_minute
        self.length = length
        self.names = [f"f{number:03d}" for number in range(2 * pairs)]
        self.clients: load.Clients | None = None
        self.queue: list[int] = []
        self._sampling = threading.Event()
        self._sampler: threading.Thread | None = None

    def start(self, port: int, duration: float) -> None:
        self.clients = load.Clients(1, "fibs", process_main=finisher_client)
        self.clients.start(0, "finishers", port, self.names, self.interval, self.length,
                           duration)
        self._sampling.set()
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()

    def _sample(self) -> None:
        while self._sampling.is_set():
            try:
                self.queue.append(waiting_now(self.database))
            except sqlite3.Error:
                pass  # the writer's lock: the next sample
            time.sleep(SAMPLE_SECONDS)

    def finish(self) -> str:
        assert self.clients is not None and self._sampler is not None
        result = self.clients.result(0)
        self.clients.stop()
        self._sampling.clear()
        self._sampler.join()
        return (f"{result['started']} {self.length}-point matches started at full speed, "
                f"{result['finished']} finished, {len(result['refusals'])} refusals "
                f"{result['refusals'][:3]}, login failures {result['login_failures']}; its "
                f"clients' CPU {result['cpu']:.1f} s")


def waits(database: Path, ended: float) -> tuple[list[float], list[float]]:
    """Each finished match's wait for its analysis (seconds), and how long those still
    waiting at `ended` (the server's stop) had waited by then."""
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
        rows = connection.execute(
            "SELECT r.requested_at, a.analysed_at FROM analysis_requests r "
            "LEFT JOIN analysis_results a ON a.match_id = r.match_id "
            "WHERE r.requested_by IS NULL").fetchall()
    done = [analysed - requested for requested, analysed in rows if analysed is not None]
    left = [ended - requested for requested, analysed in rows if analysed is None]
    return done, left


def spread(values: list[float]) -> str:
    if not values:
        return "none"
    return (f"median {statistics.median(values):.0f} s, max {max(values):.0f} s "
            f"(n={len(values)})")


def main() -> None:
    parser = load.argument_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--per-minute", type=float, default=5.0,
                        help="finished matches a minute beside the load")
    parser.add_argument("--length", type=int, default=3, help="the finishing matches' length")
    parser.add_argument("--pairs", type=int, default=12, help="players' pairs, in turn")
    parser.add_argument("--least-shares", default="0,0.25",
                        help="the server's --analysis-least-share, a run of each in turn")
    parser.add_argument("--runs", type=int, default=1, help="runs of each kind, alternating")
    parser.set_defaults(sessions=2052, matches=1000, bot_matches=50, duration=300.0,
                        warmup=45.0, targets="fibs", scenarios="idle,matches", analysis="on",
                        match_length=load.LONG_MATCH)
    arguments = parser.parse_args()
    load.raise_file_limit()
    print(f"{time.strftime('%Y-%m-%d %H:%M')}  {' '.join(sys.argv)}", flush=True)
    rows = []
    for run in range(1, arguments.runs + 1):
        for share in arguments.least_shares.split(","):
            arguments.analysis_least_share = float(share)
            with tempfile.TemporaryDirectory() as directory:
                database = Path(directory) / "load.db"
                beside = FinishingBeside(database, arguments.per_minute, arguments.length,
                                         arguments.pairs)
                figures = load.run_target("fibs", arguments, Path(directory), beside)
                ended = time.time()
                done, left = waits(database, ended)
            within = sum(wait <= TARGET_SECONDS for wait in done)
            queue = beside.queue or [0]
            rows.append((run, share, figures, done, left, within, queue))
            load.report("analysed", f"{spread(done)}; {within} within {TARGET_SECONDS:.0f} s")
            load.report("still waiting at the end", spread(left))
            load.report("queue (every 5 s)", f"median {statistics.median(queue):.0f}, "
                        f"max {max(queue)}")
    print("\n| run | least share | move p99 after warm-up (ms) | bots' p99 (s) | analysed (within "
          f"{TARGET_SECONDS:.0f} s) | wait median / max (s) | waiting at the end, oldest (s) "
          "| queue median / max |\n|---|---|---|---|---|---|---|---|")
    for run, share, figures, done, left, within, queue in rows:
        bots = ", ".join(f"{figures[key] / 1000:.1f}" for key in sorted(figures) if key.startswith("bot_"))
        print(f"| {run} | {share} | {figures.get('move_steady_p99', 0):.1f} | {bots} | "
              f"{len(done)} ({within}) | "
              f"{statistics.median(done) if done else 0:.0f} / {max(done, default=0):.0f} | "
              f"{len(left)}, {max(left, default=0):.0f} | "
              f"{statistics.median(queue):.0f} / {max(queue)} |")


if __name__ == "__main__":
    main()
