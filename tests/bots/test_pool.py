"""The pool computes decisions in worker processes: the event loop keeps serving meanwhile,
late or failed decisions are replaced by the fallback, and the pool closes cleanly."""
from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import os
import pathlib
import random
import signal
import time

import pytest

from fibs_server.bots import (
    EXPERT,
    INTERMEDIATE,
    RULES_OF_THUMB,
    BotPool,
    decide,
    fallback,
    situation_for,
)
from fibs_server.bots import pool as pool_module
from fibs_server.bots.pool import CpuPacer, WorkerPriority
from fibs_server.rules.dice import SeededDice
from fibs_server.rules.match import Match

from ..rules.match_helpers import started
from ..waiting import until

# 3-ply: about 0.4 s for the opening 5-4, whose best play is not our rules of thumb's.
SLOW = dataclasses.replace(EXPERT, name="slow", plies=3)
# A time budget no decision here runs out of, however busy the machine (a worker's first
# decision waits for its process to start and import the engine): a late fallback would
# change what these tests count. The late decisions' test sets its own.
UNHURRIED = 3600.0
# The workers here at normal priority: at idle priority, beside other work on the machine,
# they would get no CPU at all (docs/TESTING.md); the idle default has a test of its own.
NORMAL = WorkerPriority.NORMAL


@pytest.fixture
async def pool():
    pool = BotPool(workers=1, time_budget=UNHURRIED, priority=NORMAL)
    await pool.start()
    yield pool
    await pool.close()


def opening_move():
    match, _ = started(script=[(5, 4)])
    return situation_for(match, 0)


async def test_the_pool_decides_as_the_brain_does(pool):
    match = Match(3, SeededDice(7))
    match.start()
    for seed in range(30):
        player = 0 if situation_for(match, 0) else 1
        situation = situation_for(match, player)
        decision = await pool.decide(situation, INTERMEDIATE, seed=seed)
        assert decision == decide(situation, INTERMEDIATE, random.Random(seed))
        decision.apply(match, player)
    assert pool.counts.decided == 30


# The loop ticks this many times within one decision: thinking on the loop, it would tick at
# most at the decision's awaits (one or two), however long the thinking; in a worker, a 3-ply
# decision leaves the loop free for tens of ticks.
TICKS_WHILE_THINKING = 5
DECISIONS_TRIED = 10  # the most a test waits through for one such decision


async def most_ticks_within_one_decision(pool: BotPool, decisions: int = DECISIONS_TRIED
                                         ) -> int:
    """Decisions one after another, up to one within which the loop ticked
    TICKS_WHILE_THINKING times (or `decisions` of them): the most ticks seen within one.
    Counted, not timed: a machine so busy that it holds the loop still through a whole
    decision only makes it try the next one."""
    ticks: list[float] = []

    async def tick() -> None:
        while True:
            ticks.append(time.perf_counter())
            await asyncio.sleep(0.005)

    ticker = asyncio.create_task(tick())
    most = 0
    try:
        await until(lambda: ticks, "the ticker runs")
        for seed in range(decisions):
            started_at = time.perf_counter()
            await pool.decide(opening_move(), SLOW, seed=seed)
            finished_at = time.perf_counter()
            most = max(most, sum(1 for at in ticks if started_at < at < finished_at))
            if most >= TICKS_WHILE_THINKING:
                break
    finally:
        ticker.cancel()
    return most


async def test_the_event_loop_keeps_ticking_while_the_workers_think(pool):
    assert await most_ticks_within_one_decision(pool) >= TICKS_WHILE_THINKING


class OnTheCallersThread(concurrent.futures.Executor):
    """An executor that runs the work at once, where it is submitted: the loop's thread."""

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def, override]
        done: concurrent.futures.Future = concurrent.futures.Future()
        done.set_result(fn(*args, **kwargs))
        return done


async def test_the_ticks_tell_a_loop_blocked_by_the_thinking(pool, monkeypatch):
    """The measure of the test above, with the thinking on the loop: it must fail."""
    monkeypatch.setattr(pool, "_executor_for", lambda level: OnTheCallersThread())
    assert await most_ticks_within_one_decision(pool, decisions=3) < TICKS_WHILE_THINKING


async def test_the_rules_of_thumb_decide_on_the_loop_without_waiting_for_a_worker(pool):
    situation = opening_move()
    busy = asyncio.create_task(pool.decide(situation, SLOW, seed=1))
    await until(lambda: pool._under_way == 1, "the slow decision is sent to the one worker")
    asking = pool.decide(situation, RULES_OF_THUMB, seed=2)
    with pytest.raises(StopIteration) as answered:  # finished at its first step: no wait
        asking.send(None)
    assert answered.value.value == decide(situation, RULES_OF_THUMB, random.Random(2))
    assert not busy.done()
    await busy
    assert pool.counts.decided == 2


async def test_a_late_decision_is_replaced_by_the_fallback(pool):
    pool.time_budget = 0.05
    situation = opening_move()
    assert await pool.decide(situation, SLOW, seed=1) == fallback(situation)
    assert pool.counts.late == 1


async def test_beyond_the_queue_limit_decisions_are_the_fallback_at_once(pool):
    pool.queue_limit = 1
    situation = opening_move()
    decisions = await asyncio.gather(pool.decide(situation, SLOW, seed=1),
                                      pool.decide(situation, SLOW, seed=1))
    assert decisions[0] == decide(situation, SLOW, random.Random(1))
    assert decisions[1] == fallback(situation)
    assert pool.counts.refused == 1


async def test_a_dead_worker_costs_one_fallback_and_a_new_worker(pool):
    situation = opening_move()
    for pid in list(pool._quick_executor._processes):  # the intermediate's worker (no public way)
        os.kill(pid, signal.SIGKILL)
    assert await pool.decide(situation, INTERMEDIATE, seed=1) == fallback(situation)
    assert pool.counts.failed == 1
    assert await pool.decide(situation, INTERMEDIATE, seed=1) == decide(
        situation, INTERMEDIATE, random.Random(1))


async def test_closing_gives_every_decision_the_fallback_without_waiting_for_the_worker():
    """At idle priority on a busy machine a worker may get no CPU to finish what it computes:
    closing (the server's shutdown) must not wait for it. A stopped worker stands for it."""
    pool = BotPool(workers=1, time_budget=UNHURRIED, priority=NORMAL)
    situation = opening_move()
    asked = [asyncio.create_task(pool.decide(situation, SLOW, seed=1)) for _ in range(4)]
    # The worker has the first (the executor marks what it hands on as running); the rest are
    # queued behind it.
    await until(lambda: pool._under_way == 4 and any(
        item.future.running() for item in pool._executor._pending_work_items.values()),
        "the first decision under way, the others queued")
    (worker,) = pool._executor._processes  # the pool's one worker process
    os.kill(worker, signal.SIGSTOP)
    await pool.close()
    decisions = [await decision for decision in asked]
    assert decisions == [fallback(situation)] * 4
    assert (pool.counts.decided, pool.counts.refused, pool.counts.failed) == (0, 4, 0)
    assert await pool.decide(situation, SLOW) == fallback(situation)  # closed: refused


def test_a_paced_worker_rests_what_its_share_of_a_core_asks():
    now = [100.0]
    pacer = CpuPacer(0.25, clock=lambda: now[0])
    assert pacer.rest() == 0.0  # nothing spent yet
    pacer.spent(0.2)  # 0.2 s of CPU at a quarter of a core: 0.6 s of rest
    assert pacer.rest() == pytest.approx(0.6)
    now[0] += 0.5  # the next request came 0.5 s later: 0.1 s still owed
    assert pacer.rest() == pytest.approx(0.1)
    now[0] += 1.0
    assert pacer.rest() == 0.0
    unpaced = CpuPacer(1.0, clock=lambda: now[0])
    unpaced.spent(5.0)
    assert unpaced.rest() == 0.0


def cpu_seconds_of(pid: int) -> float:
    """A process's CPU time so far (user and system), from /proc."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def test_a_paced_pool_decides_as_the_brain_does_and_more_slowly():
    """Held to 0.2 of a core, the worker rests 4 times a decision's CPU time before the next
    one. Measured against the worker's own CPU time (not the first decision's wall time), the
    bound holds however busy the machine is."""
    situation = opening_move()
    pool = BotPool(workers=1, time_budget=UNHURRIED, cpu_share=0.2, priority=NORMAL)
    try:
        await pool.start()
        (worker,) = pool._executor._processes  # the pool's one worker process
        cpu_before = cpu_seconds_of(worker)
        first = await pool.decide(situation, SLOW, seed=1)
        first_cpu = cpu_seconds_of(worker) - cpu_before
        started_at = time.perf_counter()
        second = await pool.decide(situation, SLOW, seed=1)  # waits out 4x the first's CPU
        second_took = time.perf_counter() - started_at
    finally:
        await pool.close()
    assert first == second == decide(situation, SLOW, random.Random(1))
    # 3.5, not 4: /proc counts in clock ticks and includes the trip's pickling.
    assert second_took >= 3.5 * first_cpu > 0, (first_cpu, second_took)


def test_a_share_of_no_core_or_more_than_one_is_refused():
    for share in (0.0, 1.5):
        with pytest.raises(ValueError):
            BotPool(workers=1, cpu_share=share)


def test_a_request_taken_up_after_its_deadline_is_not_computed(monkeypatch):
    """In the worker: an expired request costs nothing, so a queue of them does not keep the
    worker from the requests still in time."""
    def never(*arguments):
        raise AssertionError("an expired request was computed")
    monkeypatch.setattr(pool_module.brain, "decide_seeded", never)
    assert pool_module._decide_paced(opening_move(), SLOW, 1, time.monotonic() - 0.001) is None


async def test_a_quick_level_does_not_wait_behind_expensive_decisions(pool):
    """Five 3-ply decisions queued, then an intermediate one: it is back before the second
    3-ply one (by the order they finish, not by a clock)."""
    situation = opening_move()
    finished: list[str] = []

    async def decide_as(label: str, level) -> None:
        await pool.decide(situation, level, seed=1)
        finished.append(label)
    await asyncio.gather(*(decide_as(f"slow {n}", SLOW) for n in range(5)),
                         decide_as("quick", INTERMEDIATE))
    assert finished.index("quick") <= 1, finished


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="SCHED_IDLE is Linux's")
@pytest.mark.parametrize("asked, policy", [
    (None, getattr(os, "SCHED_IDLE", None)), (NORMAL, getattr(os, "SCHED_OTHER", None))])
async def test_the_workers_run_at_idle_priority_unless_asked_otherwise(asked, policy):
    """A server's bots take only the time nobody else wants."""
    pool = BotPool(workers=1) if asked is None else BotPool(workers=1, priority=asked)
    try:
        loop = asyncio.get_running_loop()
        for executor in (pool._executor, pool._quick_executor):  # no public way
            assert await loop.run_in_executor(executor, os.sched_getscheduler, 0) == policy
    finally:
        await pool.close()
