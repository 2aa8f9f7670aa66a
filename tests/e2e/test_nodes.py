"""Two server nodes, one lobby: one PostgreSQL database under them and the machine's Redis
between them (a channel of the test's own), CLIP clients on real sockets. Presence, logins and
logouts, tells and shouts reach users on the other node in FIBS's lines; a login on the
other node takes the user over. Without PostgreSQL or Redis: skipped with the reason (in CI
they always run)."""
from __future__ import annotations

import pytest

from tests.e2e.conftest import ServerHarness
from tests.redis_server import prefix, private_redis, redis_url  # noqa: F401 (fixtures)


@pytest.fixture
async def two_nodes(postgresql_url, redis_url, prefix):
    nodes = []
    try:
        for node_id in ("a", "b"):
            node = ServerHarness(postgresql_url)
            node.config.bus_url, node.config.bus_prefix = redis_url, prefix
            node.config.node_id = node_id
            nodes.append(await node.start())
        for node in nodes:
            assert node.server is not None and node.server.bus is not None
            await node.server.bus.until_subscribed()
        yield nodes
    finally:
        for node in nodes:
            await node.stop()


async def test_users_on_two_nodes_see_talk_and_take_over(two_nodes):
    a, b = two_nodes
    for name in ("alice", "bob"):
        await a.register(name)
    alice = await a.login_clip("alice")
    bob = await b.login_clip("bob")
    await alice.skip_until("7 bob bob logs in.")
    await alice.skip_until("6")

    await bob.send("rawwho")
    listed = await bob.skip_until("6")
    assert sorted(line.split()[1] for line in listed if line.startswith("5 ")) == ["alice", "bob"]

    await alice.send("tell bob hello from node a")
    await bob.skip_until("12 alice hello from node a")
    await alice.skip_until("16 bob hello from node a")
    await bob.send("shout hello everyone")
    await alice.skip_until("13 bob hello everyone")

    # bob logs in on node a too: his connection to node b is closed, and alice sees him
    # leave b and arrive on a.
    bob_again = await a.login_clip("bob")
    await bob.skip_until("** You logged in again from 127.0.0.1. This connection is closed.")
    await bob.expect_closed()
    await alice.skip_until("7 bob bob logs in.")
    await bob_again.send("bye")
    await alice.skip_until("8 bob bob logs out.")
