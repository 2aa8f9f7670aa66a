"""Limits of the network front end, what goes out on the wire, and the command-line flags of
every abuse limit (network and lobby).

Each connection's memory is bounded: input by MAX_UNREAD_BYTES (reading from a peer pauses
while that much waits to be served) plus one read and one line of `max_line_bytes`; output by
`output_buffer_cap`.
"""
from __future__ import annotations

import asyncio
import dataclasses
import ipaddress
from collections import Counter
from typing import Protocol

from fibs_server.protocol.views.web_events import PagePace

MAX_UNREAD_BYTES = 64 * 1024
# Seconds after a peer hung up during which the lines it sent before are still served: enough
# for a bot's last `leave` and `bye`, not for a flood of throttled login attempts.
LOST_PEER_GRACE = 5.0
MAX_LINE_BYTES = 4096  # FIBS commands are short; a longer line is discarded, not buffered
OUTPUT_BUFFER_CAP = 512 * 1024  # a peer this far behind in reading is cut off
TOO_MANY_CONNECTIONS = "** Too many connections from your address. Please try again later."
TOO_MANY_COMMANDS = "** You keep sending commands faster than they can be served. Goodbye."


@dataclasses.dataclass(frozen=True)
class NetLimits:
    """Each field is also a command-line flag and a FIBS_* variable (see docs/SECURITY.md)."""
    max_line_bytes: int = MAX_LINE_BYTES
    output_buffer_cap: int = OUTPUT_BUFFER_CAP
    connections_per_address: int = 30  # telnet, HTTP and WebSocket connections together
    # After a connection refused for its address's count gets the refusal's text, the
    # address's next ones on that port within so many seconds are closed without a word: a
    # reconnect storm costs an accept and a close each (net/listening.py).
    silent_refusal_seconds: float = 1.0
    # The HTTP port (net/http.py). Seconds a connection has to send a whole request head
    # (from its start), seconds a kept-alive connection may wait for its next request, and
    # each address's requests: a burst, then so many a second (429 beyond them).
    http_header_timeout: float = 10.0
    http_keepalive_timeout: float = 15.0
    http_request_burst: int = 100
    http_requests_per_second: float = 20.0
    # Commands per second (net/pacing.py): a burst, then paced; a connection that stays behind
    # its own rate for command_backlog_seconds is closed. A logged-in user's own bucket...
    command_burst: int = 200
    commands_per_second: float = 50.0
    # ...a connection's before login (a login or a registration takes a few lines)...
    login_command_burst: int = 20
    login_commands_per_second: float = 2.0
    # ...every connection's before login from one address together, kept across them (a
    # connection made again gets no new burst; a club's members logging in at once take a
    # few lines each)...
    login_address_command_burst: int = 100
    login_address_commands_per_second: float = 20.0
    # ...and everything from one address, logged in or not (a club behind one NAT).
    address_command_burst: int = 1000
    address_commands_per_second: float = 200.0
    command_backlog_seconds: float = 5.0
    # Seconds a connection from a configured load balancer has to send its PROXY header
    # (net/proxied.py) before it is closed.
    proxy_header_timeout: float = 5.0
    # A WebSocket from which nothing at all came for so many seconds is pinged (aiohttp's
    # heartbeat; a browser answers by itself); nothing within half as long again and it is
    # taken for gone: closed, and its page's session held as for any drop. 0: never pinged.
    websocket_ping_seconds: float = 10.0
    # Told to each page in its `hello` (web_events.PagePace): its heartbeat's period, the
    # heartbeats with nothing heard after which it gives a silent connection up, and its
    # waits before trying again: the first, doubling to the most.
    page_heartbeat_seconds: float = PagePace.heartbeat_seconds
    page_silent_heartbeats: int = PagePace.silent_heartbeats
    page_retry_first_seconds: float = PagePace.retry_first_seconds
    page_retry_most_seconds: float = PagePace.retry_most_seconds

    def page_pace(self) -> PagePace:
        return PagePace(self.page_heartbeat_seconds, self.page_silent_heartbeats,
                        self.page_retry_first_seconds, self.page_retry_most_seconds)


class ConnectionsElsewhere(Protocol):
    """The other nodes' open connections per address, as last heard (net/redis_counts.py):
    read at accept, which must stay cheap and synchronous, and told of this node's counts in
    the background."""

    def elsewhere(self, host: str) -> int:
        """`host`'s open connections on the other nodes, as last heard."""

    def changed(self, host: str, count: int) -> None:
        """`host` has `count` open connections here now (tell the other nodes)."""

    def recheck(self, host: str) -> None:
        """`host` was refused for the other nodes' connections: hear them again (what was
        heard may be stale: they may have closed since)."""


class AddressCounter:
    """Open connections per peer address: this node's, and with `others` the other nodes'
    too, as last heard; the sum is capped."""

    def __init__(self, limit: int, others: ConnectionsElsewhere | None = None) -> None:
        self.limit = limit
        self.others = others
        self._open: Counter[str] = Counter()

    def admit(self, host: str) -> bool:
        """Count a new connection from `host`, or refuse it (not counted) if it has too many."""
        if self.full(host):
            return False
        self._open[host] += 1
        if self.others is not None:
            self.others.changed(host, self._open[host])
        return True

    def full(self, host: str) -> bool:
        """Whether `host`'s next connection would be refused."""
        here = self._open.get(host, 0)
        if here >= self.limit:
            return True
        if self.others is None or here + self.others.elsewhere(host) < self.limit:
            return False
        self.others.recheck(host)
        return True

    def release(self, host: str) -> None:
        self._open[host] -= 1
        count = self._open[host]
        if count <= 0:
            del self._open[host]
        if self.others is not None:
            self.others.changed(host, max(0, count))

    def open_here(self) -> dict[str, int]:
        """Every address with connections open here, and how many."""
        return dict(self._open)


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def networks(text: str) -> tuple[Network, ...]:
    """`127.0.0.1,10.0.0.0/8,::1`: addresses and networks (host bits set are refused)."""
    return tuple(ipaddress.ip_network(part.strip()) for part in text.split(",") if part.strip())


def allowed(host: str | None, among: tuple[Network, ...]) -> bool:
    try:
        address = ipaddress.ip_address(host or "")
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped  # a dual-stack socket's IPv4 peer
    return any(address in network for network in among)


def peer_address(transport: asyncio.BaseTransport) -> str:
    """The peer's IP address, `-` when the transport does not know it."""
    peer = transport.get_extra_info("peername")
    return peer[0] if peer else "-"


