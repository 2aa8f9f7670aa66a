"""Readiness that balances (fibs_server/readiness.py): a link down on this node alone makes it not
ready; one that no other node found working since (a shared outage) leaves it ready, reported;
both links down, or no witness, is this node's. The witnesses themselves on the real services:
Redis for the store, the store (SQLite and PostgreSQL) for the bus."""
from __future__ import annotations

from fibs_server.readiness import WITNESS_WINDOW, Readiness, RedisWitness, Witness
from fibs_server.store import SqlStore, upgrade_database_async
from tests.redis_server import prefix, private_redis, redis_url  # noqa: F401 (fixtures)


class FakeWitness:
    """Notes on a clock the test moves."""

    def __init__(self) -> None:
        self.now = 100.0
        self.notes: dict[tuple[str, str], float] = {}

    async def note_link(self, link: str, node: str) -> None:
        self.notes[link, node] = self.now

    async def witness_time(self) -> float:
        return self.now

    async def links_noted_since(self, link: str, since: float, other_than: str) -> int:
        return sum(1 for (noted, node), at in self.notes.items()
                   if noted == link and node != other_than and at > since)


class Links:
    def __init__(self) -> None:
        self.store: str | None = None
        self.bus: str | None = None

    async def store_fault(self) -> str | None:
        return self.store

    def bus_fault(self) -> str | None:
        return self.bus


def node(name: str, links: Links, witnesses: dict) -> Readiness:
    return Readiness(name, links.store_fault, links.bus_fault, witnesses)


async def test_a_store_down_here_alone_is_not_ready_and_one_down_everywhere_is():
    redis, store = FakeWitness(), FakeWitness()
    a_links, b_links = Links(), Links()
    a, b = (node("a", a_links, {"store": redis, "bus": store}),
            node("b", b_links, {"store": redis, "bus": store}))
    await a.note()
    await b.note()
    assert await a.check() is None and a.outages == {} and a.health_lines() == []

    # Every node's store fails: nobody noted it working since a found it down.
    a_links.store = b_links.store = "the store failed: OSError"
    redis.now += 1
    assert await a.check() is None and await b.check() is None
    assert a.outages == {"store": "shared"}
    assert a.health_lines() == ["store down (every node)"]
    redis.now += 5
    await b.note()  # b's note is no witness: its store is still down
    assert await a.check() is None

    # b's store comes back; a's does not: a is not ready from b's next note on.
    b_links.store = None
    redis.now += 1
    await b.note()
    assert await a.check() == "the store failed: OSError" and a.outages == {"store": "node"}
    assert a.health_lines() == ["store down (this node)"]
    a_links.store = None
    assert await a.check() is None and a.outages == {}


async def test_a_node_that_noticed_a_shared_outage_late_is_a_witness_for_a_while_only():
    redis, store = FakeWitness(), FakeWitness()
    a_links, b_links = Links(), Links()
    a, b = (node("a", a_links, {"store": redis, "bus": store}),
            node("b", b_links, {"store": redis, "bus": store}))
    a_links.bus = "not connected to the other nodes (the bus)"
    assert await a.check() is None
    store.now += 0.5
    await b.note()  # b has not noticed yet
    b_links.bus = a_links.bus
    assert await a.check() == a_links.bus
    store.now += WITNESS_WINDOW
    assert await a.check() is None and a.outages == {"bus": "shared"}


async def test_a_bus_down_here_alone_is_witnessed_by_the_store():
    redis, store = FakeWitness(), FakeWitness()
    a_links, b_links = Links(), Links()
    a, b = (node("a", a_links, {"store": redis, "bus": store}),
            node("b", b_links, {"store": redis, "bus": store}))
    a_links.bus = "not connected to the other nodes (the bus)"
    assert await a.check() is None and a.outages == {"bus": "shared"}  # nobody else said yet
    store.now += 2
    await b.note()  # b's bus is subscribed: a's cut is a's alone
    assert await a.check() == "not connected to the other nodes (the bus)"


async def test_both_links_down_or_no_witness_is_this_nodes_fault():
    redis, store = FakeWitness(), FakeWitness()
    links = Links()
    links.store, links.bus = "the store failed: OSError", "not connected to the other nodes (the bus)"
    a = node("a", links, {"store": redis, "bus": store})
    assert await a.check() == "the store failed: OSError"
    assert a.outages == {"store": "node", "bus": "node"}
    alone = node("a", links, {})  # one node, no bus: nothing to compare with
    links.bus = None
    assert await alone.check() == "the store failed: OSError"


async def test_a_witness_that_fails_to_answer_tells_nothing():
    class Broken(FakeWitness):
        async def witness_time(self) -> float:
            raise OSError("refused")

    links = Links()
    links.store = "the store failed: OSError"
    a = node("a", links, {"store": Broken()})
    assert await a.check() == "the store failed: OSError" and a.outages == {"store": "node"}


async def notes_of_other_nodes(witness: Witness) -> None:
    await witness.note_link("bus", "a")
    since = await witness.witness_time()
    assert await witness.links_noted_since("bus", since, "b") == 0  # a's note is older
    await witness.note_link("bus", "a")  # again, later
    await witness.note_link("bus", "b")
    await witness.note_link("store", "c")
    assert await witness.links_noted_since("bus", since, "b") == 1  # a's, not b's own
    assert await witness.links_noted_since("bus", since, "a") == 1
    assert await witness.links_noted_since("store", since, "a") == 1


async def test_the_store_witnesses_on_its_own_clock(database_url):
    await upgrade_database_async(database_url)
    store = await SqlStore.open(database_url)
    try:
        await notes_of_other_nodes(store)
    finally:
        await store.close()


async def test_redis_witnesses_on_its_own_clock(redis_url, prefix):
    witness = RedisWitness(redis_url, prefix)
    try:
        await notes_of_other_nodes(witness)
    finally:
        await witness.client.delete(f"{prefix}:links:bus", f"{prefix}:links:store")
        await witness.close()
