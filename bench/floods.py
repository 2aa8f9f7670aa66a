"""Floods from unauthenticated connections, and what a logged-in bystander feels meanwhile.

Starts `python -m fibs_server` on a temporary SQLite database (loopback only), logs in one CLIP
user who asks `time` over and over, and runs each flood in turn from a separate process (one
thread per connection, blocking sends: the flood goes as fast as the server reads it):

  nop    IAC NOP (`ff f1`) * 32768 per write
  will   IAC WILL 24 (`ff fb 18`) * 21845 per write: an option offer, refused once
  empty  LF * 65536 per write: empty lines
  long   lines of 64 KB

For each: the bystander's `time` latency during the flood (median, p99, max), the bytes the
flooders got in, the seconds the server stays busy after the flooders hang up, and how long a
fresh login takes right after the flood. Everything is bounded in time (--seconds per flood).

    .venv/bin/python bench/floods.py --seconds 4
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import multiprocessing
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import PASSWORD, ServerProcess, create_accounts, percentiles, report  # noqa: E402

FLOODS = {
    "nop": b"\xff\xf1" * 32768,
    "will": b"\xff\xfb\x18" * 21845,
    "empty": b"\n" * 65536,
    "long": b"x" * 65536 + b"\r\n",  # a line far over the longest, discarded whole
}
TIME_REPLY = b" UTC )"  # the end of the `time` answer's date line
REPLY_TIMEOUT = 30.0
PROBE_INTERVAL = 0.025  # within a user's own command rate (50 a second)
# The bystander connects from an address of its own: the flooders' address has its own rate.
BYSTANDER_ADDRESS = "127.0.0.2"


def flood(port: int, payloads: list[bytes], connections: int, seconds: float,
          sent: multiprocessing.Value, closed: multiprocessing.Value,
          addresses: tuple[str, ...] = ("127.0.0.1",)) -> None:
    """`connections` sockets from `addresses` in turn, each sending one of `payloads` (in
    turn) until `seconds` pass or the server closes it (counted in `closed`). Each reads and
    discards what the server answers, so that no output cap cuts it off: the server has to
    get through everything it was sent."""
    deadline = time.monotonic() + seconds

    def drain(sock: socket.socket) -> None:
        try:
            while sock.recv(1 << 16):
                pass
        except OSError:
            pass

    def one(number: int) -> None:
        payload = payloads[number % len(payloads)]
        sock = socket.create_connection(("127.0.0.1", port),
                                        source_address=(addresses[number % len(addresses)], 0))
        sock.settimeout(0.2)
        reader = threading.Thread(target=drain, args=(sock,))
        reader.start()
        count = 0
        try:
            while time.monotonic() < deadline:
                try:
                    count += sock.send(payload)
                except socket.timeout:
                    continue
        except OSError:  # cut off by the server
            with closed.get_lock():
                closed.value += 1
        finally:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
            reader.join()
        with sent.get_lock():
            sent.value += count

    threads = [threading.Thread(target=one, args=(number,)) for number in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


async def log_in(port: int, name: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port,
                                                   local_addr=(BYSTANDER_ADDRESS, 0))
    await reader.readuntil(b"login: ")
    writer.write(f"login floodbench 1008 {name} {PASSWORD}\r\n".encode())
    await asyncio.wait_for(reader.readuntil(b"\r\n6\r\n"), REPLY_TIMEOUT)
    return reader, writer


async def ask_time(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> float:
    started = time.perf_counter()
    writer.write(b"time\r\n")
    await asyncio.wait_for(reader.readuntil(TIME_REPLY), REPLY_TIMEOUT)
    return time.perf_counter() - started


async def probe_while(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                      flooder: multiprocessing.Process) -> list[float]:
    """`time` every PROBE_INTERVAL seconds while `flooder` runs, without waiting for the
    answers (a stall then counts for every probe it delays, as a user typing meanwhile would
    feel it); the latency of each."""
    sent_at: collections.deque[float] = collections.deque()
    latencies: list[float] = []

    async def answers() -> None:
        while True:
            await reader.readuntil(TIME_REPLY)
            latencies.append(time.perf_counter() - sent_at.popleft())

    receiving = asyncio.create_task(answers())
    while flooder.is_alive():
        sent_at.append(time.perf_counter())
        writer.write(b"time\r\n")
        await asyncio.sleep(PROBE_INTERVAL)
    while sent_at and not receiving.done():
        await asyncio.sleep(0.01)
    receiving.cancel()
    return latencies


def busy_seconds_after(server: ServerProcess, idle_share: float = 0.1) -> float:
    """Seconds until the server's CPU use over 0.1 s falls under `idle_share`."""
    started = time.monotonic()
    while True:
        cpu = server.cpu_seconds()
        time.sleep(0.1)
        if server.cpu_seconds() - cpu < idle_share * 0.1:
            return time.monotonic() - started - 0.1
        if time.monotonic() - started > 120:
            return float("inf")


async def run(arguments: argparse.Namespace, server: ServerProcess) -> None:
    reader, writer = await log_in(server.port, "bystander")
    baseline = [await ask_time(reader, writer) for _ in range(200)]
    report("no flood", percentiles(baseline))
    context = multiprocessing.get_context("spawn")
    for kind in arguments.floods.split(","):
        for connections in (1, 4):
            sent, closed = context.Value("q", 0), context.Value("q", 0)
            flooder = context.Process(target=flood, args=(server.port, [FLOODS[kind]], connections,
                                                          arguments.seconds, sent, closed))
            flooder.start()
            latencies = await probe_while(reader, writer, flooder)
            flooder.join()
            busy = await asyncio.to_thread(busy_seconds_after, server)
            started = time.perf_counter()
            fresh_reader, fresh_writer = await log_in(server.port, "latecomer")
            login = time.perf_counter() - started
            fresh_writer.close()
            report(f"{kind} x{connections}",
                   f"bystander {percentiles(latencies)}; flooders sent "
                   f"{sent.value / arguments.seconds / 1e6:.1f} MB/s, {closed.value} of them "
                   f"closed by the server; server busy "
                   f"{busy:.1f} s after they left; a fresh login then took {login * 1000:.0f} ms")
    writer.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="seconds per flood")
    parser.add_argument("--floods", default=",".join(FLOODS), help=", ".join(FLOODS))
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        database_url = f"sqlite:///{Path(directory) / 'floods.db'}"
        create_accounts(database_url, ["bystander", "latecomer"], 4)
        server = ServerProcess([sys.executable, "-m", "fibs_server", "--host", "127.0.0.1",
                                "--port", "0", "--http-port", "0", "--database-url", database_url,
                                "--bcrypt-rounds", "4", "--log-level", "WARNING"])
        try:
            asyncio.run(run(arguments, server))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
