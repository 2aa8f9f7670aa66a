"""The listening sockets of the telnet and HTTP ports, and the process's descriptor limit.

When the process is out of file descriptors, asyncio's accept loop (Python 3.11-3.13) keeps
calling `accept()` up to its backlog (100) times on the same turn, and each failure logs a
traceback and schedules one more retry a second later: the retries multiply, and a thousand
idle connections made 486,078 log lines in 50 s at 90 % CPU. `BackingOffSocket` fails only
the first `accept()` of a turn with the real error (asyncio then stops reading the socket
and retries in a second: one attempt a second) and says "no connection waiting" to the
rest; the exhaustion is logged once when it starts and once when it ends.

A connection from an address at its connection count is refused right at `accept()`, before
asyncio makes a task, a transport and a protocol for it (`RefusalAtAccept`): the refusal's
text once, then, for the address's next ones within `silent_refusal_seconds`, a close without
a word. 40 clients from one address reconnecting as fast as they could (~2,600 refusals a
second) took 25 % of the server's CPU through asyncio's whole path. A configured load
balancer's connections are never refused here: each is counted against the player its PROXY
header names, once that is read (net/proxied.py).
"""
from __future__ import annotations

import asyncio
import errno
import logging
import os
import resource
import socket
import time
from collections.abc import Callable
from typing import Any

from fibs_server.net.limits import AddressCounter

log = logging.getLogger(__name__)

# The errors after which asyncio pauses accepting: the process or the system is out of them.
OUT_OF_RESOURCES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
ASYNCIO_ACCEPT_FAILURE = "socket.accept() out of system resource"  # its exception handler's


# Connections one accept() call refuses before it gives the loop a turn.
REFUSALS_PER_ACCEPT = 100
# Recently refused addresses kept before the ones past their silence are forgotten.
FEW_REFUSED = 1024


class RefusalAtAccept:
    """Which accepted connections to refuse before asyncio sees them: those from an address
    at its connection count (the protocols count and refuse too: a batch accepted in one turn
    is counted only as each is set up). The first of them within `silence` seconds gets
    `refusal`, the others are closed without a word. `exempt` addresses (the load balancers)
    are never refused."""

    def __init__(self, addresses: AddressCounter, refusal: bytes, silence: float,
                 clock: Callable[[], float] = time.monotonic,
                 exempt: Callable[[str], bool] = lambda host: False) -> None:
        self.addresses = addresses
        self.exempt = exempt
        self.refusal = refusal
        self.silence = silence
        self.clock = clock
        self._told_at: dict[str, float] = {}  # address: when its last refusal was sent
        self._forget_at = FEW_REFUSED
        self.told = self.silenced = 0

    def refused(self, descriptor: int, host: str) -> bool:
        """Whether the connection on `descriptor` was refused (and closed)."""
        if not self.addresses.full(host) or self.exempt(host):
            return False
        now = self.clock()
        if now - self._told_at.get(host, -self.silence) >= self.silence:
            self._told_at[host] = now
            self.told += 1
            try:  # a fresh socket's send buffer is empty: a short text never blocks
                os.write(descriptor, self.refusal)
            except OSError:  # the peer is gone already
                pass
            if len(self._told_at) >= self._forget_at:
                self._forget_silences_over(now)
        else:
            self.silenced += 1
        os.close(descriptor)
        return True

    def _forget_silences_over(self, now: float) -> None:
        for host in [h for h, told in self._told_at.items() if now - told >= self.silence]:
            del self._told_at[host]
        self._forget_at = max(FEW_REFUSED, 2 * len(self._told_at))


class BackingOffSocket(socket.socket):
    """A listening socket: see the module's docstring."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.failed_this_turn = False
        self.refused = 0  # accept attempts that failed since the descriptors ran out
        self.refuse_at_accept: RefusalAtAccept | None = None

    def accept(self) -> tuple[socket.socket, Any]:
        if self.failed_this_turn:
            raise BlockingIOError(errno.EAGAIN, "backing off: out of descriptors")
        for _ in range(REFUSALS_PER_ACCEPT):
            descriptor, address = self._accept_descriptor()
            if (self.refuse_at_accept is None
                    or not self.refuse_at_accept.refused(descriptor, address[0])):
                # As socket.accept() makes it; asyncio sets it non-blocking.
                return socket.socket(self.family, self.type, self.proto,
                                     fileno=descriptor), address
        raise BlockingIOError(errno.EAGAIN, "refused connections: the loop's turn")

    def _accept_descriptor(self) -> tuple[int, Any]:
        """A waiting connection's descriptor and address, without a socket object yet."""
        try:
            accepted = self._accept()  # type: ignore[attr-defined]
        except OSError as error:
            if error.errno not in OUT_OF_RESOURCES:
                raise
            if not self.refused:
                log.warning("cannot accept connections on port %d: %s; retrying every second",
                            self.getsockname()[1], error.strerror)
            self.refused += 1
            self.failed_this_turn = True
            asyncio.get_running_loop().call_soon(self._next_turn)
            raise
        if self.refused:
            log.warning("accepting connections on port %d again (%d attempts failed)",
                        self.getsockname()[1], self.refused)
            self.refused = 0
        return accepted

    def _next_turn(self) -> None:
        self.failed_this_turn = False


def refuse_over_count_at_accept(listening: socket.socket, addresses: AddressCounter,
                                refusal: bytes, silence: float,
                                exempt: Callable[[str], bool] = lambda host: False) -> None:
    """Have `listening` refuse connections over their address's count itself (when it is
    ours: a test's plain socket leaves it to the protocols), but for `exempt` addresses."""
    if isinstance(listening, BackingOffSocket):
        listening.refuse_at_accept = RefusalAtAccept(addresses, refusal, silence,
                                                     exempt=exempt)


def listening_socket(host: str, port: int, backlog: int = 100) -> BackingOffSocket:
    """A non-blocking socket listening on `host`'s first address (as asyncio would bind it)."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    listening = BackingOffSocket(family, kind, proto)
    try:
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            listening.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        listening.bind(address)
        listening.listen(backlog)
        listening.setblocking(False)
    except OSError:
        listening.close()
        raise
    return listening


def quiet_accept_failures(loop: asyncio.AbstractEventLoop) -> Callable[[], None]:
    """Leave the logging of a failed accept to `BackingOffSocket` (once, not every second);
    every other exception the loop reports goes where it went. Returns what puts the loop's
    handler back."""
    previous = loop.get_exception_handler()

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") == ASYNCIO_ACCEPT_FAILURE:
            return
        if previous is None:
            loop.default_exception_handler(context)
        else:
            previous(loop, context)

    loop.set_exception_handler(handle)
    return lambda: loop.set_exception_handler(previous)


def raise_descriptor_limit() -> tuple[int, int]:
    """Raise the soft limit of open files to the hard one (each connection takes one);
    the (soft, hard) limits now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError) as error:
            log.warning("cannot raise the open-files limit from %d to %d: %s", soft, wanted,
                        error)
    return soft, hard
