"""A player flooding `salt` in their match while a bystander plays another: the first salt is
stored, every other one refused in memory with the documented text (a player salts once), and
the bystander is answered as fast as during a flood of `time` from the same player (the
baseline, measured in the same test)."""
from __future__ import annotations

import asyncio
import re

from fibs_server.rules.dice import VerifiableDice
from tests.e2e.conftest import DATE_LINE
from tests.hostile.bystander import Baseline, assert_unhurt, stretch, time_answers_during
from tests.hostile.conftest import answers_to, start_harness

ROUNDS = 600
SALT_ANSWER = re.compile(r"(\*\* You gave this match your salt already:|Your salt) .*")


async def begin(clients, inviter: str, invitee: str) -> None:
    """A 1-point match between the two."""
    await clients[inviter].send(f"invite {invitee} 1")
    await clients[invitee].skip_until(f"Type 'join {inviter}' to accept.")
    await clients[invitee].send(f"join {inviter}")
    await clients[invitee].skip_until(f"Starting a new game with {inviter}.")
    await clients[inviter].skip_until(f"Starting a new game with {invitee}.")


async def test_a_flood_of_salts_is_refused_after_the_first_and_slows_nobody(tmp_path,
                                                                           tracebacks):
    harness = await start_harness(tmp_path)
    try:
        for name in ("flooder", "partner", "alice", "bob"):
            await harness.register(name)
        clients = {name: await harness.login_clip(name)
                   for name in ("flooder", "partner", "alice", "bob")}
        for client in clients.values():
            await client.toggle_ready()
        harness.dice += [VerifiableDice(bytes(32)), VerifiableDice(bytes(range(32)))]
        await begin(clients, "flooder", "partner")
        await begin(clients, "alice", "bob")
        flooder, bystander = clients["flooder"], clients["alice"]

        baseline_flood = asyncio.ensure_future(
            answers_to(flooder, ["time"] * ROUNDS, DATE_LINE))
        baseline = Baseline(await time_answers_during(bystander, baseline_flood), stretch())
        flooding = asyncio.ensure_future(
            answers_to(flooder, [f"salt s{number}" for number in range(ROUNDS)], SALT_ANSWER))
        delays = await time_answers_during(bystander, flooding)
        answers = flooding.result()
        record = await harness.server.store.match_by_id(1)
    finally:
        await harness.stop()

    assert answers[0].startswith("Your salt s0 enters the dice from roll ")
    roll = int(answers[0].split("from roll ")[1].split()[0])
    assert set(answers[1:]) == {
        f"** You gave this match your salt already: s0, from roll {roll}."}
    assert record is not None and record.dice is not None
    assert record.dice.salts == [["s0", roll - 1], None]
    assert_unhurt(baseline, delays, "a flood of salts (against one of `time`)")
