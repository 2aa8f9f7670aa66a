"""Redis without a single point of failure: a master, its replica and a sentinel on loopback
(Debian's redis-server, in sentinel mode for the sentinel). A client made from a sentinel URL
(`redis+sentinel://...`, every client of the nodes': net/redis_bus.py's `unretried_client`)
finds the master through the sentinel, and after the master is killed and the sentinel
promotes the replica, finds the new master with what was written before; the bus between
nodes subscribes again there and carries letters on."""
from __future__ import annotations

import asyncio
import pathlib
import shutil
import subprocess
import time

import pytest
import redis.asyncio

from fibs_server.lobby.nodes.bus import Said
from fibs_server.net.redis_bus import RedisBus, sentinel_address, unretried_client
from tests.conftest import skip_unless_ci
from tests.redis_server import REDIS_SERVER, RedisServer, free_port, prefix  # noqa: F401 (a fixture)
from tests.waiting import DEADLINE, until

SERVICE = "fibs"


class Sentinel:
    """One redis-server in sentinel mode watching `master`, failing it over after 500 ms."""

    def __init__(self, folder: pathlib.Path, master_port: int) -> None:
        self.port = free_port()
        config = folder / "sentinel.conf"
        config.write_text(f"port {self.port}\nbind 127.0.0.1\n"
                          f"sentinel monitor {SERVICE} 127.0.0.1 {master_port} 1\n"
                          f"sentinel down-after-milliseconds {SERVICE} 500\n"
                          f"sentinel failover-timeout {SERVICE} 5000\n")
        self.process = subprocess.Popen([REDIS_SERVER, str(config), "--sentinel"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    @property
    def url(self) -> str:
        return f"redis+sentinel://127.0.0.1:{self.port}/{SERVICE}/0"

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()


@pytest.fixture
async def master_replica_and_sentinel(tmp_path):
    if not shutil.which(REDIS_SERVER):
        skip_unless_ci(f"needs {REDIS_SERVER} (apt-get install -y redis-server)")
    servers = []
    for name in ("master", "replica"):
        (tmp_path / name).mkdir()
        servers.append(RedisServer(tmp_path / name))
    master, replica = servers
    master.start()
    replica.start()
    sentinel = Sentinel(tmp_path, master.port)
    clients = [redis.asyncio.Redis(port=port) for port in (replica.port, 0)]
    try:
        replicating, watching = clients[0], redis.asyncio.Redis(port=sentinel.port)
        clients[1] = watching
        await replicating.replicaof("127.0.0.1", master.port)

        async def synced() -> bool:
            info = await replicating.info("replication")
            return info.get("master_link_status") == "up"
        await until_async(synced, "the replica in sync with the master")

        async def known() -> bool:
            try:
                return bool(await watching.execute_command("SENTINEL", "REPLICAS", SERVICE))
            except (redis.ConnectionError, redis.ResponseError):
                return False
        await until_async(known, "the sentinel knows the replica")
        yield master, replica, sentinel
    finally:
        for client in clients:
            await client.aclose()
        sentinel.stop()
        for server in servers:
            server.kill()


async def until_async(condition, what: str) -> None:
    """`until` for a condition that asks a server: polled, a round trip each."""
    deadline = time.monotonic() + DEADLINE
    while not await condition():
        assert time.monotonic() < deadline, f"not within {DEADLINE} s: {what}"
        await asyncio.sleep(0.05)  # between round trips, not a synchronisation


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
    client = unretried_client(sentinel.url, connect_timeout=1.0, timeout=1.0)
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
