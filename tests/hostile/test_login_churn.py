"""Users who log in and drop as fast as they can: every login and drop is told to everyone
online (lobby/presence/fan_out.py), the bystander included. Its answers stay as fast as
ever, and it is told of every login and drop, in FIBS's lines."""
from __future__ import annotations

import asyncio
import multiprocessing
import re
import socket
import threading
import time

from tests.hostile.bystander import assert_unhurt, logged_in_quietly, time_answers_during

CHURN_SECONDS = 2.0
CHURNERS = 3  # threads, each its own accounts
ACCOUNTS = 3  # per thread, logged in and dropped in turn


def churn(port: int, threads: int, accounts: int, seconds: float) -> None:
    """`threads` threads each log `accounts` CLIP users in, in turn, reading to the end of
    the login's who-list, and hang up, for `seconds`."""
    deadline = time.monotonic() + seconds

    def one(thread: int) -> None:
        turn = 0
        while time.monotonic() < deadline:
            name = f"churn{thread}x{turn % accounts}"
            turn += 1
            with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
                received = b""
                while b"login: " not in received:
                    received += sock.recv(1 << 16)
                sock.sendall(f"login churn 1008 {name} secret\r\n".encode())
                received = b""
                while b"\r\n6\r\n" not in received:  # the who-list's end
                    chunk = sock.recv(1 << 16)
                    if not chunk:
                        break
                    received += chunk

    workers = [threading.Thread(target=one, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()


async def test_a_churn_of_logins_and_drops_does_not_slow_those_told_of_it(harness):
    for thread in range(CHURNERS):
        for account in range(ACCOUNTS):
            await harness.register(f"churn{thread}x{account}")
    await harness.register("bystander")
    bystander, _, quiet = await logged_in_quietly(harness)
    # In a process of its own: churning threads here would take the server's GIL.
    churner = multiprocessing.get_context("spawn").Process(
        target=churn, args=(harness.server.port, CHURNERS, ACCOUNTS, CHURN_SECONDS))
    churner.start()
    churning = asyncio.ensure_future(asyncio.to_thread(churner.join))
    # The bystander reads every notice as it waits for its answers (skip_until): keep them.
    lines: list[str] = []
    skip_until = bystander.skip_until

    async def kept(wanted, **options):
        skipped = await skip_until(wanted, **options)
        lines.extend(skipped)
        return skipped

    bystander.skip_until = kept
    delays = await time_answers_during(bystander, churning)
    assert churner.exitcode == 0
    assert_unhurt(quiet, delays, "a churn of logins and drops")
    logins = [line for line in lines if line.startswith("7 ")]
    drops = [line for line in lines if line.startswith("8 ")]
    assert logins and all(re.fullmatch(r"7 (churn\dx\d) \1 logs in\.", line) for line in logins)
    assert all(re.fullmatch(r"8 (churn\dx\d) \1 drops connection\.", line) for line in drops)
    # Each told once, a drop after its login (those after its last answer are not read).
    online: set[str] = set()
    for line in lines:
        kind, _, rest = line.partition(" ")
        name = rest.split(" ")[0]
        if kind == "7":
            assert name not in online, line
            online.add(name)
        elif kind == "8":
            assert name in online, line
            online.remove(name)
    assert len(online) <= CHURNERS
