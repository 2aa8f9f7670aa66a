"""A web page that reloads or loses its network comes back to the same session and match.

After a web page logs in, it gets a session token (`{"type":"session","token":...}`,
docs/WEB-PROTOCOL.md). When its WebSocket drops without `bye`, its session is held: still
online, still in its match (whose clock runs on as for any slow player), its output dropped,
for `seconds` (`--reconnect-seconds`). A new WebSocket that presents the token (`resume
<token>` at the login prompt) within that time takes the held session over exactly as a new
login of the user would (`Lobby.log_in`: the opponent sees what FIBS shows for a takeover).
Otherwise the user is logged out as dropped, as before. Telnet and CLIP sessions get no
token and are never held.

The tokens themselves: lobby/limits/session_tokens.py.
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from fibs_server.lobby.clock import Alarm, Clock
from fibs_server.lobby.limits.session_tokens import SessionTokens
from fibs_server.lobby.presence.session import Session

log = logging.getLogger(__name__)

DEFAULT_RECONNECT_SECONDS = 30.0


class AwayConnection:
    """A held session's connection: its page is away, and what it would be told is dropped
    (on its return it gets the board as it stands then)."""

    __slots__ = ("host",)

    def __init__(self, host: str) -> None:
        self.host = host

    def send(self, text: str, broadcast: bool = False) -> None:
        pass

    def send_wire(self, data: bytes, broadcast: bool = False) -> None:
        pass

    def set_echo(self, server_echoes: bool) -> None:
        pass

    def close(self) -> None:
        pass


class HeldSessions:
    """The web sessions whose page went away, each until its page comes back or its time is
    up; then `drop` (the lobby's `disconnected`) logs it out."""

    def __init__(self, clock: Clock, seconds: float, tokens: SessionTokens) -> None:
        self.clock = clock
        self.seconds = seconds
        self.tokens = tokens
        self._alarms: dict[Session, Alarm] = {}
        self._tasks: set[asyncio.Task] = set()

    def hold(self, session: Session, drop: Callable[[Session], Awaitable[None]]) -> bool:
        """Hold `session`, whose connection dropped, if it is a web page's with a token and
        not held already; whether it is held (else it is to be logged out now)."""
        if self.seconds <= 0 or session in self._alarms or not self.tokens.has_token(session.name):
            return False
        session.connection = AwayConnection(session.connection.host)
        session.out.event_sink = None
        self.tokens.expire_in(session.name, self.seconds)
        self._alarms[session] = self.clock.call_at(
            self.clock.time() + self.seconds, lambda: self._start(drop(session)))
        log.info("holding %s's session for %g s", session.name, self.seconds)
        return True

    def is_held(self, session: Session) -> bool:
        return session in self._alarms

    def release(self, session: Session) -> None:
        """The session is taken over or logged out: no longer held."""
        alarm = self._alarms.pop(session, None)
        if alarm is not None:
            alarm.cancel()

    def __len__(self) -> int:
        return len(self._alarms)

    def _start(self, work: Awaitable[None]) -> None:
        async def run() -> None:
            await work
        task = asyncio.ensure_future(run())
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("logging out a held session failed", exc_info=task.exception())

    async def quiet(self) -> None:
        """Until every logout of a hold that ended is done (tests, after a fake clock moves)."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

