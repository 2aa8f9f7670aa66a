"""Password guessing: growing delays per account and per address, before the password is
checked, without blocking anyone else; registrations per address per hour."""
from __future__ import annotations

import asyncio

import pytest

from fibs_server.lobby.limits.shared_counts import LocalCounts
from fibs_server.lobby.limits.throttle import (
    ACCOUNTS,
    ADDRESSES,
    AbuseLimits,
    LoginThrottle,
    RegistrationLimit,
)
from fibs_server.protocol.texts import TOO_MANY_REGISTRATIONS
from tests.e2e.client import ExpectationFailed
from tests.e2e.conftest import DATE_LINE, send_guest_name
from tests.hostile.bystander import CEILING
from tests.waiting import until


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


LIMITS = AbuseLimits(account_free_failures=2, address_free_failures=4, login_delay=1.0,
                     max_login_delay=8.0, failure_memory=600.0, registrations_per_hour=2)


async def failing() -> bool:
    return False


async def succeeding() -> bool:
    return True


async def test_delays_start_after_the_free_failures_and_double_up_to_the_cap():
    clock = FakeClock()
    throttle = LoginThrottle(LIMITS, clock=clock, sleep=clock.sleep)
    for _ in range(8):
        assert not await throttle.attempt("alice", "10.0.0.1", False, failing)
    assert clock.slept == [0, 0, 1, 2, 4, 8, 8, 8]
    assert await throttle._start("Alice", "10.0.0.1", False) == clock.now + 8  # names ignore case


async def test_parallel_attempts_count_when_they_start_and_queue_behind_each_other():
    clock = FakeClock()
    throttle = LoginThrottle(LIMITS, clock=clock, sleep=clock.sleep)
    await throttle.attempt("alice", "10.0.0.1", False, failing)  # the address has failed
    starts = [await throttle._start("alice", "10.0.0.1", False) for _ in range(5)]
    # 1 failure + 1 under way are free, then 1, 2, 4 s after each other; the 5th would wait
    # longer than max_login_delay: refused unchecked.
    assert starts == [1000, 1001, 1003, 1007, None]


async def test_the_account_count_holds_back_only_addresses_that_failed_and_are_not_known():
    clock = FakeClock()
    throttle = LoginThrottle(LIMITS, clock=clock, sleep=clock.sleep)
    for _ in range(6):
        await throttle.attempt("alice", "10.6.6.6", False, failing)
    assert await throttle._start("alice", "10.0.0.2", False) == clock.now  # a clean address
    assert await throttle.attempt("alice", "10.0.0.3", False, succeeding)
    assert throttle.knows("ALICE", "10.0.0.3") and not throttle.knows("alice", "10.0.0.2")


async def test_address_failures_count_across_names_and_success_clears_the_account_only():
    clock = FakeClock()
    throttle = LoginThrottle(LIMITS, clock=clock, sleep=clock.sleep)
    for number in range(5):
        await throttle.attempt(f"user{number}", "10.0.0.1", False, failing)
    assert clock.slept[-1] == 1  # the 5th attempt: 4 free
    await throttle.attempt("user0", "10.0.0.1", False, failing)
    await throttle.attempt("user0", "10.0.0.1", False, succeeding)
    assert throttle.counts.count((ACCOUNTS, "user0")) == 0  # the account forgot its failures
    assert throttle.counts.count((ADDRESSES, "10.0.0.1")) == 6  # the address did not; the success is none


async def test_a_known_good_attempt_goes_ahead_of_its_address_and_only_its_pair_holds_it():
    clock = FakeClock()
    throttle = LoginThrottle(LIMITS, clock=clock, sleep=clock.sleep)
    for number in range(6):  # the address guesses: its next attempt waits 4 s
        await throttle.attempt(f"user{number}", "10.0.0.1", False, failing)
    assert await throttle._start("mallory", "10.0.0.1", False) == clock.now + 4
    # Known good: no wait, however busy the address; it counts for the address all the same.
    failures = throttle.counts.count((ADDRESSES, "10.0.0.1"))
    assert await throttle._start("alice", "10.0.0.1", True) == clock.now
    assert throttle.counts.count((ADDRESSES, "10.0.0.1")) == failures + 1
    # Its own failures hold it back, like an account's; a success clears them.
    for _ in range(3):
        await throttle.attempt("bob", "10.0.0.1", True, failing)
    assert clock.slept[-3:] == [0, 0, 1]
    assert await throttle.attempt("bob", "10.0.0.1", True, succeeding)
    assert await throttle._start("bob", "10.0.0.1", True) == clock.now


async def test_failures_expire():
    clock = FakeClock()
    throttle = LoginThrottle(LIMITS, clock=clock, sleep=clock.sleep)
    for _ in range(4):
        await throttle.attempt("alice", "h", False, failing)
    assert clock.slept == [0, 0, 1, 2]
    clock.now += LIMITS.failure_memory + 10
    assert await throttle._start("alice", "h", False) == clock.now
    clock.now += LIMITS.failure_memory + 10
    assert throttle.counts.count((ADDRESSES, "h")) == throttle.counts.count((ACCOUNTS, "alice")) == 0
    assert throttle.counts.tallied(ACCOUNTS) == throttle.counts.tallied(ADDRESSES) == 0  # pruned


async def test_invented_names_cannot_grow_the_failure_table_without_bound(monkeypatch):
    monkeypatch.setattr(LocalCounts, "MAX_KEYS", 100)
    clock = FakeClock()
    throttle = LoginThrottle(LIMITS, clock=clock, sleep=clock.sleep)
    await throttle.attempt("first", "h", False, failing)  # the address has failed: names count
    for number in range(1000):
        await throttle._start(f"name{number}", "h", False)
    assert throttle.counts.tallied(ACCOUNTS) == 100
    assert throttle.counts.count((ADDRESSES, "h")) == 1001  # one kind's keys push out no other's


async def test_registrations_per_address_per_hour():
    clock = FakeClock()
    limit = RegistrationLimit(LIMITS, LocalCounts(clock))
    for _ in range(2):
        assert await limit.allows("10.0.0.1")
        assert await limit.take("10.0.0.1")
    assert not await limit.allows("10.0.0.1") and not await limit.take("10.0.0.1")
    assert await limit.allows("10.0.0.2")
    clock.now += 3599
    assert not await limit.allows("10.0.0.1")
    clock.now += 2
    assert await limit.allows("10.0.0.1")


class SteppedClock:
    """The running server's login throttle on a clock of the test's: each delay waits until
    the test moves the clock past it (`advance`), however fast or loaded the machine."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.delays: list[float] = []  # every delay the throttle asked for, in order
        self._sleepers: list[tuple[float, asyncio.Future[None]]] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.delays.append(seconds)
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        woken = asyncio.get_running_loop().create_future()
        self._sleepers.append((self.now + seconds, woken))
        await woken

    def waiting(self) -> int:
        """Attempts held back now."""
        return sum(not woken.done() for _, woken in self._sleepers)

    def advance(self, seconds: float) -> None:
        self.now += seconds
        for entry in [e for e in self._sleepers if e[0] <= self.now + 1e-9]:
            self._sleepers.remove(entry)
            if not entry[1].done():
                entry[1].set_result(None)


def stepped_throttle(harness) -> SteppedClock:
    """The harness's login throttle (LoginThrottle's clock and sleep) on a SteppedClock."""
    clock = SteppedClock()
    throttle = harness.server.lobby.gatekeeper.login_throttle
    throttle.clock = throttle.counts.clock = clock
    throttle.sleep = clock.sleep
    return clock


async def held_back(clock: SteppedClock, answer: asyncio.Task, delay: float):
    """`answer` waits for the throttle's `delay`, not a moment less; its result once over."""
    await until(clock.waiting, "the attempt held back")
    assert clock.delays[-1] == pytest.approx(delay)
    clock.advance(delay - 0.01)
    await asyncio.sleep(0.05)  # time to answer if it were let through early (real time)
    assert clock.waiting() == 1 and not answer.done()
    clock.advance(0.01)
    return await answer


async def attempt(client, name: str, password: str) -> bool:
    """A telnet password for `name`, up to the server's answer; whether it let us in."""
    await client.send(name)
    await client.expect_prompt("password: ")
    await client.send(password)
    await client.expect_lines("")
    try:  # the prompt or another text comes at once: only a stall waits for the ceiling
        await client.expect_prompt("login: ", timeout=CEILING)
    except ExpectationFailed:  # not the prompt again: `** User <name> authenticated.`
        return True
    return False


async def test_failed_logins_are_answered_later_and_later_without_blocking_others(
        make_harness, tracebacks):
    harness = await make_harness(abuse=AbuseLimits(
        account_free_failures=1, address_free_failures=100, login_delay=0.25,
        max_login_delay=0.5))
    clock = stepped_throttle(harness)
    await harness.register("alice")
    await harness.register("bob")
    bob = await harness.login_clip("bob")
    # From an address alice never used: hers is not held back by her account's failures.
    guesser = await harness.connect("guesser", source="127.0.0.2")
    assert not await attempt(guesser, "alice", "guess")
    assert clock.delays[-1] == 0 and not clock.waiting()  # (bob's login came first)
    for delay in (0.25, 0.5):
        answer = asyncio.create_task(attempt(guesser, "alice", "guess"))
        assert not await held_back(clock, answer, delay)
    # While an attempt waits, everyone else is served.
    await guesser.send("alice")
    await guesser.expect_prompt("password: ")
    await guesser.send("secret")  # right, but it waits like any attempt would
    await until(clock.waiting, "the right password held back")
    await bob.send("time")
    await bob.expect_lines(DATE_LINE)
    assert clock.waiting() == 1 and clock.delays[-1] == pytest.approx(0.5)
    clock.advance(0.5)
    await guesser.skip_until("** User alice authenticated.")
    # The success cleared alice's failures: her next login is immediate.
    again = await harness.connect("alice again", source="127.0.0.2")
    assert await attempt(again, "alice", "secret")
    assert clock.delays[-1] == 0


async def test_address_throttle_covers_every_name_and_clip_logins(make_harness, tracebacks):
    harness = await make_harness(abuse=AbuseLimits(
        account_free_failures=100, address_free_failures=2, login_delay=0.3,
        max_login_delay=0.3))
    clock = stepped_throttle(harness)
    guesser = await harness.connect("guesser")
    for name in ("anna", "bert"):
        assert not await attempt(guesser, name, "guess")
    assert clock.delays == [0, 0]

    async def clip_login() -> None:
        await guesser.send("login bot 1008 carl guess")
        await guesser.expect_lines("")
        await guesser.expect_prompt("login: ")
    await held_back(clock, asyncio.create_task(clip_login()), 0.3)


async def test_wrong_old_passwords_are_throttled_like_logins(make_harness, tracebacks):
    harness = await make_harness(abuse=AbuseLimits(
        account_free_failures=1, login_delay=0.3, max_login_delay=0.3))
    clock = stepped_throttle(harness)
    await harness.register("alice")
    alice = await harness.login_clip("alice")

    async def wrong_old_password() -> None:
        await alice.send("password guess:newpass:newpass")
        await alice.expect_lines("** Sorry, that is not your password.")
    await wrong_old_password()
    assert clock.delays == [0, 0]  # alice's login, then the first wrong password
    await held_back(clock, asyncio.create_task(wrong_old_password()), 0.3)


async def test_registrations_per_address_are_capped(make_harness, tracebacks):
    harness = await make_harness(abuse=AbuseLimits(registrations_per_hour=2))
    await harness.register_by_dialogue("alice")
    await harness.register_by_dialogue("bob")
    client = await harness.connect()
    await send_guest_name(client, "carol")
    await client.expect_lines(TOO_MANY_REGISTRATIONS)
    await client.expect_prompt()
    await client.send("bye")
    await client.expect_closed()
    # Existing accounts still log in.
    await harness.login_clip("alice")


@pytest.mark.parametrize("delay", [0.0])
def test_the_default_limits_are_sane(delay):
    limits = AbuseLimits()
    assert limits.account_free_failures >= 3 and limits.login_delay > delay
    assert limits.max_login_delay <= 120 and limits.registrations_per_hour >= 1
