"""Visitors, bot matches, a refused answer re-sent, a club's logins: what a bystander feels.

Each scenario starts `python -m fibs_server` afresh on a temporary SQLite database (loopback
only), starts the bystander's match (bench/bystander.py), logs a fresh user in (and out)
every second from a clean address, and runs the attack from a separate process, from loopback
addresses 127.0.0.2 and up, which the server sees as addresses:

  banned  9,000 visitors (`bot` at the login prompt), 25 at a time, from a banned address
          (those beyond the 10 visitors per address at a time are refused for that)
  bots    300 visitors from 10 addresses, started within 6.5 s, each playing `bot expert 1`
          again and again (refused: again 2 s later) for --seconds
  repeat  20 connections from 5 addresses each register and send the same too-short
          password 1,000 times, four rounds
  club    30 members log in at once (bcrypt cost 12) from the address they used before,
          while a guesser at the same address is past its free failures; meanwhile two
          more log in from elsewhere: one from the address it used before (ELSEWHERE), one
          from an address new to its account (NEW_TO_ACCOUNT)

For each: the bystander's latency (bench/bystander.py: two users playing a match ask `time`
every 25 ms in turn; median, p99, max), the fresh logins' times, and the attack's own figures
(answers by kind).

    .venv/bin/python bench/visitor_abuse.py --scenarios banned,bots,repeat,club
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import multiprocessing
import re
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bystander import NAMES, Bystander, watch_while_alive  # noqa: E402
from load import (  # noqa: E402
    PASSWORD,
    REPOSITORY,
    ServerProcess,
    create_accounts,
    raise_file_limit,
    report,
)

sys.path.insert(0, str(REPOSITORY))
from fibs_server.protocol import texts  # noqa: E402
from fibs_server.protocol.wording import admin_texts

REPLY_TIMEOUT = 60.0
BANNED = "127.0.0.2"
CLUB = "127.0.0.5"
MEMBERS = [f"member{chr(97 + n // 26)}{chr(97 + n % 26)}" for n in range(30)]
ELSEWHERE, NEW_TO_ACCOUNT = "127.0.0.6", "127.0.0.7"
OUTSIDERS = {"outsidera": ELSEWHERE, "outsiderb": NEW_TO_ACCOUNT}
PROMPTS = re.compile(r"^(> )+")


# --- the attacks (each runs in a process of its own) ----------------------------------------

async def connect(port: int, source: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    await asyncio.wait_for(reader.readuntil(b"login: "), REPLY_TIMEOUT)
    return reader, writer


async def banned(port: int, seconds: float) -> dict[str, int]:
    answers: collections.Counter[str] = collections.Counter()
    queue = iter(range(9000))

    async def one_after_another() -> None:
        for _ in queue:
            reader, writer = await connect(port, BANNED)
            writer.write(b"bot\r\n")
            answer = (await asyncio.wait_for(reader.read(), REPLY_TIMEOUT)).decode(errors="replace")
            writer.close()
            answers["banned" if admin_texts.banned(None) in answer
                    else answer.strip().splitlines()[-1]] += 1

    await asyncio.gather(*(one_after_another() for _ in range(25)))
    # Every name was freed: ten visitors from a clean address (the cap per address) get in.
    admitted = 0
    for _ in range(10):
        reader, writer = await connect(port, "127.0.0.3")
        writer.write(b"bot\r\n")  # the bots are off: in, then `bot` is an unknown command
        try:
            await asyncio.wait_for(reader.readuntil(b"Unknown command"), REPLY_TIMEOUT)
            admitted += 1
        except asyncio.IncompleteReadError:  # refused and closed
            pass
    answers["clean visitors admitted afterwards"] = admitted
    return dict(answers)


class Lines:
    """What the e2e Bot calls `client`: a telnet visitor's lines, prompts stripped."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    async def send(self, line: str) -> None:
        await asyncio.sleep(0.5)  # a player's think time
        self.writer.write(f"{line}\r\n".encode())

    async def read_line(self, timeout: float = REPLY_TIMEOUT) -> str:
        line = await asyncio.wait_for(self.reader.readuntil(b"\r\n"), timeout)
        return PROMPTS.sub("", line.decode(errors="replace").rstrip("\r\n"))


async def bots(port: int, seconds: float) -> dict[str, int]:
    from tests.e2e.bot import Bot
    counts: collections.Counter[str] = collections.Counter()
    under_way = 0
    deadline = time.monotonic() + seconds

    async def visitor(number: int) -> None:
        nonlocal under_way
        await asyncio.sleep(6.5 * number / 300)
        reader, writer = await connect(port, f"127.0.0.{10 + number % 10}")
        lines = Lines(reader, writer)
        writer.write(b"bot x\r\n")  # in as a visitor (a usage refusal), to set up the board
        line = await lines.read_line()
        while not line.startswith("** ") or line.endswith(" authenticated."):
            line = await lines.read_line()
        if not line.startswith("** usage"):
            counts[line] += 1  # refused as a visitor
            writer.close()
            return
        counts["visitors admitted"] += 1
        writer.write(b"set boardstyle 3\r\ntoggle moreboards\r\nbot expert 1\r\n")
        player = Bot(lines, f"visitor{number}", seed=number)
        playing = False
        try:
            while time.monotonic() < deadline:
                try:
                    line = await lines.read_line(max(0.1, deadline - time.monotonic()))
                except asyncio.TimeoutError:
                    break
                if "has joined you" in line:
                    counts["bot matches started"] += 1
                    under_way += 1
                    playing = True
                    counts["most under way"] = max(counts["most under way"], under_way)
                elif line in (texts.TOO_MANY_BOT_MATCHES, texts.TOO_MANY_BOT_MATCHES_FROM_ADDRESS):
                    counts[line] += 1
                    await asyncio.sleep(2)
                    writer.write(b"bot expert 1\r\n")
                elif re.fullmatch(r"(You win|\S+ wins) the \d+ point match .*", line):
                    under_way -= 1
                    playing = False
                    writer.write(b"bot expert 1\r\n")
                else:
                    await player.react(line)
        finally:
            under_way -= playing
            writer.close()

    await asyncio.gather(*(visitor(n) for n in range(300)))
    return dict(counts)


async def repeat(port: int, seconds: float) -> dict[str, int]:
    counts: collections.Counter[str] = collections.Counter()

    async def one(round_: int, n: int) -> None:
        reader, writer = await connect(port, f"127.0.0.{10 + n % 5}")
        name = f"newbie{chr(97 + round_)}{chr(97 + n)}"
        writer.write(f"guest\r\nname {name}\r\n".encode() + b"ab\r\n" * 1000)
        answer = (await asyncio.wait_for(reader.read(), REPLY_TIMEOUT)).decode(errors="replace")
        writer.close()
        counts["refusals answered"] += answer.count("Minimal password length")
        counts["closed with the goodbye"] += texts.same_answer_refused(5) in answer

    for round_ in range(4):
        await asyncio.gather(*(one(round_, n) for n in range(20)))
    return dict(counts)


async def club(port: int, seconds: float) -> dict[str, Any]:
    async def attempt(connection, name: str, password: str) -> tuple[float, bool]:
        reader, writer = connection
        started = time.monotonic()
        writer.write(f"login bench 1008 {name} {password}\r\n".encode())
        await asyncio.wait_for(reader.readuntil(b"\r\n"), REPLY_TIMEOUT)
        answer = await asyncio.wait_for(reader.readexactly(7), REPLY_TIMEOUT)
        return time.monotonic() - started, answer != b"login: "

    guesser = await connect(port, CLUB)
    for n in range(21):  # past the address's 20 free failures: its next guess waits 2 s
        await attempt(guesser, f"nobody{chr(97 + n)}", "guess")
    connections = [await connect(port, CLUB) for _ in MEMBERS]
    outsiders = {name: await connect(port, address) for name, address in OUTSIDERS.items()}

    async def from_outside(name: str) -> tuple[float, bool]:
        await asyncio.sleep(0.5)  # once the club's checks are queued
        return await attempt(outsiders[name], name, PASSWORD)

    guessing = asyncio.ensure_future(attempt(guesser, "nobodyz", "guess"))
    outside = asyncio.gather(*(from_outside(name) for name in OUTSIDERS))
    answers = await asyncio.gather(*(attempt(c, name, PASSWORD)
                                     for c, name in zip(connections, MEMBERS)))
    (elsewhere, elsewhere_in), (new, new_in) = await outside
    await guessing
    times = sorted(seconds for seconds, _ in answers)
    return {"members let in": sum(ok for _, ok in answers),
            "login seconds p50/max": f"{times[len(times) // 2]:.2f} / {times[-1]:.2f}",
            "from elsewhere, known good there: seconds": f"{elsewhere:.2f} (in: {elsewhere_in})",
            "from an address new to its account: seconds": f"{new:.2f} (in: {new_in})"}


ATTACKS = {"banned": banned, "bots": bots, "repeat": repeat, "club": club}


def attack_process(kind: str, port: int, seconds: float, results: Any) -> None:
    raise_file_limit()
    results.put(asyncio.run(ATTACKS[kind](port, seconds)))


def prepare(database_url: str, kind: str) -> None:
    create_accounts(database_url, NAMES, 4)
    if kind == "club":  # cost 12, as in production; each logged in from the club before
        create_accounts(database_url, [*MEMBERS, *OUTSIDERS], 12)
    path = database_url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as database:
        database.execute("UPDATE accounts SET last_login_at = 1, last_login_host = ? "
                         "WHERE name LIKE 'member%'", (CLUB,))
        database.execute("UPDATE accounts SET last_login_at = 1, last_login_host = ? "
                         "WHERE name = 'outsidera'", (ELSEWHERE,))
        database.execute("INSERT INTO sanctions (kind, name_key, name, address, until, "
                         "created_by, created_at) VALUES ('ban', 'mallory', 'mallory', ?, "
                         "NULL, 'admin', 0)", (BANNED,))


def server_options(kind: str) -> list[str]:
    return ["--bots", "on" if kind == "bots" else "off",
            # the club's 30 and its guesser: over the default 30
            "--connections-per-address", "40" if kind == "club" else "30"]


def run(kind: str, seconds: float) -> None:
    with tempfile.TemporaryDirectory() as directory:
        database_url = f"sqlite:///{Path(directory) / 'visitors.db'}"
        prepare(database_url, kind)
        server = ServerProcess([sys.executable, "-m", "fibs_server", "--host", "127.0.0.1",
                                "--port", "0", "--http-port", "0", "--database-url",
                                database_url, "--bcrypt-rounds", "4", "--log-level", "WARNING",
                                *server_options(kind)])
        try:
            context = multiprocessing.get_context("spawn")
            results = context.Queue()
            attacker = context.Process(target=attack_process,
                                       args=(kind, server.port, seconds, results))
            bystander = Bystander(server.port)
            asyncio.run(watch_while_alive(bystander, attacker))
            report(kind, bystander.summary())
            report("", str(results.get(timeout=REPLY_TIMEOUT)))
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenarios", default=",".join(ATTACKS), help=", ".join(ATTACKS))
    parser.add_argument("--seconds", type=float, default=30.0, help="seconds of bot play")
    arguments = parser.parse_args()
    for kind in arguments.scenarios.split(","):
        run(kind, arguments.seconds)


if __name__ == "__main__":
    main()
