"""An administrator's `shutdown`: the minutes left told to everyone online, new logins refused
near the end, then the stop asked of the server (`app.serve` waits for it besides the
signals)."""
from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from fibs_server.protocol.wording import server_texts


class ShutdownCountdown:
    """At most one countdown at a time; `minute`: the seconds of one of its minutes (tests:
    less); `announce`: a line to everyone online; `stop_requested`: set at its end."""

    def __init__(self, minute: float, announce: Callable[[str], None],
                 stop_requested: asyncio.Event) -> None:
        self._minute = minute
        self._announce = announce
        self._stop_requested = stop_requested
        self._ends_at: float | None = None  # time.monotonic()
        self.task: asyncio.Task | None = None

    @property
    def started(self) -> bool:
        """Begun and not cancelled (ended too: the server is stopping then)."""
        return self.task is not None

    @property
    def under_way(self) -> bool:
        return self.task is not None and not self.task.done()

    def start(self, minutes: int) -> None:
        self._ends_at = time.monotonic() + minutes * self._minute
        if minutes:
            self._announce(server_texts.shutdown_in(minutes))
        self.task = asyncio.create_task(self._count_down(minutes))

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()
        self.task = self._ends_at = None

    def ends_within(self, minutes: int) -> bool:
        """Whether a countdown under way ends within `minutes` of its minutes."""
        return self._ends_at is not None and \
            self._ends_at - time.monotonic() <= minutes * self._minute

    async def _count_down(self, minutes: int) -> None:
        """Announce the minutes left (each of the last five, else every ten), then stop."""
        for left in range(minutes - 1, -1, -1):
            await asyncio.sleep(self._minute)
            if left and (left <= 5 or left % 10 == 0):
                self._announce(server_texts.shutdown_in(left))
        self._stop_requested.set()
