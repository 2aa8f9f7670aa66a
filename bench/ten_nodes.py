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

`--one-node` measures node0 alone at the full pace instead, with no scaling: the other nodes
run together in one process (each its own bus), telling only what node0 hears of them (its
share of their match letters, on its channel, and their broadcasts), and hearing what node0
tells them. Scaled down, a node wakes for nearly every envelope; at the full pace envelopes
come close enough together to share a wake, as on a real node.

The letters are made before the measuring starts (making them is the lobby's work, not the
bus's), a thousand of each kind a node, and told again in turn.

    .venv/bin/python bench/ten_nodes.py --nodes 10 --players 50000 --scale 0.1 --duration 20
    .venv/bin/python bench/ten_nodes.py --nodes 10 --players 50000 --one-node --duration 20
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
from collections.abc import Callable
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
MADE_AHEAD = 1000  # letters of each kind a node makes before measuring, told in turn
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


def run_nodes(url: str, prefix: str, hosted: list[str], nodes: list[str],
              per_second: dict[str, float], tick: float, seconds: float, warmup: float,
              start: multiprocessing.synchronize.Barrier, results: multiprocessing.queues.Queue,
              profile: str | None = None, only_to: str | None = None) -> None:
    """The nodes `hosted`, each with a bus of its own, in this process: each tells its letters
    at `per_second`, those for one node to a random other node (to `only_to` if given)."""
    counts = {"mine": 0, "others": 0}

    def deliver_on(node: str) -> Callable[[object, Letter], None]:
        def deliver(names: object, letter: Letter) -> None:
            # What a node does first with a letter: is it for this node (its seats, its users)?
            to_node = getattr(letter, "to_node", None)
            counts["mine" if to_node in (None, node) else "others"] += 1
        return deliver

    def made_ahead(node: str) -> dict[str, list[Letter]]:
        targets = [only_to] if only_to else [other for other in nodes if other != node]
        return {kind: [letter_of(kind, node, targets, count) for count in range(MADE_AHEAD)]
                for kind in per_second}

    def figures(buses: list[RedisBus]) -> dict[str, float]:
        totals = [bus.figures for bus in buses]
        return {"received": sum(f.received for f in totals),
                "published": sum(f.published for f in totals),
                "envelopes": sum(f.envelopes_received + f.envelopes_published for f in totals),
                "lag_sum": sum(f.lag_sum for f in totals),
                "gaps": sum(f.gaps for f in totals), "dropped": sum(f.dropped for f in totals)}

    async def tell_in_turn(bus: RedisBus, rates: dict[str, float], phase: float,
                           begun: float, until: float) -> None:
        """`bus`'s node telling its letters at `rates`, a turn every tick, its turns `phase`
        after the others' (nodes' turns are not in step)."""
        made = letters[bus.node_id]
        told = dict.fromkeys(rates, 0)
        await asyncio.sleep(phase)
        while (now := time.monotonic()) < until:
            for kind, rate in rates.items():
                due = int((now - begun) * rate)
                for count in range(told[kind], due):
                    letter = made[kind][count % MADE_AHEAD]
                    if kind == "report":
                        bus.tell_all(letter)
                    else:
                        bus.tell_others(letter)  # type: ignore[arg-type]
                told[kind] = max(told[kind], due)
            await asyncio.sleep(tick)

    async def turns(rates: dict[str, float], seconds: float) -> None:
        begun = time.monotonic()
        await asyncio.gather(*(tell_in_turn(bus, rates, tick * k / len(buses), begun,
                                            begun + seconds)
                               for k, bus in enumerate(buses)))

    buses: list[RedisBus] = []
    letters = {node: made_ahead(node) for node in hosted}

    async def serve() -> None:
        buses.extend(RedisBus(url, node, deliver_on(node), prefix=prefix,
                              queue_limit=1_000_000) for node in hosted)
        for bus in buses:
            await bus.start()
        for bus in buses:
            await bus.until_subscribed()
        await asyncio.to_thread(start.wait)
        # The loop's own ticks with nothing to tell (the generator's, not a node's), taken
        # off what is measured.
        idle_cpu = time.process_time()
        await turns({}, IDLE_SECONDS)
        idle_rate = (time.process_time() - idle_cpu) / IDLE_SECONDS
        telling = asyncio.create_task(turns(per_second, warmup + seconds))
        await asyncio.sleep(warmup)
        profiler = cProfile.Profile(time.process_time) if profile else None
        cpu, before = time.process_time(), figures(buses)
        mine, others = counts["mine"], counts["others"]
        if profiler is not None:
            profiler.enable()
        await telling
        if profiler is not None and profile:
            profiler.disable()
            profiler.dump_stats(profile)
        after = figures(buses)
        measured = {key: after[key] - before[key] for key in ("received", "published",
                                                               "envelopes", "lag_sum")}
        results.put({"node": hosted[0] if len(hosted) == 1 else f"{hosted[0]}-{hosted[-1]}",
                     "cpu": time.process_time() - cpu - idle_rate * seconds,
                     "idle": idle_rate, "received": measured["received"],
                     "published": measured["published"], "envelopes": measured["envelopes"],
                     "mine": counts["mine"] - mine, "others": counts["others"] - others,
                     "gaps": after["gaps"], "dropped": after["dropped"],
                     "lag": measured["lag_sum"] / max(1, measured["received"])})
        await asyncio.to_thread(start.wait)  # nobody stops before everyone measured
        for bus in buses:
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
    parser.add_argument("--one-node", action="store_true",
                        help="node0 alone at the full pace, the others in one process telling "
                             "it its share (no scaling)")
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
            if redis.poll() is not None:  # its port taken meanwhile, say: nothing to measure
                raise SystemExit(f"redis-server exited with status {redis.returncode}")
            measure(f"redis://127.0.0.1:{port}/0", port, arguments)
        finally:
            redis.terminate()
            redis.wait()


ADDRESSED = ("relayed", "forwarded")  # the kinds told to one node


def measure(url: str, port: int, arguments: argparse.Namespace) -> None:
    nodes = [f"node{k}" for k in range(arguments.nodes)]
    full = rates(arguments.nodes, arguments.players)
    scale = 1.0 if arguments.one_node else arguments.scale
    prefix = f"ten-{os.getpid()}"
    context = multiprocessing.get_context("spawn")
    if arguments.one_node:
        # The others tell node0 its share of their match letters and all their broadcasts.
        share = {kind: rate / (len(nodes) - 1) if kind in ADDRESSED else rate
                 for kind, rate in full.items()}
        runs = [([nodes[0]], full, arguments.profile, None), (nodes[1:], share, None, nodes[0])]
    else:
        scaled = {kind: rate * scale for kind, rate in full.items()}
        runs = [([node], scaled, arguments.profile if node == nodes[0] else None, None)
                for node in nodes]
    start = context.Barrier(len(runs) + 1)
    results = context.Queue()
    processes = [context.Process(target=run_nodes, args=(
        url, prefix, hosted, nodes, per_second, TICK / scale, arguments.duration,
        arguments.warmup, start, results, profile, only_to))
        for hosted, per_second, profile, only_to in runs]
    for process in processes:
        process.start()
    start.wait()
    time.sleep(IDLE_SECONDS + arguments.warmup)
    redis_before = redis_cpu(port)
    figures = sorted((results.get() for _ in runs), key=lambda f: f["node"])
    redis_used = redis_cpu(port) - redis_before
    start.wait()
    for process in processes:
        process.join(30)
    seconds = arguments.duration
    told = sum(full.values()) * arguments.nodes
    print(f"{time.strftime('%Y-%m-%d %H:%M')}  {' '.join(sys.argv)}")
    print(f"full pace: {arguments.players} players on {arguments.nodes} nodes, {told:.0f} "
          f"letters told a second in all ({', '.join(f'{k} {v * arguments.nodes:.0f}' for k, v in full.items())}); "
          + ("node0 at it, the others telling it its share" if arguments.one_node
             else f"run at {scale:g} of it") + f" for {seconds:.0f} s")
    for figure in figures:
        print(f"  {figure['node']}: CPU {figure['cpu'] / seconds * 100:.1f} % of a core, "
              f"received {figure['received'] / seconds:.0f}/s ({figure['others']} of "
              f"{figure['mine'] + figure['others']} for other nodes), published "
              f"{figure['published'] / seconds:.0f}/s, mean lag {figure['lag'] * 1000:.0f} ms, "
              f"gaps {figure['gaps']}, dropped {figure['dropped']}")
    print(f"(each process's generator ticks alone: {max(f['idle'] for f in figures) * 100:.1f} % "
          "at most, taken off)")
    measured = figures[:1] if arguments.one_node else figures
    cpu = sorted(f["cpu"] / seconds for f in measured)
    letters = sum(f["received"] + f["published"] for f in measured)
    envelopes = sum(f["envelopes"] for f in measured)
    per_letter = sum(f["cpu"] for f in measured) / max(1, letters)
    print(f"per node: CPU median {cpu[len(cpu) // 2] * 100:.1f} %, max {cpu[-1] * 100:.1f} % "
          f"of a core at this pace; {per_letter * 1e6:.0f} us per letter handled "
          f"(received or published), {letters / max(1, envelopes):.2f} letters an envelope")
    if arguments.one_node:
        print(f"node0 at the full pace, measured: {cpu[0]:.2f} of a core (goal <= 0.15); "
              f"Redis {redis_used / seconds:.2f} of a core for node0's traffic and its share "
              "of the others'")
        return
    # At the full pace each node handles its letters of now over the scale, at its cost each.
    full_cpu = [c / scale for c in cpu]
    print(f"at the full pace (/ {scale:g}; valid while the nodes keep up: on one "
          f"channel each receives all the others publish): per node median "
          f"{full_cpu[len(full_cpu) // 2]:.2f}, max {full_cpu[-1]:.2f} of a core (goal <= 0.15); "
          f"Redis {redis_used / seconds / scale:.2f} of a core "
          f"({redis_used / seconds * 100:.1f} % measured)")


if __name__ == "__main__":
    main()
