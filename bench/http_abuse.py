"""Abuse of the HTTP port, and what a telnet bystander feels meanwhile.

Starts `python -m fibs_server` under `prlimit --nofile=1024:1024` (so the server cannot raise
its soft limit: descriptors run out as they did at the default soft limit) on a temporary
SQLite database; the bystander (bench/bystander.py: two users playing a match ask `time` every
25 ms in turn) is measured, and a third user logs in every second from a clean address. Then,
each for --seconds:

  idle      1,100 connections to the HTTP port, half silent, half with half a request head,
            from one address
  idle40    the same from 40 addresses (127.0.1.1-40): more than the server's descriptors
  requests  40 kept-alive clients from two addresses asking for /static/app.js as fast as
            they can
  reconnect the same 40 from one address: the 10 over its connection count are refused and
            reconnect as fast as they can (the cheaper a refusal, the faster they come)
  reconnect2600  the same, the refused ones reconnecting 2,600 times a second in all: the
            rate first measured, to compare the server's cost at one pace

For each: the bystander's `time` latency and the logins (median, p99, max), the server's CPU
and log lines meanwhile, and what the attackers got (refused, timed out, statuses).

    .venv/bin/python bench/http_abuse.py --seconds 15
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import http.client
import multiprocessing
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bystander import NAMES, Bystander, watch_while_alive  # noqa: E402
from floods import ask_time, log_in  # noqa: E402
from load import REPOSITORY, create_accounts, percentiles, report  # noqa: E402


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def idle_connections(port: int, count: int, addresses: int, seconds: float,
                     results: multiprocessing.Queue) -> None:
    """`count` connections from `addresses` addresses, half sending half a request head, each
    read until the server answers or closes; what happened to them."""
    sockets = []
    failed = 0
    for number in range(count):
        try:
            sock = socket.create_connection(
                ("127.0.0.1", port), timeout=0.5,
                source_address=(f"127.0.1.{number % addresses + 1}", 0))
        except OSError:
            failed += 1
            continue
        if number % 2:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        sockets.append(sock)
    deadline = time.monotonic() + seconds
    outcomes: collections.Counter[str] = collections.Counter()
    for sock in sockets:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            answer = sock.recv(100)
            outcomes["503" if answer.startswith(b"HTTP/1.1 503") else
                     "closed" if not answer else "answered"] += 1
        except socket.timeout:
            outcomes["still open"] += 1
        except OSError:
            outcomes["reset"] += 1
        sock.close()
    outcomes["connect failed"] = failed
    results.put(dict(outcomes))


def request_flood(port: int, clients: int, addresses: int, reconnects_per_second_each: float,
                  seconds: float, results: multiprocessing.Queue) -> None:
    """`clients` kept-alive connections from `addresses` addresses asking for a static file
    as fast as they can, each reconnecting when it is refused or closed: at once, or at most
    `reconnects_per_second_each` times a second; the statuses they got (0: closed without an
    answer)."""
    deadline = time.monotonic() + seconds
    reconnect_interval = 1 / reconnects_per_second_each if reconnects_per_second_each else 0.0
    statuses: collections.Counter[int] = collections.Counter()
    lock = threading.Lock()
    sources: list[str] = []

    def one() -> None:
        with lock:
            address = f"127.0.2.{len(sources) % addresses + 1}"
            sources.append(address)
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10,
                                                source_address=(address, 0))
        next_reconnect = time.monotonic()
        while time.monotonic() < deadline:
            try:
                connection.request("GET", "/static/app.js")
                response = connection.getresponse()
                response.read()
                status = response.status
            except OSError:
                status = 0
                connection.close()
            with lock:
                statuses[status] += 1
            if reconnect_interval and status in (0, 503):  # refused: it reconnects next
                next_reconnect = max(next_reconnect + reconnect_interval,
                                     time.monotonic() - reconnect_interval)
                time.sleep(max(0.0, next_reconnect - time.monotonic()))
        connection.close()

    threads = [threading.Thread(target=one) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    results.put({"requests/s": round(sum(statuses.values()) / seconds), **statuses})


class Server:
    def __init__(self, database_url: str, log: Path) -> None:
        self.http_port = free_port()
        self.log = log
        self.process = subprocess.Popen(
            ["prlimit", "--nofile=1024:1024", sys.executable, "-m", "fibs_server",
             "--host", "0.0.0.0", "--port", "0", "--http-port", str(self.http_port),
             "--database-url", database_url, "--bcrypt-rounds", "4", "--bots", "off"],
            stdout=subprocess.PIPE, stderr=log.open("w"), text=True, cwd=REPOSITORY)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        match = re.search(r"listening on \S+:(\d+)", line)
        if match is None:
            raise RuntimeError(f"server did not start: {line!r}")
        self.port = int(match.group(1))

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def log_lines(self) -> int:
        return len(self.log.read_text().splitlines())

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(60)


async def measure(server: Server, bystander: Bystander, attacker: multiprocessing.Process
                  ) -> None:
    cpu, lines, started = server.cpu_seconds(), server.log_lines(), time.monotonic()
    await watch_while_alive(bystander, attacker, keep_open=True)
    seconds = time.monotonic() - started
    report("  bystander", percentiles(bystander.latencies))
    report("  logins", percentiles(bystander.logins))
    report("  server", f"{(server.cpu_seconds() - cpu) / seconds * 100:.0f} % CPU, "
                       f"{server.log_lines() - lines} log lines in {seconds:.0f} s")


ATTACKS = {
    "idle": (idle_connections, (1100, 1)),
    "idle40": (idle_connections, (1100, 40)),
    "requests": (request_flood, (40, 2, 0.0)),
    "reconnect": (request_flood, (40, 1, 0.0)),
    "reconnect2600": (request_flood, (40, 1, 2600.0 / 10)),  # 10 refused
}


async def run(server: Server, attacks: list[str], seconds: float) -> None:
    bystander = Bystander(server.port)
    context = multiprocessing.get_context("spawn")
    for name in attacks:
        target, options = ATTACKS[name]
        results = context.Queue()
        attacker = context.Process(target=target, args=(
            server.http_port, *options, seconds, results))
        report(name, "")
        await measure(server, bystander, attacker)
        report("  attackers got", str(results.get()))
    bystander.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--attacks", default=",".join(ATTACKS))
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        database_url = f"sqlite:///{Path(directory) / 'http-abuse.db'}"
        create_accounts(database_url, NAMES, 4)
        server = Server(database_url, Path(directory) / "server.log")
        try:
            baseline = asyncio.run(baseline_latencies(server.port))
            report("no attack", percentiles(baseline))
            asyncio.run(run(server, arguments.attacks.split(","), arguments.seconds))
        finally:
            server.stop()


async def baseline_latencies(port: int) -> list[float]:
    reader, writer = await log_in(port, "bystander")
    latencies = [await ask_time(reader, writer) for _ in range(200)]
    writer.close()
    return latencies


if __name__ == "__main__":
    main()
