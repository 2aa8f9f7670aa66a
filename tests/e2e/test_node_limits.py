"""The abuse limits across two real nodes (one PostgreSQL database, the machine's Redis under a
prefix of the test's own; docs/SECURITY.md, "Across nodes"): registrations from one address
split over both nodes stop at the one limit, and failed logins on one node earn the address
its delays on the other; an address's open connections are capped over both nodes, as each
node last heard of the other's. Without PostgreSQL or Redis: skipped with the reason."""
from __future__ import annotations

import asyncio

from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.net.limits import TOO_MANY_CONNECTIONS, NetLimits
from fibs_server.protocol.texts import TOO_MANY_REGISTRATIONS
from tests.e2e.client import FibsClient
from tests.e2e.conftest import LOCAL_HOST, send_guest_name
from tests.e2e.test_nodes import running_nodes
from tests.hostile.test_throttle import attempt, held_back, stepped_throttle
from tests.redis_server import prefix, private_redis, redis_url  # noqa: F401 (fixtures)
from tests.waiting import until


async def test_registrations_split_over_two_nodes_stop_at_the_shared_limit(
        postgresql_url, redis_url, prefix):
    limits = AbuseLimits(registrations_per_hour=3)
    async with running_nodes(postgresql_url, redis_url, prefix, abuse_limits=limits) as nodes:
        a, b = nodes
        for node, name in ((a, "alice"), (b, "bob"), (a, "carol")):
            await node.register_by_dialogue(name)
        for node in (b, a):  # each node has seen two or one: the cluster three
            client = await node.connect()
            await send_guest_name(client, "dave")
            await client.expect_lines(TOO_MANY_REGISTRATIONS)
        await b.login_clip("carol")  # registered on a, at home on b: one database


async def test_failed_logins_on_one_node_delay_the_address_on_the_other(
        postgresql_url, redis_url, prefix):
    limits = AbuseLimits(account_free_failures=100, address_free_failures=3, login_delay=0.3,
                         max_login_delay=0.3)
    async with running_nodes(postgresql_url, redis_url, prefix, abuse_limits=limits) as nodes:
        a, b = nodes
        clock = stepped_throttle(b)
        guesser_a = await a.connect("guesser on a")
        for name in ("anna", "bert"):
            assert not await attempt(guesser_a, name, "guess")
        guesser_b = await b.connect("guesser on b")
        assert not await attempt(guesser_b, "carl", "guess")
        assert clock.delays == [0]  # the address's third failure: still free
        # The fourth, on b: held back, though b saw one failure only.
        assert not await held_back(clock, asyncio.create_task(
            attempt(guesser_b, "dora", "guess")), 0.3)


async def test_an_address_is_capped_over_both_nodes(postgresql_url, redis_url, prefix):
    limits = NetLimits(connections_per_address=3)
    async with running_nodes(postgresql_url, redis_url, prefix, net_limits=limits) as nodes:
        a, b = nodes
        for node in (a, a, b):
            await node.connect()
        assert b.server._front is not None  # type: ignore[union-attr]
        others = b.server._front.addresses.others  # type: ignore[union-attr]
        await until(lambda: others.elsewhere(LOCAL_HOST) == 2, "b hears a's two")
        refused = await FibsClient("fourth").connect(b.server.port)  # type: ignore[union-attr]
        assert (await refused.expect_closed()).decode().strip() == TOO_MANY_CONNECTIONS
        # One closes on a: b, refusing on what it heard, hears again (once a second at
        # most), and admits one more.
        await a.clients[0].close()
        addresses = b.server._front.addresses  # type: ignore[union-attr]
        await until(lambda: not addresses.full(LOCAL_HOST), "b hears a's close")
        await b.connect()
