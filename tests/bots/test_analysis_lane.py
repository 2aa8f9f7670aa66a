"""Match analyses in the bots' pool: their own process at idle priority, stopped while any bot
decision is under way, so that a bot decision asked for during an analysis is answered as if
no analysis ran; the analysis then goes on and ends with the same result."""
from __future__ import annotations

import asyncio
import pathlib
import random

from fibs_server.bots import BotPool
from fibs_server.bots.analysis import CHEAPEST_PLIES
from fibs_server.bots.pool import AnalysisLane
from fibs_server.rules.dice import SeededDice
from fibs_server.rules.match import Match

from ..waiting import until
from .helpers import random_action
from .test_pool import NORMAL, SLOW, UNHURRIED, cpu_seconds_of, opening_move


def process_state(pid: int) -> str:
    """R running, S sleeping, T stopped, ... (/proc/<pid>/stat's third field)."""
    return pathlib.Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]


def played_match(length: int, seed: int) -> Match:
    match = Match(length, SeededDice(seed))
    match.start()
    rng = random.Random(seed)
    while not match.is_over:
        for player in (0, 1):
            if not match.is_over:
                random_action(match, player, rng)
    return match


async def test_a_bot_decision_goes_first_while_an_analysis_runs():
    lane = AnalysisLane(NORMAL)
    pool = BotPool(workers=1, time_budget=UNHURRIED, analyses=lane, priority=NORMAL)
    await pool.start()
    try:
        state = played_match(7, seed=3).to_dict()
        analysing = asyncio.ensure_future(lane.analyse(state, CHEAPEST_PLIES))
        await until(lambda: lane.pid is not None and cpu_seconds_of(lane.pid) > 0.3,
                    "the analysis computing", timeout=60.0)
        assert not analysing.done()
        pid = lane.pid

        deciding = asyncio.ensure_future(pool.decide(opening_move(), SLOW, seed=1))
        await asyncio.sleep(0)  # the decision starts: the lane is held at once
        assert lane.held and lane.stops == 1
        await until(lambda: process_state(pid) in "Tt", "the analysis stopped")
        spent_when_stopped = cpu_seconds_of(pid)
        assert process_state(pid) in "Tt" and not deciding.done()
        await until(lambda: deciding.done() or cpu_seconds_of(pid) > spent_when_stopped,
                    "the decision", timeout=60.0)
        # Stopped all along: the analysis took no CPU until the decision was back (the
        # release and the decision's end are one step of the loop).
        assert deciding.done()
        decision = await deciding
        assert pool.counts.decided == 1 and pool.counts.late == 0 and decision is not None
        assert not lane.held and process_state(pid) not in "Tt"

        result = await analysing  # went on where it stopped
        assert result["evaluated"] and len(result["decisions"]) > 50
    finally:
        await pool.close()
        await lane.close()


async def stopped_analysis(lane: AnalysisLane, length: int, seed: int) -> asyncio.Future:
    """An analysis asked of `lane` held before it started, once its process is stopped."""
    lane.hold()
    analysing = asyncio.ensure_future(lane.analyse(played_match(length, seed).to_dict(),
                                                   CHEAPEST_PLIES))
    await until(lambda: lane.pid is not None, "the process", timeout=60.0)
    await until(lambda: process_state(lane.pid) in "Tt", "the process stopped")
    return analysing


async def test_a_lane_held_before_it_started_stops_its_process_at_once():
    lane = AnalysisLane(NORMAL)
    try:
        analysing = await stopped_analysis(lane, 1, seed=1)
        assert not analysing.done()
        lane.release()
        assert (await analysing)["evaluated"]
    finally:
        await lane.close()


async def test_closing_the_lane_drops_the_analysis_under_way():
    lane = AnalysisLane(NORMAL)
    lane.hold()  # stopped: closing must continue it, or it could never exit
    analysing = asyncio.ensure_future(lane.analyse(played_match(5, seed=2).to_dict(),
                                                   CHEAPEST_PLIES))
    await until(lambda: lane.pid is not None, "the process", timeout=60.0)
    await lane.close()
    try:
        await analysing
    except (Exception, asyncio.CancelledError):
        pass  # broken, or cancelled before it started: either way, not waited for
    assert analysing.done()


async def test_a_held_lane_runs_during_its_turn_and_stops_after():
    """busy_hold.py's turns: the process held by a bot goes on for a turn, whoever holds it."""
    lane = AnalysisLane(NORMAL)
    try:
        analysing = await stopped_analysis(lane, 7, seed=4)
        pid = lane.pid
        assert pid is not None and lane.computing
        lane.take_turn()
        assert lane.held and not lane.stopped and lane.turns == 1
        await until(lambda: process_state(pid) not in "Tt", "the process going on")
        lane.hold()  # a bot decides during the turn: no stop
        assert not lane.stopped and process_state(pid) not in "Tt"
        lane.end_turn()
        await until(lambda: process_state(pid) in "Tt", "the process stopped again")
        lane.release()
        lane.release()
        assert (await analysing)["evaluated"]
    finally:
        await lane.close()
