"""LeaseKeeper on a fake lease and a fake clock: gained, renewed, lost when renewals fail
or another node holds the lease, never gained on an answer that came too late, released
when the node stops; the duty begun and ended in order. (The Redis lease itself:
tests/net/test_redis_lease.py.)"""
from __future__ import annotations

import asyncio

import pytest

from fibs_server.lobby.nodes.leases import (
    GIVE_UP_MARGIN,
    AlwaysHeld,
    LeaseKeeper,
    lease_families,
)
from tests.fake_clock import FakeClock
from tests.waiting import until

TTL = 30.0  # fake seconds: renewals every 10, given up 25 after the last good one


class FakeLease:
    """Answers what the test says: True (held), False (another node holds it), or raises
    (Redis unreachable). With `gate` set, each answer waits for it."""

    expires = True

    def __init__(self, answer: bool | Exception = True) -> None:
        self.name = "bots"
        self.answer: bool | Exception = answer
        self.attempts = 0
        self.released = 0
        self.gate: asyncio.Event | None = None

    async def acquire_or_renew(self) -> bool:
        self.attempts += 1
        if self.gate is not None:
            await self.gate.wait()
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer

    async def release(self) -> None:
        self.released += 1

    async def is_held(self) -> bool:
        return self.answer is True


class RecordingDuty:
    def __init__(self) -> None:
        self.done: list[str] = []

    async def begin(self) -> None:
        self.done.append("begin")

    async def end(self) -> None:
        self.done.append("end")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


async def attempt(keeper: LeaseKeeper, lease: FakeLease, clock: FakeClock,
                  seconds: float) -> None:
    """Move the clock on by `seconds` and wait for the attempts it started to be answered
    and their changes to the duty done."""
    before = lease.attempts
    clock.advance(seconds)
    await until(lambda: lease.attempts > before, "an attempt")
    await until(lambda: keeper._attempt is not None and keeper._attempt.done(), "its answer")
    await keeper.settled()


async def test_a_lease_answered_yes_is_gained_and_renewed_every_third_of_its_time(clock):
    lease, duty = FakeLease(), RecordingDuty()
    keeper = LeaseKeeper(lease, duty, TTL, clock)
    await keeper.start()
    assert keeper.held and duty.done == ["begin"] and lease.attempts == 1
    for renewal in range(2, 6):
        await attempt(keeper, lease, clock, TTL / 3)
        assert lease.attempts == renewal
    assert keeper.held and duty.done == ["begin"]
    assert (keeper.figures.gained, keeper.figures.lost) == (1, 0)
    await keeper.stop()


async def test_failed_renewals_lose_the_lease_before_its_time_to_live_ends(clock):
    lease, duty = FakeLease(), RecordingDuty()
    keeper = LeaseKeeper(lease, duty, TTL, clock)
    await keeper.start()
    lease.answer = ConnectionError("Redis gone")
    await attempt(keeper, lease, clock, TTL / 3)
    await attempt(keeper, lease, clock, TTL / 3)
    assert keeper.held  # two renewals missed: still within the margin
    clock.advance(TTL * (1 - GIVE_UP_MARGIN) - 2 * TTL / 3)  # the deadline, no attempt due
    assert not keeper.held  # at the deadline itself, well before Redis could expire it
    await keeper.settled()
    assert duty.done == ["begin", "end"]
    assert (keeper.figures.gained, keeper.figures.lost) == (1, 1)
    # Redis back: the lease is taken again, and the duty begins again.
    lease.answer = True
    await attempt(keeper, lease, clock, TTL / 3)
    assert keeper.held and duty.done == ["begin", "end", "begin"]
    await keeper.stop()


async def test_a_renewal_that_never_answers_loses_the_lease_at_the_deadline(clock):
    lease, duty = FakeLease(), RecordingDuty()
    keeper = LeaseKeeper(lease, duty, TTL, clock)
    await keeper.start()
    lease.gate = asyncio.Event()  # Redis hangs
    clock.advance(TTL / 3)
    await until(lambda: lease.attempts == 2)
    clock.advance(TTL * (1 - GIVE_UP_MARGIN) - TTL / 3)
    assert not keeper.held
    await keeper.settled()
    assert duty.done == ["begin", "end"]
    await keeper.stop()


async def test_an_answer_that_comes_too_late_does_not_gain_the_lease(clock):
    lease, duty = FakeLease(False), RecordingDuty()
    keeper = LeaseKeeper(lease, duty, TTL, clock)
    await keeper.start()
    assert not keeper.held and duty.done == []
    lease.answer, lease.gate = True, asyncio.Event()
    clock.advance(TTL / 3)
    await until(lambda: lease.attempts == 2)
    # Answered yes, but after the time it could count on: Redis may have expired it since.
    clock.advance(TTL)
    lease.gate.set()
    await until(lambda: keeper._attempt is not None and keeper._attempt.done())
    assert not keeper.held and duty.done == []
    lease.gate = None
    await attempt(keeper, lease, clock, 0)  # tried again at once
    assert keeper.held and duty.done == ["begin"]
    await keeper.stop()


async def test_another_node_holding_the_lease_loses_it_at_once(clock):
    """After a Redis restart the key is gone and another node may take it first: its holder
    here gives it up on the first answer that says so."""
    lease, duty = FakeLease(), RecordingDuty()
    keeper = LeaseKeeper(lease, duty, TTL, clock)
    await keeper.start()
    lease.answer = False
    await attempt(keeper, lease, clock, TTL / 3)
    assert not keeper.held and duty.done == ["begin", "end"]
    await keeper.stop()
    assert lease.released == 1  # asked all the same: only a key of this node's is deleted


async def test_stopping_ends_the_duty_then_releases_the_lease(clock):
    lease, duty = FakeLease(), RecordingDuty()
    keeper = LeaseKeeper(lease, duty, TTL, clock)
    await keeper.start()
    await keeper.stop()
    assert duty.done == ["begin", "end"] and lease.released == 1 and not keeper.held
    attempts = lease.attempts
    clock.advance(TTL * 3)
    assert lease.attempts == attempts  # no more attempts


async def test_one_node_always_holds_its_leases(clock):
    duty = RecordingDuty()
    keeper = LeaseKeeper(AlwaysHeld("sweeps"), duty, TTL, clock)
    await keeper.start()
    assert keeper.held and duty.done == ["begin"]
    assert await keeper.lease.is_held()
    await keeper.stop()
    assert duty.done == ["begin", "end"]


async def test_one_node_keeps_its_leases_however_late_its_loop(clock):
    """A saturated loop that runs nothing for longer than the time to live: on one node
    there is nobody to give the lease to, so the bots stay logged in."""
    duty = RecordingDuty()
    keeper = LeaseKeeper(AlwaysHeld("bots"), duty, TTL, clock)
    await keeper.start()
    clock.advance(TTL * 10)  # every alarm due at once, before any attempt could run
    await keeper.settled()
    assert keeper.held and duty.done == ["begin"] and keeper.figures.lost == 0
    await keeper.stop()


async def test_figures_show_the_leases_held_and_their_changes(clock):
    lease = FakeLease()
    keeper = LeaseKeeper(lease, RecordingDuty(), TTL, clock)
    await keeper.start()
    lease.answer = False
    await attempt(keeper, lease, clock, TTL / 3)
    lines = [line for family in lease_families([keeper]) for line in family]
    assert 'fibs_lease_held{lease="bots"} 0' in lines
    assert 'fibs_lease_changes_total{lease="bots",change="gained"} 1' in lines
    assert 'fibs_lease_changes_total{lease="bots",change="lost"} 1' in lines
    await keeper.stop()
