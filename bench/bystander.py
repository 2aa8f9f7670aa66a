"""The bystander the abuse benches measure: two users playing a match, each asking `time`
within its own command pace (40 a second between them) and timing the first reply, and a third
user logging in again and again from a clean address, each login timed.

The probes do not wait for their answers: a stall counts for every probe it delays, as a user
typing meanwhile would feel it. The pair and the latecomer connect from addresses of their own
(127.0.3.x), apart from every attacker's (the benches' attacks use 127.0.0.2 and up,
127.0.1.x and 127.0.2.x), so no per-address limit of an attacker's is theirs.
"""
from __future__ import annotations

import asyncio
import collections
import multiprocessing
import time

from load import PASSWORD, percentiles

PAIR_ADDRESS = "127.0.3.1"
LATECOMER_ADDRESS = "127.0.3.2"
PLAYER, PARTNER, LATECOMER = "bystander", "partner", "latecomer"
NAMES = [PLAYER, PARTNER, LATECOMER]  # the accounts a bench creates for it
TIME_REPLY = b" UTC )"  # the end of the `time` answer's date line
REPLY_TIMEOUT = 60.0
# A `time` every 25 ms, from the two players in turn: each well under a user's 50 commands a
# second; a probe every 10 ms outran that and queued behind its own pacing, seconds late
# whatever the attack.
PROBE_INTERVAL = 0.025
LOGIN_INTERVAL = 1.0


async def log_in(port: int, name: str, address: str
                 ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A CLIP login, up to the end of the who-list."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))
    await asyncio.wait_for(reader.readuntil(b"login: "), REPLY_TIMEOUT)
    writer.write(f"login abusebench 1008 {name} {PASSWORD}\r\n".encode())
    await asyncio.wait_for(reader.readuntil(b"\r\n6\r\n"), REPLY_TIMEOUT)
    return reader, writer


class Bystander:
    """`await start()`, then `await run(stop)` (again for each attack on the same server):
    then `latencies` (each probe's first reply, seconds) and `logins` (each fresh login's
    seconds) of that run; `close()` at the end."""

    def __init__(self, port: int, login_interval: float = LOGIN_INTERVAL) -> None:
        self.port = port
        self.login_interval = login_interval
        self.latencies: list[float] = []
        self.logins: list[float] = []
        self.players: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def start(self) -> None:
        """The two players logged in and a 1-point match between them under way."""
        self.players = [await log_in(self.port, name, PAIR_ADDRESS) for name in (PLAYER, PARTNER)]
        (player_reader, player), (partner_reader, partner) = self.players
        player.write(f"invite {PARTNER} 1\r\n".encode())
        await asyncio.wait_for(partner_reader.readuntil(f"join {PLAYER}".encode()), REPLY_TIMEOUT)
        partner.write(f"join {PLAYER}\r\n".encode())
        await asyncio.wait_for(player_reader.readuntil(b"has joined you"), REPLY_TIMEOUT)
        await asyncio.wait_for(partner_reader.readuntil(b"You are now playing"), REPLY_TIMEOUT)

    async def run(self, stop: asyncio.Event) -> None:
        """Probe and log in until `stop` is set, then wait for the probes' answers."""
        if not self.players:
            await self.start()
        self.latencies, self.logins = [], []
        asked: list[collections.deque[float]] = [collections.deque() for _ in self.players]

        async def answers(reader: asyncio.StreamReader, sent_at: collections.deque[float]
                          ) -> None:
            while True:
                await reader.readuntil(TIME_REPLY)
                self.latencies.append(time.perf_counter() - sent_at.popleft())

        async def log_in_again_and_again() -> None:
            while not stop.is_set():
                started = time.perf_counter()
                _, fresh = await log_in(self.port, LATECOMER, LATECOMER_ADDRESS)
                self.logins.append(time.perf_counter() - started)
                fresh.write(b"bye\r\n")
                fresh.close()
                await asyncio.sleep(self.login_interval)

        receiving = [asyncio.create_task(answers(reader, sent_at))
                     for (reader, _), sent_at in zip(self.players, asked)]
        logging_in = asyncio.create_task(log_in_again_and_again())
        turn = 0
        while not stop.is_set():
            sent_at, (_, writer) = asked[turn], self.players[turn]
            sent_at.append(time.perf_counter())
            writer.write(b"time\r\n")
            turn = 1 - turn
            await asyncio.sleep(PROBE_INTERVAL)
        await logging_in
        while any(asked) and not any(task.done() for task in receiving):
            await asyncio.sleep(0.01)
        for task in receiving:
            task.cancel()

    def close(self) -> None:
        for _, writer in self.players:
            writer.close()

    def summary(self) -> str:
        return f"bystander {percentiles(self.latencies)}; logins {percentiles(self.logins)}"


async def watch_while_alive(bystander: Bystander, attacker: multiprocessing.Process,
                            keep_open: bool = False) -> None:
    """`bystander` measured from `attacker`'s start to its end (its match started first);
    closed then, unless it is to watch another attack."""
    if not bystander.players:
        await bystander.start()
    stop = asyncio.Event()
    attacker.start()
    watching = asyncio.create_task(bystander.run(stop))
    await asyncio.to_thread(attacker.join)
    stop.set()
    await watching
    if not keep_open:
        bystander.close()
