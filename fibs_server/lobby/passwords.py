"""bcrypt hashing, run in worker threads: a hash at cost 12 takes ~250 ms, far too long to
block the event loop that serves every other user.

The hashes queue in front of the threads, not in the pool: 200 wrong logins from 10 addresses
made a correct login wait 56 s behind them. So checks wait in a priority queue (an account's
known-good address first), and one address may have only so many checks queued or running
(known-good logins counted apart, with a cap of their own: a club behind one NAT all get in,
whatever a guesser among them does), and everyone else only so many waiting in all; beyond
that a check is refused (`HashingBusy`), which a login answers like a wrong password.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import heapq
import itertools
import os
import threading
from collections import Counter
from collections.abc import Callable
from typing import TypeVar

import bcrypt

# bcrypt reads at most 72 bytes; newer releases raise instead of cutting silently.
BCRYPT_MAX_BYTES = 72
# bcrypt releases the GIL and keeps a core busy per hash: a burst of logins on more threads
# than cores - 1 would take the event loop's core too (docs/PERFORMANCE.md, "Load").
BCRYPT_THREADS = max(1, (os.cpu_count() or 2) - 1)
# And they run at the lowest CPU priority: when a login burst meets other work (the event
# loop, the database thread, other processes), the hashes wait, not the users already in.
BCRYPT_NICENESS = 19


def _lower_priority() -> None:
    """Runs in each bcrypt thread: Linux gives every thread its own nice value."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BCRYPT_NICENESS)
    except (AttributeError, OSError):  # not Linux: threads share the process's priority
        pass


FIRST, IN_TURN = 0, 1  # queue ranks: known-good logins and logged-in users, then the rest
Result = TypeVar("Result")


class HashingBusy(Exception):
    """Too many checks queued for this address, or waiting in all."""


def _secret(password: str) -> bytes:
    return password.encode()[:BCRYPT_MAX_BYTES]


class PasswordHasher:
    def __init__(self, rounds: int = 12, checks_per_address: int = 8,
                 checks_waiting: int = 32, known_good_checks_per_address: int = 32) -> None:
        self.rounds = rounds
        self.checks_per_address = checks_per_address  # queued or running, from one address
        self.checks_waiting = checks_waiting  # waiting for a thread, all addresses, not FIRST
        self.known_good_checks_per_address = known_good_checks_per_address
        # Checked against when the account does not exist, so that a wrong name costs the
        # same time as a wrong password and does not reveal which names exist.
        self._decoy = bcrypt.hashpw(b"decoy", bcrypt.gensalt(rounds))
        self._threads = concurrent.futures.ThreadPoolExecutor(
            BCRYPT_THREADS, "bcrypt", initializer=_lower_priority)
        self._idle_threads = BCRYPT_THREADS
        self._queue: list[tuple[int, int, asyncio.Future[None]]] = []  # a heap: rank, order
        self._order = itertools.count()
        self._per_address: Counter[tuple[str, bool]] = Counter()  # (host, known good)

    async def hash(self, password: str) -> bytes:
        # Registrations only: few per address (`registrations_per_hour`), so never refused.
        return await self._in_turn(IN_TURN, bcrypt.hashpw, _secret(password),
                                   bcrypt.gensalt(self.rounds))

    async def check(self, password: str, hashed: bytes | None, host: str, *,
                    first: bool = False, known_good: bool = False) -> bool:
        """Whether `password` matches `hashed` (None: no such account, checked against a decoy
        all the same). `first`: ahead of every other check, and never refused for the length
        of the queue. `known_good`: a login from an address known good for its account: first,
        and counted apart from the address's other checks. HashingBusy if `host` has too many
        checks of its kind under way, or (not first) too many are waiting."""
        first = first or known_good
        source = (host, known_good)
        cap = self.known_good_checks_per_address if known_good else self.checks_per_address
        if (self._per_address[source] >= cap
                or (not first and len(self._queue) >= self.checks_waiting)):
            raise HashingBusy
        self._per_address[source] += 1
        try:
            ok = await self._in_turn(FIRST if first else IN_TURN, bcrypt.checkpw,
                                     _secret(password), hashed or self._decoy)
        finally:
            self._per_address[source] -= 1
            if not self._per_address[source]:
                del self._per_address[source]
        return ok and hashed is not None

    async def _in_turn(self, rank: int, work: Callable[..., Result], *args: object) -> Result:
        """Run `work` on a bcrypt thread once one is free for this rank."""
        if self._idle_threads:
            self._idle_threads -= 1
        else:
            entry = (rank, next(self._order), asyncio.get_running_loop().create_future())
            heapq.heappush(self._queue, entry)
            try:
                await entry[2]  # a thread was handed over
            except asyncio.CancelledError:
                if entry in self._queue:
                    self._queue.remove(entry)
                    heapq.heapify(self._queue)
                elif not entry[2].cancelled():  # handed a thread it will not use
                    self._hand_over_thread()
                raise
        try:
            return await asyncio.get_running_loop().run_in_executor(self._threads, work, *args)
        finally:
            self._hand_over_thread()

    def _hand_over_thread(self) -> None:
        if self._queue:
            heapq.heappop(self._queue)[2].set_result(None)
        else:
            self._idle_threads += 1

    def close(self) -> None:
        """Drop the hashes still waiting for a thread: at shutdown after a login burst, those
        would otherwise run one after another before the process could exit."""
        for _, _, waiting in self._queue:
            waiting.cancel()
        self._queue.clear()
        self._threads.shutdown(wait=False, cancel_futures=True)
