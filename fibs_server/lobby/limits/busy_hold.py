"""The match analysis steps aside while the server is busy (docs/ANALYSIS.md, "In the
server"). Its process runs at idle priority, yet on a machine whose cores share caches (two
hardware threads of one core, say) it still slows the server beside it: measured, people's
move p99 several milliseconds higher with 300 matches under way. So once a second the
server's own CPU time over the last second is looked at, and while it was above
`BUSY_CPU_SHARE` of one core the analysis process is held (stopped, as it is while a bot
decides); it goes on once the server is quieter. A busy server's backlog waits, bounded by
the analysis queue's limit."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from fibs_server.lobby.clock import Alarm, Clock

BUSY_CPU_SHARE = 0.25  # of one core, the server's process over the last CHECK_SECONDS
CHECK_SECONDS = 1.0


class Holdable(Protocol):
    def hold(self) -> None: ...

    def release(self) -> None: ...


class BusyHold:
    """Holds `lane` while the server's CPU (`cpu_seconds`, the process's) over the last
    `period` seconds of `clock` was above `busy_share` of one core."""

    def __init__(self, lane: Holdable, clock: Clock,
                 cpu_seconds: Callable[[], float] = time.process_time,
                 busy_share: float = BUSY_CPU_SHARE, period: float = CHECK_SECONDS) -> None:
        self.lane = lane
        self.clock = clock
        self.cpu_seconds = cpu_seconds
        self.busy_share = busy_share
        self.period = period
        self.holding = False
        self.holds = 0  # how often the server was found busy and the lane held (figures)
        self._alarm: Alarm | None = None
        self._since = (0.0, 0.0)  # (clock, cpu seconds) at the last look

    def start(self) -> None:
        self._since = (self.clock.time(), self.cpu_seconds())
        self._arm()

    def stop(self) -> None:
        if self._alarm is not None:
            self._alarm.cancel()
            self._alarm = None
        if self.holding:
            self.holding = False
            self.lane.release()

    def _arm(self) -> None:
        self._alarm = self.clock.call_at(self.clock.time() + self.period, self._look)

    def _look(self) -> None:
        now, cpu = self.clock.time(), self.cpu_seconds()
        then, cpu_then = self._since
        self._since = (now, cpu)
        busy = now > then and (cpu - cpu_then) / (now - then) > self.busy_share
        if busy and not self.holding:
            self.holding = True
            self.holds += 1
            self.lane.hold()
        elif not busy and self.holding:
            self.holding = False
            self.lane.release()
        self._arm()
