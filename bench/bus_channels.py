"""What the bus costs a node in CPU per envelope (fibs_server/net/redis_bus.py), over a real
Redis: node a, in this process, sends --letters letters as fast as the bus takes them, a
share (--addressed) of them a match's letters for node b (`Relayed`, as a cross-node match
sends), the rest presence changes for every node; nodes b and c, each in a process of its
own, receive. Each receiving process counts its own CPU time (`time.process_time`) from its
first letter to its last, less that of an idle window as long; printed per letter a sent,
and per letter it was delivered.

    .venv/bin/python bench/bus_channels.py --redis redis://127.0.0.1:6379/0 --letters 50000

With one channel for the lobby every node decodes every envelope; with a channel per node,
node c (which plays no match here) decodes only the presence changes. Run it with another
checkout's package first on the path (`PYTHONPATH=/path/to/checkout`) for its figures.
"""
from __future__ import annotations

import argparse
import asyncio
import inspect
import multiprocessing
import multiprocessing.connection
import time
import uuid

from fibs_server.lobby.nodes.bus import Presence, Relayed
from fibs_server.net.redis_bus import RedisBus

INFO = {"name": "alice", "opponent": "-", "watching": "-", "ready": True, "away": False,
        "rating": 1500.0, "experience": 0, "idle_seconds": 0, "login_time": 1796577916,
        "host": "127.0.0.1", "client": "testclient", "email": "-"}


def receive(url: str, prefix: str, node: str,
            report: multiprocessing.connection.Connection) -> None:
    """A node that counts what it is delivered and the CPU it took, from its first letter
    until a quiet second, then reports them on `report`."""
    async def receiving() -> None:
        delivered = 0

        def deliver(names, letter) -> None:
            nonlocal delivered
            delivered += 1

        bus = RedisBus(url, node, deliver, prefix=prefix)
        await bus.start()
        await bus.until_subscribed()
        idle_started = time.process_time()
        await asyncio.sleep(1.0)
        idle_per_second = time.process_time() - idle_started
        report.send("subscribed")
        while delivered == 0:
            await asyncio.sleep(0.001)
        started_cpu, started = time.process_time(), time.monotonic()
        last, last_at = delivered, time.monotonic()
        while time.monotonic() - last_at < 1.0:
            await asyncio.sleep(0.01)
            if delivered != last:
                last, last_at = delivered, time.monotonic()
        cpu = time.process_time() - started_cpu
        seconds = time.monotonic() - started
        report.send((delivered, cpu - idle_per_second * seconds, bus.figures.received))
        await bus.stop(flush_timeout=0)
    asyncio.run(receiving())


async def main(arguments: argparse.Namespace) -> None:
    prefix = f"bench-{uuid.uuid4().hex[:8]}"
    addressed = int(arguments.letters * arguments.addressed)
    spawn = multiprocessing.get_context("spawn")
    receivers = {}
    for node in ("b", "c"):
        mine, theirs = spawn.Pipe()
        process = spawn.Process(target=receive, args=(arguments.redis, prefix, node, theirs))
        process.start()
        receivers[node] = (process, mine)
    for _, pipe in receivers.values():
        pipe.recv()
    options = {"locate": lambda name: None} \
        if "locate" in inspect.signature(RedisBus).parameters else {}
    sender = RedisBus(arguments.redis, "a", lambda names, letter: None, prefix=prefix,
                      queue_limit=arguments.letters + 1, stale_after=600.0, **options)
    await sender.start()
    await sender.until_subscribed()
    step = arguments.letters // max(1, arguments.letters - addressed)
    for number in range(arguments.letters):
        if number % step == 0 and number // step < arguments.letters - addressed:
            sender.tell_others(Presence("a", INFO))
        else:
            sender.tell_others(Relayed("a", "b", "bob", "lines", ("You roll 3 and 1.",),
                                       number=number))
        while sender.queued > 1000:  # at the pace Redis takes them: nothing gets stale
            await asyncio.sleep(0.001)
    while sender.queued:
        await asyncio.sleep(0.01)
    await sender.stop()
    for node, (process, pipe) in receivers.items():
        delivered, cpu, received = pipe.recv()
        process.join()
        print(f"node {node}: {received} envelopes received, {delivered} delivered; "
              f"{cpu:.2f} s CPU: {cpu / arguments.letters * 1e6:.1f} µs per letter sent, "
              f"{cpu / max(1, received) * 1e6:.1f} µs per envelope received")
    print(f"node a published {sender.figures.published} ({addressed} for node b), "
          f"dropped {sender.figures.dropped}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--letters", type=int, default=50_000)
    parser.add_argument("--addressed", type=float, default=0.86,
                        help="the share of letters for node b alone")
    asyncio.run(main(parser.parse_args()))
