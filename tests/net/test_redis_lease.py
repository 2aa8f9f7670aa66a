"""Leases over real Redis (net/redis_lease.py, lobby/nodes/leases.py; docs/NODES.md, "Leases"):
of two nodes one holds the lease; when its holder dies the other takes it, and only after the
dead one gave it up; a holder that stops hands it over at once; after a Redis restart the
holder loses it and a node takes it again. Short times to live (half a second); every wait
is a poll (tests/waiting.py)."""
from __future__ import annotations

import asyncio

import pytest
import redis.asyncio

from fibs_server.lobby.clock import LoopClock
from fibs_server.lobby.nodes.leases import BOTS, LeaseKeeper
from fibs_server.net.redis_lease import RedisLease, RedisLeases
from tests.redis_server import prefix, private_redis, redis_url  # noqa: F401 (fixtures)
from tests.waiting import until

TTL = 0.5  # seconds: renewed every 1/6 s, given up 5/12 s after the last good renewal


class Dying:
    """A node's lease that hangs for ever once the node is 'dead' (a frozen process, a
    partition): it renews nothing and releases nothing, as a SIGKILLed node."""

    expires = True

    def __init__(self, lease: RedisLease) -> None:
        self.name = lease.name
        self.lease = lease
        self.dead = asyncio.Event()

    async def _unless_dead(self, work):
        if self.dead.is_set():
            work.close()
            await asyncio.Event().wait()
        return await work

    async def acquire_or_renew(self) -> bool:
        return await self._unless_dead(self.lease.acquire_or_renew())

    async def release(self) -> None:
        await self._unless_dead(self.lease.release())

    async def is_held(self) -> bool:
        return await self.lease.is_held()


class Node:
    def __init__(self, url: str, node_id: str, prefix: str, events: list[str]) -> None:
        self.node_id = node_id
        self.events = events  # every node's begins and ends, in the order they ran
        self.leases = RedisLeases(url, node_id, TTL, prefix=prefix)
        self.lease = Dying(self.leases(BOTS))
        self.keeper = LeaseKeeper(self.lease, self, TTL, LoopClock())

    async def begin(self) -> None:
        self.events.append(f"{self.node_id} begins")

    async def end(self) -> None:
        self.events.append(f"{self.node_id} ends")

    @property
    def held(self) -> bool:
        return self.keeper.held

    async def stop(self) -> None:
        self.lease.dead.clear()
        await self.keeper.stop()
        await self.leases.close()


@pytest.fixture
async def make_nodes():
    made: list[Node] = []

    async def make(url: str, prefix: str, *node_ids: str) -> list[Node]:
        events: list[str] = []
        nodes = [Node(url, node_id, prefix, events) for node_id in node_ids]
        for node in nodes:
            await node.keeper.start()
            made.append(node)
        return nodes

    yield make
    for node in made:
        await node.stop()


def holders(nodes: list[Node]) -> list[str]:
    return [node.node_id for node in nodes if node.held]


async def the_holder(nodes: list[Node]) -> tuple[Node, Node]:
    """The one node of two that holds the lease, and the other. Mostly the first to start; on
    a loaded machine a renewal may come too late and the other take it: either will do."""
    await until(lambda: len(holders(nodes)) == 1, "one node holds the lease")
    first, second = nodes
    return (first, second) if first.held else (second, first)


def never_held_by_two(events: list[str]) -> None:
    """Each begin came after the previous holder's end. (A loop too late to renew may lose
    and retake the lease on a loaded machine: these figures allow that, never an overlap.)"""
    held_by: str | None = None
    for event in events:
        node, change = event.split()
        if change == "begins":
            assert held_by is None, events
            held_by = node
        else:
            assert held_by == node, events
            held_by = None


async def test_of_two_nodes_one_holds_the_lease_under_the_lobby_prefix(redis_url, prefix,
                                                                       make_nodes):
    nodes = await make_nodes(redis_url, prefix, "a", "b")
    a, b = nodes
    assert holders(nodes) == ["a"]  # the first to start took it; the other was refused
    assert await a.lease.is_held() and not await b.lease.is_held()
    raw = redis.asyncio.Redis.from_url(redis_url)
    try:
        assert await raw.get(f"{prefix}:lease:bots") == b"a"
        ttl_ms = await raw.pttl(f"{prefix}:lease:bots")
        assert 0 < ttl_ms <= TTL * 1000
    finally:
        await raw.aclose()
    # b can neither renew nor release what a holds.
    assert await b.lease.lease.acquire_or_renew() is False
    await b.lease.lease.release()
    assert await a.lease.lease.holder() == "a"
    never_held_by_two(a.events)


async def test_when_the_holder_dies_the_other_takes_the_lease_after_it_gave_up(
        redis_url, prefix, make_nodes):
    nodes = await make_nodes(redis_url, prefix, "a", "b")
    holder, other = await the_holder(nodes)
    holder.lease.dead.set()  # no renewal from now on, and no release
    await until(lambda: other.held, "the other takes the lease over")
    await other.keeper.settled()
    # The dead holder gave it up before its time to live ran out in Redis, so the two never
    # both held it: its end came before the other's begin.
    never_held_by_two(holder.events)
    assert holder.events[-2:] == [f"{holder.node_id} ends", f"{other.node_id} begins"]
    assert await other.lease.lease.holder() == other.node_id
    assert holder.keeper.figures.gained == holder.keeper.figures.lost >= 1


async def test_a_holder_that_stops_releases_the_lease_for_the_other_at_once(
        redis_url, prefix, make_nodes):
    nodes = await make_nodes(redis_url, prefix, "a", "b")
    holder, other = await the_holder(nodes)
    await holder.keeper.stop()
    assert await other.lease.lease.holder() is None  # released, not left to expire
    await until(lambda: other.held, "the other takes the lease")
    await other.keeper.settled()
    never_held_by_two(holder.events)
    assert holder.events[-2:] == [f"{holder.node_id} ends", f"{other.node_id} begins"]


async def test_after_a_redis_restart_the_holder_loses_the_lease_and_a_node_takes_it_again(
        private_redis, prefix, make_nodes):
    nodes = await make_nodes(private_redis.url, prefix, "a", "b")
    await the_holder(nodes)
    private_redis.kill()
    await until(lambda: holders(nodes) == [], "the holder gives the lease up")
    private_redis.start()  # empty: the lease's key is gone with the old server
    await until(lambda: len(holders(nodes)) == 1, "a node takes the lease again")
    holder = holders(nodes)[0]
    for node in nodes:
        await node.keeper.settled()
    assert await nodes[0].lease.lease.holder() == holder
    never_held_by_two(nodes[0].events)
