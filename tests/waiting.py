"""Waiting for a condition instead of sleeping for a guessed time: a poll with a deadline."""
from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

# Seconds: the ceiling on waiting for something that must happen. Generous for a machine at a
# load of 15 on two cores (docs/TESTING.md, "Running the suite under load"); a passing test
# waits far less, and only a real defect reaches it.
DEADLINE = 60.0
POLL = 0.002


async def until(condition: Callable[[], object], what: str = "",
                timeout: float = DEADLINE) -> None:
    """Return as soon as `condition()` is true; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what or condition}")
        await asyncio.sleep(POLL)


async def until_async(condition: Callable[[], Awaitable[object]], what: str,
                      timeout: float = DEADLINE) -> None:
    """`until` for a condition that asks a server: polled, a round trip each."""
    deadline = time.monotonic() + timeout
    while not await condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        await asyncio.sleep(0.05)  # between round trips, not a synchronisation


def until_sync(condition: Callable[[], object], what: str = "",
               timeout: float = DEADLINE) -> None:
    """`until` for a test outside the event loop (in a thread, say)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what or condition}")
        time.sleep(POLL)
