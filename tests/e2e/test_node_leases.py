"""Two server nodes with `--bots on`, one lobby (PostgreSQL under them, the machine's Redis
between them): the bots are online once, on the node holding the `bots` lease, and move to
the other node when it stops; the database sweeps run on one node only (docs/NODES.md,
"Leases"). Without PostgreSQL or Redis: skipped with the reason (in CI they always run)."""
from __future__ import annotations

import pytest

from fibs_server.lobby.services.bot_players import BotConfig
from tests.e2e.client import FibsClient
from tests.e2e.test_nodes import running_nodes
from tests.redis_server import prefix, private_redis, redis_url  # noqa: F401 (fixtures)
from tests.waiting import until

# Long enough that no renewal is missed however slow the machine's Redis and the loop (a
# renewal waits a third of it for Redis's answer): a lease changes hands here only by its
# release at stop, which b notices at its next attempt, a third of this at most later.
LEASE_SECONDS = 12.0


@pytest.fixture
async def two_nodes_with_bots(postgresql_url, redis_url, prefix):
    async with running_nodes(postgresql_url, redis_url, prefix, lease_seconds=LEASE_SECONDS,
                             bots=BotConfig(think_time=0, workers=1, time_budget=30)) as nodes:
        yield nodes


async def names_in_who(client: FibsClient) -> list[str]:
    await client.send("rawwho")
    listed = await client.skip_until("6")
    return [line.split()[1] for line in listed if line.startswith("5 ")]


async def test_the_bots_are_online_once_and_move_when_their_node_stops(two_nodes_with_bots):
    a, b = two_nodes_with_bots
    assert a.server is not None and b.server is not None
    assert a.server.bots is not None and b.server.bots is not None
    # a started first and took both leases; b runs neither the bots nor the sweeps.
    assert sorted(a.server.bots.roster.residents) == ["beginner", "expert", "intermediate"]
    assert b.server.bots.roster.residents == {}
    assert a.server.sweeps_lease is not None and a.server.sweeps_lease.held
    assert b.server.sweeps_lease is not None and not b.server.sweeps_lease.held
    await b.register("bob")
    bob = await b.login_clip("bob")
    lobby = b.server.lobby
    assert lobby is not None
    await until(lambda: "bot_expert" in {user.name for user in lobby.attendance.users.directory},
                "b hears of a's bots")
    assert (await names_in_who(bob)).count("bot_expert") == 1
    await bob.send("bot expert")
    await bob.skip_until("** The bots are not on this server just now. Please try again "
                         "shortly.")
    # a's bot plays a's users only: refused (in FIBS's words, to a CLIP client), not ignored.
    await bob.send("toggle ready")
    await bob.send("invite bot_expert 1")
    await bob.skip_until("** bot_expert is refusing games.")
    metrics = await b.server.metrics()
    assert 'fibs_lease_held{lease="bots"} 0' in metrics
    assert 'fibs_lease_held{lease="sweeps"} 0' in metrics

    await a.stop()  # SIGTERM: the leases released, b takes them at its next attempt
    await until(lambda: b.server.bots_lease.held, "b takes the bots' lease")
    await until(lambda: len(b.server.bots.roster.residents) == 3, "b logs the bots in")
    await until(lambda: b.server.sweeps_lease.held, "b takes the sweeps' lease")
    await bob.skip_until("7 bot_expert bot_expert logs in.")
    assert (await names_in_who(bob)).count("bot_expert") == 1
    metrics = await b.server.metrics()
    assert 'fibs_lease_held{lease="bots"} 1' in metrics
    assert 'fibs_lease_changes_total{lease="bots",change="gained"} 1' in metrics
