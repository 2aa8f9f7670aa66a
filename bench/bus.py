"""The bus between nodes (fibs_server/net/redis_bus.py) over a real Redis: one sending node in a
process of its own tells letters to everyone at --rate letters a second for --duration
seconds (0: as fast as it can); the receiving node, in this process, times each letter from
its sending (the letter carries the time) to its delivery. Prints the letters received, the
lag's p50, p99 and max, and the bytes each kind of letter takes on the wire.

    .venv/bin/python bench/bus.py --redis redis://127.0.0.1:6379/0 --rate 2000 --duration 10
"""
from __future__ import annotations

import argparse
import asyncio
import dataclasses
import multiprocessing
import statistics
import time
import uuid

from fibs_server.lobby.nodes.bus import Letter, Presence, Said
from fibs_server.net.redis_bus import Envelope, RedisBus, encode_envelope
from fibs_server.protocol.clip import WhoInfo


def send(url: str, prefix: str, rate: float, seconds: float) -> None:
    async def sending() -> None:
        bus = RedisBus(url, "sender", lambda names, letter: None, prefix=prefix)
        await bus.start()
        await bus.until_subscribed()
        started = time.monotonic()
        sent = 0
        while (now := time.monotonic()) < started + seconds:
            due = int((now - started) * rate) + 1 if rate else sent + 200
            for _ in range(due - sent):
                bus.tell_all(Said("shout", "sender", f"{time.time():.6f}"))
            sent = due
            await asyncio.sleep(0.001)
        await bus.stop(flush_timeout=5.0)
    asyncio.run(sending())


def wire_bytes(letter: Letter) -> int:
    return len(encode_envelope(Envelope("node-1", "0123456789abcdef", 1, time.time(),
                                        ((None, letter),))))


async def main(arguments: argparse.Namespace) -> None:
    prefix = f"bench-{uuid.uuid4().hex[:8]}"
    lags: list[float] = []

    def delivered(names, letter) -> None:
        if isinstance(letter, Said):
            lags.append(time.time() - float(letter.text))

    receiver = RedisBus(arguments.redis, "receiver", delivered, prefix=prefix)
    await receiver.start()
    await receiver.until_subscribed()
    sender = multiprocessing.get_context("spawn").Process(
        target=send, args=(arguments.redis, prefix, arguments.rate, arguments.duration))
    started = time.monotonic()
    sender.start()
    await asyncio.to_thread(sender.join)
    await asyncio.sleep(1.0)  # the last letters' way
    elapsed = time.monotonic() - started - 1.0
    await receiver.stop()
    lags.sort()
    figures = receiver.figures
    print(f"rate asked {arguments.rate or 'as fast as it can'}/s for {arguments.duration} s: "
          f"{len(lags)} letters received ({len(lags) / elapsed:.0f}/s over {elapsed:.1f} s), "
          f"gaps {figures.gaps}")
    if lags:
        print(f"lag p50 {statistics.median(lags) * 1000:.1f} ms, "
              f"p99 {lags[int(len(lags) * 0.99)] * 1000:.1f} ms, max {lags[-1] * 1000:.1f} ms")
    info = WhoInfo("alice", None, None, True, False, 1523.45, 123, 0, 1796400000,
                   "203.0.113.7", "CLIP/JavaFIBS", None)
    print("bytes on the wire:",
          f"a tell {wire_bytes(Said('tell', 'alice', 'x' * 40, 'bob'))},",
          f"a presence {wire_bytes(Presence('node-1', dataclasses.asdict(info)))}",
          "(40 characters of text, an envelope's header included)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--rate", type=float, default=2000.0)
    parser.add_argument("--duration", type=float, default=10.0)
    asyncio.run(main(parser.parse_args()))
