"""bcrypt runs off the event loop, on fewer threads than cores, at the lowest CPU priority."""
from __future__ import annotations

import asyncio
import os
import sys
import threading

import pytest

from fibs_server.lobby.passwords import BCRYPT_NICENESS, BCRYPT_THREADS, PasswordHasher


async def test_hashes_check_and_unknown_names_cost_a_check_too():
    hasher = PasswordHasher(rounds=4)
    hashed = await hasher.hash("secret")
    assert await hasher.check("secret", hashed)
    assert not await hasher.check("wrong", hashed)
    assert not await hasher.check("secret", None)  # checked against the decoy: still False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread nice is Linux's")
async def test_bcrypt_threads_yield_to_everything_else():
    hasher = PasswordHasher(rounds=4)
    await hasher.hash("warm up the pool")
    loop = asyncio.get_running_loop()
    niceness = await loop.run_in_executor(
        hasher._threads, lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
    assert niceness == BCRYPT_NICENESS == 19
    assert os.getpriority(os.PRIO_PROCESS, 0) < BCRYPT_NICENESS  # the event loop's is untouched


async def test_closing_drops_the_hashes_still_waiting_for_a_thread():
    hasher = PasswordHasher(rounds=12)  # slow enough that most checks are still queued
    hashed = await hasher.hash("secret")
    checks = [asyncio.ensure_future(hasher.check("secret", hashed)) for _ in range(20)]
    await asyncio.sleep(0.1)  # the threads have taken their first checks
    hasher.close()
    results = await asyncio.gather(*checks, return_exceptions=True)
    cancelled = [r for r in results if isinstance(r, asyncio.CancelledError)]
    assert all(r is True or isinstance(r, asyncio.CancelledError) for r in results)
    assert len(cancelled) >= 20 - 2 * BCRYPT_THREADS
