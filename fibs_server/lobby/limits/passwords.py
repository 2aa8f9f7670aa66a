"""bcrypt hashing, run in worker threads: a hash at cost 12 takes ~250 ms, far too long to
block the event loop that serves every other user.

The hashes queue in front of the threads, not in the pool: 200 wrong logins from 10 addresses
made a correct login wait 56 s behind them. So checks wait in a priority queue (an account's
known-good address first), and one address may have only so many checks queued or running
(known-good logins counted apart, with a cap of their own: a club behind one NAT all get in,
whatever a guesser among them does); the address's further checks wait outside the queue for
one of its own to end, in the order they came, and are never refused for it: refusing them
told 32 of 64 logins at once from one address, right passwords all, that their passwords
were wrong. Everyone else may have only so many waiting in the queue in all; beyond that a
check is refused (`HashingBusy`), and the login is asked to try again.

Within a rank the addresses take turns (`FairQueue`): a club's 30 logins at once made a login
from anywhere else wait for all 30 checks; now it waits for at most one per other address.
And the known-good rank goes first only so many turns in a row while the other waits. One
address holds all the threads but one at most, so a check from elsewhere finds a thread free
at once, rather than after a club's check under way.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

import bcrypt

# bcrypt reads at most 72 bytes; newer releases raise instead of cutting silently.
BCRYPT_MAX_BYTES = 72
# bcrypt releases the GIL and keeps a core busy per hash: a burst of logins on more threads
# than cores - 1 would take the event loop's core too (docs/PERFORMANCE.md, "Load"); but at
# least two, one of them never held by an address that holds another (at the lowest priority,
# below, the second costs the loop little even on two cores).
BCRYPT_THREADS = max(2, (os.cpu_count() or 2) - 1)
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
RANKS = (FIRST, IN_TURN)
Result = TypeVar("Result")
Item = TypeVar("Item")


# While both ranks wait, IN_TURN gets a turn after this many FIRST ones in a row: a club's
# 30 known-good logins at once made a login from an address new to its account wait for all
# 30 checks, and a stream of known-good logins could have kept the others waiting for ever.
FIRST_TURNS_IN_A_ROW = 4


class FairQueue(Generic[Item]):
    """Waiting items by rank, and within a rank the addresses in turn: each address's items
    in arrival order, the addresses round robin (one that starts waiting joins the end of the
    round). So an address's n-th waiting item goes after every other address's earlier ones,
    and a newcomer waits for at most one item of each address already waiting. FIRST goes
    before IN_TURN, but not more than FIRST_TURNS_IN_A_ROW times in a row while IN_TURN
    waits. Pure."""

    def __init__(self) -> None:
        # Per rank, the addresses with waiting items, in the order of their next turn.
        self._turns: dict[int, OrderedDict[str, deque[Item]]] = {rank: OrderedDict()
                                                                 for rank in RANKS}
        self._length = 0
        self._first_in_a_row = 0  # FIRST turns taken while IN_TURN waited

    def __len__(self) -> int:
        return self._length

    def __iter__(self) -> Iterator[Item]:
        for turns in self._turns.values():
            for items in turns.values():
                yield from items

    def push(self, rank: int, address: str, item: Item) -> None:
        self._turns[rank].setdefault(address, deque()).append(item)
        self._length += 1

    def pop(self, may_take: Callable[[str], bool] = lambda address: True) -> Item:
        """The next item of an address that `may_take`: the next such address's oldest of
        FIRST, or of IN_TURN when FIRST has none or has had its turns in a row. IndexError
        when no address may take one."""
        first, in_turn = self._next_address(FIRST, may_take), self._next_address(IN_TURN,
                                                                                 may_take)
        waits = in_turn is not None
        if first is not None and not (waits and self._first_in_a_row >= FIRST_TURNS_IN_A_ROW):
            self._first_in_a_row = self._first_in_a_row + 1 if waits else 0
            return self._pop_from(self._turns[FIRST], first)
        if in_turn is not None:
            self._first_in_a_row = 0
            return self._pop_from(self._turns[IN_TURN], in_turn)
        raise IndexError("no item to pop from the FairQueue")

    def _next_address(self, rank: int, may_take: Callable[[str], bool]) -> str | None:
        return next((address for address in self._turns[rank] if may_take(address)), None)

    def _pop_from(self, turns: OrderedDict[str, deque[Item]], address: str) -> Item:
        items = turns.pop(address)
        item = items.popleft()
        if items:  # its next item waits for the others' turns
            turns[address] = items
        self._length -= 1
        return item

    def remove(self, rank: int, address: str, item: Item) -> bool:
        """Take `item` out (its check was cancelled); False if it is not waiting."""
        items = self._turns[rank].get(address)
        if items is None or item not in items:
            return False
        items.remove(item)
        if not items:
            del self._turns[rank][address]
        self._length -= 1
        return True

    def clear(self) -> None:
        for turns in self._turns.values():
            turns.clear()
        self._length = 0


class HashingBusy(Exception):
    """Too many checks queued for this address, or waiting in all."""


def _secret(password: str) -> bytes:
    return password.encode()[:BCRYPT_MAX_BYTES]


class PasswordHasher:
    def __init__(self, rounds: int = 12, checks_per_address: int = 8,
                 checks_waiting: int = 32, known_good_checks_per_address: int = 32,
                 threads: int = BCRYPT_THREADS) -> None:
        self.rounds = rounds
        self.checks_per_address = checks_per_address  # queued or running, from one address
        self.checks_waiting = checks_waiting  # waiting for a thread, all addresses, not FIRST
        self.known_good_checks_per_address = known_good_checks_per_address
        # Checked against when the account does not exist, so that a wrong name costs the
        # same time as a wrong password and does not reveal which names exist.
        self._decoy = bcrypt.hashpw(b"decoy", bcrypt.gensalt(rounds))
        self._threads = concurrent.futures.ThreadPoolExecutor(
            threads, "bcrypt", initializer=_lower_priority)
        self._idle_threads = threads
        self._threads_per_address = max(1, threads - 1)
        self._running: Counter[str] = Counter()  # threads held, by host
        # Each waiting check's host and future, resolved when a thread is handed over to it.
        self._queue: FairQueue[tuple[str, asyncio.Future[None]]] = FairQueue()
        self._per_address: Counter[tuple[str, bool]] = Counter()  # (host, known good)
        # The checks of a (host, known good) at its cap, each waiting for one of its checks
        # to end; the slot is handed over still counted.
        self._waiting_for_slot: dict[tuple[str, bool], deque[asyncio.Future[None]]] = {}

    @property
    def waiting(self) -> int:
        """Checks and hashes waiting for a thread."""
        return len(self._queue)

    async def hash(self, password: str, host: str = "") -> bytes:
        # Registrations (and the bots' secrets, host ""): few per address
        # (`registrations_per_hour`), so never refused.
        return await self._in_turn(IN_TURN, host, bcrypt.hashpw, _secret(password),
                                   bcrypt.gensalt(self.rounds))

    async def check(self, password: str, hashed: bytes | None, host: str, *,
                    first: bool = False, known_good: bool = False,
                    still_wanted: Callable[[], bool] = lambda: True) -> bool:
        """Whether `password` matches `hashed` (None: no such account, checked against a decoy
        all the same). `first`: ahead of every other check, and never refused for the length
        of the queue. `known_good`: a login from an address known good for its account: first,
        and counted apart from the address's other checks. A check beyond its kind's cap for
        `host` waits for one of them to end, and then takes its place, unless no longer
        `still_wanted` (its peer hung up meanwhile: False, unchecked). HashingBusy if (not
        first) a check that would join the queue now finds too many waiting there."""
        first = first or known_good
        source = (host, known_good)
        cap = self.known_good_checks_per_address if known_good else self.checks_per_address
        if self._per_address[source] < cap and source not in self._waiting_for_slot:
            if not first and len(self._queue) >= self.checks_waiting:
                raise HashingBusy
            self._per_address[source] += 1
        else:
            await self._handed_a_slot(source)
            if not still_wanted():
                self._release_slot(source)
                return False
        try:
            ok = await self._in_turn(FIRST if first else IN_TURN, host, bcrypt.checkpw,
                                     _secret(password), hashed or self._decoy)
        finally:
            self._release_slot(source)
        return ok and hashed is not None

    async def _handed_a_slot(self, source: tuple[str, bool]) -> None:
        """Wait, after those already waiting, until a check of `source` ends and hands its
        slot over (still counted)."""
        handed_over: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting_for_slot.setdefault(source, deque()).append(handed_over)
        try:
            await handed_over
        except asyncio.CancelledError:
            waiting = self._waiting_for_slot.get(source)
            if waiting is not None and handed_over in waiting:
                waiting.remove(handed_over)
                if not waiting:
                    del self._waiting_for_slot[source]
            elif handed_over.done() and not handed_over.cancelled():  # a slot it will not use
                self._release_slot(source)
            raise

    def _release_slot(self, source: tuple[str, bool]) -> None:
        """A check of `source` ended: its slot goes to the next waiting one, else is free."""
        waiting = self._waiting_for_slot.get(source)
        while waiting:
            handed_over = waiting.popleft()
            if not waiting:
                del self._waiting_for_slot[source]
            if not handed_over.done():
                handed_over.set_result(None)
                return
        self._per_address[source] -= 1
        if not self._per_address[source]:
            del self._per_address[source]

    async def _in_turn(self, rank: int, host: str, work: Callable[..., Result],
                       *args: object) -> Result:
        """Run `work` on a bcrypt thread once one is free for this rank and host's turn (and
        the host holds fewer than its share)."""
        if self._idle_threads and self._may_take(host):
            self._take_thread(host)
        else:
            handed_over: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            waiting = (host, handed_over)
            self._queue.push(rank, host, waiting)
            try:
                await handed_over
            except asyncio.CancelledError:
                if (not self._queue.remove(rank, host, waiting)
                        and not handed_over.cancelled()):  # handed a thread it will not use
                    self._release_thread(host)
                raise
        try:
            return await asyncio.get_running_loop().run_in_executor(self._threads, work, *args)
        finally:
            self._release_thread(host)

    def _may_take(self, host: str) -> bool:
        return self._running[host] < self._threads_per_address

    def _take_thread(self, host: str) -> None:
        self._idle_threads -= 1
        self._running[host] += 1

    def _release_thread(self, host: str) -> None:
        """`host`'s thread is free: handed over to the next waiting check that may take one."""
        self._running[host] -= 1
        if not self._running[host]:
            del self._running[host]
        self._idle_threads += 1
        while self._idle_threads:
            try:
                next_host, handed_over = self._queue.pop(self._may_take)
            except IndexError:
                return
            self._take_thread(next_host)
            handed_over.set_result(None)

    def close(self) -> None:
        """Drop the hashes still waiting for a thread: at shutdown after a login burst, those
        would otherwise run one after another before the process could exit."""
        for _, waiting in self._queue:
            waiting.cancel()
        self._queue.clear()
        for waiting_for_slot in self._waiting_for_slot.values():
            for handed_over in waiting_for_slot:
                handed_over.cancel()
        self._waiting_for_slot.clear()
        self._threads.shutdown(wait=False, cancel_futures=True)
