"""A flood of the tutor's judgements: a visitor in an unrated bot match sends two losing plays
by turns, each new so each would be judged, as fast as the connection lets it; the tutor's
bucket per user judges the burst and then `tutor_per_second` a second, refuses the rest
(nothing is played unjudged), and a bystander asking the time meanwhile is not hurt
(docs/SECURITY.md, "The tutor"). The lobby's clock is a fake one that the test moves a second
between batches: how many are judged does not depend on how fast a busy machine judges."""
from __future__ import annotations

import asyncio
import dataclasses
import re

from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.lobby.services.bot_players import BotConfig
from tests.e2e.conftest import ServerHarness
from tests.fake_clock import FakeClock
from tests.hostile.bystander import assert_unhurt, time_answers_during, time_answers_quiet

BATCH = 20  # plays sent at once
REFILLS = 3  # batches after the first, each a second of the lobby's clock later
WARNED = re.compile(r"(> )*\*\* Tutor: .* loses .*")
REFUSED = re.compile(r"(> )*\*\* The tutor was asked too often: .*")


async def test_a_flood_of_tutor_judgements_is_paced_and_hurts_no_bystander(tmp_path,
                                                                            tracebacks):
    limits = AbuseLimits(tutor_burst=4, tutor_per_second=2.0)  # the defaults, quicker
    harness = ServerHarness(f"sqlite:///{tmp_path / 'tutor.db'}")
    clock = harness.use_fake_clock()
    harness.config = dataclasses.replace(harness.config, abuse_limits=limits,
                                         bots=BotConfig(think_time=0, workers=1))
    await harness.start()
    try:
        await flood_the_tutor(harness, limits, clock)
    finally:
        await harness.stop()


async def flood_the_tutor(harness: ServerHarness, limits: AbuseLimits, clock: FakeClock) -> None:
    harness.script_dice((3, 1))  # the visitor (inviting the bot) opens with 3-1
    mallory = await harness.connect("visitor", "127.0.0.2")
    await mallory.send("bot beginner 3")
    await mallory.skip_until(re.compile(r"(> )*\*\* Player bot_beginner has joined you .*"))
    await mallory.send("tutor on")
    await mallory.skip_until(re.compile(r"(> )*\*\* The tutor is on: .*"))
    await harness.register("bystander")
    bystander = await harness.login_clip("bystander")
    quiet = await time_answers_quiet(bystander)
    judged_by_batch: list[int] = []

    async def attack() -> None:
        for batch in range(1 + REFILLS):
            if batch:
                clock.advance(1.0)  # the bucket earns `tutor_per_second` tokens
            for number in range(BATCH):
                await mallory.send("move 24-21 24-23" if number % 2 else "move 24-21 21-20")
            answers: list[str] = []
            while len(answers) < BATCH:
                line = await mallory.read_line()
                if WARNED.fullmatch(line) or REFUSED.fullmatch(line):
                    answers.append(line)
            judged_by_batch.append(sum(1 for line in answers if WARNED.fullmatch(line)))

    delays = await time_answers_during(bystander, asyncio.ensure_future(attack()))
    refill = int(limits.tutor_per_second)
    assert judged_by_batch == [limits.tutor_burst, *[refill] * REFILLS]  # the rest refused
    [running] = harness.server.lobby.match_table.bot_matches.values()
    assert running.match.turn == 0 and running.match.dice == (3, 1)  # nothing was played
    assert_unhurt(quiet, delays, "a flood of the tutor's judgements")
