"""Six accounts on three addresses ask for analyses (`analyse`) and read them (`analysis <match>
moves`, the longest answer) in a loop, each as soon as the last is answered, while a
bystander plays: each account is served the heavy reads' burst and pace (the two commands
share its bucket), every other request is refused with its text before anything is read, and
the bystander's answers stay within a few times its own baseline, measured in the same test
before the flood."""
from __future__ import annotations

import asyncio
import dataclasses
import re
import time

from fibs_server.bots.analysis import CHEAPEST_PLIES
from fibs_server.bots.pool import analyse_stored
from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.lobby.services.analysis_queue import AnalysisConfig
from fibs_server.protocol.wording import analysis_texts
from tests.bots.test_analysis_lane import played_match
from tests.e2e.client import FibsClient
from tests.e2e.conftest import ServerHarness
from tests.hostile.bystander import (
    assert_unhurt,
    playing_a_match,
    time_answers_during,
    time_answers_quiet,
)
from tests.hostile.conftest import answers_to, start_harness

ADDRESSES = ("127.0.0.2", "127.0.0.3", "127.0.0.4")  # the bystander is 127.0.0.1
ACCOUNTS_PER_ADDRESS = 2
REQUESTS = 300  # each flooder's, one at a time: about 3 s at their command pace
FIRST_LINE = re.compile(r"Analysis of match \d+: .*|Match \d+ is .*|\*\* Too many analyses .*|"
                        r"\*\* (You have|The analysis queue) .*")


async def login_from(harness: ServerHarness, name: str, address: str) -> FibsClient:
    client = await harness.connect(name, source=address)
    await client.send(f"login testclient 1008 {name} secret")
    await client.skip_until("6")
    return client


async def finished_and_analysed(harness: ServerHarness, player: str, analysis: dict) -> int:
    """A rated 3-point match `player` won against `opponent`, with its analysis stored."""
    assert harness.server is not None
    store = harness.server.store
    state = played_match(3, seed=3).to_dict()
    match_id = await store.create_match(player, "opponent", 3, state)
    await store.finish_match(match_id, {**state, "ratings": {
        player: [1500.0, 1501.0], "opponent": [1500.0, 1499.0]}}, player, [])
    await store.store_analysis(match_id, CHEAPEST_PLIES, analysis)
    return match_id


async def test_flooded_analyses_are_paced_and_slow_no_bystander(tmp_path, tracebacks):
    never = asyncio.Event()

    async def busy(state, plies):  # an analysis asked for runs as long as the test does
        await never.wait()
        return {}

    limits = AbuseLimits()
    harness = await start_harness(tmp_path, abuse=limits)
    try:
        harness.config = dataclasses.replace(harness.config, analysis=AnalysisConfig(
            queue_finished=False))
        await harness.restart()
        assert harness.server is not None and harness.server.analysis_queue is not None
        harness.server.analysis_queue.compute = busy
        analysis = await asyncio.to_thread(analyse_stored, played_match(3, seed=3).to_dict(),
                                           CHEAPEST_PLIES)
        names = [f"flood{n}" for n in range(len(ADDRESSES) * ACCOUNTS_PER_ADDRESS)]
        for name in (*names, "opponent", "alice", "bob"):
            await harness.register(name)
        readers, askers = names[::2], names[1::2]
        matches = {name: await finished_and_analysed(harness, name, analysis) for name in names}
        unanalysed = {name: await finished_and_analysed(harness, name, analysis)
                      for name in askers}
        for name in askers:  # asked for anew: not analysed yet
            await harness.server.store.fail_analysis(unanalysed[name], "for the test")
        flooders = {name: await login_from(harness, name, ADDRESSES[n // ACCOUNTS_PER_ADDRESS])
                    for n, name in enumerate(names)}
        bystander, partner = await playing_a_match(harness)

        quiet = await time_answers_quiet(bystander)
        began = time.monotonic()
        flooding = asyncio.gather(*(
            answers_to(flooders[name], [f"analysis {matches[name]} moves"] * REQUESTS,
                       FIRST_LINE) for name in readers), *(
            answers_to(flooders[name], [f"analyse {unanalysed[name]}"] * REQUESTS, FIRST_LINE)
            for name in askers))
        during = await time_answers_during(bystander, flooding)
        elapsed = time.monotonic() - began
        answers = dict(zip([*readers, *askers], flooding.result()))
    finally:
        never.set()
        await harness.stop()

    allowed = limits.heavy_read_burst + limits.heavy_reads_per_second * elapsed + 1
    for name, replies in answers.items():
        reading = name in readers
        served = [reply for reply in replies if not reply.startswith("** Too many analyses")]
        refusal = "** Too many analyses read: try again in " if reading else \
            "** Too many analyses asked for: try again in "
        assert all(reply.startswith(refusal) for reply in replies if reply not in served)
        assert 1 <= len(served) <= allowed, (name, len(served), allowed)
        if reading:
            assert served[0] == f"Analysis of match {matches[name]}: {name} - opponent, " \
                                "3 point match."
        else:
            assert served[0] == analysis_texts.queued(unanalysed[name])
    assert_unhurt(quiet, during, f"a flood of analyses ({elapsed:.1f} s, "
                  f"{sum(map(len, answers.values()))} requests)")
