"""Floods from connections that never log in: dense telnet commands and empty lines. While
they run, a logged-in user asking the time 40 times a second gets answers as fast as ever;
when they hang up, a fresh login is answered promptly and the flooders are gone within
seconds."""
from __future__ import annotations

import asyncio
import multiprocessing
import socket
import threading
import time

import pytest

from fibs_server.net.limits import NetLimits
from tests.hostile.bystander import (
    PROBE_INTERVAL,
    assert_logs_in_promptly,
    assert_unhurt,
    logged_in_quietly,
    time_answers_during,
)
from tests.hostile.conftest import count_lines_served
from tests.waiting import until

FLOOD_SECONDS = 1.0
FLOODS = {
    "IAC NOP": b"\xff\xf1" * 32768,
    "IAC WILL": b"\xff\xfb\x18" * 21845,  # refused once, then ignored
    "empty lines": b"\n" * 65536,
}


def flood(port: int, payload: bytes, connections: int, seconds: float) -> None:
    """`connections` sockets send `payload` over and over for `seconds`, then hang up. Each
    reads and drops its answers, so that no output cap cuts it off early."""
    deadline = time.monotonic() + seconds

    def drain(sock: socket.socket) -> None:
        try:
            while sock.recv(1 << 16):
                pass
        except OSError:
            pass

    def one() -> None:
        with socket.create_connection(("127.0.0.1", port)) as sock:
            sock.settimeout(0.1)
            reader = threading.Thread(target=drain, args=(sock,))
            reader.start()
            try:
                while time.monotonic() < deadline:
                    try:
                        sock.sendall(payload)
                    except socket.timeout:
                        pass
            finally:
                sock.shutdown(socket.SHUT_RDWR)
                reader.join()

    threads = [threading.Thread(target=one) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


@pytest.mark.parametrize("kind", FLOODS)
async def test_a_flood_does_not_slow_anyone_else(make_harness, tracebacks, monkeypatch, kind):
    served = count_lines_served(monkeypatch)
    # The flooders fall behind their pace at once and are closed this long after: longer than
    # the flood, so that it runs whole, and shorter than the default 5 s, which the test only
    # waited out.
    harness = await make_harness(net=NetLimits(command_backlog_seconds=2 * FLOOD_SECONDS))
    for name in ("bystander", "latecomer"):
        await harness.register(name)
    bystander, login, quiet = await logged_in_quietly(harness)
    # In a process of its own: flooding threads here would take the server's GIL.
    flooder = multiprocessing.get_context("spawn").Process(
        target=flood, args=(harness.server.port, FLOODS[kind], 4, FLOOD_SECONDS))
    flooder.start()
    flooding = asyncio.ensure_future(asyncio.to_thread(flooder.join))
    delays = await time_answers_during(bystander, flooding)
    assert len(delays) > FLOOD_SECONDS / PROBE_INTERVAL / 4
    # Megabytes of empty lines: one served per read, not one per byte (which would be over a
    # million). How many reads the flood takes depends on the machine's load: 1,000-1,600
    # on the 2-core machine, loaded or not.
    assert served["all"] < 2 * len(delays) + 5000
    assert_unhurt(quiet, delays, f"a flood of {kind}")
    # Meanwhile the server may still be reading what the flooders sent before they hung up
    # (kernel buffers); a login's bcrypt runs at the lowest priority on a busy machine.
    await assert_logs_in_promptly(harness.login_clip("latecomer"), login, f"a flood of {kind}")
    lobby = harness.server.lobby
    # Paced, a flooder's reading pauses and its hang-up is not seen: it is closed for
    # flooding `command_backlog_seconds` after it fell behind its rate (net/pacing.py).
    await until(lambda: len(lobby.attendance.users.connections) == len(lobby.attendance.users.online),
                "the flooders are still served")
