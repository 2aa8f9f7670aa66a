"""Password guessing in parallel: attempts count when they start and
queue behind each other, the owner is never held back from a clean or known-good address, and
the bcrypt queue is bounded per address and in all with known-good logins first. Connections
come from several loopback addresses (127.0.0.2, ...), which the server sees as addresses."""
from __future__ import annotations

import asyncio
import dataclasses
import time

import pytest

from fibs_server.lobby.limits.passwords import BCRYPT_THREADS, FairQueue, HashingBusy
from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.lobby.ports.accounts import Account
from fibs_server.net.limits import NetLimits
from fibs_server.protocol import texts
from tests.hostile.bystander import SLOWDOWN, Baseline, assert_unhurt, stretch
from tests.hostile.test_throttle import stepped_throttle
from tests.hostile.test_visitors_and_bot_matches import measured_during
from tests.waiting import until


async def clip_connection(port: int, source: str) -> tuple[asyncio.StreamReader,
                                                             asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    await reader.readuntil(b"login: ")
    return reader, writer


async def clip_attempt(connection, name: str, password: str) -> tuple[float, bool]:
    """Seconds until the server decided on a CLIP login (its first answer, a line end, comes
    right after the password check; a login's own work follows); whether it let us in."""
    reader, writer = connection
    started = time.monotonic()
    writer.write(f"login bot 1008 {name} {password}\r\n".encode())
    first = await reader.readuntil(b"\r\n")
    seconds = time.monotonic() - started
    if first != b"\r\n":  # not checked, for lack of room: asked to log in again
        assert first == (texts.PASSWORD_CHECKS_BUSY + "\r\n").encode(), first
        assert await reader.readuntil(b"\r\n") == b"\r\n"
    answer = await reader.readexactly(7)  # `login: ` again, or `1 <name> ...`
    return seconds, answer != b"login: "


def record_delays(harness) -> list[float]:
    """Every delay the server's login throttle asks for from now on (still waited, for real)."""
    throttle, delays = harness.server.lobby.gatekeeper.login_throttle, []
    sleep = throttle.sleep

    async def recorded(seconds: float) -> None:
        delays.append(seconds)
        await sleep(seconds)

    throttle.sleep = recorded
    return delays


def count_checks(harness, refused: list[float] | None = None) -> list[float]:
    """The times (since now) at which the server asked for a bcrypt check; those it refused
    as too many go to `refused` as well."""
    hasher, started, times = harness.server.lobby.gatekeeper.hasher, time.monotonic(), []
    check = hasher.check

    async def counted(*args, **options):
        times.append(time.monotonic() - started)
        try:
            return await check(*args, **options)
        except HashingBusy:
            if refused is not None:
                refused.append(times[-1])
            raise

    hasher.check = counted
    return times


GUESSING = AbuseLimits(account_free_failures=5, address_free_failures=100, login_delay=0.2,
                       max_login_delay=1.0)


async def quiet_login(port: int, source: str, name: str) -> Baseline:
    """Seconds until the server decided on `name`'s right password from `source`, before any
    attack: the baseline of a login measured during one."""
    seconds, ok = await clip_attempt(await clip_connection(port, source), name, "secret")
    assert ok
    return Baseline([seconds], stretch())


async def test_parallel_guesses_queue_behind_each_other_and_the_owner_gets_in(
        make_harness, tracebacks):
    harness = await make_harness(abuse=GUESSING)
    await harness.register("alice")
    await harness.register("bob")
    port = harness.server.port
    quiet = await quiet_login(port, "127.0.0.4", "bob")  # as the owner's below: a clean address
    guessers = [await clip_connection(port, "127.0.0.2") for _ in range(12)]
    clock = stepped_throttle(harness)
    checks = count_checks(harness)
    answering = asyncio.ensure_future(
        asyncio.gather(*(clip_attempt(g, "alice", "guess") for g in guessers)))
    # Before: 12 checks at once. Now the 5 free ones at once, then 0.2 s and 0.2 + 0.4 s
    # later (on the throttle's clock, which moves only here); the rest would have waited over
    # max_login_delay: refused unchecked.
    await until(lambda: len(checks) == 5 and clock.waiting() == 2,
                "the 5 free checks made, 2 attempts held back")
    assert sorted(delay for delay in clock.delays if delay > 0) == pytest.approx([0.2, 0.6])
    for step, checked in ((0.2, 6), (0.4, 7)):
        clock.advance(step - 0.01)
        await asyncio.sleep(0.05)  # time to check if it were let through early (real time)
        assert len(checks) == checked - 1, checks
        clock.advance(0.01)
        await until(lambda: len(checks) == checked, "the next held-back attempt checked")
    answers = await answering
    assert not any(ok for _, ok in answers)
    assert len(checks) == 7, checks

    # The owner from an address that never failed: no wait (before: the 1 s cap).
    owner = await clip_connection(port, "127.0.0.3")
    seconds, ok = await asyncio.wait_for(clip_attempt(owner, "alice", "secret"), 10)
    assert ok and clock.delays[-1] == 0 and not clock.waiting()
    # Real time, only against a stall elsewhere (the throttle's part is exact above): a bcrypt
    # check at cost 4 and a login, with nothing else queued, like bob's before the guesses.
    assert_unhurt(quiet, [seconds], "12 parallel guesses (the owner's login)")


async def test_many_addresses_and_connections_guess_no_faster_than_the_account_allows(
        make_harness, tracebacks):
    harness = await make_harness(abuse=GUESSING)
    await harness.register("alice")
    await harness.register("bob")
    port = harness.server.port
    quiet = await quiet_login(port, "127.0.0.1", "bob")  # as alice's below: a known-good address
    guessers = [await clip_connection(port, f"127.0.0.{2 + n % 5}") for n in range(25)]
    delays = record_delays(harness)
    checks = count_checks(harness)
    deadline = time.monotonic() + 2.0

    async def hammer(connection) -> int:
        attempts = 0
        while time.monotonic() < deadline:
            await clip_attempt(connection, "alice", "guess")
            attempts += 1
        return attempts

    attempts = sum(await asyncio.gather(*(hammer(g) for g in guessers)))
    # Each address's first guess, the account's free ones, then one per delay step (0.2,
    # 0.4, 0.8, 1.0 s apart): before, every attempt was checked (hundreds in 2 s).
    assert len(checks) <= 5 + 5 + 4, (len(checks), attempts)
    owner = await clip_connection(port, "127.0.0.1")  # known good: alice registered from it
    seconds, ok = await clip_attempt(owner, "alice", "secret")
    assert ok and delays[-1] == 0, delays[-3:]  # no wait: the last attempt through the throttle
    # Real time, only against a stall elsewhere (see the test above).
    assert_unhurt(quiet, [seconds], "25 connections guessing (the owner's login)")


class HandingOver:
    """The hasher's queue of checks waiting for a thread, noting the address of each as it is
    handed one (taken from the queue), in order."""

    def __init__(self, queue: FairQueue) -> None:
        self.queue, self.addresses, self.handed = queue, {}, []

    def __len__(self) -> int:
        return len(self.queue)

    def __iter__(self):
        return iter(self.queue)

    def push(self, rank: int, address: str, item) -> None:
        self.addresses[item] = address
        self.queue.push(rank, address, item)

    def pop(self, may_take=lambda address: True):
        item = self.queue.pop(may_take)
        self.handed.append(self.addresses.pop(item))
        return item

    def remove(self, rank: int, address: str, item) -> bool:
        return self.queue.remove(rank, address, item)

    def clear(self) -> None:
        self.queue.clear()


async def test_a_bcrypt_flood_does_not_hold_back_a_known_good_login(make_harness, tracebacks,
                                                                    monkeypatch):
    harness = await make_harness(abuse=AbuseLimits(address_free_failures=100,
                                                   hash_checks_per_address=4,
                                                   hash_checks_waiting=8))
    harness.config = dataclasses.replace(harness.config, bcrypt_rounds=12)  # production's
    await harness.restart()
    await harness.register("alice")
    port = harness.server.port
    # 10 addresses x 3 connections, each guessing an invented name: within every free count.
    flood = [await clip_connection(port, f"127.0.0.{10 + n % 10}") for n in range(30)]
    owner = await clip_connection(port, "127.0.0.1")
    refused: list[float] = []
    checks = count_checks(harness, refused)
    # The order in which queued checks are handed a bcrypt thread, and how far it had come
    # when the owner's check was asked for: a bound in checks, which no machine's speed moves.
    # (Handed, not started: a check handed a thread just before the owner asked may enter
    # bcrypt.checkpw after it asked, and still rightly go first.)
    hasher, asked_at = harness.server.lobby.gatekeeper.hasher, []
    queue = HandingOver(hasher._queue)
    monkeypatch.setattr(hasher, "_queue", queue)
    counted = hasher.check

    async def owner_noted(password, *args, **options):
        if password == "secret":
            asked_at.append((hasher._idle_threads, len(queue.handed)))
        return await counted(password, *args, **options)
    hasher.check = owner_noted
    attempts = [asyncio.ensure_future(clip_attempt(g, f"user{chr(97 + n % 26)}x", "guess"))
                for n, g in enumerate(flood)]
    await until(lambda: len(checks) == 30, "every guess of the flood has asked for its check")
    _, ok = await clip_attempt(owner, "alice", "secret")
    answers = await asyncio.gather(*attempts)
    # Before: the owner waited behind all 30 checks (~10 s at cost 12 on this machine's one
    # bcrypt thread). Now: only behind the checks already handed a thread when it asked; the
    # next thread free is its, before any of the flood's queued checks.
    (idle_threads, handed_before), owner = asked_at[0], "127.0.0.1"
    assert ok and len(asked_at) == 1
    if idle_threads:  # a thread was free: the owner's check took it and never queued
        assert owner not in queue.handed, queue.handed
    else:  # it went ahead of the flood's checks waiting then
        assert queue.handed.index(owner) == handed_before, (queue.handed, handed_before)
        assert queue.handed[handed_before + 1:], queue.handed
    assert not any(ok for _, ok in answers)
    # Beyond the 8 waiting and those running, the rest were refused unchecked.
    assert len(checks) == 30 + 1
    assert len(refused) >= 30 - 8 - BCRYPT_THREADS, len(refused)


async def test_a_club_behind_one_address_logs_in_at_once_beside_a_guesser(
        make_harness, tracebacks):
    harness = await make_harness(abuse=AbuseLimits(address_free_failures=3, login_delay=0.2,
                                                   max_login_delay=1.0),
                                 net=NetLimits(connections_per_address=40))  # 30 and the guesser
    lobby, port, club = harness.server.lobby, harness.server.port, "127.0.0.5"
    members = [f"member{chr(97 + n // 26)}{chr(97 + n % 26)}" for n in range(30)]
    secret = await lobby.gatekeeper.hasher.hash("secret")
    for name in [*members, "regular"]:  # each logged in from the club's address before
        await lobby.accounts.create_account(Account(name=name, password_hash=secret,
                                                    last_login_at=1, last_login_host=club))
    quiet = await quiet_login(port, club, "regular")
    # A guesser behind the same address: its address is past its free failures.
    guesser = await clip_connection(port, club)
    for _ in range(4):
        await clip_attempt(guesser, "nobody", "guess")
    delays = record_delays(harness)
    connections = [await clip_connection(port, club) for _ in members]
    answers: list[tuple[float, bool]] = []

    async def attack() -> None:  # the 30 at once, and the guesser goes on meanwhile
        guessing = asyncio.ensure_future(clip_attempt(guesser, "nobody", "guess"))
        answers.extend(await asyncio.gather(*(clip_attempt(c, name, "secret")
                                              for c, name in zip(connections, members))))
        await guessing

    bystander_quiet, bystander_delays = await measured_during(harness, attack())
    # Before: 8 bcrypt checks per address at once and the address's delays for everyone:
    # 21-23 of 30 answered `login:` as if wrong.
    assert all(ok for _, ok in answers), answers
    assert sorted(delays)[-1] > 0 and sorted(delays)[:30] == [0] * 30  # only the guesser waits
    # The 30 queue for the bcrypt threads: at worst one after another.
    assert_unhurt(quiet, [max(seconds for seconds, _ in answers)],
                  "30 logins at once beside a guesser (the slowest)",
                  slowdown=SLOWDOWN * len(members))
    assert_unhurt(bystander_quiet, bystander_delays, "30 logins at once beside a guesser")
