"""Redis stalls (SIGSTOP) in the middle of a match across two nodes: no node takes the other
for dead while its own bus carries nothing, so the match waits, and goes on by itself once
Redis answers again (no `invite`); the result is the database's. The nodes keep in touch on
short times here (a heartbeat of a fifth of a second), so that the pause is four times the
silence that took a node for dead before, and the test stays short. Without PostgreSQL or
redis-server: skipped with the reason (in CI they always run)."""
from __future__ import annotations

import asyncio
import os
import signal

from fibs_server.lobby.nodes.directory import NodeTimes
from fibs_server.protocol.wording import match_texts
from tests.e2e.test_nodes import matched, running_nodes
from tests.redis_server import prefix, private_redis  # noqa: F401 (fixtures)
from tests.waiting import until

TIMES = NodeTimes(heartbeat=0.2, out_of_reach=0.5, silence=1.0, outage_limit=30.0)
PAUSE = 4 * TIMES.silence


async def test_a_redis_pause_ends_no_match_across_nodes(postgresql_url, private_redis,  # noqa: F811
                                                         prefix):  # noqa: F811
    async with running_nodes(postgresql_url, private_redis.url, prefix,
                             node_times=TIMES) as nodes:
        a, b = nodes
        for name in ("alice", "bob"):
            await a.register(name)
        alice, bob = await a.login_clip("alice"), await b.login_clip("bob")
        a.script_dice((3, 1), (1, 2))
        await matched(alice, bob, length=1)
        await alice.skip_until("It's your turn to move.")
        await alice.send("move 8-5 6-5")
        await bob.skip_until("Please move 2 pieces.")
        match_id = (await a.server.store.running_match("alice", "bob")).match_id

        redis_pid = private_redis.process.pid
        os.kill(redis_pid, signal.SIGSTOP)
        try:
            # The outage itself: each node sees the other out of reach, and its own bus down.
            for node, other in ((a, "b"), (b, "a")):
                await until(lambda: other in node.server.lobby.attendance.users.directory._unreached,
                            f"{other} out of reach")
            await asyncio.sleep(PAUSE)
            for node in nodes:
                assert not node.server.bus.carrying
        finally:
            os.kill(redis_pid, signal.SIGCONT)
        for node, other in ((a, "b"), (b, "a")):
            await until(lambda: node.server.bus.carrying
                        and not node.server.lobby.attendance.users.directory._unreached,
                        f"{other} back in reach")

        # The match goes on by itself: bob's command reaches the match on node a.
        await bob.send("resign n")
        seen = await alice.skip_until(
            "bob wants to resign. You will win 1 point. Type 'accept' or 'reject'.")
        await alice.send("accept")
        seen += await bob.skip_until("alice wins the 1 point match 1-0 .")
        record = await a.server.store.match_by_id(match_id)
        assert record.finished and record.winner == "alice", record
        # Nobody dropped; the classic sessions saw FIBS's lines only.
        waits = match_texts.out_of_reach("bob").split(" ", 1)[1]
        assert not any("drops connection" in line or waits in line for line in seen), seen
