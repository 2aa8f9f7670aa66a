"""Two nodes behind a real HAProxy, configured as docs/OPERATIONS.md shows it (PROXY v2, the
health check on `/readyz`): a rolling restart of one node sends new players to the other while
it is away, and a match on the other node goes on meanwhile; a Redis outage every node shares
takes neither node out of the balancer."""
from __future__ import annotations

import asyncio
import csv
import io
import re
import shutil
import subprocess
import time

import pytest

from fibs_server.net.limits import networks
from tests.conftest import skip_unless_ci
from tests.e2e.client import FibsClient
from tests.e2e.conftest import ServerHarness
from tests.e2e.test_nodes import matched
from tests.redis_server import free_port, prefix, private_redis  # noqa: F401 (fixtures)
from tests.waiting import DEADLINE, until

HAPROXY = "/usr/sbin/haproxy"
DIRECT = "127.0.0.2"  # the test's own connections to a node, past the balancer

CONFIG = """
global
    stats socket {folder}/admin.sock mode 600 level admin
defaults
    mode tcp
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    timeout check 2s
frontend fibs_telnet
    bind 127.0.0.1:{front}
    default_backend fibs_telnet_nodes
backend fibs_telnet_nodes
    balance roundrobin
    option httpchk
    http-check send meth GET uri /readyz ver HTTP/1.1 hdr Host fibs
    http-check expect status 200
    default-server inter 100ms fall 2 rise 2
    server a 127.0.0.1:{a_port} send-proxy-v2 check port {a_http} check-send-proxy
    server b 127.0.0.1:{b_port} send-proxy-v2 check port {b_http} check-send-proxy
"""


class Balancer:
    def __init__(self, folder, front: int, nodes: list[ServerHarness]) -> None:
        if not shutil.which(HAPROXY):
            skip_unless_ci(f"needs {HAPROXY} (apt-get install -y haproxy)")
        self.folder, self.front = folder, front
        a, b = (node.config for node in nodes)
        path = folder / "haproxy.cfg"
        path.write_text(CONFIG.format(folder=folder, front=front, a_port=a.port,
                                      a_http=a.http_port, b_port=b.port, b_http=b.http_port))
        self.process = subprocess.Popen([HAPROXY, "-db", "-f", str(path)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    async def states(self) -> dict[str, str]:
        """Each server's status as HAProxy sees it (UP, DOWN, ...)."""
        try:
            reader, writer = await asyncio.open_unix_connection(str(self.folder / "admin.sock"))
        except OSError:
            return {}
        writer.write(b"show stat\n")
        text = (await reader.read()).decode()
        writer.close()
        rows = csv.DictReader(io.StringIO(text.removeprefix("# ")))
        return {row["svname"]: row["status"] for row in rows
                if row["pxname"] == "fibs_telnet_nodes" and row["svname"] in ("a", "b")}

    async def until(self, wanted: dict[str, str], why: str) -> None:
        """Poll HAProxy's stats (a socket round trip each) until they show `wanted`."""
        deadline = time.monotonic() + DEADLINE
        while (seen := await self.states()) != wanted:
            assert time.monotonic() < deadline, f"not within {DEADLINE} s: {why} (HAProxy: {seen})"
            await asyncio.sleep(0.02)

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()


async def log_in(port: int, name: str, source: str | None = None) -> FibsClient:
    client = await FibsClient(name).connect(port, source)
    await client.send(f"login testclient 1008 {name} secret")
    await client.skip_until("6")
    return client


def node_of(nodes: list[ServerHarness], name: str) -> str:
    for node in nodes:
        if node.server is not None and node.server.lobby is not None \
                and name in node.server.lobby.attendance.users.online:
            return node.config.node_id
    return "none"


@pytest.fixture
async def balanced(postgresql_url, private_redis, prefix, tmp_path):  # noqa: F811
    nodes = []
    for node_id in ("a", "b"):
        node = ServerHarness(postgresql_url)
        node.config.bus_url, node.config.bus_prefix = private_redis.url, prefix
        node.config.node_id, node.config.port, node.config.http_port = \
            node_id, free_port(), free_port()
        node.config.proxy_from = networks("127.0.0.1/32")  # the balancer's connections
        nodes.append(node)
    balancer = None
    try:
        for node in nodes:
            await node.start()
        balancer = Balancer(tmp_path, free_port(), nodes)
        await balancer.until({"a": "UP", "b": "UP"}, "both nodes in the balancer")
        yield nodes, balancer, private_redis
    finally:
        if balancer is not None:
            balancer.stop()
        for node in nodes:
            await node.stop()


async def test_a_rolling_restart_through_haproxy_keeps_the_other_nodes_players_playing(
        balanced):
    (a, b), balancer, _ = balanced
    for name in ("alice", "bob", "dave", "erin", "fay"):
        await a.register(name)
    alice = await log_in(b.server.port, "alice", DIRECT)
    bob = await log_in(b.server.port, "bob", DIRECT)
    b.script_dice((3, 1), (6, 5), (2, 2), (4, 3))
    await matched(alice, bob)  # their match, on b
    await alice.skip_until("It's your turn to move.")

    await a.stop()  # SIGTERM's way: not ready at once, then gone
    await balancer.until({"a": "DOWN", "b": "UP"}, "a out of the balancer")
    players = [await log_in(balancer.front, name) for name in ("dave", "erin")]
    assert [node_of([a, b], name) for name in ("dave", "erin")] == ["b", "b"]
    await alice.send("move 8-5 6-5")  # b's match goes on meanwhile
    await bob.skip_until("It's your turn to roll or double.")

    await a.start()  # the same ports
    await balancer.until({"a": "UP", "b": "UP"}, "a back in the balancer")
    await bob.send("roll")
    await bob.skip_until("You roll 6 and 5.")
    await alice.skip_until("bob rolls 6 and 5.")
    # Round robin again: of two new logins, one goes to a.
    players += [await log_in(balancer.front, name) for name in ("fay", "alice")]
    assert "a" in {node_of([a, b], "fay"), node_of([a, b], "alice")}
    for client in players:
        await client.close()


async def test_a_redis_outage_every_node_shares_takes_no_node_out(balanced):
    (a, b), balancer, redis = balanced
    await a.register("dave")
    await asyncio.to_thread(redis.kill)
    for node in (a, b):
        await until(lambda node=node: node.server.links.outages == {"bus": "shared"},
                    f"{node.config.node_id} finds the bus down for every node")
        assert await node.server.readiness() is None
    health = await asyncio.to_thread(http_get, a.config.http_port, "/healthz")
    assert health == "ok\nbus down (every node)\n"
    metrics = await a.server.metrics()
    assert 'fibs_link_down{link="bus",scope="shared"} 1' in metrics
    await balancer.until({"a": "UP", "b": "UP"}, "both nodes still in the balancer")
    dave = await log_in(balancer.front, "dave")  # a new player gets in
    await dave.close()


def http_get(port: int, path: str) -> str:
    """A GET from another address than the balancer's (so without a PROXY header)."""
    import socket
    with socket.create_connection(("127.0.0.1", port), source_address=(DIRECT, 0)) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        answer = b""
        while chunk := sock.recv(4096):
            answer += chunk
    return re.split(r"\r\n\r\n", answer.decode(), maxsplit=1)[1]
