"""A clock that moves only when a test says so (`advance`): timed matches without sleeping."""
from __future__ import annotations

import dataclasses
import heapq
import itertools
import time
from collections.abc import Callable


@dataclasses.dataclass(order=True)
class FakeAlarm:
    when: float
    order: int
    callback: Callable[[], object] = dataclasses.field(compare=False)
    cancelled: bool = dataclasses.field(default=False, compare=False)

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    def __init__(self, wall_start: float | None = None) -> None:
        self.now = 0.0
        # The time of day at 0 (now, unless a test needs a given one: a time of day to come).
        self._wall_start = time.time() if wall_start is None else wall_start
        self._alarms: list[FakeAlarm] = []
        self._order = itertools.count()

    def time(self) -> float:
        return self.now

    def wall(self) -> float:
        """The time of day, moved on with this clock: for a server whose store stamps and
        lobby compare times of day (`wall_clock`)."""
        return self._wall_start + self.now

    def call_at(self, when: float, callback: Callable[[], object]) -> FakeAlarm:
        alarm = FakeAlarm(when, next(self._order), callback)
        heapq.heappush(self._alarms, alarm)
        return alarm

    def advance(self, seconds: float) -> None:
        """Move on by `seconds`, ringing each alarm due meanwhile in time order."""
        until = self.now + seconds
        while self._alarms and self._alarms[0].when <= until:
            alarm = heapq.heappop(self._alarms)
            if not alarm.cancelled:
                self.now = alarm.when
                alarm.callback()
        self.now = until
