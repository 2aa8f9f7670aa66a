"""Connections from a configured load balancer (`--proxy-from`): each begins with a PROXY
header (net/proxy_protocol.py) naming the player, and is the player's from then on. Until the
header is in, such a connection is nobody's: it counts against no address (the balancer's
own address is not a player's, and refusing it at its count would refuse every player behind
it), gets no session and no output. The header's source is then admitted against its count
like any direct peer, and a LOCAL or UNKNOWN header's connection against the balancer's.

A header that is malformed, too long or not in within `proxy_header_timeout` seconds closes
the connection without a word (anything written would reach a player as garbage). The
balancer is trusted, so such a header is a misconfiguration: it is logged, at most once a
minute, with the count of those since."""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from fibs_server.lobby.clock import Alarm, Clock
from fibs_server.net.limits import peer_address
from fibs_server.net.proxy_protocol import ProxyHeaderError, parse_header

log = logging.getLogger(__name__)

WARNING_INTERVAL = 60.0  # seconds between log lines about refused headers


class BalancerHeaders:
    """The headers of one server's balancer connections: how many are awaited now, how many
    were refused, logged one line a minute at most (a flood of them)."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.waiting = 0  # connections whose header is not in yet
        self.refused_count = 0  # since the process started
        self._unlogged = 0
        self._logged_at: float | None = None

    def refused(self, balancer: str, reason: str) -> None:
        self.refused_count += 1
        now = self.clock.time()
        if self._logged_at is not None and now - self._logged_at < WARNING_INTERVAL:
            self._unlogged += 1
            return
        log.warning("closed a connection from the load balancer %s: %s (%d more refused "
                    "since the last such line)", balancer, reason, self._unlogged)
        self._logged_at, self._unlogged = now, 0


class HeaderWait:
    """A balancer's connection until its PROXY header is in: `feed` it what is read; then
    `arrived(address, rest)` is called once with the connection's address and the bytes after
    the header, or the transport is closed."""

    __slots__ = ("transport", "balancer", "done", "_buffer", "_arrived", "_headers", "_alarm")

    def __init__(self, transport: asyncio.Transport, clock: Clock, timeout: float,
                 headers: BalancerHeaders, arrived: Callable[[str, bytes], None]) -> None:
        self.transport = transport
        self.balancer = peer_address(transport)
        self.done = False
        self._buffer = b""  # bounded: the parser refuses past a header's longest
        self._arrived = arrived
        self._headers = headers
        self._alarm: Alarm = clock.call_at(clock.time() + timeout, self._too_slow)
        headers.waiting += 1

    def feed(self, data: bytes) -> None:
        if self.done:
            return
        self._buffer += data
        try:
            header = parse_header(self._buffer)
        except ProxyHeaderError as error:
            self._refuse(str(error))
            return
        if header is None:
            return
        self.cancel()
        rest, self._buffer = self._buffer[header.length:], b""
        self._arrived(self.balancer if header.source is None else header.source, rest)

    def cancel(self) -> None:
        """The header is in, or the connection gone: no more timing."""
        if not self.done:
            self.done = True
            self._alarm.cancel()
            self._headers.waiting -= 1

    def _too_slow(self) -> None:
        if not self.done:
            self._refuse("no PROXY header in time")

    def _refuse(self, reason: str) -> None:
        self.cancel()
        self._headers.refused(self.balancer, reason)
        self.transport.close()  # nothing was written: a FIN, and no more reading
