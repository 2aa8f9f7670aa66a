"""The listening sockets of the telnet and HTTP ports, and the process's descriptor limit.

When the process is out of file descriptors, asyncio's accept loop (Python 3.11-3.13) keeps
calling `accept()` up to its backlog (100) times on the same turn, and each failure logs a
traceback and schedules one more retry a second later: the retries multiply, and a thousand
idle connections made 486,078 log lines in 50 s at 90 % CPU. `BackingOffSocket` fails only
the first `accept()` of a turn with the real error (asyncio then stops reading the socket
and retries in a second: one attempt a second) and says "no connection waiting" to the
rest; the exhaustion is logged once when it starts and once when it ends.
"""
from __future__ import annotations

import asyncio
import errno
import logging
import resource
import socket
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

# The errors after which asyncio pauses accepting: the process or the system is out of them.
OUT_OF_RESOURCES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
ASYNCIO_ACCEPT_FAILURE = "socket.accept() out of system resource"  # its exception handler's


class BackingOffSocket(socket.socket):
    """A listening socket: see the module's docstring."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.failed_this_turn = False
        self.refused = 0  # accept attempts that failed since the descriptors ran out

    def accept(self) -> tuple[socket.socket, Any]:
        if self.failed_this_turn:
            raise BlockingIOError(errno.EAGAIN, "backing off: out of descriptors")
        try:
            accepted = super().accept()
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
