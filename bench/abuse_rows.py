"""Every attack of the abuse table in docs/SECURITY.md rerun the way it was first measured,
and what a bystander feels meanwhile: one table.

Each row starts `python -m fibs_server` afresh on a temporary SQLite database (loopback only;
rows 6 and 7 on a built archive, built once per size and copied), starts the bystander
(bench/bystander.py: two users playing a match ask `time` in turn every 25 ms, within their
own command pace, and time the first reply; a third logs in every --login-interval seconds
from a clean address, each login timed), then runs the attack from a process of its own,
from loopback addresses 127.0.0.2 and up (each a distinct address to the server), with the
attack functions of the other benches:

  0   none: the bystander alone, --seconds
  1   9,000 visitors from a banned address, 25 at a time (visitor_abuse.py banned)
  2   1,100 HTTP connections from one address sending nothing or half a request head, the
      server at a soft and hard limit of 1,024 descriptors (http_abuse.py idle)
  3   150 WebSockets from 5 addresses in as visitors, flooding `who`, `board` and garbage as
      fast as they can (websocket_floods.py)
  4   the same, never reading
  5   40 kept-alive HTTP clients from 2 addresses asking for a static file as fast as they
      can (http_abuse.py requests)
  6   /api/rating-history of a player of every match, twice a second, on a --large-archive
      (heavy_reads.py history)
  7a  `dicetest` in a loop by 1 visitor on a --small-archive; 7b the same on a --large-archive;
  7c  by 5 visitors on a --small-archive (heavy_reads.py dicetest)
  8   28 never-logged-in telnet connections from 5 addresses flooding IAC NOP, empty lines and
      64 KB lines (a third each), reading what they get (floods.py)
  9   300 visitors from 10 addresses starting expert bot matches within 6.5 s and again
      whenever one ends (visitor_abuse.py bots)
  10  20 connections from 5 addresses each sending the same refused short password 1,000
      times, four rounds (visitor_abuse.py repeat)
  11  30 correct logins at once from one address (cost 12, known good there) with a guesser
      among them, and two from elsewhere (visitor_abuse.py club)

Rows 1, 10 and 11 run until their attack is done; the others for --seconds. The table: the
bystander's p50/p99/max, the logins' p50/max (ms), the server's CPU over the attack (a share
of one core) and what the attacker got.

    nice -n 19 .venv/bin/python bench/abuse_rows.py --seconds 20
    nice -n 19 .venv/bin/python bench/abuse_rows.py --rows 3,4 --seconds 5
"""
from __future__ import annotations

import argparse
import asyncio
import dataclasses
import functools
import multiprocessing
import queue
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import floods  # noqa: E402
import heavy_reads  # noqa: E402
import http_abuse  # noqa: E402
import visitor_abuse  # noqa: E402
import websocket_floods  # noqa: E402
from bystander import LOGIN_INTERVAL, NAMES, Bystander, watch_while_alive  # noqa: E402
from load import ServerProcess, create_accounts, raise_file_limit, report  # noqa: E402

FLOODERS_ADDRESSES = tuple(f"127.0.0.{number}" for number in range(2, 7))
STATE_BYTES = 2_000  # JSON of each archived match's state, about


@dataclasses.dataclass(frozen=True)
class Ports:
    telnet: int
    http: int


# --- the attacks: each runs in the attacker's process and returns what the attacker got ---

def visitors(kind: str, ports: Ports, seconds: float) -> Any:
    return asyncio.run(visitor_abuse.ATTACKS[kind](ports.telnet, seconds))


def http(attack: str, ports: Ports, seconds: float) -> Any:
    target, options = http_abuse.ATTACKS[attack]
    results: queue.Queue[Any] = queue.Queue()
    target(ports.http, *options, seconds, results)
    return results.get()


def websockets(reads: bool, ports: Ports, seconds: float) -> Any:
    return asyncio.run(websocket_floods.flood(ports.http, 150, len(FLOODERS_ADDRESSES), reads,
                                              seconds))


async def for_seconds(seconds: float, attack: Callable[[asyncio.Event], Awaitable[str]]
                      ) -> str:
    stop = asyncio.Event()
    asyncio.get_running_loop().call_later(seconds, stop.set)
    return await attack(stop)


def history(ports: Ports, seconds: float) -> str:
    return asyncio.run(for_seconds(seconds, lambda stop: heavy_reads.history_requests(
        ports.http, stop, 2.0, 1)))


def dicetests(count: int, ports: Ports, seconds: float) -> str:
    return asyncio.run(for_seconds(seconds, lambda stop: heavy_reads.dicetest_loop(
        ports.telnet, stop, count)))


def telnet_floods(ports: Ports, seconds: float) -> str:
    sent, closed = multiprocessing.Value("q", 0), multiprocessing.Value("q", 0)
    payloads = [floods.FLOODS[kind] for kind in ("nop", "empty", "long")]
    started = time.monotonic()
    floods.flood(ports.telnet, payloads, 28, seconds, sent, closed, FLOODERS_ADDRESSES)
    return (f"{sent.value / 1e6:.0f} MB sent; {closed.value} of 28 closed by the server "
            f"within the {time.monotonic() - started:.1f} s")


def nothing(ports: Ports, seconds: float) -> str:
    time.sleep(seconds)
    return "-"


# --- the rows ------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Setup:
    """What a row's database is made from: the arguments' archive sizes, built once each in
    `directory`."""
    directory: Path
    small_archive: int
    large_archive: int

    def archive(self, database_url: str, size: str) -> None:
        matches = self.small_archive if size == "small" else self.large_archive
        built = self.directory / f"archive-{matches}.db"
        if not built.exists():
            started = time.monotonic()
            heavy_reads.build_archive(f"sqlite:///{built}", matches, STATE_BYTES)
            report("archive", f"{matches} matches built in {time.monotonic() - started:.0f} s")
        shutil.copy(built, database_url.removeprefix("sqlite:///"))


def accounts(database_url: str, setup: Setup) -> None:
    create_accounts(database_url, NAMES, 4)


def archive(size: str, database_url: str, setup: Setup) -> None:
    setup.archive(database_url, size)


def visitor_accounts(kind: str, database_url: str, setup: Setup) -> None:
    visitor_abuse.prepare(database_url, kind)


@dataclasses.dataclass(frozen=True)
class Row:
    attack: str
    run: Callable[[Ports, float], Any]
    prepare: Callable[[str, Setup], None] = accounts
    options: tuple[str, ...] = ("--bots", "off")
    descriptors: int | None = None  # the server's soft and hard limit, when it matters


def visitor_row(attack: str, kind: str) -> Row:
    return Row(attack, functools.partial(visitors, kind),
               functools.partial(visitor_accounts, kind),
               tuple(visitor_abuse.server_options(kind)))


ROWS = {
    "0": Row("none", nothing),
    "1": visitor_row("9,000 visitors from a banned address, 25 at a time", "banned"),
    "2": Row("1,100 idle or half-sent HTTP connections, 1 address, 1,024 descriptors",
             functools.partial(http, "idle"), descriptors=1024),
    "3": Row("150 WebSocket visitors, 5 addresses, flooding who/board/garbage",
             functools.partial(websockets, True)),
    "4": Row("the same, never reading", functools.partial(websockets, False)),
    "5": Row("40 kept-alive HTTP clients, 2 addresses, as fast as they can",
             functools.partial(http, "requests")),
    "6": Row("rating history 2/s, large archive", history,
             functools.partial(archive, "large")),
    "7a": Row("dicetest loop, 1 visitor, small archive", functools.partial(dicetests, 1),
              functools.partial(archive, "small")),
    "7b": Row("dicetest loop, 1 visitor, large archive", functools.partial(dicetests, 1),
              functools.partial(archive, "large")),
    "7c": Row("dicetest loop, 5 visitors, small archive", functools.partial(dicetests, 5),
              functools.partial(archive, "small")),
    "8": Row("28 telnet connections never logged in, 5 addresses: IAC, empty, 64 KB lines",
             telnet_floods),
    "9": visitor_row("300 visitors, 10 addresses, starting expert bot matches", "bots"),
    "10": visitor_row("80 connections re-sending a refused password 1,000 times", "repeat"),
    "11": visitor_row("30 known-good logins at once from one address (cost 12)", "club"),
}


def attack_process(label: str, ports: Ports, seconds: float, results: Any) -> None:
    raise_file_limit()
    results.put(ROWS[label].run(ports, seconds))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclasses.dataclass
class Outcome:
    bystander: Bystander
    cpu_share: float
    attacker_got: Any


def run_row(label: str, arguments: argparse.Namespace, setup: Setup) -> Outcome:
    row = ROWS[label]
    database_url = f"sqlite:///{setup.directory / f'row{label}.db'}"
    row.prepare(database_url, setup)
    http_port = free_port()
    limit = ["prlimit", f"--nofile={row.descriptors}:{row.descriptors}"] if row.descriptors else []
    server = ServerProcess([*limit, sys.executable, "-m", "fibs_server", "--host", "127.0.0.1",
                            "--port", "0", "--http-port", str(http_port), "--database-url",
                            database_url, "--bcrypt-rounds", "4", "--log-level", "WARNING",
                            *row.options])
    try:
        context = multiprocessing.get_context("spawn")
        results = context.Queue()
        attacker = context.Process(target=attack_process, args=(
            label, Ports(server.port, http_port), arguments.seconds, results))
        bystander = Bystander(server.port, arguments.login_interval)
        cpu, started = server.cpu_seconds(), time.monotonic()
        asyncio.run(watch_while_alive(bystander, attacker))
        cpu_share = (server.cpu_seconds() - cpu) / (time.monotonic() - started)
        return Outcome(bystander, cpu_share, results.get(timeout=60))
    finally:
        server.stop()


def milliseconds(values: list[float], *fractions: float) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    return " / ".join(f"{ordered[min(len(ordered) - 1, int(f * len(ordered)))] * 1000:.0f}"
                      for f in fractions)


def table_line(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", default=",".join(ROWS), help=", ".join(ROWS))
    parser.add_argument("--seconds", type=float, default=20.0,
                        help="seconds of each attack that is not over sooner")
    parser.add_argument("--login-interval", type=float, default=LOGIN_INTERVAL,
                        help="seconds between the clean address's logins")
    parser.add_argument("--small-archive", type=int, default=20_000, help="matches")
    parser.add_argument("--large-archive", type=int, default=200_000, help="matches")
    arguments = parser.parse_args()
    labels = arguments.rows.split(",")
    unknown = [label for label in labels if label not in ROWS]
    if unknown:
        parser.error(f"no such rows: {', '.join(unknown)}")
    lines = [table_line(["row", "attack", "bystander p50 / p99 / max ms", "login p50 / max ms",
                         "server CPU", "the attacker got"]),
             table_line(["---"] * 6)]
    with tempfile.TemporaryDirectory() as directory:
        setup = Setup(Path(directory), arguments.small_archive, arguments.large_archive)
        for label in labels:
            outcome = run_row(label, arguments, setup)
            line = table_line([
                label, ROWS[label].attack,
                milliseconds(outcome.bystander.latencies, 0.5, 0.99, 1.0),
                milliseconds(outcome.bystander.logins, 0.5, 1.0),
                f"{outcome.cpu_share * 100:.0f} %", str(outcome.attacker_got)])
            report(f"row {label}", line)
            lines.append(line)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
