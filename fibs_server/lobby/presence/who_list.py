"""The who-list a login gets: every online user's CLIP 5 line, kept as last broadcast, and the
same users as the page's typed `presence` messages."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from fibs_server.lobby.presence.session import Session, wire_bytes, wire_text
from fibs_server.protocol.views import web_events

if TYPE_CHECKING:
    from fibs_server.lobby.nodes.directory import Directory

# Seconds the idle times in a login's who-list may lag: formatting all 10,000 lines stalls
# the event loop for 30-40 ms, which a login burst did every second (docs/PERFORMANCE.md).
WHO_IDLE_REFRESH = 10


class WhoList:
    """A CLIP login gets the whole list: 10,000 lines at 10,000 online, too long to format for
    every login of a burst (30-40 ms). So each line is kept as last sent (`Attendance.broadcast_who`,
    which every change of a field it shows goes through), and only the idle seconds may be up
    to WHO_IDLE_REFRESH old: then every line is formatted afresh. The lines are kept as they go
    on the wire, and joined once for every login until one changes: encoding the ~900 KB
    for each login of a burst cost 1-5 ms apiece. A page's login gets the same users as
    presence messages (the same fields), kept likewise."""

    def __init__(self, online: dict[str, Session], remote: Directory,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._online = online  # lower-case name -> session, in login order
        self._remote = remote  # the other nodes' users, after this node's
        self._clock = clock  # what the idle times' age is measured on (tests: a fake)
        self._lines: dict[str, bytes] = {}  # lower-case name -> line, CR LF ended, encoded
        self._wire: bytes | None = None  # the lines joined, until one changes
        self._formatted_at = clock()  # when every idle time was current
        # The same for a page: each user's presence message, encoded and CR LF ended. Made
        # when a page logs in, not at each change (most changes reach no page's login).
        self._presences: dict[str, str] = {}
        self._presence_text: str | None = None

    def wire(self) -> bytes:
        """Every online user's CLIP 5 line, in login order, CR LF ended, as it goes on the
        wire: kept, and extended at each login, until a line changes."""
        self._refresh_if_old()
        if self._wire is None:
            self._wire = b"".join(self._lines.values())
        return self._wire

    def _refresh_if_old(self) -> None:
        """The idle times too old: every line formatted afresh, every presence to be."""
        now = self._clock()
        if now - self._formatted_at >= WHO_IDLE_REFRESH:
            self._lines = {key: _encoded(session.who.line())
                           for key, session in self._online.items()}
            self._lines.update((user.name.lower(), _encoded(user.who_line(now)))
                               for user in self._remote)
            self._presences.clear()
            self._formatted_at, self._wire, self._presence_text = now, None, None

    def presence_text(self) -> str:
        """Every online user's presence message, in login order, each on a line: what a page
        gets at its login (2,000 pages logging in each encoded 2,000 messages apiece)."""
        self._refresh_if_old()
        if self._presence_text is None:
            now = self._clock()
            people = [*self._online.values(), *self._remote]
            for person in people:
                key = person.name.lower()
                if key not in self._presences:
                    info = person.who.info() if isinstance(person, Session) else \
                        person.who_info(now)
                    self._presences[key] = wire_text([web_events.encode(
                        web_events.presence(info))])
            self._presence_text = "".join(self._presences[p.name.lower()] for p in people)
        return self._presence_text

    def set(self, name: str, line: str) -> None:
        key = name.lower()
        encoded = _encoded(line)
        arrived = key not in self._lines
        self._lines[key] = encoded
        self._presences.pop(key, None)
        self._presence_text = None
        # A login's line goes last (login order): the list is extended, not joined anew
        # (10,000 lines at each login of a burst). A changed line is in the middle.
        if arrived and self._wire is not None:
            self._wire += encoded
        else:
            self._wire = None

    def remove(self, name: str) -> None:
        self._lines.pop(name.lower(), None)
        self._presences.pop(name.lower(), None)
        self._wire = self._presence_text = None


def _encoded(line: str) -> bytes:
    # Not `wire_text([line])`: its list and generator made a refresh of 10,000 lines cost
    # four times its encoding.
    return wire_bytes(line + "\r\n")
