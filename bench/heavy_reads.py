"""The archive's heavy reads, `dicetest` and `/api/rating-history`, on a large archive, and
what a bystander feels meanwhile.

Builds a temporary SQLite database with --matches finished matches (bulk inserts at schema
revision 0004, then an upgrade to the head, so that any later migration fills its tables
from them as it would on a real server), all played by `archived` against 50 others, each
with a dice tally, a rating change and a state of about --state-bytes of JSON. Starts
`python -m fibs_server` on it and runs each attack in turn for --seconds:

  dicetest  one visitor sends `dicetest` over and over, each once the last is answered
  history   one address asks /api/rating-history?name=archived --rate times a second
  hflood    the same with 4 requests in flight at all times

Meanwhile the bystander (bench/bystander.py: two users playing a match ask `time` every 25 ms
in turn; its latency: median, p99, max) is measured, and a fresh login starts every 0.5 s
(its latency). Reports the attacker's answers too.

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
from bystander import NAMES, TIME_REPLY, Bystander  # noqa: E402
from load import ServerProcess, create_accounts, percentiles, report  # noqa: E402

ARCHIVED = "archived"
OPPONENTS = [f"opponent{i:02d}" for i in range(50)]
BATCH = 5_000  # matches per insert statement
ROLL_KINDS = 21  # rules.dice_stats.ROLLS
LOGIN_INTERVAL = 0.5
REQUEST_TIMEOUT = 60.0


def build_archive(database_url: str, matches: int, state_bytes: int) -> float:
    """The archive, in bulk; returns the seconds the upgrade to the head took."""
    import orjson
    from sqlalchemy import insert

    from fibs_server.store import downgrade_database, upgrade_database
    from fibs_server.store.database import create_database_engine
    from fibs_server.store.models import MatchRow, table_of

    create_accounts(database_url, [ARCHIVED, *OPPONENTS, *NAMES], 4)
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


async def dicetest_loop(port: int, stop: asyncio.Event, visitors: int = 1) -> str:
    """`visitors` visitors (`bot x` at the login prompt: in, and a usage refusal) each send
    `dicetest`, then `time` to know where its answer ends, over and over."""
    latencies: list[float] = []
    refused = 0

    async def one() -> None:
        nonlocal refused
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        await reader.readuntil(b"login: ")
        writer.write(b"bot x\r\ntime\r\n")
        await asyncio.wait_for(reader.readuntil(TIME_REPLY), REQUEST_TIMEOUT)
        while not stop.is_set():
            started = time.perf_counter()
            writer.write(b"dicetest\r\ntime\r\n")
            answer = await asyncio.wait_for(reader.readuntil(TIME_REPLY), REQUEST_TIMEOUT)
            latencies.append(time.perf_counter() - started)
            refused += b"Dice rolled on this server" not in answer
        writer.close()

    await asyncio.gather(*(one() for _ in range(visitors)))
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


async def attack(label: str, bystander: Bystander, seconds: float, attacker) -> None:
    stop = asyncio.Event()
    watching = asyncio.create_task(bystander.run(stop))
    attacking = asyncio.create_task(attacker(stop))
    await asyncio.sleep(seconds)
    stop.set()
    attacker_report = await attacking
    await watching
    report(label, bystander.summary())
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
    bystander = Bystander(port, LOGIN_INTERVAL)
    for kind in ["none", *arguments.attacks.split(",")]:
        await attack(kind, bystander, arguments.seconds, attacks[kind])
    bystander.close()


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
