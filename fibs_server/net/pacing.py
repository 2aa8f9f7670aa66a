"""Commands per second, for telnet, CLIP and the WebSocket alike: token buckets that let a
burst through at once and then pace what follows.

Input costs one command per line and one per BYTES_PER_COMMAND bytes read (telnet commands
and discarded lines too), so neither many short lines nor a few huge ones get more of the
loop than the rate allows. Two buckets pay for each: the connection's own (before login, one
per connection at the login rate; after it, one per user name, shared by the user's
connections and kept across reconnections) and its address's (everything from it, logged in
or not). Before login the connection's own is also its address's login bucket, shared by
the connections from it that have not logged in and kept across them, so that connecting again
buys no new burst. A command beyond a bucket's burst waits its turn (the reader pauses
meanwhile, so the rest waits in the peer's buffers); a connection that stays behind its own
rate for `command_backlog_seconds` is closed with TOO_MANY_COMMANDS. A logged-in connection
that is only behind because of its address (someone else behind the same NAT) is slowed,
never closed.

Time comes from an injectable clock: the buckets (lobby/limits/token_bucket.py) only say how long
to wait.
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Protocol

from fibs_server.lobby.limits.token_bucket import TokenBucket, TokenBuckets
from fibs_server.lobby.presence.session import Stage
from fibs_server.net.limits import TOO_MANY_COMMANDS, NetLimits

log = logging.getLogger(__name__)

BYTES_PER_COMMAND = 4096  # input read costs as much as one line per this many bytes
GONE_CHECK_SECONDS = 0.1  # how often a paced connection looks whether its peer has gone


class PacedSession(Protocol):
    """What the pacer needs of a lobby session."""
    @property
    def stage(self) -> Stage: ...

    @property
    def name(self) -> str: ...


class PacedConnection(Protocol):
    """What the pacer needs of a connection."""
    host: str

    def send(self, text: str, broadcast: bool = False) -> None: ...

    def flush(self) -> None: ...

    def close(self) -> None: ...


class CommandPacer:
    """The buckets of one server's connections."""

    def __init__(self, limits: NetLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.clock = clock
        self.users: TokenBuckets[str] = TokenBuckets(limits.command_burst,
                                                     limits.commands_per_second)
        self.addresses: TokenBuckets[str] = TokenBuckets(limits.address_command_burst,
                                                         limits.address_commands_per_second)
        self.logins: TokenBuckets[str] = TokenBuckets(limits.login_address_command_burst,
                                                      limits.login_address_commands_per_second)

    def pace(self, host: str) -> ConnectionPace:
        return ConnectionPace(self, host)


class ConnectionPace:
    """One connection's share of the pacer."""

    __slots__ = ("pacer", "host", "before_login", "behind_since")

    def __init__(self, pacer: CommandPacer, host: str) -> None:
        self.pacer = pacer
        self.host = host
        self.before_login = TokenBucket(pacer.limits.login_command_burst,
                                        pacer.limits.login_commands_per_second)
        self.behind_since: float | None = None  # since when it waits for its own bucket

    def wait(self, session: PacedSession, cost: float) -> float | None:
        """Reserve `cost` commands; the seconds they wait, or None when the connection has
        been behind its own rate for longer than `command_backlog_seconds`."""
        pacer = self.pacer
        now = pacer.clock()
        if session.stage is Stage.ONLINE:
            own = pacer.users.reserve(session.name.lower(), cost, now)
        else:
            # Before login the address's login bucket counts as the connection's own: nothing
            # is at stake yet, and a paused reader never sees its peer hang up, so flooders'
            # connections queued behind it would otherwise stay until their turn came.
            own = max(self.before_login.reserve(cost, now),
                      pacer.logins.reserve(self.host, cost, now))
        shared = pacer.addresses.reserve(self.host, cost, now)
        if own <= 0:
            self.behind_since = None
        elif self.behind_since is None:
            self.behind_since = now
        elif now - self.behind_since > pacer.limits.command_backlog_seconds:
            return None
        return max(own, shared)

    async def take_turn(self, session: PacedSession, connection: PacedConnection, cost: float,
                        gone: Callable[[], bool]) -> bool:
        """Wait for `cost` commands' turn; whether to serve them. No: the connection is
        closed for flooding, or the peer is `gone()` (now or while it waits) and this is
        beyond its burst (a bot's last `leave` and `bye` are served; what a flooder left
        behind is not, and its connection is not held for the length of its wait)."""
        wait = self.wait(session, cost)
        if wait is None:
            log.warning("closing %s: it kept sending commands faster than they are served",
                        connection.host)
            connection.send(TOO_MANY_COMMANDS + "\r\n")
            connection.close()
            return False
        if wait > 0:
            if gone():
                return False
            connection.flush()  # the replies so far, before waiting
            waited_until = self.pacer.clock() + wait
            while (left := waited_until - self.pacer.clock()) > 0:
                await asyncio.sleep(min(left, GONE_CHECK_SECONDS))
                if gone():
                    return False
        return True
