"""Failed logins flooding two nodes of one lobby from one address, from another process: every
attempt is counted once in the address's one count in Redis (both nodes' attempts together),
and a bystander on one node asking the time 40 times a second is answered as fast as without
the flood (tests/hostile/bystander.py). Needs PostgreSQL and Redis (two nodes): skipped with
the reason without them."""
from __future__ import annotations

import asyncio
import functools
import multiprocessing
import socket
import time

import redis.asyncio

from fibs_server import app
from fibs_server.lobby.limits.throttle import ADDRESSES, AbuseLimits
from fibs_server.net.redis_counts import RedisCounts
from tests.e2e.test_nodes import running_nodes
from tests.hostile.bystander import (
    CEILING,
    PROBE_INTERVAL,
    assert_unhurt,
    time_answers_during,
    time_answers_quiet,
)
from tests.redis_server import prefix, private_redis, redis_url  # noqa: F401 (fixtures)
from tests.waiting import until

FLOOD_SECONDS = 1.5
GUESSER = "127.0.0.2"  # apart from the bystander's 127.0.0.1 (whose commands are paced apart)
LINES_A_CONNECTION = 10
LEAST_CONNECTIONS = 3  # each node's, at the least


def flood_logins(ports: list[int], seconds: float) -> None:
    """Connections from GUESSER to each port in turn, each sending wrong CLIP logins and
    hanging up at once (its lines are served all the same, for the lost peer's grace), for
    `seconds` and until each port took a few: a loaded machine makes fewer in that time."""
    deadline = time.monotonic() + seconds
    taken = dict.fromkeys(ports, 0)
    number = 0
    while time.monotonic() < deadline or min(taken.values()) < LEAST_CONNECTIONS:
        port = ports[number % len(ports)]
        lines = "".join(f"login bot 1008 nobody{number}x{n} guess\r\n"
                        for n in range(LINES_A_CONNECTION))
        number += 1
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1,
                                          source_address=(GUESSER, 0)) as sock:
                sock.sendall(lines.encode())
            taken[port] += 1
        except OSError:  # refused for the address's count of connections: on to the next
            time.sleep(0.01)


async def test_failed_logins_flooding_two_nodes_count_once_and_slow_nobody(
        postgresql_url, redis_url, prefix, monkeypatch):
    # Each attempt counted once in Redis is the subject, not a count answered locally when
    # Redis is late (tests/net/test_redis_counts.py): Redis may take a loaded machine's time.
    monkeypatch.setattr(app, "RedisCounts", functools.partial(RedisCounts, timeout=CEILING))
    limits = AbuseLimits(address_free_failures=5, login_delay=0.05, max_login_delay=0.2)
    async with running_nodes(postgresql_url, redis_url, prefix, abuse_limits=limits) as nodes:
        a, b = nodes
        await a.register("bystander")
        bystander = await a.login_clip("bystander")
        quiet = await time_answers_quiet(bystander)
        flooder = multiprocessing.get_context("spawn").Process(
            target=flood_logins, args=([a.server.port, b.server.port], FLOOD_SECONDS))
        flooder.start()
        flooding = asyncio.ensure_future(asyncio.to_thread(flooder.join))
        delays = await time_answers_during(bystander, flooding)
        assert len(delays) > FLOOD_SECONDS / PROBE_INTERVAL / 4
        assert_unhurt(quiet, delays, "failed logins flooding two nodes")

        # Once the guessers are gone (their lines served), each node counted its own
        # attempts, and Redis both nodes' together, once each.
        await until(lambda: len(a.server.lobby.attendance.users.connections) == 1 and not b.server.lobby.attendance.users.connections,
                    "the guessers' connections gone", timeout=CEILING)
        mine = [node.server.redis_counts.local.count((ADDRESSES, GUESSER)) for node in nodes]
        assert all(count > LINES_A_CONNECTION for count in mine), mine
        client = redis.asyncio.Redis.from_url(redis_url)
        try:
            shared = await client.get(f"{prefix}:count:{ADDRESSES}:{GUESSER}")
        finally:
            await client.aclose()
        assert int(shared) == sum(mine)
        assert all(node.server.redis_counts.figures.local == 0 for node in nodes)
