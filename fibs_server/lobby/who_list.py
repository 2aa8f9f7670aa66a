"""The CLIP who-list a login gets: every online user's 5 line, kept as last broadcast."""
from __future__ import annotations

import time

from fibs_server.lobby.session import Session, wire_text

# Seconds the idle times in a login's who-list may lag: formatting all 10,000 lines stalls
# the event loop for 30-40 ms, which a login burst did every second (docs/PERFORMANCE.md).
WHO_IDLE_REFRESH = 10


class WhoList:
    """A CLIP login gets the whole list: 10,000 lines at 10,000 online, too long to format for
    every login of a burst (30-40 ms). So each line is kept as last sent (`Lobby.broadcast_who`,
    which every change of a field it shows goes through), and only the idle seconds may be up
    to WHO_IDLE_REFRESH old: then every line is formatted afresh."""

    def __init__(self, online: dict[str, Session]) -> None:
        self._online = online  # lower-case name -> session, in login order
        self._lines: dict[str, str] = {}  # lower-case name -> line, CR LF ended
        self._text: str | None = None  # the lines joined, until one changes
        self._formatted_at = time.monotonic()  # when every idle time was current

    def text(self) -> str:
        """Every online user's CLIP 5 line, in login order, CR LF ended."""
        now = time.monotonic()
        if now - self._formatted_at >= WHO_IDLE_REFRESH:
            self._lines = {key: wire_text([session.who_line()])
                           for key, session in self._online.items()}
            self._formatted_at, self._text = now, None
        if self._text is None:
            self._text = "".join(self._lines.values())
        return self._text

    def set(self, session: Session, line: str) -> None:
        self._lines[session.name.lower()] = wire_text([line])
        self._text = None

    def remove(self, name: str) -> None:
        self._lines.pop(name.lower(), None)
        self._text = None
