"""Load harness: many CLIP sessions over real sockets against one server process.

It creates accounts directly in a temporary SQLite database (one bcrypt hash per cost,
computed once), starts `python -m fibs_server` on it, and drives it from several client
processes (asyncio, raw protocols), so that the load generator is not the bottleneck. The same
login and command phases then run against bench/echo_server.py, the ceiling plain asyncio
reaches on this machine, and the report gives our figures as ratios to it.

Phases (select with --scenarios):
  idle      log in --sessions CLIP sessions: login rate, server RSS per idle session
  commands  every session sends `set boardstyle 3` every --command-interval seconds
  broadcast the same, while one user toggles `ready` every --toggle-interval seconds: a CLIP 5
            who-line to every session each time
  burst     the same, while --burst fresh sessions log in at once with cost-12 bcrypt hashes
  matches   --matches pairs (from the logged-in sessions) play --match-length point matches
            (one after another) at about one action per second per match with the e2e bot's
            engine-driven play
  logins    with everyone online, --storm-logins fresh sessions log in (cost-4 hashes, 20 at a
            time per client process): the server's CPU per login, over the logins and until
            the fan-outs they caused are written, less what it spends idle meanwhile
            (and what one cost-4 check costs, measured beside)
  drops     last: every session but --survivors drops its connection at once; the time until
            each survivor has been told of every drop (its CLIP 8 lines), the server's CPU
            meanwhile and its RSS before and at most

    .venv/bin/python bench/load.py --sessions 1000 --matches 100 --duration 20

Logins come from 127.0.0.1 unless --client-addresses spreads them over more loopback
addresses: the server queues each address's password checks apart, so that one address's
logins come no faster than one thread checks them (a storm of players comes from many).
"""
from __future__ import annotations

import argparse
import asyncio
import dataclasses
import multiprocessing
import os
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Protocol

REPOSITORY = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPOSITORY))  # for tests.e2e.bot, the engine-driven CLIP bot

from fibs_server.lobby.commands.common import LONG_MATCH  # noqa: E402
from fibs_server.lobby.services.bot_players import BotConfig  # noqa: E402

PASSWORD = "secret"
CLIENT_PROCESSES = 3
LOGIN_CONCURRENCY = 20  # logins in flight per client process: the server takes ~60/s
REPLY_TIMEOUT = 60.0
MATCH_OVER = re.compile(r"(You win|\S+ wins) the \d+ point match .*")
BOT_LEVELS = ("beginner", "intermediate", "expert")
# Lines every CLIP client gets (who-lines, login notices, match reports), dropped from a match
# player's byte stream in one C pass: a player's client gets every other match's start and
# end too (1,000 matches starting at once send each of 2,000 players 3,000 lines), and parsing
# them line by line in Python made the client processes, not the server, the limit of the
# matches phase. What reaches the bot is its own match's text.
BROADCAST_LINES = re.compile(rb"^(?:[5678](?: [^\r\n]*)?|\S+ and \S+ (?:start|are resuming) "
                             rb"[^\r\n]*|\S+ wins a \d+ point match against [^\r\n]*)\r\n", re.M)

# --- the client side (runs in the client processes) ---------------------------------------------


class Client(asyncio.Protocol):
    """One connection. Either waits for a marker in the byte stream (cheap: most of what a
    CLIP session receives is other users' who-lines) or hands every line to `on_line`."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.tail = b""
        self.marker = b""
        self.found: asyncio.Future[float] | None = None
        self.on_line = None
        self.closed = asyncio.get_running_loop().create_future()
        self.logouts = 0  # CLIP 8 lines received (the drops phase's survivors count them)
        self._last_bytes = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)
        if self.found is not None and not self.found.done():
            self.found.set_exception(ConnectionError("closed"))

    def expect(self, marker: bytes) -> asyncio.Future[float]:
        self.marker, self.tail = marker, b""
        self.found = asyncio.get_running_loop().create_future()
        return self.found

    def send(self, line: str) -> float:
        assert self.transport is not None
        self.transport.write(line.encode() + b"\r\n")
        return time.monotonic()

    def data_received(self, data: bytes) -> None:
        now = time.monotonic()
        # A logout line starts a line: after CR LF, which may have come with the last read.
        self.logouts += (self._last_bytes + data).count(b"\r\n8 ")
        self._last_bytes = data[-2:]
        if self.on_line is not None:
            *lines, self.tail = BROADCAST_LINES.sub(b"", self.tail + data).split(b"\r\n")
            for line in lines:
                self.on_line(line.decode("ascii", "replace"), now)
            return
        if self.found is None or self.found.done():
            return
        window = self.tail + data
        if self.marker in window:
            self.found.set_result(now)
        else:
            self.tail = window[-len(self.marker):]


class ThinkingSender:
    """What Bot calls `client`: a player who waits a think time, then sends."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.sent_at = 0.0

    async def send(self, line: str) -> None:
        await asyncio.sleep(random.uniform(0.5, 1.5))
        self.sent_at = self.client.send(line)


@dataclasses.dataclass
class Target:
    """What the server under test answers, so one harness drives fibs_server and the echo."""
    login_reply: str  # with {name}
    command_reply: str

    @staticmethod
    def named(kind: str) -> Target:
        if kind == "echo":
            return Target(login_reply="login bench 1008 {name} ", command_reply="set boardstyle 3")
        return Target(login_reply="\r\n2 {name} ", command_reply="Value of 'boardstyle' set to 3.")


class Worker:
    """The sessions of one client process."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.sessions: dict[str, Client] = {}
        self.marked: dict[str, int] = {}  # logout lines per session when marked

    async def close(self) -> None:
        """The coordinator is done with this process (its sockets close with it)."""

    async def log_in(self, port: int, names: list[str], concurrency: int,
                     addresses: int = 1) -> dict:
        """`names` log in, `concurrency` at a time, from `addresses` loopback addresses in turn
        (127.0.0.1, .2, ...: the server paces and queues each address's password checks apart,
        so logins from one address come no faster than one thread checks them)."""
        limit = asyncio.Semaphore(concurrency)
        latencies: list[float] = []
        failures: dict[str, int] = {}

        async def one(index: int, name: str) -> None:
            async with limit:
                try:
                    started = time.monotonic()
                    _, client = await asyncio.get_running_loop().create_connection(
                        Client, "127.0.0.1", port,
                        local_addr=(f"127.0.0.{1 + index % addresses}", 0))
                    await asyncio.wait_for(client.expect(b"login: "), REPLY_TIMEOUT)
                    reply = client.expect(self.target.login_reply.format(name=name).encode())
                    client.send(f"login bench 1008 {name} {PASSWORD}")
                    latencies.append(await asyncio.wait_for(reply, REPLY_TIMEOUT) - started)
                    self.sessions[name] = client
                except (OSError, asyncio.TimeoutError) as error:
                    failures[type(error).__name__] = failures.get(type(error).__name__, 0) + 1

        started = time.monotonic()
        await asyncio.gather(*(one(index, name) for index, name in enumerate(names)))
        return {"latencies": latencies, "failures": failures,
                "started": started, "finished": time.monotonic()}

    async def drop(self, names: list[str]) -> dict:
        """These sessions' connections closed at once."""
        dropped = 0
        for name in names:
            client = self.sessions.pop(name, None)  # None: its login failed
            if client is not None and client.transport is not None:
                client.transport.abort()
                dropped += 1
        return {"dropped": dropped}

    async def mark_logouts(self) -> dict:
        """Each session's logout lines so far, from which `await_logouts` counts."""
        self.marked = {name: client.logouts for name, client in self.sessions.items()}
        return {}

    async def await_logouts(self, survivors: list[str], expected: int, timeout: float) -> dict:
        """When every one of `survivors` has received `expected` more logout lines than when
        marked."""
        clients = [self.sessions[name] for name in survivors if name in self.sessions]
        start = {id(self.sessions[name]): self.marked[name] for name in survivors
                 if name in self.sessions}
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if all(c.logouts - start[id(c)] >= expected for c in clients):
                return {"settled": time.monotonic(), "told": expected}
            await asyncio.sleep(0.05)
        return {"settled": None, "told": [c.logouts - start[id(c)] for c in clients]}

    async def commands(self, names: list[str], duration: float, interval: float) -> dict:
        """Each session: `set boardstyle 3` every `interval` seconds, from a random phase."""
        samples: list[tuple[float, float]] = []  # (sent at, latency)
        timeouts = 0
        reply = self.target.command_reply.encode()

        async def one(client: Client) -> None:
            nonlocal timeouts
            deadline = time.monotonic() + duration
            await asyncio.sleep(random.uniform(0, interval))
            while time.monotonic() < deadline:
                answered = client.expect(reply)
                sent = client.send("set boardstyle 3")
                try:
                    samples.append((sent, await asyncio.wait_for(answered, REPLY_TIMEOUT) - sent))
                except (asyncio.TimeoutError, ConnectionError):
                    timeouts += 1
                    return
                await asyncio.sleep(max(0.0, sent + interval - time.monotonic()))

        await asyncio.gather(*(one(self.sessions[n]) for n in names if n in self.sessions))
        return {"samples": samples, "timeouts": timeouts}

    async def toggle_ready(self, name: str, duration: float, interval: float) -> dict:
        client = self.sessions[name]
        deadline = time.monotonic() + duration
        count = 0
        while time.monotonic() < deadline:
            client.send("toggle ready")
            count += 1
            await asyncio.sleep(interval)
        return {"toggles": count}

    async def matches(self, pairs: list[tuple[str, str]], duration: float,
                      length: int) -> dict:
        from tests.e2e.bot import Bot  # imports the engine; only match phases need it
        kinds: dict[str, list[tuple[float, float]]] = {"roll": [], "move": []}  # (sent, latency)
        stats = {"refusals": [], "matches_finished": 0, "actions": 0}
        bot_decisions: dict[str, list[float]] = {}  # bot name -> seconds per decision

        class PacedSender:
            """What Bot calls `client`: waits a player's think time, then sends."""

            def __init__(self, client: Client) -> None:
                self.client = client
                self.pending: tuple[str, float] | None = None

            async def send(self, line: str) -> None:
                await asyncio.sleep(random.uniform(0.5, 1.5))
                kind = line.split()[0]
                self.pending = (kind, self.client.send(line))
                stats["actions"] += 1

            def on_line(self, line: str, received: float) -> None:
                if self.pending is not None:
                    kind, sent = self.pending
                    self.pending = None
                    if kind in kinds:
                        kinds[kind].append((sent, received - sent))

        async def play(inviter: str, invited: str) -> None:
            deadline = time.monotonic() + duration
            players = []
            for name in (inviter, invited):
                self.sessions[name].send("set boardstyle 3")  # as client programs do: 2 is FIBS's default
                sender = PacedSender(self.sessions[name])
                lines: asyncio.Queue[str] = asyncio.Queue()

                def on_line(line: str, received: float, sender=sender, lines=lines) -> None:
                    sender.on_line(line, received)
                    lines.put_nowait(line)
                sender.client.on_line = on_line
                players.append((Bot(sender, name, seed=hash(name)), lines))

            async def run(bot: Bot, lines: asyncio.Queue[str], opponent: str,
                          invites: bool) -> None:
                if invites:
                    await bot.client.send(f"invite {opponent} {length}")
                while time.monotonic() < deadline:
                    try:
                        line = await asyncio.wait_for(lines.get(), deadline - time.monotonic())
                    except asyncio.TimeoutError:
                        return
                    if line.startswith(f"{opponent} wants to play"):
                        await bot.client.send(f"join {opponent}")
                    elif invites and MATCH_OVER.fullmatch(line):
                        stats["matches_finished"] += 1
                        await bot.client.send(f"invite {opponent} {length}")
                    else:
                        await bot.react(line)

            await asyncio.gather(run(*players[0], invited, True), run(*players[1], inviter, False))
            for bot, _ in players:
                stats["refusals"] += bot.refusals

        async def play_a_bot(name: str, bot_name: str) -> None:
            """`bot <level> 3` again and again; each of the bot's decisions timed from the
            player's last command or the bot's last action, whichever came later."""
            deadline = time.monotonic() + duration
            client = self.sessions[name]
            client.send("set boardstyle 3")
            lines: asyncio.Queue[tuple[str, float]] = asyncio.Queue()
            client.on_line = lambda line, received: lines.put_nowait((line, received))
            sender = ThinkingSender(client)
            player = Bot(sender, name, seed=hash(name))
            decisions = bot_decisions.setdefault(bot_name, [])
            level = bot_name.removeprefix("bot_")
            client.send(f"bot {level} {length}")
            last_event = time.monotonic()
            while time.monotonic() < deadline:
                try:
                    line, received = await asyncio.wait_for(lines.get(),
                                                            deadline - time.monotonic())
                except asyncio.TimeoutError:
                    break
                if line.startswith(f"{bot_name} ") and "wins" not in line:
                    decisions.append(received - last_event)
                    last_event = received
                if MATCH_OVER.fullmatch(line):
                    stats["matches_finished"] += 1
                    client.send(f"bot {level} {length}")
                    last_event = time.monotonic()
                    continue
                await player.react(line)
                last_event = max(last_event, sender.sent_at)
            stats["refusals"] += player.refusals

        await asyncio.gather(*(play_a_bot(a, b) if b.startswith("bot_") else play(a, b)
                               for a, b in pairs))
        return {"latencies": kinds, "bot_decisions": bot_decisions, **stats}


def client_process(connection: Any, target_kind: str, worker_class=None) -> None:
    """A client process: runs the phases the coordinator sends, one at a time."""
    raise_file_limit()
    worker = (worker_class or Worker)(Target.named(target_kind))

    async def serve() -> None:
        loop = asyncio.get_running_loop()
        while True:
            request = await loop.run_in_executor(None, connection.recv)
            if request is None:
                await worker.close()
                return
            method, arguments = request
            started_cpu = time.process_time()
            result = await getattr(worker, method)(*arguments)
            result["cpu"] = time.process_time() - started_cpu
            connection.send(result)

    asyncio.run(serve())


# --- the coordinator -------------------------------------------------------------------------


def raise_file_limit() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


class ServerProcess:
    """The server under test as a subprocess, with its CPU time and memory from /proc."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True,
                                        cwd=REPOSITORY)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        match = re.search(r"listening on \S+:(\d+)", line)
        if match is None:
            raise RuntimeError(f"server did not start: {line!r}")
        self.port = int(match.group(1))

    def rss_kib(self) -> int:
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1))

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def main_thread_cpu_seconds(self) -> float:
        """The event loop's thread's share of `cpu_seconds` (the rest: the store's and the
        password hasher's threads)."""
        stat = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/stat").read_text()
        fields = stat.rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        """SIGTERM: a graceful shutdown, timed (it tells and disconnects everyone)."""
        started = time.monotonic()
        self.process.terminate()
        try:
            self.process.wait(120)
            report("graceful stop", f"{time.monotonic() - started:.1f} s")
        except subprocess.TimeoutExpired:
            report("graceful stop", "not done in 120 s: killed")
            self.process.kill()
            self.process.wait()


class Clients:
    """The client processes; a phase runs in all of them at once."""

    def __init__(self, count: int, target_kind: str, process_main=client_process) -> None:
        context = multiprocessing.get_context("spawn")
        self.connections = []
        self.processes = []
        for _ in range(count):
            mine, theirs = context.Pipe()
            process = context.Process(target=process_main, args=(theirs, target_kind))
            process.start()
            self.connections.append(mine)
            self.processes.append(process)

    def start(self, index: int, method: str, *arguments: Any) -> None:
        self.connections[index].send((method, arguments))

    def result(self, index: int) -> dict:
        return self.connections[index].recv()

    def run_all(self, method: str, per_client: list[tuple]) -> list[dict]:
        for index, arguments in enumerate(per_client):
            self.start(index, method, *arguments)
        return [self.result(index) for index in range(len(per_client))]

    def stop(self) -> None:
        for connection in self.connections:
            connection.send(None)
        for process in self.processes:
            process.join(30)


def percentiles(values: list[float]) -> str:
    if not values:
        return "no samples"
    ordered = sorted(values)

    def at(fraction: float) -> float:
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] * 1000
    return (f"n={len(ordered)} p50={at(0.5):.1f} p95={at(0.95):.1f} p99={at(0.99):.1f} "
            f"max={ordered[-1] * 1000:.1f} ms")


def merged_counts(counts: Any) -> dict[str, int]:
    merged: dict[str, int] = {}
    for count in counts:
        for key, value in count.items():
            merged[key] = merged.get(key, 0) + value
    return merged


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] * 1000 if ordered else 0.0


def server_command(database_url: str, sessions: int, http_port: str = "0") -> list[str]:
    """`python -m fibs_server` on `database_url` with any free port, for `sessions` sessions
    from this machine."""
    headroom = str(sessions + 100)
    return [sys.executable, "-m", "fibs_server", "--host", "127.0.0.1", "--port", "0",
            "--http-port", http_port, "--database-url", database_url, "--bcrypt-rounds", "4",
            # the bench's clients come from a few loopback addresses: the per-address limits
            # are lifted, or the throttle would count the whole harness as a few guessers
            "--connections-per-address", headroom, "--address-free-failures", headroom,
            "--hash-checks-per-address", headroom, "--hash-checks-waiting", headroom,
            "--known-good-checks-per-address", headroom,
            "--address-command-burst", "1000000", "--address-commands-per-second", "1000000",
            "--log-level", "WARNING"]


def create_accounts(database_url: str, names: list[str], rounds: int) -> None:
    """Accounts `names` with password PASSWORD (one hash of the given cost, shared), ready to
    play, inserted in one transaction."""
    import bcrypt
    from sqlalchemy.ext.asyncio import async_sessionmaker

    from fibs_server.lobby.ports.accounts import TOGGLE_DEFAULTS, Account
    from fibs_server.store import upgrade_database
    from fibs_server.store.database import create_database_engine
    from fibs_server.store.models import AccountRow, name_key

    upgrade_database(database_url)
    hashed = bcrypt.hashpw(PASSWORD.encode(), bcrypt.gensalt(rounds))

    async def insert() -> None:
        engine = create_database_engine(database_url)
        async with async_sessionmaker(engine).begin() as session:
            session.add_all(
                AccountRow(name_key=name_key(name), **dataclasses.asdict(Account(
                    name=name, password_hash=hashed, created_at=int(time.time()),
                    toggles={**TOGGLE_DEFAULTS, "ready": True, "moreboards": True}))) for name in names)
        await engine.dispose()
    asyncio.run(insert())


def queue_finished_matches(database_url: str, count: int) -> None:
    """`count` finished 3-point matches between the first two accounts (random legal play),
    each queued for analysis at the default level as the transaction finishing it does."""
    from fibs_server.bots.analysis import DEFAULT_PLIES
    from fibs_server.lobby.ports.analysis_records import QueueLimits
    from fibs_server.store import SqlStore
    from tests.bots.test_analysis_lane import played_match

    async def insert() -> None:
        store = await SqlStore.open(database_url)
        store.queue_finished_matches(DEFAULT_PLIES, QueueLimits(waiting=count))
        try:
            for seed in range(count):
                played = played_match(3, seed=seed).to_dict()
                match_id = await store.create_match("u00000", "u00001", 3, played)
                await store.finish_match(match_id, {**played, "ratings": {
                    "u00000": [1500.0, 1500.0], "u00001": [1500.0, 1500.0]}}, "u00000", [])
        finally:
            await store.close()
    asyncio.run(insert())


def analysis_backlog(database_url: str) -> str:
    """How far the server's analysis queue got: its requests by status, read beside the
    running server (SQLite allows the reader)."""
    import sqlite3

    path = database_url.removeprefix("sqlite:///")
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as connection:
        counts = dict(connection.execute(
            "SELECT status, count(*) FROM analysis_requests GROUP BY status").fetchall())
    return ", ".join(f"{counts.get(status, 0)} {status}"
                     for status in ("done", "running", "queued", "failed"))


class Beside(Protocol):
    """More load during the matches phase (bench/tournament.py): its own accounts, started
    with the phase and reported after it."""

    names: list[str]

    def start(self, port: int, duration: float) -> None: ...

    def finish(self) -> str: ...


def report(label: str, text: str) -> None:
    print(f"{label:<28} {text}", flush=True)


def idle_cpu_rate(server: ServerProcess, seconds: float = 3.0) -> float:
    """The server's CPU seconds per second with nothing asked of it (its timers: the who-list's
    idle times, the heartbeat), to take off a phase's CPU."""
    cpu = server.cpu_seconds()
    time.sleep(seconds)
    return (server.cpu_seconds() - cpu) / seconds


def wait_until_idle(server: ServerProcess, idle_rate: float, limit: float = 60.0) -> float:
    """Until a second of the server's CPU is near its idle rate (what a phase set going, a
    fan-out's writes, is done): the loop time it took."""
    started = time.monotonic()
    while time.monotonic() - started < limit:
        cpu = server.cpu_seconds()
        time.sleep(1.0)
        if server.cpu_seconds() - cpu <= idle_rate + 0.05:
            break
    return time.monotonic() - started


def storm_logins(server: ServerProcess, clients: Clients, names: list[str], online: int,
                 addresses: int = 1, profiled: bool = False) -> None:
    """`names` log in, from `addresses` addresses, with `online` others online; the server's
    CPU per login, idle taken off (`profiled`: the server's cProfile on meanwhile,
    bench/profiled_server.py)."""
    if not names:
        return
    idle_rate = idle_cpu_rate(server)
    if profiled:
        server.process.send_signal(signal.SIGUSR1)
    cpu, started = server.cpu_seconds(), time.monotonic()
    loop_cpu = server.main_thread_cpu_seconds()
    shares = [names[index::len(clients.connections)] for index in range(len(clients.connections))]
    results = clients.run_all("log_in", [(server.port, share, LOGIN_CONCURRENCY, addresses)
                                         for share in shares])
    logged_in = sum(len(r["latencies"]) for r in results)
    wait_until_idle(server, idle_rate)
    spent = server.cpu_seconds() - cpu - idle_rate * (time.monotonic() - started)
    loop_spent = server.main_thread_cpu_seconds() - loop_cpu
    if profiled:
        server.process.send_signal(signal.SIGUSR2)
    elapsed = max(r["finished"] for r in results) - min(r["started"] for r in results)
    report("logins at full house", f"{logged_in} with {online} online from {addresses} "
           f"address(es) in {elapsed:.1f} s, failed: "
           f"{merged_counts(r['failures'] for r in results)}; server CPU {spent:.1f} s = "
           f"{spent / max(1, logged_in) * 1000:.1f} ms per login (idle "
           f"{idle_rate * 100:.1f}% taken off; the event loop's thread "
           f"{loop_spent / max(1, logged_in) * 1000:.1f} ms, idle not taken off; of the "
           f"rest, a cost-4 password check {password_check_cpu() * 1000:.1f} ms measured "
           f"here); latency {percentiles([x for r in results for x in r['latencies']])}")


def password_check_cpu(checks: int = 100) -> float:
    """The CPU seconds of one check of a cost-4 bcrypt hash (what each of the bench's logins
    costs the server's hashing threads), measured in this process."""
    import bcrypt
    hashed = bcrypt.hashpw(PASSWORD.encode(), bcrypt.gensalt(4))
    started = time.process_time()
    for _ in range(checks):
        bcrypt.checkpw(PASSWORD.encode(), hashed)
    return (time.process_time() - started) / checks


def mass_drop(server: ServerProcess, clients: Clients, shares: list[list[str]],
              survivors: int) -> None:
    """Every session but `survivors` (spread over the client processes) drops at once; how long
    until each survivor is told of every drop, the CPU and the RSS meanwhile."""
    per_client = max(1, survivors // len(shares))
    kept = [share[:per_client] for share in shares]
    dropped = [share[per_client:] for share in shares]
    clients.run_all("mark_logouts", [() for _ in shares])
    rss_before, cpu, started = server.rss_kib(), server.cpu_seconds(), time.monotonic()
    for index, names in enumerate(dropped):
        clients.start(index, "drop", names)
    count = sum(clients.result(index)["dropped"] for index in range(len(shares)))
    for index, names in enumerate(kept):
        clients.start(index, "await_logouts", names, count, 300.0)
    rss_peak, results = rss_before, {}
    while len(results) < len(shares):
        rss_peak = max(rss_peak, server.rss_kib())
        for index, connection in enumerate(clients.connections):
            if index not in results and connection.poll(0.1):
                results[index] = connection.recv()
    settled = [r["settled"] for r in results.values()]
    if None in settled:
        told = sorted(n for r in results.values() if r["settled"] is None for n in r["told"])
        elapsed = (f"not in 300 s ({len(told)} survivors not told all; of the drops they "
                   f"were told at least {told[0]}, median {told[len(told) // 2]})")
    else:
        elapsed = f"{max(settled) - started:.1f} s"
    report("drops", f"{count} at once, {sum(map(len, kept))} left: all told in {elapsed}, "
           f"server CPU {server.cpu_seconds() - cpu:.1f} s; RSS {rss_before // 1024} MiB "
           f"before, at most {rss_peak // 1024} MiB")


def run_target(kind: str, arguments: argparse.Namespace, directory: Path,
               beside: Beside | None = None) -> dict:
    """All selected phases against one server; returns the figures the ratios need."""
    scenarios = set(arguments.scenarios.split(","))
    names = [f"u{i:05d}" for i in range(arguments.sessions)]
    burst_names = [f"b{i:03d}" for i in range(arguments.burst)]
    storm_names = [f"s{i:05d}" for i in range(arguments.storm_logins)]
    if kind == "fibs":
        database_url = f"sqlite:///{directory / 'load.db'}"
        create_accounts(database_url, names, 4)
        if arguments.analysis_backlog:
            queue_finished_matches(database_url, arguments.analysis_backlog)
        if "burst" in scenarios:
            create_accounts(database_url, burst_names, 12)
        if "logins" in scenarios:
            create_accounts(database_url, storm_names, 4)
        more = beside.names if beside is not None else []
        if more:
            create_accounts(database_url, more, 4)
        command = server_command(database_url, arguments.sessions + arguments.burst
                                 + arguments.storm_logins + len(more))
        command += ["--analysis", arguments.analysis]
        if arguments.profile is not None:
            command[1:3] = [str(REPOSITORY / "bench" / "profiled_server.py"),
                            str(Path(arguments.profile).resolve())]
        if arguments.analysis_backlog:  # the queue's bound holds the whole backlog
            command += ["--analysis-queue", str(arguments.analysis_backlog)]
        if arguments.analysis_least_share is not None:
            command += ["--analysis-least-share", str(arguments.analysis_least_share)]
        if arguments.worker_priority is not None:
            command += ["--worker-priority", arguments.worker_priority]
        if arguments.bot_matches:
            command += ["--bots", "on", "--bot-think-time", str(arguments.bot_think_time),
                        "--bot-cpu-share", str(arguments.bot_cpu_share)]
    else:
        command = [sys.executable, str(REPOSITORY / "bench" / "echo_server.py")]
    server = ServerProcess(command)
    clients = Clients(arguments.clients, kind)
    figures: dict[str, float] = {}
    print(f"\n== {kind}: {' '.join(command[1:])}", flush=True)
    try:
        # Pairs stay in one client process, so a match's two bots share a loop.
        shares: list[list[str]] = [[] for _ in range(arguments.clients)]
        for index, name in enumerate(names):
            shares[(index // 2) % arguments.clients].append(name)
        time.sleep(1.0)
        rss_before, cpu_before = server.rss_kib(), server.cpu_seconds()
        results = clients.run_all("log_in", [(server.port, share, LOGIN_CONCURRENCY,
                                              arguments.client_addresses) for share in shares])
        elapsed = max(r["finished"] for r in results) - min(r["started"] for r in results)
        logged_in = sum(len(r["latencies"]) for r in results)
        figures["login_rate"] = logged_in / elapsed
        report("logins", f"{logged_in} in {elapsed:.1f} s = {logged_in / elapsed:.0f}/s, "
               f"failed: {merged_counts(r['failures'] for r in results)}; server CPU "
               f"{server.cpu_seconds() - cpu_before:.1f} s; latency "
               f"{percentiles([x for r in results for x in r['latencies']])}")
        time.sleep(arguments.settle)
        rss = server.rss_kib()
        figures["kib_per_session"] = (rss - rss_before) / max(1, logged_in)
        report("server RSS", f"{rss_before} KiB before, {rss} KiB with {logged_in} idle "
               f"sessions = {figures['kib_per_session']:.1f} KiB per session")

        def command_phase(label: str, extra=None) -> list[tuple[float, float]]:
            cpu = server.cpu_seconds()
            for index, share in enumerate(shares):
                clients.start(index, "commands", [n for n in share if n != names[0]],
                              arguments.duration, arguments.command_interval)
            extra_result = extra() if extra else None
            results = [clients.result(index) for index in range(arguments.clients)]
            samples = [s for r in results for s in r["samples"]]
            report(label, f"{percentiles([s[1] for s in samples])}, "
                   f"{sum(r['timeouts'] for r in results)} timeouts; server CPU "
                   f"{(server.cpu_seconds() - cpu) / arguments.duration * 100:.0f}%, clients CPU "
                   f"{sum(r['cpu'] for r in results) / arguments.duration * 100:.0f}%")
            figures[f"{label}_p99"] = p99([s[1] for s in samples])
            return samples if extra_result is None else (samples, extra_result)

        if "commands" in scenarios:
            command_phase("commands")
        if "broadcast" in scenarios and kind == "fibs":
            def toggles() -> None:
                # The toggler shares client process 0's loop with its commands: start both.
                clients.connections[0].send(
                    ("toggle_ready", (names[0], arguments.duration, arguments.toggle_interval)))
            toggles_started = time.monotonic()
            samples = command_phase("commands+broadcast", toggles)
            report("", f"({arguments.duration / arguments.toggle_interval:.0f} who-broadcasts "
                   f"to {logged_in} sessions in {time.monotonic() - toggles_started:.0f} s)")
            clients.result(0)  # the toggler's own result
        if "burst" in scenarios and kind == "fibs":
            burst_clients = Clients(1, kind)

            def burst() -> dict:
                time.sleep(arguments.duration / 4)
                burst_clients.start(0, "log_in", server.port, burst_names, len(burst_names))
                return burst_clients.result(0)
            samples, result = command_phase("commands+burst", burst)
            during = [lat for sent, lat in samples if result["started"] <= sent <= result["finished"]]
            report("", f"{len(result['latencies'])} cost-12 logins in "
                   f"{result['finished'] - result['started']:.1f} s, "
                   f"failed: {result['failures']}; others during the burst: {percentiles(during)}")
            figures["burst_others_p99"] = p99(during)
            burst_clients.stop()
        if "logins" in scenarios and kind == "fibs":
            storm_logins(server, clients, storm_names, logged_in, arguments.client_addresses,
                         arguments.profile is not None)
        if "matches" in scenarios and kind == "fibs" and arguments.matches:
            pairs_per_client: list[list[tuple[str, str]]] = [[] for _ in range(arguments.clients)]
            for index in range(arguments.matches):
                pair = (names[2 * index + 2], names[2 * index + 3])  # names[0] toggles
                pairs_per_client[(index + 1) % arguments.clients].append(pair)
            for index in range(arguments.bot_matches):
                player = 2 * arguments.matches + 2 + index
                pair = (names[player], f"bot_{BOT_LEVELS[index % len(BOT_LEVELS)]}")
                pairs_per_client[(player // 2) % arguments.clients].append(pair)  # its process
            cpu = server.cpu_seconds()
            started = time.monotonic()
            if beside is not None:
                beside.start(server.port, arguments.duration)
            results = clients.run_all("matches", [(pairs, arguments.duration,
                                                   arguments.match_length)
                                                  for pairs in pairs_per_client])
            if beside is not None:
                report("beside", beside.finish())
            for action in ("roll", "move"):
                samples = [x for r in results for x in r["latencies"][action]]
                values = [latency for _, latency in samples]
                report(f"matches: {action}", percentiles(values))
                figures[f"{action}_p99"] = p99(values)
                if arguments.warmup:
                    # After the start-up burst (every match starting at once), the steady state.
                    steady = [latency for sent, latency in samples
                              if sent >= started + arguments.warmup]
                    report(f"  after {arguments.warmup:.0f} s", percentiles(steady))
                    figures[f"{action}_steady_p99"] = p99(steady)
            for bot_name in sorted({b for r in results for b in r["bot_decisions"]}):
                decisions = [x - arguments.bot_think_time
                             for r in results for x in r["bot_decisions"].get(bot_name, [])]
                report(f"{bot_name} decisions", percentiles(decisions))
                figures[f"{bot_name}_p99"] = p99(decisions)
            refusals = [x for r in results for x in r["refusals"]]
            report("matches", f"{arguments.matches} at once, "
                   f"{sum(r['actions'] for r in results) / arguments.duration:.0f} actions/s, "
                   f"{sum(r['matches_finished'] for r in results)} finished, "
                   f"{len(refusals)} refusals {refusals[:3]}; server CPU "
                   f"{(server.cpu_seconds() - cpu) / arguments.duration * 100:.0f}%, clients CPU "
                   f"{sum(r['cpu'] for r in results) / arguments.duration * 100:.0f}%")
            if arguments.analysis == "on":
                report("analysis requests", analysis_backlog(database_url))
        if "drops" in scenarios and kind == "fibs":
            mass_drop(server, clients, shares, arguments.survivors)
    finally:
        # The server first, with everyone still connected: that is the graceful stop to time.
        # Clients leaving first made it 10,000 logouts, each told to everyone still online.
        server.stop()
        clients.stop()
    return figures


def argument_parser(description: str) -> argparse.ArgumentParser:
    """The flags of every phase (bench/tournament.py adds its own)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--matches", type=int, default=1_000)
    parser.add_argument("--burst", type=int, default=200)
    parser.add_argument("--scenarios", default="idle,commands,broadcast,burst,matches")
    parser.add_argument("--targets", default="fibs,echo", help="fibs, echo or both")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds per phase")
    parser.add_argument("--command-interval", type=float, default=10.0,
                        help="seconds between one session's commands")
    parser.add_argument("--toggle-interval", type=float, default=0.5)
    parser.add_argument("--settle", type=float, default=5.0,
                        help="seconds after the logins before memory is read")
    parser.add_argument("--clients", type=int, default=CLIENT_PROCESSES)
    parser.add_argument("--client-addresses", type=int, default=1,
                        help="loopback addresses the logins come from (127.0.0.1 up), at most 254")
    parser.add_argument("--storm-logins", type=int, default=200,
                        help="logins: fresh sessions logging in with everyone online")
    parser.add_argument("--profile", metavar="FILE",
                        help="logins: cProfile the server's event loop over the phase into FILE "
                             "(pstats); its CPU figure then includes the profiler's own")
    parser.add_argument("--survivors", type=int, default=99,
                        help="drops: the sessions that stay while all others drop")
    parser.add_argument("--bot-matches", type=int, default=0,
                        help="matches: also this many players against the built-in bots "
                             "(levels in turn), each playing --match-length point matches one "
                             "after another")
    parser.add_argument("--match-length", type=int, default=3,
                        help="matches: the points of the pairs' and the bot matches' matches (at "
                             f"most {LONG_MATCH}: the bench's accounts have no rating-list "
                             "experience)")
    parser.add_argument("--bot-think-time", type=float, default=BotConfig.think_time,
                        help="the server's --bot-think-time (its default: a bot match goes at "
                             "a person's pace); taken off the bots' decision times reported")
    parser.add_argument("--bot-cpu-share", type=float, default=1.0,
                        help="the server's --bot-cpu-share")
    parser.add_argument("--analysis", default="off", choices=["on", "off"],
                        help="the server's --analysis: off measures play alone (the server's own "
                             "default is on); on also reports how far the analysis queue got")
    parser.add_argument("--analysis-backlog", type=int, default=0,
                        help="with --analysis on: this many finished 3-point matches queued for "
                             "analysis before the server starts, so that it analyses throughout")
    parser.add_argument("--analysis-least-share", type=float, default=None,
                        help="with --analysis on: the server's --analysis-least-share (its "
                             "default if not given)")
    parser.add_argument("--worker-priority", default=None, choices=["idle", "normal"],
                        help="the server's --worker-priority (bots and analyses; its default, "
                             "idle, if not given): normal on a machine other work keeps busy")
    parser.add_argument("--warmup", type=float, default=0.0,
                        help="matches: also report latencies of actions sent after this many "
                             "seconds (the steady state after every match started at once)")
    return parser


def main() -> None:
    arguments = argument_parser(__doc__.split("\n\n")[0]).parse_args()
    if "matches" in arguments.scenarios:
        assert 2 * arguments.matches + 2 + arguments.bot_matches <= arguments.sessions, \
            "matches need 2 sessions each, bot matches one"
    assert 1 <= arguments.client_addresses <= 254, "--client-addresses: 127.0.0.1 to .254"
    raise_file_limit()
    print(f"{time.strftime('%Y-%m-%d %H:%M')}  {' '.join(sys.argv)}", flush=True)
    figures = {}
    with tempfile.TemporaryDirectory() as directory:
        for kind in arguments.targets.split(","):
            figures[kind] = run_target(kind, arguments, Path(directory))
    if {"fibs", "echo"} <= figures.keys():
        fibs, echo = figures["fibs"], figures["echo"]
        print("\nfibs_server / echo ceiling:", flush=True)
        for key in ("login_rate", "kib_per_session", "commands_p99"):
            if echo.get(key):
                report(f"  {key}", f"{fibs[key]:.1f} / {echo[key]:.1f} = "
                       f"{fibs[key] / echo[key]:.2f}")


if __name__ == "__main__":
    main()
