"""A listed load balancer's connections flooding the telnet port with malformed, over-long
and partial PROXY headers (a misconfigured or compromised balancer), from another process,
while a player behind the same balancer asks the time 40 times a second. Each bad header costs a
parse and a close; the partial ones wait for the header timeout; the player stays fast, and
nothing of the flood is left afterwards."""
from __future__ import annotations

import asyncio
import dataclasses
import json
import multiprocessing
import os
import socket
import threading
import time

from fibs_server.net.http import networks
from fibs_server.net.limits import NetLimits
from fibs_server.net.proxy_protocol import V2_SIGNATURE, v1_header, v2_header
from tests.e2e.conftest import ServerHarness
from tests.hostile.bystander import assert_unhurt, time_answers_during, time_answers_quiet
from tests.net.test_proxy_connections import BALANCER, log_in_through_balancer
from tests.waiting import until

FLOOD_SECONDS = 1.5
FLOODING_CONNECTIONS = 8
# Connections the flood makes at least, however long a loaded machine takes over them (at
# load 30 on two cores, 1.5 s once brought only 50).
LEAST_FLOOD = 100
HEADER_TIMEOUT = 0.2
BAD_HEADERS = (
    b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
    b"PROXY " + b"1" * 300,
    b"PROXY TCP4 999.1.1.1 1.1.1.1 1 2\r\n",
    V2_SIGNATURE + b"\x21\x11\xff\xff" + b"\x00" * 100,
    V2_SIGNATURE + b"\x21\x31\x00\x0c" + b"\x00" * 12,
)
PARTIAL_HEADERS = (
    v1_header("198.51.100.1", "127.0.0.1", 1, 2)[:15],
    v2_header("198.51.100.1")[:20],
    b"",
)


def flood_headers(port: int, connections: int, seconds: float, counts: dict) -> None:
    """`connections` threads each connect from BALANCER over and over for `seconds`, and
    until LEAST_FLOOD connections are closed in all, send a bad, random or partial header and
    wait for the server's close."""
    deadline = time.monotonic() + seconds

    def one(turn: int) -> None:
        while time.monotonic() < deadline or counts["closed"] < LEAST_FLOOD:
            kind = turn % 3
            payload = (BAD_HEADERS[turn % len(BAD_HEADERS)] if kind == 0
                       else os.urandom(64) if kind == 1
                       else PARTIAL_HEADERS[turn % len(PARTIAL_HEADERS)])
            turn += 1
            with socket.create_connection(("127.0.0.1", port), timeout=5.0,
                                          source_address=(BALANCER, 0)) as sock:
                try:
                    sock.sendall(payload)
                    while sock.recv(4096):
                        counts["answered"] += 1  # never: a bad header gets no word
                except OSError:
                    pass
            counts["closed"] += 1

    threads = [threading.Thread(target=one, args=(turn,)) for turn in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def run_flood(port: int, connections: int, seconds: float, results: str) -> None:
    counts = {"answered": 0, "closed": 0}
    flood_headers(port, connections, seconds, counts)
    with open(results, "w") as file:
        json.dump(counts, file)


async def test_a_flood_of_bad_headers_from_the_balancer_leaves_its_players_fast(
        tmp_path, tracebacks):
    harness = ServerHarness(f"sqlite:///{tmp_path / 'proxy-flood.db'}")
    harness.config = dataclasses.replace(
        harness.config, proxy_from=networks(BALANCER),
        net_limits=NetLimits(proxy_header_timeout=HEADER_TIMEOUT))
    await harness.start()
    try:
        assert harness.server is not None and harness.server._front is not None
        lobby, headers = harness.server.lobby, harness.server._front.balancer_headers
        assert lobby is not None
        await harness.register("bystander")
        bystander = await log_in_through_balancer(
            harness, v2_header("203.0.113.7"), "bystander")
        quiet = await time_answers_quiet(bystander)
        results = tmp_path / "flood.json"
        # In a process of its own: flooding threads here would take the server's GIL.
        flooder = multiprocessing.get_context("spawn").Process(
            target=run_flood, args=(harness.server.port, FLOODING_CONNECTIONS, FLOOD_SECONDS,
                                    str(results)))
        flooder.start()
        flooding = asyncio.ensure_future(asyncio.to_thread(flooder.join))
        delays = await time_answers_during(bystander, flooding)
        counts = json.loads(results.read_text())
        print(f"{counts['closed']} flooding connections, {headers.refused_count} refused")
        assert counts["answered"] == 0
        # Every flooding connection was closed by the server, none left waiting.
        assert counts["closed"] >= LEAST_FLOOD
        assert headers.refused_count >= counts["closed"] * 0.9
        await until(lambda: headers.waiting == 0, "headers still awaited")
        assert list(lobby.attendance.users.online) == ["bystander"] and len(lobby.attendance.users.connections) == 1
        assert_unhurt(quiet, delays, "a flood of bad headers from the balancer")
    finally:
        await harness.stop()
