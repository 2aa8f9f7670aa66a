"""Many connections throw garbage at the server (random bytes, megabyte lines, telnet option
floods, NULs, broken UTF-8) for a bounded time while two bots play a match and a third user
keeps asking the time. Afterwards: the server is up, nothing logged a traceback, the user's
commands stayed fast, and the server's memory is back at its baseline."""
from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import random
import re
import time
import tracemalloc

from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.net.limits import LOST_PEER_GRACE, NetLimits
from fibs_server.rules.dice import SeededDice
from tests.e2e.bot import Bot
from tests.hostile.bystander import CEILING, assert_unhurt, time_answers_during, time_answers_quiet
from tests.waiting import until

FUZZERS = 24
FUZZ_SECONDS = 3.0
LEAST_BYTES = 50 * 1024 * 1024  # sent in all, however long a loaded machine takes
MATCH_END = re.compile(r"(You win|\S+ wins) the \d+ point match \d+-\d+ \.")


def garbage(chooser: random.Random) -> bytes:
    kind = chooser.randrange(6)
    if kind == 0:
        return chooser.randbytes(chooser.randrange(1, 2048))
    if kind == 1:
        return b"x" * (1 << 20) + b"\r\n"  # a megabyte line
    if kind == 2:
        return bytes(chooser.choice([0xFB, 0xFC, 0xFD, 0xFE])
                     for _ in range(1)).join([b"\xff", bytes([chooser.randrange(256)])]) * 500
    if kind == 3:
        return b"\xff\xfa\x18" + chooser.randbytes(3000)  # a subnegotiation that never ends
    if kind == 4:
        return b"\x00" * 1000 + b"\r\x00who\x00\r\n"
    return b"\xc3\x28\xe2\x82 \xf0\x9f\x92 login \xc0\xaf tell alice \xed\xa0\x80\r\n" * 20


class Fuzzing:
    """The fuzzers' common end: `seconds` after they start and once they sent `least` bytes
    together (a loaded machine sends fewer in that time), CEILING after the start at the
    latest."""

    def __init__(self, seconds: float, least: int) -> None:
        started = time.monotonic()
        self.until, self.latest, self.least = started + seconds, started + CEILING, least
        self.sent = 0

    def going(self) -> bool:
        now = time.monotonic()
        return now < self.latest and (now < self.until or self.sent < self.least)


async def fuzz(port: int, seed: int, fuzzing: Fuzzing) -> None:
    """One hostile connection (reconnecting if the server cuts it off)."""
    chooser = random.Random(seed)
    while fuzzing.going():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.05)
            continue
        try:
            while fuzzing.going():
                data = garbage(chooser)
                writer.write(data)
                fuzzing.sent += len(data)
                await asyncio.wait_for(writer.drain(), 1.0)
                if chooser.random() < 0.3:  # some read their answers, some never do
                    try:
                        await asyncio.wait_for(reader.read(65536), 0.01)
                    except asyncio.TimeoutError:
                        pass
        except (OSError, asyncio.TimeoutError):
            pass
        finally:
            writer.close()
            # Takes the stream's own record of a broken pipe: left alone, a garbage
            # collection may log it as a future's exception never retrieved.
            with contextlib.suppress(OSError, asyncio.TimeoutError):
                await asyncio.wait_for(writer.wait_closed(), 1.0)


async def fuzz_for(port: int, seconds: float, first_seed: int, least: int = 0) -> int:
    """FUZZERS connections fuzzing for `seconds` and `least` bytes; the bytes sent."""
    fuzzing = Fuzzing(seconds, least)
    await asyncio.gather(*(fuzz(port, first_seed + n, fuzzing) for n in range(FUZZERS)))
    return fuzzing.sent


async def wait_for_connections(lobby, count: int) -> None:
    """Until the server has noticed the fuzzers' hang-ups: a gone peer's lines are served for
    LOST_PEER_GRACE at most, then its session goes."""
    await until(lambda: len(lobby.attendance.users.connections) == count, f"{count} connections left",
                timeout=LOST_PEER_GRACE + CEILING)


async def test_garbage_from_many_connections_harms_nobody(make_harness, tracebacks, caplog):
    # As fibs-server sets them (and so that the captured records do not count as memory).
    caplog.set_level(logging.INFO, logger="aiosqlite")
    # Every garbage line at the login prompt is a failed login from 127.0.0.1: without a loose
    # throttle the fuzzers would mostly wait in login delays (tested in test_throttle.py).
    harness = await make_harness(net=NetLimits(connections_per_address=FUZZERS + 10),
                                 abuse=AbuseLimits(address_free_failures=10**9,
                                                   account_free_failures=10**9))
    lobby = harness.server.lobby
    for name in ("alice", "bob", "carol"):
        await harness.register(name)
    alice, bob, carol = [await harness.login_clip(n) for n in ("alice", "bob", "carol")]
    for client in (alice, bob):
        for toggle in ("ready", "moreboards", "automove", "greedy"):
            await client.send(f"toggle {toggle}")
    alice_bot, bob_bot = Bot(alice, "alice", seed=1), Bot(bob, "bob", seed=2)
    quiet = await time_answers_quiet(carol)

    # While the fuzzers run, alice and bob play a match and carol asks the time.
    harness.dice.append(SeededDice(7))
    await alice.send("invite bob 1")
    await bob_bot.play_until(lambda line: line == "Type 'join alice' to accept.")
    await bob.send("join alice")
    fuzzing = asyncio.create_task(fuzz_for(harness.server.port, FUZZ_SECONDS, 0, LEAST_BYTES))
    match = asyncio.gather(alice_bot.play_until(MATCH_END.fullmatch),
                           bob_bot.play_until(MATCH_END.fullmatch))
    latencies = await time_answers_during(carol, fuzzing)
    sent = fuzzing.result()
    await asyncio.wait_for(match, CEILING)
    assert alice_bot.refusals == [] and bob_bot.refusals == []
    assert sent >= LEAST_BYTES, sent
    assert len(latencies) > 10
    # The fuzzers share this process and its event loop with the server.
    assert_unhurt(quiet, latencies, f"{FUZZERS} connections sending garbage")
    await wait_for_connections(lobby, 3)

    # Memory: traced (tracemalloc slows everything down, so apart from the timing above).
    gc.collect()
    tracemalloc.start()
    try:
        baseline = tracemalloc.get_traced_memory()[0]
        traced_sent = await fuzz_for(harness.server.port, 1.0, FUZZERS)
        await wait_for_connections(lobby, 3)
        samples = []
        for _ in range(5):  # the lowest of a few: buffers still on their way out do not count
            await asyncio.sleep(0.1)
            gc.collect()
            samples.append(tracemalloc.get_traced_memory())
        after, peak = min(samples)
    finally:
        tracemalloc.stop()
    # Tens of megabytes went through; what stays is bounded and small (typically ~30 KiB).
    assert after - baseline < 1024 * 1024, f"{after - baseline} bytes not returned"
    assert peak - baseline > 4 * (after - baseline)

    assert not tracebacks()
    await harness.login_clip("carol")  # still serving: a fresh login works
    print(f"fuzzed {sent / 1e6:.0f} MB in {FUZZ_SECONDS:.0f} s over {FUZZERS} connections; "
          f"traced run "
          f"{traced_sent / 1e6:.0f} MB: {(after - baseline) / 1024:.0f} KiB kept, peak "
          f"{(peak - baseline) / 1e6:.1f} MB")
