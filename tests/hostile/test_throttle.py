"""Password guessing: growing delays per account and per address, before the password is
checked, without blocking anyone else; registrations per address per hour."""
from __future__ import annotations

import asyncio
import time

import pytest

from fibs_server.lobby.throttle import AbuseLimits, LoginThrottle, RegistrationLimit
from fibs_server.protocol.texts import TOO_MANY_REGISTRATIONS
from tests.e2e.client import ExpectationFailed
from tests.e2e.conftest import DATE_LINE, send_guest_name


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
    assert throttle._start("Alice", "10.0.0.1", False) == clock.now + 8  # names ignore case


async def test_parallel_attempts_count_when_they_start_and_queue_behind_each_other():
    clock = FakeClock()
    throttle = LoginThrottle(LIMITS, clock=clock, sleep=clock.sleep)
    await throttle.attempt("alice", "10.0.0.1", False, failing)  # the address has failed
    starts = [throttle._start("alice", "10.0.0.1", False) for _ in range(5)]
    # 1 failure + 1 under way are free, then 1, 2, 4 s after each other; the 5th would wait
    # longer than max_login_delay: refused unchecked.
    assert starts == [1000, 1001, 1003, 1007, None]


async def test_the_account_count_holds_back_only_addresses_that_failed_and_are_not_known():
    clock = FakeClock()
    throttle = LoginThrottle(LIMITS, clock=clock, sleep=clock.sleep)
    for _ in range(6):
        await throttle.attempt("alice", "10.6.6.6", False, failing)
    assert throttle._start("alice", "10.0.0.2", False) == clock.now  # a clean address
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
    assert throttle.accounts.count("user0") == 0  # the account forgot its failures
    assert throttle.addresses.count("10.0.0.1") == 6  # the address did not; the success is none


async def test_failures_expire():
    clock = FakeClock()
    throttle = LoginThrottle(LIMITS, clock=clock, sleep=clock.sleep)
    for _ in range(4):
        await throttle.attempt("alice", "h", False, failing)
    assert clock.slept == [0, 0, 1, 2]
    clock.now += LIMITS.failure_memory + 10
    assert throttle._start("alice", "h", False) == clock.now
    clock.now += LIMITS.failure_memory + 10
    throttle.addresses.count("h"), throttle.accounts.count("alice")
    assert len(throttle.accounts) == 0 and len(throttle.addresses) == 0  # pruned, not kept


async def test_invented_names_cannot_grow_the_failure_table_without_bound(monkeypatch):
    from fibs_server.lobby import throttle as module
    monkeypatch.setattr(module._FailureCounts, "MAX_KEYS", 100)
    clock = FakeClock()
    throttle = LoginThrottle(LIMITS, clock=clock, sleep=clock.sleep)
    await throttle.attempt("first", "h", False, failing)  # the address has failed: names count
    for number in range(1000):
        throttle._start(f"name{number}", "h", False)
    assert len(throttle.accounts) == 100


def test_registrations_per_address_per_hour():
    clock = FakeClock()
    limit = RegistrationLimit(LIMITS, clock=clock)
    for _ in range(2):
        assert limit.allows("10.0.0.1")
        assert limit.take("10.0.0.1")
    assert not limit.allows("10.0.0.1") and not limit.take("10.0.0.1")
    assert limit.allows("10.0.0.2")
    clock.now += 3599
    assert not limit.allows("10.0.0.1")
    clock.now += 2
    assert limit.allows("10.0.0.1")


async def timed_attempt(client, name: str, password: str) -> tuple[float, bool]:
    """Seconds from sending a telnet password to the server's answer; whether it let us in."""
    await client.send(name)
    await client.expect_prompt("password: ")
    started = time.monotonic()
    await client.send(password)
    await client.expect_lines("")
    try:
        await client.expect_prompt("login: ")
    except ExpectationFailed:  # not the prompt again: `** User <name> authenticated.`
        return time.monotonic() - started, True
    return time.monotonic() - started, False


async def test_failed_logins_are_answered_later_and_later_without_blocking_others(
        make_harness, tracebacks):
    harness = await make_harness(abuse=AbuseLimits(
        account_free_failures=1, address_free_failures=100, login_delay=0.25,
        max_login_delay=0.5))
    await harness.register("alice")
    await harness.register("bob")
    bob = await harness.login_clip("bob")
    # From an address alice never used: hers is not held back by her account's failures.
    guesser = await harness.connect("guesser", source="127.0.0.2")
    times = [await timed_attempt(guesser, "alice", "guess") for _ in range(3)]
    assert [ok for _, ok in times] == [False] * 3
    assert times[0][0] < 0.2
    assert 0.25 <= times[1][0] < 0.45
    assert 0.5 <= times[2][0] < 0.75
    # While an attempt waits, everyone else is served at once.
    await guesser.send("alice")
    await guesser.expect_prompt("password: ")
    await guesser.send("secret")  # right, but it waits like any attempt would
    started = time.monotonic()
    await bob.send("time")
    await bob.expect_lines(DATE_LINE)
    assert time.monotonic() - started < 0.2
    await guesser.skip_until("** User alice authenticated.")
    assert time.monotonic() - started >= 0.45
    # The success cleared alice's failures: her next login is immediate.
    again = await harness.connect("alice again", source="127.0.0.2")
    assert (await timed_attempt(again, "alice", "secret"))[0] < 0.2


async def test_address_throttle_covers_every_name_and_clip_logins(make_harness, tracebacks):
    harness = await make_harness(abuse=AbuseLimits(
        account_free_failures=100, address_free_failures=2, login_delay=0.3,
        max_login_delay=0.3))
    guesser = await harness.connect("guesser")
    for name in ("anna", "bert"):
        assert (await timed_attempt(guesser, name, "guess"))[0] < 0.2
    started = time.monotonic()
    await guesser.send("login bot 1008 carl guess")
    await guesser.expect_lines("")
    await guesser.expect_prompt("login: ")
    assert time.monotonic() - started >= 0.3


async def test_wrong_old_passwords_are_throttled_like_logins(make_harness, tracebacks):
    harness = await make_harness(abuse=AbuseLimits(
        account_free_failures=1, login_delay=0.3, max_login_delay=0.3))
    await harness.register("alice")
    alice = await harness.login_clip("alice")
    durations = []
    for _ in range(2):
        started = time.monotonic()
        await alice.send("password guess:newpass:newpass")
        await alice.expect_lines("** Sorry, that is not your password.")
        durations.append(time.monotonic() - started)
    assert durations[0] < 0.2 <= 0.3 <= durations[1]


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
