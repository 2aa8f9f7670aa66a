"""The match analysis steps aside while the server is busy (docs/ANALYSIS.md, "In the
server"). Its process runs at idle priority, yet on a machine whose cores share caches (two
hardware threads of one core, say) it still slows the server beside it: measured, people's
move p99 several milliseconds higher with 300 matches under way. So once a second the
server's own CPU time over the last second is looked at, and while it was above
`BUSY_CPU_SHARE` of one core the analysis process is held (stopped, as it is while a bot
decides); it goes on once the server is quieter.

A server (or its bots) busy all the time would then analyse nothing: beside run E no analysis
of 40 was done, and at five matches finishing a minute the queue grew without end. So an
analysis held (by this or by a bot's decision) for `(1 - least_share) / least_share` periods
on end takes a turn of one period, running whoever holds it: at least `least_share` of the
time (a quarter by default), at the idle priority it always has (docs/ANALYSIS.md, "Held
while the server is busy")."""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from fibs_server.lobby.clock import Alarm, Clock

BUSY_CPU_SHARE = 0.25  # of one core, the server's process over the last CHECK_SECONDS
CHECK_SECONDS = 1.0
LEAST_SHARE = 0.25  # of the time, an analysis under way runs however busy the server is


class Holdable(Protocol):
    @property
    def held(self) -> bool: ...

    @property
    def computing(self) -> bool: ...

    def hold(self) -> None: ...

    def release(self) -> None: ...

    def take_turn(self) -> None: ...

    def end_turn(self) -> None: ...


class BusyHold:
    """Holds `lane` while the server's CPU (`cpu_seconds`, the process's) over the last
    `period` seconds of `clock` was above `busy_share` of one core; an analysis held that
    long takes turns of a period for `least_share` of the time (0: never)."""

    def __init__(self, lane: Holdable, clock: Clock,
                 cpu_seconds: Callable[[], float] = time.process_time,
                 busy_share: float = BUSY_CPU_SHARE, period: float = CHECK_SECONDS,
                 least_share: float = LEAST_SHARE) -> None:
        self.lane = lane
        self.clock = clock
        self.cpu_seconds = cpu_seconds
        self.busy_share = busy_share
        self.period = period
        # Looks held on end before a turn (3 at a quarter).
        self.held_looks = (round((1 - least_share) / least_share) if least_share > 0
                           else None)
        self.holding = False
        self.holds = 0  # how often the server was found busy and the lane held (figures)
        self.turns = 0  # how often a held analysis took its turn (figures)
        self._held_for = 0  # looks on end that found an analysis under way held
        self._in_turn = False
        self._alarm: Alarm | None = None
        self._since = (0.0, 0.0)  # (clock, cpu seconds) at the last look

    def start(self) -> None:
        self._since = (self.clock.time(), self.cpu_seconds())
        self._arm()

    def stop(self) -> None:
        if self._alarm is not None:
            self._alarm.cancel()
            self._alarm = None
        if self._in_turn:
            self._in_turn = False
            self.lane.end_turn()
        if self.holding:
            self.holding = False
            self.lane.release()

    def _arm(self) -> None:
        self._alarm = self.clock.call_at(self.clock.time() + self.period, self._look)

    def _look(self) -> None:
        now, cpu = self.clock.time(), self.cpu_seconds()
        then, cpu_then = self._since
        self._since = (now, cpu)
        busy = self.busy_share > 0 and now > then and (cpu - cpu_then) / (now - then) > self.busy_share
        if busy and not self.holding:
            self.holding = True
            self.holds += 1
            self.lane.hold()
        elif not busy and self.holding:
            self.holding = False
            self.lane.release()
        self._take_turns()
        self._arm()

    def _take_turns(self) -> None:
        """A turn lasts one period; another comes after `held_looks` held on end."""
        if self._in_turn:
            self._in_turn = False
            self.lane.end_turn()
            self._held_for = 0
            return
        if self.held_looks is None:
            return
        self._held_for = self._held_for + 1 if self.lane.held and self.lane.computing else 0
        if self._held_for >= self.held_looks:
            self._in_turn = True
            self.turns += 1
            self.lane.take_turn()
