"""The archive's heavy reads, `dicetest` and `/api/rating-history`, on a large archive, and
what a bystander feels meanwhile.

Builds a temporary SQLite database with --matches finished matches (bulk inserts at schema
revision 0004, then an upgrade to the head, so that any later migration fills its tables
from them as it would on a real server), all played by `archived` against 50 others, each
with a dice tally, a rating change and a state of about --state-bytes of JSON. Starts
`python -m fibs_server` on it and runs each attack in turn for --seconds:

  dicetest  one CLIP user sends `dicetest` over and over, each once the last is answered
  history   one address asks /api/rating-history?name=archived --rate times a second
  hflood    the same with 4 requests in flight at all times

Meanwhile a logged-in bystander asks `time` every 25 ms (its latency: median, p99, max) and a
fresh telnet login starts every 0.5 s (its latency). Reports the attacker's answers too.

    .venv/bin/python bench/heavy_reads.py --matches 200000 --seconds 10
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import socket
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from floods import TIME_REPLY, ask_time, log_in  # noqa: E402
from load import ServerProcess, create_accounts, percentiles, report  # noqa: E402

ARCHIVED = "archived"
OPPONENTS = [f"opponent{i:02d}" for i in range(50)]
USERS = ["bystander", "latecomer", "flooder"]
BATCH = 5_000  # matches per insert statement
ROLL_KINDS = 21  # rules.dice_stats.ROLLS
# Every 25 ms: under a user's 50 commands a second; faster, it queued behind its own pacing.
PROBE_INTERVAL = 0.025
LOGIN_INTERVAL = 0.5
REQUEST_TIMEOUT = 60.0


def build_archive(database_url: str, matches: int, state_bytes: int) -> float:
    """The archive, in bulk; returns the seconds the upgrade to the head took."""
    import orjson
    from sqlalchemy import insert

    from fibs_server.store import downgrade_database, upgrade_database
    from fibs_server.store.database import create_database_engine
    from fibs_server.store.models import MatchRow, table_of

    create_accounts(database_url, [ARCHIVED, *OPPONENTS, *USERS], 4)
    downgrade_database(database_url, "0004")  # the matches go in as an older server stored them
    event = {"type": "move", "player": 0, "dice": [3, 1], "move": "8/5 6/5"}
    events = [event] * max(1, state_bytes // len(orjson.dumps(event)))
    tally = [[3] * ROLL_KINDS, [3] * ROLL_KINDS, [1] * ROLL_KINDS]  # 21 rolls each, in thirds
    started_at = int(time.time()) - 10 * matches

    def row(index: int) -> dict:
        before = 1500.0 + index % 100
        return {"player_a": ARCHIVED if index % 2 else OPPONENTS[index % 50],
                "player_b": OPPONENTS[index % 50] if index % 2 else ARCHIVED,
                "length": 5, "finished": True, "winner": ARCHIVED,
                "started_at": started_at + 10 * index, "updated_at": started_at + 10 * index + 9,
                "finished_at": started_at + 10 * index + 9,
                "state": {"length": 5, "history": [events],
                          "ratings": {ARCHIVED: [before, before + 1.5],
                                      OPPONENTS[index % 50]: [1500.0, 1498.5]}},
                "dice_seed": "00" * 32, "dice_drawn": 63, "dice_tally": tally}

    async def insert_all() -> None:
        engine = create_database_engine(database_url)
        try:
            for start in range(0, matches, BATCH):
                async with engine.begin() as connection:
                    await connection.execute(insert(table_of(MatchRow)),
                                             [row(i) for i in range(start, min(matches,
                                                                              start + BATCH))])
        finally:
            await engine.dispose()

    asyncio.run(insert_all())
    started = time.monotonic()
    upgrade_database(database_url)
    return time.monotonic() - started


class Bystander:
    """`time` every PROBE_INTERVAL (not waiting for answers: a stall counts for every probe
    it delays) and a fresh login every LOGIN_INTERVAL, until stopped."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.latencies: list[float] = []
        self.logins: list[float] = []

    async def run(self, stop: asyncio.Event) -> None:
        reader, writer = await log_in(self.port, "bystander")
        sent_at: collections.deque[float] = collections.deque()

        async def answers() -> None:
            while True:
                await reader.readuntil(TIME_REPLY)
                self.latencies.append(time.perf_counter() - sent_at.popleft())

        async def logins() -> None:
            while not stop.is_set():
                started = time.perf_counter()
                _, fresh = await log_in(self.port, "latecomer")
                self.logins.append(time.perf_counter() - started)
                fresh.close()
                await asyncio.sleep(LOGIN_INTERVAL)

        receiving = asyncio.create_task(answers())
        logging_in = asyncio.create_task(logins())
        while not stop.is_set():
            sent_at.append(time.perf_counter())
            writer.write(b"time\r\n")
            await asyncio.sleep(PROBE_INTERVAL)
        await logging_in
        while sent_at and not receiving.done():
            await asyncio.sleep(0.01)
        receiving.cancel()
        writer.close()


async def dicetest_loop(port: int, stop: asyncio.Event) -> str:
    """`dicetest`, then `time` to know where its answer ends, over and over."""
    reader, writer = await log_in(port, "flooder")
    await ask_time(reader, writer)  # past the login's lines
    latencies, refused = [], 0
    while not stop.is_set():
        started = time.perf_counter()
        writer.write(b"dicetest\r\ntime\r\n")
        answer = await asyncio.wait_for(reader.readuntil(TIME_REPLY), REQUEST_TIMEOUT)
        latencies.append(time.perf_counter() - started)
        refused += b"Dice rolled on this server" not in answer
    writer.close()
    return f"{len(latencies)} dicetests, {refused} refused; each {percentiles(latencies)}"


async def history_requests(http_port: int, stop: asyncio.Event, rate: float | None,
                           in_flight: int) -> str:
    """`in_flight` requesters, each asking once per 1/rate seconds (None: at once again)."""
    url = f"http://127.0.0.1:{http_port}/api/rating-history?name={ARCHIVED}"
    statuses: collections.Counter[int] = collections.Counter()
    latencies: list[float] = []

    async def requester(http: aiohttp.ClientSession) -> None:
        while not stop.is_set():
            started = time.perf_counter()
            async with http.get(url) as answer:
                await answer.read()
                statuses[answer.status] += 1
            if answer.status == 200:
                latencies.append(time.perf_counter() - started)
            if rate is not None:
                await asyncio.sleep(max(0.0, 1 / rate - (time.perf_counter() - started)))

    timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT)
    async with aiohttp.ClientSession(timeout=timeout) as http:
        await asyncio.gather(*(requester(http) for _ in range(in_flight)))
    return (f"{sum(statuses.values())} requests, by status {dict(sorted(statuses.items()))}; "
            f"answered ones {percentiles(latencies)}")


async def attack(label: str, port: int, seconds: float, attacker) -> None:
    stop = asyncio.Event()
    bystander = Bystander(port)
    watching = asyncio.create_task(bystander.run(stop))
    attacking = asyncio.create_task(attacker(stop))
    await asyncio.sleep(seconds)
    stop.set()
    attacker_report = await attacking
    await watching
    report(label, f"bystander {percentiles(bystander.latencies)}; "
                  f"logins {percentiles(bystander.logins)}")
    report("", f"attacker: {attacker_report}")


async def run(arguments: argparse.Namespace, port: int, http_port: int) -> None:
    async def idle(stop: asyncio.Event) -> str:
        await stop.wait()
        return "none"
    attacks = {
        "none": idle,
        "dicetest": lambda stop: dicetest_loop(port, stop),
        "history": lambda stop: history_requests(http_port, stop, arguments.rate, 1),
        "hflood": lambda stop: history_requests(http_port, stop, None, 4),
    }
    for kind in ["none", *arguments.attacks.split(",")]:
        await attack(kind, port, arguments.seconds, attacks[kind])


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=20_000, help="finished matches stored")
    parser.add_argument("--state-bytes", type=int, default=2_000,
                        help="JSON bytes of each match's state, about")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per attack")
    parser.add_argument("--rate", type=float, default=2.0, help="history requests per second")
    parser.add_argument("--attacks", default="dicetest,history,hflood")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        database_url = f"sqlite:///{Path(directory) / 'archive.db'}"
        started = time.monotonic()
        upgrade_seconds = build_archive(database_url, arguments.matches, arguments.state_bytes)
        report("archive", f"{arguments.matches} matches in {time.monotonic() - started:.0f} s "
                          f"(upgrade to the head {upgrade_seconds:.1f} s)")
        http_port = free_port()
        server = ServerProcess([sys.executable, "-m", "fibs_server", "--host", "127.0.0.1",
                                "--port", "0", "--http-port", str(http_port),
                                "--database-url", database_url, "--bcrypt-rounds", "4",
                                "--log-level", "WARNING"])
        try:
            asyncio.run(run(arguments, server.port, http_port))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
