"""The clock timed matches run on: the event loop's, or a fake one that tests move by hand
(no test sleeps to see a 30-second timer run out)."""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol


class Alarm(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    def time(self) -> float:
        """Seconds on a monotonic scale."""

    def call_at(self, when: float, callback: Callable[[], object]) -> Alarm:
        """Call `callback` (which must not block) once `time()` reaches `when`."""


class LoopClock:
    """The running event loop's clock (asyncio's `TimerHandle`s are the alarms)."""

    def time(self) -> float:
        return asyncio.get_running_loop().time()

    def call_at(self, when: float, callback: Callable[[], object]) -> Alarm:
        return asyncio.get_running_loop().call_at(when, callback)
