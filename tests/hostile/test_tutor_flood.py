"""A flood of the tutor's judgements: a visitor in an unrated bot match sends two losing plays
by turns, each new so each would be judged, as fast as the connection lets it; the tutor's
bucket per user judges the burst and then one a second, refuses the rest (nothing is played
unjudged), and a bystander asking the time meanwhile is not hurt (docs/SECURITY.md, "The
tutor")."""
from __future__ import annotations

import asyncio
import dataclasses
import re
import time

from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.lobby.services.bot_players import BotConfig
from tests.e2e.conftest import ServerHarness
from tests.hostile.bystander import assert_unhurt, time_answers_during, time_answers_quiet

BATCH = 20  # plays sent at once
WARNED = re.compile(r"(> )*\*\* Tutor: .* loses .*")
REFUSED = re.compile(r"(> )*\*\* The tutor was asked too often: .*")


async def test_a_flood_of_tutor_judgements_is_paced_and_hurts_no_bystander(tmp_path,
                                                                            tracebacks):
    limits = AbuseLimits(tutor_burst=4, tutor_per_second=2.0)  # the defaults, quicker
    harness = ServerHarness(f"sqlite:///{tmp_path / 'tutor.db'}")
    harness.config = dataclasses.replace(harness.config, abuse_limits=limits,
                                         bots=BotConfig(think_time=0, workers=1))
    await harness.start()
    try:
        await flood_the_tutor(harness, limits)
    finally:
        await harness.stop()


async def flood_the_tutor(harness: ServerHarness, limits: AbuseLimits) -> None:
    harness.script_dice((3, 1))  # the visitor (inviting the bot) opens with 3-1
    mallory = await harness.connect("visitor", "127.0.0.2")
    await mallory.send("bot beginner 3")
    await mallory.skip_until(re.compile(r"(> )*\*\* Player bot_beginner has joined you .*"))
    await mallory.send("tutor on")
    await mallory.skip_until(re.compile(r"(> )*\*\* The tutor is on: .*"))
    await harness.register("bystander")
    bystander = await harness.login_clip("bystander")
    quiet = await time_answers_quiet(bystander)
    answers: list[str] = []

    async def attack() -> None:
        # Batches of plays, each batch's answers read, until the bucket has let two more
        # through than its burst: the flood outlasts the burst by two tokens' time.
        while sum(1 for line in answers if WARNED.fullmatch(line)) < limits.tutor_burst + 2:
            for number in range(BATCH):
                await mallory.send("move 24-21 24-23" if number % 2 else "move 24-21 21-20")
            batch_end = len(answers) + BATCH
            while len(answers) < batch_end:
                line = await mallory.read_line()
                if WARNED.fullmatch(line) or REFUSED.fullmatch(line):
                    answers.append(line)

    started = time.monotonic()
    delays = await time_answers_during(bystander, asyncio.ensure_future(attack()))
    seconds = time.monotonic() - started
    judged = sum(1 for line in answers if WARNED.fullmatch(line))
    assert judged <= limits.tutor_burst + limits.tutor_per_second * seconds + 1
    assert len(answers) - judged >= BATCH  # the rest refused
    [running] = harness.server.lobby.match_table.bot_matches.values()
    assert running.match.turn == 0 and running.match.dice == (3, 1)  # nothing was played
    assert_unhurt(quiet, delays, "a flood of the tutor's judgements")
