"""Users flooding `analyse` for many matches while a bystander plays: the queue holds at most
a few of each user's requests and a bounded number in all, the rest are refused with the
documented texts, and the bystander is answered as fast as ever."""
from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Awaitable

from fibs_server.bots.analysis import CHEAPEST_PLIES
from fibs_server.lobby.ports.analysis_records import QueueLimits, Status
from fibs_server.lobby.services.analysis_queue import AnalysisConfig
from fibs_server.protocol.wording import analysis_texts
from tests.bots.test_analysis_lane import played_match
from tests.hostile.bystander import (
    PROBE_INTERVAL,
    assert_unhurt,
    playing_a_match,
    time_answers_during,
    time_answers_quiet,
)
from tests.hostile.conftest import answers_to, start_harness
from tests.lobby.test_analysis import status_becomes

ARCHIVE = 40  # finished rated matches of each flooder's
# The bystander is measured while the analysis computes, for this long at most: a core busy
# with other processes leaves an analysis at idle priority next to no time, and it may take
# minutes to end (it ends in about 10 s on an idle 2-core machine).
ANALYSIS_WINDOW = 5.0
ROUNDS = 3  # each flooder asks for each of its matches this often
LIMITS = QueueLimits(waiting=5, waiting_per_user=3)
ANSWER = re.compile(r"(\*\* )?(Match \d+ is|The analysis queue|You have \d+ matches|"
                    r"Too many analyses asked for).*")


async def ask_for_every_match(client, match_ids: list[int]) -> list[str]:
    return await answers_to(client, [f"analyse {match_id}" for match_id in match_ids * ROUNDS],
                            ANSWER)


async def test_a_flood_of_analyse_is_refused_beyond_the_bounds_and_slows_nobody(tmp_path,
                                                                               tracebacks):
    never = asyncio.Event()

    async def busy(state, plies):  # the first request runs for as long as the test does
        await never.wait()
        return {}

    harness = await start_harness(tmp_path)
    try:
        harness.config = dataclasses.replace(harness.config, analysis=AnalysisConfig(
            limits=LIMITS, queue_finished=False))
        await harness.restart()
        harness.server.analysis_queue.compute = busy
        for name in ("flooder", "other", "opponent", "alice", "bob"):
            await harness.register(name)
        store = harness.server.store
        matches: dict[str, list[int]] = {"flooder": [], "other": []}
        for name, ids in matches.items():
            for _ in range(ARCHIVE):
                match_id = await store.create_match(name, "opponent", 1, {})
                await store.finish_match(match_id, {"ratings": {name: [1500.0, 1501.0],
                                                                "opponent": [1500.0, 1499.0]}},
                                         name, [])
                ids.append(match_id)
        flooder, other = await harness.login_clip("flooder"), await harness.login_clip("other")
        bystander, partner = await playing_a_match(harness)
        quiet = await time_answers_quiet(bystander, PROBE_INTERVAL)
        flooding = asyncio.gather(ask_for_every_match(flooder, matches["flooder"]),
                                  ask_for_every_match(other, matches["other"]))
        delays = await time_answers_during(bystander, flooding, PROBE_INTERVAL)
        flooder_answers, other_answers = flooding.result()
    finally:
        never.set()
        await harness.stop()

    queued = [answer for answer in flooder_answers + other_answers
              if answer.endswith("is queued for analysis. Type 'analysis "
                                 f"{answer.split()[1]}' when it is done.")]
    assert len(queued) == LIMITS.waiting  # in all, whoever asked
    for answers in (flooder_answers, other_answers):
        assert sum("is queued for analysis" in answer for answer in answers) <= 3
        refusals = [answer for answer in answers if "is queued for analysis" not in answer]
        waiting = {analysis_texts.waiting_already(int(answer.split()[1]))
                   for answer in answers if "is queued for analysis" in answer}
        paced = {answer for answer in refusals
                 if answer.startswith("** Too many analyses asked for: try again in ")}
        assert set(refusals) - paced <= {
            analysis_texts.too_many_of_yours(LIMITS.waiting_per_user),
            analysis_texts.queue_full(LIMITS.waiting), *waiting}
        assert len(refusals) >= ROUNDS * ARCHIVE - LIMITS.waiting_per_user
    assert_unhurt(quiet, delays, "a flood of analyse")


async def done_or_for(seconds: float, awaitable: Awaitable[None]) -> None:
    """Until `awaitable` is done, or for `seconds` of it."""
    waiting = asyncio.ensure_future(awaitable)
    await asyncio.wait([waiting], timeout=seconds)
    waiting.cancel()


async def test_a_real_analysis_running_slows_no_bystander(tmp_path, tracebacks):
    """The analysis process computing (at idle priority) beside the server: the bystander's
    answers as fast as ever."""
    harness = await start_harness(tmp_path)
    try:
        # Never held for a busy server: here the server's process is the test's too, and its
        # bystander keeps it busy on purpose.
        harness.config = dataclasses.replace(harness.config, analysis=AnalysisConfig(
            plies=CHEAPEST_PLIES, queue_finished=False, busy_share=0))
        await harness.restart()
        for name in ("asker", "opponent", "alice", "bob"):
            await harness.register(name)
        store = harness.server.store
        played = played_match(7, seed=3).to_dict()
        match_id = await store.create_match("asker", "opponent", 7, played)
        await store.finish_match(match_id, {**played, "ratings": {
            "asker": [1500.0, 1501.0], "opponent": [1500.0, 1499.0]}}, "asker", [])
        asker = await harness.login_clip("asker")
        bystander, partner = await playing_a_match(harness)
        quiet = await time_answers_quiet(bystander, PROBE_INTERVAL)
        answers = await ask_for_every_match(asker, [match_id])
        assert answers[0] == analysis_texts.queued(match_id)
        # Within the bystander's own command rate (docs/SECURITY.md): probing faster, its own
        # commands were paced once its burst was spent, which a long analysis (on a loaded
        # machine, where the idle-priority analysis waits) showed as stalls of seconds.
        delays = await time_answers_during(
            bystander, asyncio.ensure_future(done_or_for(ANALYSIS_WINDOW, status_becomes(
                store, match_id, Status.DONE))), PROBE_INTERVAL)
    finally:
        await harness.stop()
    assert_unhurt(quiet, delays, "a real analysis")
