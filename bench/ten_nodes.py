"""The bus of ten nodes at 50,000 players, simulated: each node a process of its own with the
real bus (fibs_server/net/redis_bus.py, through its public API only: `tell`, `tell_all`,
`tell_others`, and the `deliver` it calls), no lobby and no sockets; the players are the
letters their play makes, at the bench's pace. What is measured is each node's CPU for its
letters (encoding, publishing, receiving, decoding, and telling its own from the others'),
and Redis's, a private redis-server started for the run.

The pace is the one docs/PERFORMANCE.md ("100,000 players, on paper") takes from
bench/nodes.py: 40 % of the players in a match, 0.41 moves a second per match, a match
cross-node unless both players are on one node (1/nodes), 1.0 `Forwarded` and 4.3 `Relayed`
letters per cross-node move (their sizes as measured there), match starts and ends, logins
and logouts, and each node's heartbeat. At 50,000 players on 10 nodes that is about 20,600
letters a second; two cores cannot run ten nodes at that, so they run at `--scale` of it
and the figures at the full pace are the measured ones over the scale (the bus's work is
per letter, and per envelope: the letters one generator's turn tells one node share one).

    .venv/bin/python bench/ten_nodes.py --nodes 10 --players 50000 --scale 0.1 --duration 20
"""
from __future__ import annotations

import argparse
import asyncio
import cProfile
import dataclasses
import multiprocessing
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fibs_server.lobby.nodes.bus import (  # noqa: E402
    Absence,
    Forwarded,
    Letter,
    Notice,
    Presence,
    Relayed,
    RollCall,
)
from fibs_server.net.redis_bus import RedisBus  # noqa: E402
from fibs_server.protocol.clip import WhoInfo  # noqa: E402

IN_A_MATCH = 0.40  # of the players
MOVES_PER_MATCH = 0.41  # a second
FORWARDED_PER_MOVE = 1.0  # cross-node: the joiner's commands to the host
RELAYED_PER_MOVE = 4.3  # cross-node: what the joiner's seat is told, home
# A second, per 100,000 players: match starts and ends (2 Presence and a report Notice each),
# logins (a Presence) and logouts (an Absence).
MATCH_CHANGES_PER_100K = 166.0
LOGINS_PER_100K = 56.0
HEARTBEAT = 5.0  # seconds between a node's roll calls
# Seconds between the generator's turns at the full pace; over the scale when scaled, so that
# each turn tells as many letters as at the full pace (the bus publishes what a turn told in
# one pipeline: its cost per turn scales with the pace too).
TICK = 0.01
IDLE_SECONDS = 3.0  # the generator's ticks alone, measured first
BOARD = ("board:bob:alice:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:"
         "5:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0",)


def rates(nodes: int, players: int) -> dict[str, float]:
    """Letters a second that one node tells, by kind, at the full pace."""
    matches = players * IN_A_MATCH / 2
    cross_moves = matches * MOVES_PER_MATCH * (1 - 1 / nodes)
    return {
        "relayed": cross_moves * RELAYED_PER_MOVE / nodes,
        "forwarded": cross_moves * FORWARDED_PER_MOVE / nodes,
        "presence": (MATCH_CHANGES_PER_100K * 2 + LOGINS_PER_100K) * players / 100_000 / nodes,
        "report": MATCH_CHANGES_PER_100K * players / 100_000 / nodes,
        "absence": LOGINS_PER_100K * players / 100_000 / nodes,
        "roll_call": 1 / HEARTBEAT,
    }


def letter_of(kind: str, node: str, others: list[str], count: int) -> Letter:
    """A letter of `kind` from `node`, as the lobby would tell it (to a random other node)."""
    to = random.choice(others)
    name = f"{node}u{count % 5000}"
    if kind == "relayed":
        return Relayed(node, to, f"{to}u{count % 5000}", "lines", BOARD, False, count)
    if kind == "forwarded":
        return Forwarded(node, to, name, "move 8-5 6-5", number=count)
    if kind == "presence":
        info = WhoInfo(name, f"{to}u1", None, True, False, 1523.45, 123, 0, 1796400000,
                       "203.0.113.7", "CLIP/JavaFIBS", None)
        return Presence(node, dataclasses.asdict(info))
    if kind == "report":
        return Notice((f"{name} wins a 5 point match against {to}u1  5-2 .",),
                      audience="report", broadcast=True)
    if kind == "absence":
        return Absence(node, name, f"{name} drops connection.")
    return RollCall(node, answer=False)


def run_node(url: str, prefix: str, node: str, nodes: list[str], per_second: dict[str, float],
             tick: float, seconds: float, warmup: float, start: multiprocessing.synchronize.Barrier,
             results: multiprocessing.queues.Queue, profile: str | None = None) -> None:
    others = [other for other in nodes if other != node]
    counts = {"mine": 0, "others": 0}

    def deliver(names: object, letter: Letter) -> None:
        # What a node does first with a letter: is it for this node (its seats, its users)?
        to_node = getattr(letter, "to_node", None)
        counts["mine" if to_node in (None, node) else "others"] += 1

    async def serve() -> None:
        bus = RedisBus(url, node, deliver, prefix=prefix, queue_limit=1_000_000)
        await bus.start()
        await bus.until_subscribed()
        await asyncio.to_thread(start.wait)
        # The loop's own ticks with nothing to tell (this generator's, not a node's), taken
        # off what is measured.
        idle_cpu = time.process_time()
        idle_until = time.monotonic() + IDLE_SECONDS
        while time.monotonic() < idle_until:
            await asyncio.sleep(tick)
        idle_rate = (time.process_time() - idle_cpu) / IDLE_SECONDS
        begun = time.monotonic()
        told = dict.fromkeys(per_second, 0)
        profiler = cProfile.Profile(time.process_time) if profile else None
        measuring = False
        cpu = 0.0
        received = published = envelopes = 0
        mine = others_ = 0
        lag_sum = 0.0
        while (now := time.monotonic()) < begun + warmup + seconds:
            if not measuring and now >= begun + warmup:
                measuring = True
                cpu, received, published = time.process_time(), bus.figures.received, \
                    bus.figures.published
                envelopes = bus.figures.envelopes_received + bus.figures.envelopes_published
                lag_sum = bus.figures.lag_sum
                mine, others_ = counts["mine"], counts["others"]
                if profiler is not None:
                    profiler.enable()
            for kind, rate in per_second.items():
                due = int((now - begun) * rate)
                for count in range(told[kind], due):
                    letter = letter_of(kind, node, others, count)
                    if kind == "report":
                        bus.tell_all(letter)
                    else:
                        bus.tell_others(letter)  # type: ignore[arg-type]
                told[kind] = max(told[kind], due)
            await asyncio.sleep(tick)
        if profiler is not None and profile:
            profiler.disable()
            profiler.dump_stats(profile)
        results.put({"node": node, "cpu": time.process_time() - cpu - idle_rate * seconds,
                     "idle": idle_rate,
                     "received": bus.figures.received - received,
                     "published": bus.figures.published - published,
                     "envelopes": bus.figures.envelopes_received
                     + bus.figures.envelopes_published - envelopes,
                     "mine": counts["mine"] - mine, "others": counts["others"] - others_,
                     "gaps": bus.figures.gaps, "dropped": bus.figures.dropped,
                     "lag": (bus.figures.lag_sum - lag_sum)
                     / max(1, bus.figures.received - received)})
        await asyncio.to_thread(start.wait)  # nobody stops before everyone measured
        await bus.stop(flush_timeout=2.0)
    asyncio.run(serve())


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def redis_cpu(port: int) -> float:
    info = subprocess.run(["redis-cli", "-p", str(port), "info", "cpu"], capture_output=True,
                          text=True, check=True).stdout
    fields = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
    return float(fields["used_cpu_sys"]) + float(fields["used_cpu_user"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=10)
    parser.add_argument("--players", type=int, default=50_000)
    parser.add_argument("--scale", type=float, default=0.1,
                        help="of the full pace, at which the nodes run")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds measured")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--profile", metavar="FILE",
                        help="cProfile node0's measured seconds into FILE (pstats); its CPU "
                             "figure then includes the profiler's own")
    arguments = parser.parse_args()
    assert shutil.which("redis-server"), "redis-server is needed (a private one is started)"
    port = free_port()
    with tempfile.TemporaryDirectory() as directory:
        redis = subprocess.Popen(["redis-server", "--port", str(port), "--save", "",
                                  "--appendonly", "no", "--dir", directory],
                                 stdout=subprocess.DEVNULL)
        try:
            for _ in range(200):
                if subprocess.run(["redis-cli", "-p", str(port), "ping"],
                                  capture_output=True).returncode == 0:
                    break
                time.sleep(0.05)
            measure(f"redis://127.0.0.1:{port}/0", port, arguments)
        finally:
            redis.terminate()
            redis.wait()


def measure(url: str, port: int, arguments: argparse.Namespace) -> None:
    nodes = [f"node{k}" for k in range(arguments.nodes)]
    full = rates(arguments.nodes, arguments.players)
    scaled = {kind: rate * arguments.scale for kind, rate in full.items()}
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(len(nodes) + 1)
    results = context.Queue()
    processes = [context.Process(target=run_node, args=(
        url, f"ten-{os.getpid()}", node, nodes, scaled, TICK / arguments.scale,
        arguments.duration, arguments.warmup,
        start, results, arguments.profile if node == nodes[0] else None)) for node in nodes]
    for process in processes:
        process.start()
    start.wait()
    time.sleep(IDLE_SECONDS + arguments.warmup)
    redis_before = redis_cpu(port)
    figures = [results.get() for _ in nodes]
    redis_used = redis_cpu(port) - redis_before
    start.wait()
    for process in processes:
        process.join(30)
    seconds = arguments.duration
    told = sum(full.values()) * arguments.nodes
    print(f"{time.strftime('%Y-%m-%d %H:%M')}  {' '.join(sys.argv)}")
    print(f"full pace: {arguments.players} players on {arguments.nodes} nodes, {told:.0f} "
          f"letters told a second in all ({', '.join(f'{k} {v * arguments.nodes:.0f}' for k, v in full.items())}); "
          f"run at {arguments.scale:g} of it for {seconds:.0f} s")
    for figure in sorted(figures, key=lambda f: f["node"]):
        print(f"  {figure['node']}: CPU {figure['cpu'] / seconds * 100:.1f} % of a core, "
              f"received {figure['received'] / seconds:.0f}/s ({figure['others']} of "
              f"{figure['mine'] + figure['others']} for other nodes), published "
              f"{figure['published'] / seconds:.0f}/s, mean lag {figure['lag'] * 1000:.0f} ms, "
              f"gaps {figure['gaps']}, dropped {figure['dropped']}")
    cpu = sorted(f["cpu"] / seconds for f in figures)
    letters = sum(f["received"] + f["published"] for f in figures)
    envelopes = sum(f["envelopes"] for f in figures)
    per_letter = sum(f["cpu"] for f in figures) / max(1, letters)
    print(f"(each node's generator ticks alone: {max(f['idle'] for f in figures) * 100:.1f} % "
          "at most, taken off)")
    print(f"per node: CPU median {cpu[len(cpu) // 2] * 100:.1f} %, max {cpu[-1] * 100:.1f} % "
          f"of a core at this scale; {per_letter * 1e6:.0f} us per letter handled "
          f"(received or published), {letters / max(1, envelopes):.2f} letters an envelope")
    # Each node's letters a second at the full pace, by its share now; at its cost each.
    full_cpu = sorted(f["cpu"] / max(1, f["received"] + f["published"])
                      * (f["received"] + f["published"]) / seconds / arguments.scale
                      for f in figures)
    print(f"at the full pace (/ {arguments.scale:g}; valid while the nodes keep up: on one "
          f"channel each receives all the others publish): per node median "
          f"{full_cpu[len(full_cpu) // 2]:.2f}, max {full_cpu[-1]:.2f} of a core (goal <= 0.15); "
          f"Redis {redis_used / seconds / arguments.scale:.2f} of a core "
          f"({redis_used / seconds * 100:.1f} % measured)")

if __name__ == "__main__":
    main()
