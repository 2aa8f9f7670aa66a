"""bcrypt runs off the event loop, on fewer threads than cores, at the lowest CPU priority;
the checks waiting for a thread take turns by rank, then by address."""
from __future__ import annotations

import asyncio
import os
import sys
import threading

import bcrypt
import pytest

from fibs_server.lobby.limits.gatekeeper import Gatekeeper
from fibs_server.lobby.limits.passwords import (
    BCRYPT_NICENESS,
    BCRYPT_THREADS,
    FIRST,
    IN_TURN,
    FairQueue,
    HashingBusy,
    PasswordHasher,
)
from fibs_server.lobby.limits.throttle import ACCOUNTS, ADDRESSES, AbuseLimits
from fibs_server.lobby.ports.accounts import Account
from fibs_server.protocol.login_dialogue import NotChecked
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
    await until(lambda: hasher.waiting == 20 - BCRYPT_THREADS,
                "the threads have taken their first checks, the others wait")
    hasher.close()
    results = await asyncio.gather(*checks, return_exceptions=True)
    cancelled = [r for r in results if isinstance(r, asyncio.CancelledError)]
    assert all(r is True or isinstance(r, asyncio.CancelledError) for r in results)
    assert len(cancelled) >= 20 - 2 * BCRYPT_THREADS


async def test_known_good_checks_go_first_and_queues_are_capped_per_address_and_in_all():
    # One thread: with two, a flood check handed the second thread after the owner's may
    # finish before it, and the order of finishing says nothing.
    hasher = PasswordHasher(rounds=10, checks_per_address=3, checks_waiting=5, threads=1)
    hashed = await hasher.hash("secret")
    finished: list[str] = []

    async def check(label: str, host: str, first: bool = False) -> None:
        await hasher.check("guess", hashed, host, first=first)
        finished.append(label)

    # Threads busy, 5 waiting: 3 from each address at most.
    flood = [asyncio.ensure_future(check(f"flood{n}", f"10.0.0.{n // 3}"))
             for n in range(1 + 5)]
    await asyncio.sleep(0)
    # A 4th from one address waits for one of its 3 outside the queue: not refused.
    fourth = asyncio.ensure_future(check("fourth", "10.0.0.0"))
    await until(lambda: ("10.0.0.0", False) in hasher._waiting_for_slot,
                "the 4th waits for its address's turn")
    assert hasher.waiting == 5
    with pytest.raises(HashingBusy):  # the waiting room is full
        await hasher.check("guess", hashed, "10.9.9.9")
    await check("owner", "10.1.1.1", first=True)  # not refused, and ahead of the queue
    assert finished.index("owner") <= 1
    await asyncio.gather(*flood, fourth)
    assert finished.index("fourth") > max(finished.index(f"flood{n}") for n in range(3))
    assert hasher._per_address == {} and not hasher.waiting and not hasher._waiting_for_slot


async def test_known_good_checks_are_counted_apart_from_their_address_with_a_cap_of_their_own():
    hasher = PasswordHasher(rounds=4, checks_per_address=2, checks_waiting=2,
                            known_good_checks_per_address=3)
    hashed = await hasher.hash("secret")
    address = [asyncio.ensure_future(hasher.check("guess", hashed, "10.0.0.1"))
               for _ in range(2)]
    known_good = [asyncio.ensure_future(hasher.check("secret", hashed, "10.0.0.1",
                                                     known_good=True)) for _ in range(3)]
    await asyncio.sleep(0)  # all five counted: the address's 2 did not hold back the 3
    assert hasher._per_address == {("10.0.0.1", False): 2, ("10.0.0.1", True): 3}
    assert await asyncio.gather(*known_good) == [True] * 3
    assert await asyncio.gather(*address) == [False] * 2
    assert hasher._per_address == {}


@pytest.fixture
def held_checks(monkeypatch):
    """bcrypt's checks wait until the test lets them go (`.set()`): what waits for what is
    then seen, whatever the machine's speed."""
    go = threading.Event()
    checkpw = bcrypt.checkpw

    def held(password: bytes, hashed: bytes) -> bool:
        go.wait()
        return checkpw(password, hashed)

    monkeypatch.setattr(bcrypt, "checkpw", held)
    yield go
    go.set()


async def test_checks_beyond_an_address_cap_wait_for_a_slot_of_their_kind(held_checks):
    hasher = PasswordHasher(rounds=4, checks_per_address=2, checks_waiting=2,
                            known_good_checks_per_address=3)
    hashed = await hasher.hash("secret")
    first = [asyncio.ensure_future(hasher.check("guess", hashed, "10.0.0.1"))
             for _ in range(2)]
    first += [asyncio.ensure_future(hasher.check("secret", hashed, "10.0.0.1", known_good=True))
              for _ in range(3)]
    later = [asyncio.ensure_future(hasher.check("secret", hashed, "10.0.0.1", known_good=True)),
             asyncio.ensure_future(hasher.check("guess", hashed, "10.0.0.1"))]
    await until(lambda: len(hasher._waiting_for_slot) == 2, "one more of each kind waits")
    assert hasher._per_address == {("10.0.0.1", False): 2, ("10.0.0.1", True): 3}
    held_checks.set()
    assert await asyncio.gather(*first, *later) == [False] * 2 + [True] * 3 + [True, False]
    assert hasher._per_address == {} and hasher._waiting_for_slot == {}


async def test_a_check_that_gives_up_waiting_for_a_slot_passes_it_on(held_checks):
    hasher = PasswordHasher(rounds=4, known_good_checks_per_address=1, threads=1)
    hashed = await hasher.hash("secret")
    running = asyncio.ensure_future(hasher.check("secret", hashed, "h", known_good=True))
    gives_up, after = (asyncio.ensure_future(hasher.check("secret", hashed, "h",
                                                          known_good=True))
                       for _ in range(2))
    await until(lambda: len(hasher._waiting_for_slot.get(("h", True), ())) == 2,
                "two wait for the slot the first holds")
    gives_up.cancel()  # its peer hung up
    held_checks.set()
    assert await running and await after
    with pytest.raises(asyncio.CancelledError):
        await gives_up
    assert hasher._per_address == {} and hasher._waiting_for_slot == {}


async def test_a_check_whose_peer_hung_up_while_it_waited_for_a_slot_is_not_made(
        held_checks, monkeypatch):
    hasher = PasswordHasher(rounds=4, known_good_checks_per_address=1, threads=1)
    hashed = await hasher.hash("secret")
    checks: list[bytes] = []
    held = bcrypt.checkpw

    def counted(password: bytes, hashed: bytes) -> bool:
        checks.append(password)
        return held(password, hashed)
    monkeypatch.setattr(bcrypt, "checkpw", counted)
    peer_there = True
    running = asyncio.ensure_future(hasher.check("secret", hashed, "h", known_good=True))
    waiting = asyncio.ensure_future(hasher.check("other", hashed, "h", known_good=True,
                                                 still_wanted=lambda: peer_there))
    await until(lambda: ("h", True) in hasher._waiting_for_slot, "the second waits for a slot")
    peer_there = False
    held_checks.set()
    assert await running and not await waiting
    assert checks == [b"secret"]  # bcrypt's time went to the one still there
    assert hasher._per_address == {} and hasher._waiting_for_slot == {}


def test_the_fair_queue_serves_ranks_in_order_and_addresses_in_turn():
    queue: FairQueue[str] = FairQueue()
    for n in range(4):
        queue.push(FIRST, "club", f"club{n}")
    queue.push(IN_TURN, "guesser", "guess0")
    queue.push(FIRST, "home", "home0")
    queue.push(FIRST, "home", "home1")
    queue.push(FIRST, "office", "office0")
    assert len(queue) == 8
    # Each address's n-th after every other address's earlier ones; the lower rank after
    # four of the first rank's in a row.
    assert [queue.pop() for _ in range(8)] == [
        "club0", "home0", "office0", "club1", "guess0", "home1", "club2", "club3"]
    with pytest.raises(IndexError):
        queue.pop()


def test_the_first_rank_goes_first_only_so_many_turns_in_a_row_while_the_other_waits():
    queue: FairQueue[str] = FairQueue()
    for n in range(10):
        queue.push(FIRST, "club", f"club{n}")
    assert queue.pop() == "club0"  # nobody of the other rank waits: no count kept
    queue.push(IN_TURN, "new", "new0")
    queue.push(IN_TURN, "new", "new1")
    assert [queue.pop() for _ in range(11)] == [
        "club1", "club2", "club3", "club4", "new0",
        "club5", "club6", "club7", "club8", "new1", "club9"]
    queue.push(FIRST, "home", "home0")  # the count began again: the first rank is first
    queue.push(IN_TURN, "new", "new2")
    assert [queue.pop(), queue.pop()] == ["home0", "new2"]


def test_an_address_that_starts_waiting_joins_the_end_of_the_round():
    queue: FairQueue[str] = FairQueue()
    for n in range(3):
        queue.push(FIRST, "club", f"club{n}")
    assert queue.pop() == "club0"
    queue.push(FIRST, "elsewhere", "elsewhere0")  # after the club's next, not its last
    assert [queue.pop() for _ in range(3)] == ["club1", "elsewhere0", "club2"]


def test_a_removed_item_leaves_its_address_turn_to_the_others():
    queue: FairQueue[str] = FairQueue()
    queue.push(FIRST, "a", "a0")
    queue.push(FIRST, "b", "b0")
    queue.push(FIRST, "a", "a1")
    assert queue.remove(FIRST, "b", "b0") and not queue.remove(FIRST, "b", "b0")
    assert not queue.remove(IN_TURN, "a", "a0")  # not waiting in that rank
    assert list(queue) == ["a0", "a1"] and len(queue) == 2
    assert [queue.pop(), queue.pop()] == ["a0", "a1"] and not queue
    queue.push(IN_TURN, "c", "c0")
    queue.clear()
    assert not queue and list(queue) == []


def controlled_checks(monkeypatch) -> tuple[threading.Event, list[bytes]]:
    """bcrypt's check replaced by one that records the password it was given (in the order
    the threads started them: with two threads, the order they end in is the machine's),
    then waits for the test's event and says it matched."""
    release = threading.Event()
    checked: list[bytes] = []

    def controlled_check(password: bytes, hashed: bytes) -> bool:
        checked.append(password)
        release.wait()
        return True

    monkeypatch.setattr(bcrypt, "checkpw", controlled_check)
    return release, checked


async def test_a_login_from_elsewhere_waits_for_one_check_of_a_club_not_all(monkeypatch):
    """30 known-good logins from one address, then one from another: on one thread whose
    checks we release ourselves, the newcomer's check is the second to run after the one
    under way, not the 31st."""
    hasher = PasswordHasher(rounds=4, known_good_checks_per_address=32, threads=1)
    hashed = await hasher.hash("secret")
    release, checked = controlled_checks(monkeypatch)
    club = [asyncio.ensure_future(hasher.check(f"club{n}", hashed, "10.0.0.5", known_good=True))
            for n in range(30)]
    await asyncio.sleep(0)  # every task has asked: the first runs, 29 wait
    assert hasher.waiting == 29
    elsewhere = asyncio.ensure_future(hasher.check("elsewhere", hashed, "10.0.0.9",
                                                   known_good=True))
    guess = asyncio.ensure_future(hasher.check("guess", hashed, "10.0.0.7"))
    await asyncio.sleep(0)
    assert hasher.waiting == 31
    release.set()
    await asyncio.gather(*club, elsewhere, guess)
    # Before: b"elsewhere" came after all 30 of the club's, and b"guess" last.
    assert checked[:3] == [b"club0", b"club1", b"elsewhere"]
    # The lower rank's turn after four of the first rank's (club1, elsewhere, club2, club3).
    assert checked[3:7] == [b"club2", b"club3", b"guess", b"club4"]
    assert checked[7:] == [f"club{n}".encode() for n in range(5, 30)]
    assert not hasher.waiting and hasher._per_address == {}


async def test_a_cancelled_waiting_check_gives_its_turn_away(monkeypatch):
    hasher = PasswordHasher(rounds=4, threads=1)
    hashed = await hasher.hash("secret")
    release, checked = controlled_checks(monkeypatch)
    running = asyncio.ensure_future(hasher.check("running", hashed, "a", first=True))
    hung_up = asyncio.ensure_future(hasher.check("hung up", hashed, "b", first=True))
    last = asyncio.ensure_future(hasher.check("last", hashed, "c", first=True))
    await asyncio.sleep(0)
    hung_up.cancel()
    await asyncio.sleep(0)
    assert hasher.waiting == 1
    release.set()
    assert await asyncio.gather(running, last) == [True, True]
    assert hung_up.cancelled() and checked == [b"running", b"last"]
    assert not hasher.waiting and hasher._idle_threads == 1


async def test_one_address_holds_all_threads_but_one_so_a_check_from_elsewhere_starts_at_once(
        monkeypatch):
    """Two threads: a club's 30 known-good checks run one at a time, and a check from
    another address takes the second thread at once instead of waiting for the club's."""
    hasher = PasswordHasher(rounds=4, known_good_checks_per_address=32, threads=2)
    hashed = await hasher.hash("secret")
    release, checked = controlled_checks(monkeypatch)
    club = [asyncio.ensure_future(hasher.check(f"club{n}", hashed, "10.0.0.5", known_good=True))
            for n in range(30)]
    await asyncio.sleep(0)
    assert hasher.waiting == 29 and hasher._idle_threads == 1
    elsewhere = asyncio.ensure_future(hasher.check("elsewhere", hashed, "10.0.0.9"))
    await asyncio.sleep(0)
    assert hasher.waiting == 29 and hasher._idle_threads == 0  # not queued: running
    await until(lambda: len(checked) == 2, "both threads in their checks")
    release.set()
    await asyncio.gather(*club, elsewhere)
    assert set(checked[:2]) == {b"club0", b"elsewhere"}
    assert checked[2:] == [f"club{n}".encode() for n in range(1, 30)]
    assert not hasher.waiting and hasher._running == {} and hasher._idle_threads == 2


class OneAccount:
    """The account store of a gatekeeper with alice's account only."""

    def __init__(self, account: Account) -> None:
        self.account = account

    async def find_account(self, name: str) -> Account | None:
        return self.account if name.lower() == self.account.name.lower() else None


async def test_a_password_the_queue_has_no_room_for_is_not_checked_nor_counted(monkeypatch):
    hasher = PasswordHasher(rounds=4)
    alice = Account(name="alice", password_hash=await hasher.hash("secret"))
    gatekeeper = Gatekeeper(OneAccount(alice), hasher, AbuseLimits())  # type: ignore[arg-type]

    async def no_room(*args: object, **options: object) -> bool:
        raise HashingBusy
    monkeypatch.setattr(hasher, "check", no_room)
    outcome = await gatekeeper.authenticate("alice", "secret", "10.0.0.1", hung_up=lambda: False)
    assert outcome is NotChecked.BUSY  # asked to log in again, not told the password is wrong
    counts = gatekeeper.login_throttle.counts
    assert counts.count((ADDRESSES, "10.0.0.1")) == 0 and counts.count((ACCOUNTS, "alice")) == 0
