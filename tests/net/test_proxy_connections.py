"""Connections through a load balancer over real sockets: a loopback client at a listed
address (BALANCER) acts as HAProxy, sending a PROXY header (v1 or v2) and then the player's
bytes. The server then knows the player by the header's address (`whois`, the account's last
host, the per-address count), closes a balancer's connection whose header is malformed or
late, and treats `PROXY ...` from any other peer as the ordinary line it is."""
from __future__ import annotations

import asyncio
import dataclasses

import pytest

from fibs_server.__main__ import parse_arguments
from fibs_server.net.http import networks
from fibs_server.net.limits import TOO_MANY_CONNECTIONS, NetLimits
from fibs_server.net.proxy_protocol import v1_header, v2_header
from tests.e2e.client import FibsClient
from tests.e2e.conftest import DATE_LINE, ServerHarness
from tests.fake_clock import FakeClock
from tests.waiting import DEADLINE, until
from tests.web.conftest import WebHarness

BALANCER = "127.0.0.2"
ELSEWHERE = "127.0.0.3"  # a loopback peer not listed as a balancer
PLAYER = "203.0.113.7"


@pytest.fixture
async def make_proxied(tmp_path):
    """`await make_proxied(web=False, **ServerConfig fields)`: a started server that takes
    PROXY headers from BALANCER."""
    started: list[ServerHarness] = []

    async def make(web: bool = False, clock: FakeClock | None = None,
                   **config) -> ServerHarness:
        kind = WebHarness if web else ServerHarness
        harness = kind(f"sqlite:///{tmp_path / f'proxied{len(started)}.db'}")
        harness.config = dataclasses.replace(harness.config, proxy_from=networks(BALANCER),
                                             **config)
        if clock is not None:
            harness.lobby_options["clock"] = clock
        started.append(await harness.start())
        return harness

    yield make
    for harness in started:
        await harness.stop()


async def through_balancer(harness: ServerHarness, header: bytes, name: str = "?",
                           then: bytes = b"") -> FibsClient:
    """A connection from BALANCER that sends `header` (and `then` in the same write), before
    the server has said anything: it greets only once the header is in."""
    assert harness.server is not None
    client = await FibsClient(name).connect(harness.server.port, BALANCER)
    harness.clients.append(client)
    await client.send_raw(header + then)
    return client


async def closed_without_a_word(client: FibsClient) -> bool:
    """The server closed the connection and sent nothing (a close with the peer's bytes still
    unread is a reset)."""
    try:
        return await client.expect_closed() == b""
    except ConnectionResetError:
        return client.buffer == b""


async def log_in_through_balancer(harness: ServerHarness, header: bytes, name: str,
                                  together: bool = False) -> FibsClient:
    """`name` logs in as a CLIP client behind the balancer; `together`: the login line in
    the header's own write."""
    login = f"login testclient 1008 {name} secret\r\n".encode()
    client = await through_balancer(harness, header, name, login if together else b"")
    await client.skip_until(DATE_LINE)
    if not together:
        await client.expect_prompt("login: ")
        await client.send_raw(login)
    await client.skip_until("6")
    return client


@pytest.mark.parametrize("version, player", [
    ("v1", PLAYER), ("v2", PLAYER), ("v1", "2001:db8::7"), ("v2", "2001:db8::7")])
async def test_the_header_names_the_player_for_whois_and_the_record(make_proxied, version,
                                                                    player):
    harness = await make_proxied()
    assert harness.server is not None and harness.server.lobby is not None
    await harness.register("alice")
    balancer = "::1" if ":" in player else "127.0.0.1"
    header = (v1_header(player, balancer, 51234, 4321) if version == "v1"
              else v2_header(player, balancer, 51234, 4321))
    alice = await log_in_through_balancer(harness, header, "alice", together=version == "v2")
    await alice.send("whois alice")
    lines = await alice.skip_until("  No email address.")
    assert any(line.startswith("  Last login: ") and line.endswith(f" from {player}")
               for line in lines), lines
    assert harness.server.lobby.attendance.users.online["alice"].connection.host == player
    account = await harness.server.lobby.accounts.find_account("alice")
    assert account is not None and account.last_login_host == player


async def test_a_local_or_unknown_header_is_the_balancers_own_connection(make_proxied):
    harness = await make_proxied()
    assert harness.server is not None and harness.server.lobby is not None
    await harness.register("alice")
    await harness.register("bob")
    await log_in_through_balancer(harness, v2_header(None), "alice")
    await log_in_through_balancer(harness, b"PROXY UNKNOWN\r\n", "bob")
    assert {harness.server.lobby.attendance.users.online[name].connection.host
            for name in ("alice", "bob")} == {BALANCER}


async def test_the_per_address_count_is_the_header_addresses(make_proxied):
    harness = await make_proxied(net_limits=NetLimits(connections_per_address=2))
    first, second = "198.51.100.1", "198.51.100.2"
    for _ in range(2):
        client = await through_balancer(harness, v1_header(first, "127.0.0.1", 1, 2))
        await client.skip_until(DATE_LINE)
    refused = await through_balancer(harness, v2_header(first))
    assert (await refused.expect_closed()).decode().strip() == TOO_MANY_CONNECTIONS
    # The balancer's own address has 3 connections already, over the count of 2: it is not
    # a player's. Another player behind it is admitted.
    for _ in range(2):
        client = await through_balancer(harness, v2_header(second))
        await client.skip_until(DATE_LINE)
    # Its own connections (LOCAL) count against its address like a player's.
    for _ in range(2):
        client = await through_balancer(harness, v2_header(None))
        await client.skip_until(DATE_LINE)
    refused = await through_balancer(harness, b"PROXY UNKNOWN\r\n")
    assert (await refused.expect_closed()).decode().strip() == TOO_MANY_CONNECTIONS


async def test_a_peer_not_listed_is_never_read_for_a_header(make_proxied):
    harness = await make_proxied()
    assert harness.server is not None and harness.server.lobby is not None
    await harness.register("alice")
    client = await FibsClient("alice").connect(harness.server.port, ELSEWHERE)
    harness.clients.append(client)
    await client.skip_until(DATE_LINE)  # greeted at once, as every direct peer
    await client.expect_prompt("login: ")
    await client.send_raw(v1_header(PLAYER, "127.0.0.1", 1, 2))  # a name at the prompt
    await client.expect_prompt("password: ")
    await client.send("wrong")
    await client.skip_until("")
    await client.expect_prompt("login: ")
    await client.send("login testclient 1008 alice secret")
    await client.skip_until("6")
    assert harness.server.lobby.attendance.users.online["alice"].connection.host == ELSEWHERE


@pytest.mark.parametrize("garbage", [
    b"login alice secret\r\n",
    b"PROXY TCP4 1.2.3.4 5.6.7.8 1\r\n",
    b"PROXY " + b"9" * 200,
    v2_header(PLAYER)[:12] + b"\x21\x11\xff\xff",  # a v2 length past the cap
])
async def test_a_malformed_header_from_the_balancer_closes_without_a_word(make_proxied,
                                                                          garbage):
    harness = await make_proxied()
    assert harness.server is not None and harness.server.lobby is not None
    client = await through_balancer(harness, garbage)
    assert await closed_without_a_word(client)
    assert harness.server._front is not None
    assert harness.server._front.balancer_headers.refused_count == 1
    assert not harness.server.lobby.attendance.users.connections


async def test_a_header_not_in_time_closes_the_connection(make_proxied):
    clock = FakeClock()
    harness = await make_proxied(clock=clock,
                                 net_limits=NetLimits(proxy_header_timeout=3.0))
    assert harness.server is not None and harness.server._front is not None
    headers = harness.server._front.balancer_headers
    client = await through_balancer(harness, v1_header(PLAYER, "127.0.0.1", 1, 2)[:20])
    await until(lambda: headers.waiting == 1)
    clock.advance(2.9)
    assert headers.waiting == 1 and headers.refused_count == 0
    clock.advance(0.2)
    assert await closed_without_a_word(client)
    assert headers.waiting == 0 and headers.refused_count == 1


async def http_get_through_balancer(harness: WebHarness, header: bytes, path: str) -> bytes:
    """The raw answer to GET `path` sent after `header` from BALANCER (None: no header)."""
    assert harness.server is not None and harness.server.http_port is not None
    reader, writer = await asyncio.open_connection("127.0.0.1", harness.server.http_port,
                                                   local_addr=(BALANCER, 0))
    writer.write(header + f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                 .encode())
    try:
        return await asyncio.wait_for(reader.read(), DEADLINE)
    finally:
        writer.close()


async def test_http_sees_the_headers_address(make_proxied):
    harness = await make_proxied(web=True, metrics_from=networks("127.0.0.1"))
    assert isinstance(harness, WebHarness)
    # /metrics answers 127.0.0.1 only: the balancer's own address is refused, the player's
    # address in the header is what is checked.
    allowed = await http_get_through_balancer(
        harness, v1_header("127.0.0.1", "127.0.0.1", 1, 2), "/metrics")
    assert allowed.startswith(b"HTTP/1.1 200 ") and b"fibs_connections" in allowed
    for header in (v2_header(PLAYER), v2_header(None)):
        refused = await http_get_through_balancer(harness, header, "/metrics")
        assert refused.startswith(b"HTTP/1.1 403 ")
    # Without a header, a request from the balancer is not parsed at all.
    assert await http_get_through_balancer(harness, b"", "/healthz") == b""
    # From elsewhere, as always.
    reader, writer = await asyncio.open_connection("127.0.0.1", harness.server.http_port,
                                                   local_addr=(ELSEWHERE, 0))
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert (await asyncio.wait_for(reader.read(), DEADLINE)).startswith(b"HTTP/1.1 200 ")
    writer.close()


async def test_http_counts_the_headers_address(make_proxied):
    harness = await make_proxied(web=True, net_limits=NetLimits(connections_per_address=1))
    assert harness.server is not None and harness.server.http_port is not None
    # One kept-alive connection for the player: the next is over its count.
    reader, writer = await asyncio.open_connection("127.0.0.1", harness.server.http_port,
                                                   local_addr=(BALANCER, 0))
    writer.write(v2_header(PLAYER) + b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    assert (await reader.readuntil(b"ok\n")).startswith(b"HTTP/1.1 200 ")
    refused = await http_get_through_balancer(harness, v1_header(PLAYER, "127.0.0.1", 1, 2),
                                              "/healthz")
    assert refused.startswith(b"HTTP/1.1 503 ") and TOO_MANY_CONNECTIONS.encode() in refused
    other = await http_get_through_balancer(harness, v2_header("198.51.100.9"), "/healthz")
    assert other.startswith(b"HTTP/1.1 200 ")
    writer.close()


def test_proxy_from_takes_addresses_and_networks_and_defaults_to_none(monkeypatch):
    assert parse_arguments([]).proxy_from == ()
    given = parse_arguments(["--proxy-from", "10.0.5.2, 10.0.6.0/24,::1"]).proxy_from
    assert [str(network) for network in given] == ["10.0.5.2/32", "10.0.6.0/24", "::1/128"]
    monkeypatch.setenv("FIBS_PROXY_FROM", "192.0.2.1")
    assert [str(network) for network in parse_arguments([]).proxy_from] == ["192.0.2.1/32"]
    with pytest.raises(SystemExit):
        parse_arguments(["--proxy-from", "10.0.6.1/24"])  # host bits set: a typo
