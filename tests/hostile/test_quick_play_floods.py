"""Players flooding `quickplay` and `quickplay cancel` while a bystander plays a match: seeks
beyond the rate a user may seek at are refused in memory with the documented text (counted
against the burst and rate, over the time the test measured), each flooder holds one seek at
most, and the bystander is answered as fast as during a flood of `time` from the same
players (the baseline, measured in the same test)."""
from __future__ import annotations

import asyncio
import re
import time

from fibs_server.lobby.services.quick_play import QuickPlayConfig
from tests.e2e.conftest import DATE_LINE
from tests.hostile.bystander import Baseline, assert_unhurt, stretch, time_answers_during
from tests.hostile.conftest import answers_to, start_harness
from tests.hostile.test_salt_floods import begin

ROUNDS = 120  # lines per flooder
FLOODERS = ("flood1", "flood2", "flood3")
ANSWER = re.compile(r"(Quick play: .*|\*\* Too many quick play seeks: .*"
                    r"|\*\* You are not seeking a quick play match\.)")


def flood_lines(length: int) -> list[str]:
    """A seek of its own length (flooders never pair with each other), then a cancel, again
    and again."""
    return [f"quickplay {length} range any" if number % 2 == 0 else "quickplay cancel"
            for number in range(ROUNDS)]


async def test_a_flood_of_seeks_and_cancels_is_paced_and_slows_nobody(tmp_path, tracebacks):
    harness = await start_harness(tmp_path)
    try:
        for name in (*FLOODERS, "alice", "bob"):
            await harness.register(name)
        clients = {name: await harness.login_clip(name) for name in (*FLOODERS, "alice", "bob")}
        for name in ("alice", "bob"):
            await clients[name].toggle_ready()
        await begin(clients, "alice", "bob")
        bystander = clients["alice"]

        baseline_flood = asyncio.ensure_future(asyncio.gather(*(
            answers_to(clients[name], ["time"] * ROUNDS, DATE_LINE) for name in FLOODERS)))
        baseline = Baseline(await time_answers_during(bystander, baseline_flood), stretch())
        started = time.monotonic()
        flooding = asyncio.ensure_future(asyncio.gather(*(
            answers_to(clients[name], flood_lines(length), ANSWER)
            for length, name in enumerate(FLOODERS, start=1))))
        delays = await time_answers_during(bystander, flooding)
        elapsed = time.monotonic() - started
        answers = flooding.result()
        seeks = harness.server.lobby.quick_play.seeks()
    finally:
        await harness.stop()

    config = QuickPlayConfig()
    for flooder in answers:
        accepted = [answer for answer in flooder if answer.startswith("Quick play: you seek")]
        assert 1 <= len(accepted) <= config.seek_burst + config.seeks_per_second * elapsed + 1
        assert any(answer.startswith("** Too many quick play seeks: try again in ")
                   for answer in flooder)
    assert len(seeks) <= len(FLOODERS)
    assert_unhurt(baseline, delays, "floods of quick play seeks and cancels (against `time`)")
