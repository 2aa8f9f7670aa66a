"""A player at a match on another node floods it: bob, at home on node b, plays alice on
node a and sends `board` and `pip` as fast as his connection takes them. His home paces his
commands before they are forwarded (the same pace as any user's), so node a serves his seat
no faster than that; a bystander on node a stays fast; his home closes him once his backlog
is too long, and the host saves the match as for any dropped player."""
from __future__ import annotations

import asyncio

from fibs_server.net.limits import NetLimits
from tests.e2e.test_nodes import matched, running_nodes
from tests.hostile.bystander import assert_unhurt, time_answers_during, time_answers_quiet
from tests.redis_server import prefix, redis_url  # noqa: F401 (fixtures)
from tests.waiting import until

LIMITS = NetLimits(command_burst=50, commands_per_second=40.0, command_backlog_seconds=1.0)
FLOOD = b"board\r\npip\r\n" * 200
FLOOD_WRITES = 2000  # at 10 ms apart: 20 s at most
PROBE_INTERVAL = 0.05  # the bystander's `time`, well within its own pace


async def test_a_seated_player_flooding_from_another_node_is_paced_at_home(
        postgresql_url, redis_url, prefix, tracebacks):  # noqa: F811 (fixtures)
    async with running_nodes(postgresql_url, redis_url, prefix, net_limits=LIMITS) as (a, b):
        for name in ("alice", "bob", "carol"):
            await a.register(name)
        alice = await a.login_clip("alice")
        bystander = await a.login_clip("carol")
        bob = await b.login_clip("bob")
        await matched(alice, bob)
        await alice.skip_until("** Player bob has joined you for a 3 point match.")
        assert a.server is not None
        seats = a.server.lobby.seats
        await until(lambda: "bob" in seats.here, "bob's seat is on node a")
        seat = seats.here["bob"]

        assert b.server is not None
        home = b.server.lobby

        async def flood() -> None:
            # Until his home closes him for his backlog: he never stops sending.
            for _ in range(FLOOD_WRITES):
                if "bob" not in home.attendance.users.online:
                    return
                try:
                    await bob.send_raw(FLOOD)
                except (ConnectionError, OSError):
                    return
                await asyncio.sleep(0.01)  # the flooder's own pace of writes
            raise AssertionError("bob's home never closed him")

        quiet = await time_answers_quiet(bystander, PROBE_INTERVAL)
        started = asyncio.get_running_loop().time()
        flooding = asyncio.ensure_future(flood())
        delays = await time_answers_during(bystander, flooding, PROBE_INTERVAL)
        elapsed = asyncio.get_running_loop().time() - started
        await alice.skip_until("bob drops connection. The game was saved.")
        # What node a served for bob: his home's pace, not his connection's.
        assert seat.received <= LIMITS.command_burst + LIMITS.commands_per_second * elapsed + 10
        print(f"seat flood: bob's lines served on node a {seat.received} in {elapsed:.1f} s")
        assert_unhurt(quiet, delays, "a seated player flooding from another node")
        assert not seats.here
        assert a.server.store is not None
        assert await a.server.store.running_match("alice", "bob") is not None
