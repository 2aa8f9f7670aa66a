"""Redis without a single point of failure: a master, its replica and a sentinel on loopback
(tests/redis_server.py's `master_replica_and_sentinel`). A client made from a sentinel URL
(`redis+sentinel://...`, every client of the nodes': net/redis_bus.py's `unretried_client`)
finds the master through the sentinel, and after the master is killed and the sentinel
promotes the replica, finds the new master with what was written before; the bus between
nodes subscribes again there and carries letters on."""
from __future__ import annotations

import pytest
import redis.asyncio

from fibs_server.lobby.nodes.bus import Said
from fibs_server.net.redis_bus import RedisBus, sentinel_address, unretried_client
from tests.redis_server import master_replica_and_sentinel, prefix  # noqa: F401 (fixtures)
from tests.waiting import until, until_async


def test_a_sentinel_url_names_the_sentinels_the_service_and_the_database():
    assert sentinel_address("redis+sentinel://:secret@10.0.5.21:26379,[::1]:26380/fibs/2") == (
        [("10.0.5.21", 26379), ("::1", 26380)], "fibs", 2, "secret")
    assert sentinel_address("redis+sentinel://10.0.5.21:26379/fibs") == (
        [("10.0.5.21", 26379)], "fibs", 0, None)
    with pytest.raises(ValueError):
        sentinel_address("redis+sentinel://10.0.5.21:26379/")


async def test_a_failover_to_the_replica_keeps_what_was_written_and_the_bus(
        master_replica_and_sentinel, prefix):  # noqa: F811
    master, replica, sentinel = master_replica_and_sentinel
    # A killed master refuses at once; the timeout is for a loaded machine's slow answers
    # (the first `set` and the WAIT are outside the poll below).
    client = unretried_client(sentinel.url, connect_timeout=10.0, timeout=10.0)
    heard: list[str] = []
    buses = [RedisBus(sentinel.url, "a", lambda names, letter: None, prefix=prefix),
             RedisBus(sentinel.url, "b", lambda names, letter: heard.append(str(letter)),
                      prefix=prefix)]
    try:
        await client.set("written", "before")
        await client.execute_command("WAIT", 1, 5000)  # on the replica too
        for bus in buses:
            await bus.start()
            await bus.until_subscribed()
        master.kill()

        async def promoted() -> bool:
            try:
                await client.set("written-after", "yes")
                return (await client.info("server"))["tcp_port"] == replica.port
            except (redis.ConnectionError, redis.TimeoutError, redis.ReadOnlyError):
                return False
        await until_async(promoted, "the sentinel promotes the replica, and the client finds it")
        assert await client.get("written") == b"before"
        for bus in buses:
            await until(lambda bus=bus: bus.subscribed, f"{bus} subscribed to the new master")

        async def carried() -> bool:
            buses[0].tell_all(Said("shout", "alice", "after the failover"))
            return any("after the failover" in letter for letter in heard)
        await until_async(carried, "a letter from a to b through the new master")
    finally:
        for bus in buses:
            await bus.stop()
        await client.aclose()
