"""A node killed with SIGKILL in the middle of a match across nodes. Node a (a subprocess) hosts
alice's match with bob, who is at home on node b; both are bots playing from the boards they
are shown. Node a is killed at a seeded random moment; alice reconnects to node b and invites
bob again, and the match resumes there at the last position either of them was shown, or the
one stored action after it that nobody had heard of yet (test_crash.py's rule), and is
played to its end with nothing refused. Needs PostgreSQL and Redis (skipped without them,
with the reason; in CI they always run)."""
from __future__ import annotations

import asyncio
import random
import re
import signal
import sys

from tests.durability.test_crash import (
    MATCH_LENGTH,
    Player,
    check_resumed,
    free_port,
    register,
    resumed_outcome,
)
from tests.e2e.conftest import ServerHarness
from tests.redis_server import prefix, redis_url  # noqa: F401 (fixtures)
from tests.waiting import DEADLINE, until

SEED = 20261205


async def start_node(port: int, database_url: str, bus_url: str, prefix: str, log_file
                     ) -> asyncio.subprocess.Process:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "fibs_server", "--host", "127.0.0.1", "--port", str(port),
        "--http-port", "0", "--database-url", database_url, "--bcrypt-rounds", "4",
        "--bus", bus_url, "--bus-prefix", prefix, "--node-id", "a", "--bots", "off",
        "--analysis", "off", "--log-level", "WARNING", "--dice-seed", str(SEED),
        stdout=asyncio.subprocess.PIPE, stderr=log_file)
    assert process.stdout is not None
    line = await asyncio.wait_for(process.stdout.readline(), DEADLINE)
    assert line.decode().startswith("fibs_server listening on"), line
    return process


async def test_a_killed_hosts_match_resumes_on_another_node_where_it_stood(
        tmp_path, postgresql_url, redis_url, prefix):  # noqa: F811 (fixtures)
    rng = random.Random(SEED)
    b = ServerHarness(postgresql_url)
    b.config.bus_url, b.config.bus_prefix, b.config.node_id = redis_url, prefix, "b"
    await b.start()
    assert b.server is not None and b.server.bus is not None
    await b.server.bus.until_subscribed()
    port_a = free_port()
    log_file = open(tmp_path / "node_a.log", "wb")
    node_a = await start_node(port_a, postgresql_url, redis_url, prefix, log_file)
    alice = Player("alice", "bob", True, seed=1)
    bob = Player("bob", "alice", False, seed=2)
    tasks: list[asyncio.Task] = []
    try:
        for name in ("alice", "bob", "carol"):
            await register(b.server.port, name)
        # carol, on node a, sees bob's arrival there: node a knows him.
        carol = await Player("carol", "", False, seed=3).connect(port_a)
        await bob.connect(b.server.port)
        await carol.skip_until(re.compile(r"7 bob bob logs in\."))
        await alice.connect(port_a)
        tasks = [asyncio.create_task(player.run()) for player in (alice, bob)]
        assert alice.bot is not None
        await alice.bot.client.send(f"invite bob {MATCH_LENGTH}")
        await until(lambda: len(alice.boards) >= 3 and len(bob.boards) >= 3,
                    "both have been shown boards of the match on node a")
        await asyncio.sleep(rng.uniform(0.05, 0.6))  # a random moment of play
        node_a.send_signal(signal.SIGKILL)
        await node_a.wait()
        await asyncio.wait_for(tasks[0], DEADLINE)  # alice reads up to the end of her connection
        before = {player.name: list(player.boards) for player in (alice, bob)}

        # alice comes back on node b, where bob still is: what he is shown next is the
        # resumed match.
        bob.resumed, bob.resuming, bob.new_match_started = None, False, False
        await alice.connect(b.server.port)
        tasks.append(asyncio.create_task(alice.run()))
        # Node b asked node a to hand alice's match over; unanswered, bob is free.
        home = b.server.lobby
        await until(lambda: home.attendance.users.online["bob"].place.seated_elsewhere is None,
                    "bob is free once node a has not answered")
        await alice.bot.client.send("invite bob")
        outcome = await resumed_outcome((alice, bob), before)
        assert outcome != "no saved match (not started, or just ended)", outcome
        check_resumed((alice, bob), before)
        alice.new_matches = False
        await until(lambda: alice.matches_finished >= 1 and bob.matches_finished >= 1,
                    "the resumed match played to its end on node b", timeout=2 * DEADLINE)
        assert not alice.refusals and not bob.refusals, (alice.refusals, bob.refusals)
        print(f"node a killed; resumed on node b: {outcome}")
    finally:
        for task in tasks:
            task.cancel()
        if node_a.returncode is None:
            node_a.kill()
            await node_a.wait()
        log_file.close()
        await b.stop()
