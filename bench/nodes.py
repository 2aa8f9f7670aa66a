"""Several nodes, one lobby: N server processes on one fresh PostgreSQL database with Redis
between them, CLIP sessions spread evenly over them (bench/load.py's client processes).

Phases:
  logins    --sessions sessions, node by node in turn: login rate, each node's RSS and its
            RSS per session
  matches   --matches pairs play 3-point matches at about one action per second per match
            (load.py's engine-driven players): half with both players on one node, half with
            the inviter on one node and the joiner on the next (the match runs at the
            inviter's node; the joiner's commands and what they are told cross Redis). Roll
            and move latency (a command to the first line of its answer) for each half, and
            the bus's traffic per move: the envelopes on the lobby's channels (the shared
            one and each node's), counted by a subscriber of this script's own, by kind of letter, and the nodes' /metrics
  kill      SIGKILL of node 0 with its matches under way: its players reconnect to another
            node, log in, and resume (the inviter `invite`s without a length, the joiner
            `join`s); the time from the kill to the pair's first accepted move, for the
            pairs with a player on the killed node

    .venv/bin/python bench/nodes.py --nodes 3 --sessions 600 --matches 100 --duration 30
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import dataclasses
import os
import re
import signal
import socket
import sys
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import (  # noqa: E402
    LOGIN_CONCURRENCY,
    REPOSITORY,
    Client,
    Clients,
    ServerProcess,
    Worker,
    client_process,
    create_accounts,
    merged_counts,
    percentiles,
    raise_file_limit,
    report,
    server_command,
)

sys.path.insert(0, str(REPOSITORY))
from fibs_server.net.redis_bus import decode_envelope  # noqa: E402

POSTGRES = "postgresql://postgres@127.0.0.1:5432/postgres"
REDIS = "redis://127.0.0.1:6379/0"
RETRY_INTERVAL = 0.25  # a refused resumption (the other node has not heard of the login yet)
UNANSWERED = 10.0  # an invitation, or its answer, lost (not seen in these runs)
BUS_METRIC = re.compile(r'^fibs_bus_envelopes_total\{outcome="(\w+)"\} (\d+)', re.M)
MATCH_LETTERS = ("Relayed", "Forwarded", "Seated", "JoinAsked")  # cross-node matches' own


# --- the client side ------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class KilledPair:
    """A pair with a player on the killed node, as its client process plays it after the kill.
    `returns_to`: the port each killed player logs in again at."""
    inviter: str
    joiner: str
    returns_to: dict[str, int]


class NodesWorker(Worker):
    async def log_in_nodes(self, shares: list[tuple[int, list[str]]]) -> dict:
        """Each (port, names) share logged in at once, each at its node."""
        results = await asyncio.gather(*(self.log_in(port, names, LOGIN_CONCURRENCY)
                                         for port, names in shares if names))
        return {"latencies": [x for r in results for x in r["latencies"]],
                "failures": merged_counts(r["failures"] for r in results),
                "started": min(r["started"] for r in results),
                "finished": max(r["finished"] for r in results)}

    async def resume_after_kill(self, pairs: list[KilledPair], timeout: float) -> dict:
        """The killed node's players, once their connection is gone, log in again where
        `returns_to` says; the inviter then invites without a length (a saved match resumes;
        a new 3-point one starts if none was saved), retried every RETRY_INTERVAL while
        refused; the joiner joins; both play on. Per pair: when its first move after the kill
        was accepted (None: not within `timeout`), and whether its saved match was loaded."""
        from tests.e2e.bot import Bot
        outcomes: dict[str, dict[str, Any]] = {}

        class Sender:
            """What Bot calls `client`; notes when a move is answered, and how."""

            def __init__(self, client: Client, outcome: dict[str, Any],
                         moved: asyncio.Event) -> None:
                self.client, self.outcome, self.moved = client, outcome, moved
                self.move_sent = False

            async def send(self, line: str) -> None:
                self.move_sent = line.startswith("move ")
                self.client.send(line)

            def answered(self, line: str, received: float) -> None:
                if self.move_sent:
                    self.move_sent = False
                    if not line.startswith("** ") and not self.moved.is_set():
                        self.outcome["first_move"] = received
                        self.moved.set()

        async def back(name: str, port: int, outcome: dict[str, Any]) -> None:
            await self.sessions[name].closed
            self.sessions.pop(name)
            while name not in self.sessions:  # bounded by the phase's timeout
                failures = (await self.log_in(port, [name], 1))["failures"]
                outcome["login_failures"] += sum(failures.values())
                await asyncio.sleep(0 if name in self.sessions else RETRY_INTERVAL)
            outcome["back"] = max(outcome["back"] or 0.0, time.monotonic())

        async def play(pair: KilledPair) -> None:
            outcome = outcomes[pair.inviter] = {
                "back": None, "joined": None, "first_move": None, "loaded": False,
                "refusals": [], "invites": 0, "login_failures": 0}
            await asyncio.gather(*(back(name, port, outcome)
                                   for name, port in pair.returns_to.items()))
            joined, answered, moved = asyncio.Event(), asyncio.Event(), asyncio.Event()
            players = []
            for name, opponent in ((pair.inviter, pair.joiner), (pair.joiner, pair.inviter)):
                client = self.sessions[name]
                client.send("set boardstyle 3")
                sender = Sender(client, outcome, moved)
                bot = Bot(sender, name, seed=hash(name))  # type: ignore[arg-type]
                lines: asyncio.Queue[str] = asyncio.Queue()

                def on_line(line: str, received: float, sender: Sender = sender,
                            lines: asyncio.Queue[str] = lines) -> None:
                    sender.answered(line, received)
                    lines.put_nowait(line)
                client.on_line = on_line
                players.append((bot, lines, opponent))
            inviter_client = self.sessions[pair.inviter]

            async def invite() -> None:
                """Until the joiner joins: invited again RETRY_INTERVAL after a refusal (the
                inviter's node may not have heard of the joiner's login yet, or still takes
                them for playing), or when the invitation went unanswered for long."""
                while not joined.is_set():
                    answered.clear()
                    outcome["invites"] += 1
                    inviter_client.send(f"invite {pair.joiner}")
                    with contextlib.suppress(asyncio.TimeoutError):
                        await asyncio.wait_for(answered.wait(), UNANSWERED)
                    with contextlib.suppress(asyncio.TimeoutError):
                        await asyncio.wait_for(joined.wait(), RETRY_INTERVAL if
                                               outcome["refused"] else UNANSWERED)

            async def run(bot: Bot, lines: asyncio.Queue[str], opponent: str) -> None:
                inviting = bot.name == pair.inviter
                while True:
                    line = await lines.get()
                    if line.startswith(f"{opponent} wants to "):  # play, or resume
                        await bot.client.send(f"join {opponent}")
                    elif inviting and not joined.is_set() and line.startswith("** "):
                        outcome["refused"] = not line.startswith("** You invited")
                        if outcome["refused"]:
                            outcome["refusals"].append(line)
                        answered.set()
                    elif inviting and f"{opponent} has joined you" in line:
                        outcome["loaded"] = "was loaded" in line
                        outcome["joined"] = time.monotonic()
                        joined.set()
                    else:
                        await bot.react(line)

            outcome["refused"] = False
            playing = [asyncio.ensure_future(invite()),
                       *(asyncio.ensure_future(run(*player)) for player in players)]
            try:
                await moved.wait()
            finally:
                for task in playing:
                    task.cancel()

        tasks = [asyncio.ensure_future(play(pair)) for pair in pairs]
        if tasks:
            _, pending = await asyncio.wait(tasks, timeout=timeout)
            for task in pending:
                task.cancel()
        return {"outcomes": outcomes}


def nodes_client_process(connection: Any, target_kind: str) -> None:
    client_process(connection, target_kind, NodesWorker)


# --- the coordinator ------------------------------------------------------------------------


@contextlib.contextmanager
def fresh_database(server_url: str) -> Iterator[str]:
    """A database of its own on the PostgreSQL server, dropped afterwards."""
    import asyncpg

    name = f"fibs_bench_{uuid.uuid4().hex[:12]}"

    async def execute(statement: str) -> None:
        admin = await asyncpg.connect(server_url)
        try:
            await admin.execute(statement)
        finally:
            await admin.close()
    asyncio.run(execute(f'CREATE DATABASE "{name}"'))
    try:
        yield f"{server_url.rpartition('/')[0]}/{name}"
    finally:
        asyncio.run(execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


class ChannelCounter:
    """A subscriber of the lobby's channels of its own (`pattern`: the shared one and each
    node's): the envelopes and bytes the nodes publish, by kind of letter (each published
    once, delivered to every subscriber)."""

    def __init__(self, url: str, pattern: str) -> None:
        import redis

        self.pubsub = redis.Redis.from_url(url).pubsub(ignore_subscribe_messages=True)
        self.pubsub.psubscribe(pattern)
        self.lock = threading.Lock()
        self.counts: collections.Counter[str] = collections.Counter()
        self.sizes: collections.Counter[str] = collections.Counter()
        self.running = True
        self.thread = threading.Thread(target=self._listen, daemon=True)
        self.thread.start()

    def _listen(self) -> None:
        while self.running:
            message = self.pubsub.get_message(timeout=0.2)
            if message is None:
                continue
            data = message["data"]
            letters = decode_envelope(data).letters
            with self.lock:
                for _, letter in letters:  # a batch's bytes shared among its letters
                    kind = type(letter).__name__
                    self.counts[kind] += 1
                    self.sizes[kind] += len(data) // len(letters)

    def snapshot(self) -> tuple[collections.Counter[str], collections.Counter[str]]:
        with self.lock:
            return collections.Counter(self.counts), collections.Counter(self.sizes)

    def stop(self) -> None:
        self.running = False
        self.thread.join(5)
        self.pubsub.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Node:
    """One server node: its process, its telnet port and its /metrics."""

    def __init__(self, command: list[str], http_port: int) -> None:
        self.server = ServerProcess(command)
        self.port, self.http_port = self.server.port, http_port

    def bus_envelopes(self) -> dict[str, int]:
        # A node busy with thousands of sessions may take a while to answer.
        with urllib.request.urlopen(f"http://127.0.0.1:{self.http_port}/metrics",
                                    timeout=120) as answer:
            text = answer.read().decode()
        return {outcome: int(count) for outcome, count in BUS_METRIC.findall(text)}

    def ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.http_port}/readyz",
                                        timeout=5) as answer:
                return bool(answer.status == 200)
        except OSError:
            return False


def summed(figures: list[dict[str, int]]) -> dict[str, int]:
    return dict(merged_counts(figures))


def plan(arguments: argparse.Namespace) -> tuple[dict[str, int], list[tuple[str, str]],
                                                  list[tuple[str, str]]]:
    """Each name's node, the same-node pairs and the cross-node pairs (inviter first): pairs
    spread over the nodes, the other sessions dealt round."""
    nodes = arguments.nodes
    names = [f"u{i:05d}" for i in range(arguments.sessions)]
    same_count = arguments.matches // 2
    node_of: dict[str, int] = {}
    same, cross = [], []
    for index in range(arguments.matches):
        inviter, joiner = names[2 * index], names[2 * index + 1]
        if index < same_count:
            node_of[inviter] = node_of[joiner] = index % nodes
            same.append((inviter, joiner))
        else:
            node_of[inviter], node_of[joiner] = index % nodes, (index + 1) % nodes
            cross.append((inviter, joiner))
    for index, name in enumerate(names[2 * arguments.matches:]):
        node_of[name] = index % nodes
    return node_of, same, cross


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=600, help="over all the nodes")
    parser.add_argument("--matches", type=int, default=100,
                        help="pairs playing at once: half on one node, half across two")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of matches")
    parser.add_argument("--warmup", type=float, default=10.0,
                        help="matches: latencies of the actions sent after this many seconds")
    parser.add_argument("--settle", type=float, default=5.0,
                        help="seconds after the logins before memory is read")
    parser.add_argument("--clients", type=int, default=4,
                        help="client processes (even: half play the same-node matches)")
    parser.add_argument("--kill-timeout", type=float, default=60.0,
                        help="seconds the killed node's pairs have to play again")
    parser.add_argument("--postgres", default=POSTGRES, help="the server; a database is made")
    parser.add_argument("--redis", default=REDIS)
    arguments = parser.parse_args()
    assert 2 * arguments.matches <= arguments.sessions, "matches need 2 sessions each"
    assert arguments.clients >= 2 and arguments.clients % 2 == 0
    assert arguments.nodes >= 2
    raise_file_limit()
    print(f"{time.strftime('%Y-%m-%d %H:%M')}  {' '.join(sys.argv)}", flush=True)
    report("load average", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    node_of, same_pairs, cross_pairs = plan(arguments)
    prefix = f"bench-{uuid.uuid4().hex[:8]}"
    with fresh_database(arguments.postgres) as database_url:
        create_accounts(database_url, sorted(node_of), 4)  # and the migrations, once
        nodes: list[Node] = []
        counter = ChannelCounter(arguments.redis, f"{prefix}:*")
        clients = None
        try:
            for index in range(arguments.nodes):
                http_port = free_port()
                # The per-address limits count over all the nodes, and a killed node's share
                # for 30 s more: room for every session twice, its players' return included.
                command = server_command(database_url, 2 * arguments.sessions,
                                         str(http_port)) + [
                    "--bus", arguments.redis, "--bus-prefix", prefix,
                    "--node-id", f"node{index}", "--bots", "off", "--analysis", "off"]
                nodes.append(Node(command, http_port))
            print(f"== {arguments.nodes} x {' '.join(command[1:])}", flush=True)
            deadline = time.monotonic() + 30
            while not all(node.ready() for node in nodes) and time.monotonic() < deadline:
                time.sleep(0.2)
            clients = Clients(arguments.clients, "fibs", nodes_client_process)
            run_phases(arguments, nodes, clients, counter, node_of, same_pairs, cross_pairs)
        finally:
            counter.stop()
            for node in nodes:
                if node.server.process.poll() is None:
                    node.server.stop()
            if clients is not None:
                clients.stop()


def run_phases(arguments: argparse.Namespace, nodes: list[Node], clients: Clients,
               counter: ChannelCounter, node_of: dict[str, int],
               same_pairs: list[tuple[str, str]], cross_pairs: list[tuple[str, str]]) -> None:
    halves = arguments.clients // 2
    # Client processes 0..halves-1 play the same-node pairs, the others the cross-node ones;
    # a pair's two players share a process (and its loop).
    pairs_of: list[list[tuple[str, str]]] = [[] for _ in range(arguments.clients)]
    for index, pair in enumerate(same_pairs):
        pairs_of[index % halves].append(pair)
    for index, pair in enumerate(cross_pairs):
        pairs_of[halves + index % halves].append(pair)
    names_of: list[list[str]] = [[name for pair in pairs for name in pair] for pairs in pairs_of]
    others = [name for name in node_of if not any(name in share for share in names_of)]
    for index, name in enumerate(others):
        names_of[index % arguments.clients].append(name)

    # --- logins
    time.sleep(1.0)
    rss_before = [node.server.rss_kib() for node in nodes]
    results = clients.run_all("log_in_nodes", [
        ([(node.port, [n for n in names if node_of[n] == index])
          for index, node in enumerate(nodes)],) for names in names_of])
    elapsed = max(r["finished"] for r in results) - min(r["started"] for r in results)
    logged_in = sum(len(r["latencies"]) for r in results)
    report("logins", f"{logged_in} over {len(nodes)} nodes in {elapsed:.1f} s = "
           f"{logged_in / elapsed:.0f}/s, failed: {merged_counts(r['failures'] for r in results)}"
           f"; latency {percentiles([x for r in results for x in r['latencies']])}")
    time.sleep(arguments.settle)
    per_node = collections.Counter(node_of.values())
    for index, node in enumerate(nodes):
        rss = node.server.rss_kib()
        report(f"node{index} RSS", f"{rss_before[index]} KiB before, {rss} KiB with "
               f"{per_node[index]} sessions = "
               f"{(rss - rss_before[index]) / max(1, per_node[index]):.1f} KiB per session")

    # --- matches
    cpu = [node.server.cpu_seconds() for node in nodes]
    bus_before = summed([node.bus_envelopes() for node in nodes])
    counts_before, sizes_before = counter.snapshot()
    started = time.monotonic()
    results = clients.run_all("matches", [(pairs, arguments.duration) for pairs in pairs_of])
    counts_after, sizes_after = counter.snapshot()
    bus_after = summed([node.bus_envelopes() for node in nodes])
    moves = {}
    for label, group in (("same node", results[:halves]), ("cross node", results[halves:])):
        for action in ("roll", "move"):
            # After the start-up burst (every pair inviting and joining at once).
            values = [latency for r in group for sent, latency in r["latencies"][action]
                      if sent >= started + arguments.warmup]
            report(f"{label}: {action}", percentiles(values))
        moves[label] = sum(len(r["latencies"]["move"]) for r in group)
        refusals = [x for r in group for x in r["refusals"]]
        report(f"{label}: matches", f"{sum(r['actions'] for r in group)} actions "
               f"({moves[label]} moves), {sum(r['matches_finished'] for r in group)} finished, "
               f"{len(refusals)} refusals {refusals[:3]}")
    report("nodes CPU", ", ".join(
        f"{(node.server.cpu_seconds() - before) / arguments.duration * 100:.0f}%"
        for node, before in zip(nodes, cpu)) + "; clients CPU " + ", ".join(
        f"{r['cpu'] / arguments.duration * 100:.0f}%" for r in results))
    counts, sizes = counts_after - counts_before, sizes_after - sizes_before
    all_moves = max(1, sum(moves.values()))
    report("bus (channel)", f"{sum(counts.values())} letters, {sum(sizes.values())} bytes "
           f"in {arguments.duration:.0f} s = {sum(counts.values()) / all_moves:.1f} letters, "
           f"{sum(sizes.values()) / all_moves:.0f} bytes per move")
    for kind in sorted(counts, key=lambda k: -sizes[k]):
        report(f"  {kind}", f"{counts[kind]} letters, {sizes[kind]} bytes, "
               f"{sizes[kind] / counts[kind]:.0f} bytes each")
    match_count = sum(counts[k] for k in MATCH_LETTERS)
    match_bytes = sum(sizes[k] for k in MATCH_LETTERS)
    cross_moves = max(1, moves["cross node"])
    report("  cross-node match letters", f"{match_count / cross_moves:.1f} envelopes, "
           f"{match_bytes / cross_moves:.0f} bytes per cross-node move")
    report("bus (/metrics)", ", ".join(f"{k} {bus_after.get(k, 0) - bus_before.get(k, 0)}"
                                       for k in ("published", "received", "dropped", "missed")))
    report("load average", " ".join(f"{x:.2f}" for x in os.getloadavg()))

    # --- kill
    killed = 0
    survivors = [node for index, node in enumerate(nodes) if index != killed]
    kill_pairs: list[list[KilledPair]] = [[] for _ in range(arguments.clients)]
    kinds: dict[str, str] = {}
    for process, pairs in enumerate(pairs_of):
        for index, (inviter, joiner) in enumerate(pairs):
            on_killed = [name for name in (inviter, joiner) if node_of[name] == killed]
            if not on_killed:
                continue
            back_on = [node for node in survivors if node_of[inviter] != nodes.index(node)]
            if on_killed == [joiner] and back_on:
                # Not to the host itself: there a login takes the running match over at once
                # (tests/lobby/test_seats.py), and nothing is resumed to time.
                port = back_on[index % len(back_on)].port
            else:
                port = survivors[index % len(survivors)].port
            kill_pairs[process].append(KilledPair(inviter, joiner,
                                                  {name: port for name in on_killed}))
            kinds[inviter] = ("both players" if len(on_killed) == 2 else
                              "inviter (host)" if on_killed == [inviter] else "joiner")
    for process, pairs in enumerate(kill_pairs):
        clients.start(process, "resume_after_kill", pairs, arguments.kill_timeout)
    time.sleep(1.0)  # the client processes are waiting for their connections to close
    killed_at = time.monotonic()
    nodes[killed].server.process.send_signal(signal.SIGKILL)
    nodes[killed].server.process.wait()
    outcomes: dict[str, dict[str, Any]] = {}
    for process in range(arguments.clients):
        outcomes.update(clients.result(process)["outcomes"])
    report("kill", f"node{killed} SIGKILLed with {len(kinds)} matches of its players")
    for kind in ("both players", "inviter (host)", "joiner"):
        mine = [o for name, o in outcomes.items() if kinds[name] == kind]
        stalled = [name for name, o in outcomes.items()
                   if kinds[name] == kind and o["first_move"] is None]
        refusals = collections.Counter(line for o in mine for line in o["refusals"])
        report(f"  killed: {kind}", f"{len(mine) - len(stalled)} of {len(mine)} played again "
               f"({sum(o['loaded'] for o in mine)} saved matches loaded), "
               f"{sum(o['login_failures'] for o in mine)} failed logins, "
               f"{sum(o['invites'] for o in mine)} invites, refusals "
               f"{dict(refusals.most_common(3))}"
               + (f"; not within {arguments.kill_timeout:.0f} s: {stalled[:5]}"
                  if stalled else ""))
        for stage in ("back", "joined", "first_move"):  # logged in again, resumed, moved
            report(f"    {stage} after the kill", percentiles(
                [o[stage] - killed_at for o in mine if o[stage] is not None]))

if __name__ == "__main__":
    main()
