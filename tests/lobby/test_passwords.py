"""bcrypt runs off the event loop, on fewer threads than cores, at the lowest CPU priority."""
from __future__ import annotations

import asyncio
import os
import sys
import threading

import pytest

from fibs_server.lobby.passwords import BCRYPT_NICENESS, BCRYPT_THREADS, HashingBusy, PasswordHasher
from tests.waiting import until


async def test_hashes_check_and_unknown_names_cost_a_check_too():
    hasher = PasswordHasher(rounds=4)
    hashed = await hasher.hash("secret")
    assert await hasher.check("secret", hashed, "h")
    assert not await hasher.check("wrong", hashed, "h")
    assert not await hasher.check("secret", None, "h")  # checked against the decoy: still False


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
    checks = [asyncio.ensure_future(hasher.check("secret", hashed, f"10.0.0.{n}"))
              for n in range(20)]
    await until(lambda: len(hasher._queue) == 20 - BCRYPT_THREADS,
                "the threads have taken their first checks, the others wait")
    hasher.close()
    results = await asyncio.gather(*checks, return_exceptions=True)
    cancelled = [r for r in results if isinstance(r, asyncio.CancelledError)]
    assert all(r is True or isinstance(r, asyncio.CancelledError) for r in results)
    assert len(cancelled) >= 20 - 2 * BCRYPT_THREADS


async def test_known_good_checks_go_first_and_queues_are_capped_per_address_and_in_all():
    hasher = PasswordHasher(rounds=10, checks_per_address=3, checks_waiting=5)
    hashed = await hasher.hash("secret")
    finished: list[str] = []

    async def check(label: str, host: str, first: bool = False) -> None:
        await hasher.check("guess", hashed, host, first=first)
        finished.append(label)

    # Threads busy, 5 waiting: 3 from each address at most.
    flood = [asyncio.ensure_future(check(f"flood{n}", f"10.0.0.{n // 3}"))
             for n in range(BCRYPT_THREADS + 5)]
    await asyncio.sleep(0)
    with pytest.raises(HashingBusy):  # a 4th from one address
        await hasher.check("guess", hashed, "10.0.0.0")
    with pytest.raises(HashingBusy):  # the waiting room is full
        await hasher.check("guess", hashed, "10.9.9.9")
    await check("owner", "10.1.1.1", first=True)  # not refused, and ahead of the queue
    assert finished.index("owner") <= BCRYPT_THREADS
    await asyncio.gather(*flood)
    assert hasher._per_address == {} and not hasher._queue


async def test_known_good_checks_are_counted_apart_from_their_address_with_a_cap_of_their_own():
    hasher = PasswordHasher(rounds=4, checks_per_address=2, checks_waiting=2,
                            known_good_checks_per_address=3)
    hashed = await hasher.hash("secret")
    address = [asyncio.ensure_future(hasher.check("guess", hashed, "10.0.0.1"))
               for _ in range(2)]
    known_good = [asyncio.ensure_future(hasher.check("secret", hashed, "10.0.0.1",
                                                     known_good=True)) for _ in range(3)]
    await asyncio.sleep(0)  # all five counted: the address's 2 did not hold back the 3
    with pytest.raises(HashingBusy):
        await hasher.check("secret", hashed, "10.0.0.1", known_good=True)
    with pytest.raises(HashingBusy):
        await hasher.check("guess", hashed, "10.0.0.1")
    assert await asyncio.gather(*known_good) == [True] * 3
    assert await asyncio.gather(*address) == [False] * 2
    assert hasher._per_address == {}
