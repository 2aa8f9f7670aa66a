"""Players flooding invitations with time bank words (the largest bank the words allow, and
refused ones) while a bystander plays a match: each is answered at once with the documented
text, nothing runs a clock for an invitation nobody joined, and the bystander is answered as
fast as during a flood of `time` from the same players (the baseline, measured in the same
test)."""
from __future__ import annotations

import asyncio
import re

from tests.e2e.conftest import DATE_LINE
from tests.hostile.bystander import Baseline, assert_unhurt, stretch, time_answers_during
from tests.hostile.conftest import answers_to, start_harness
from tests.hostile.test_salt_floods import begin

ROUNDS = 120  # lines per flooder
FLOODERS = ("flood1", "flood2", "flood3")
WORDS = ("bank 120 600 fischer nack", "bank 0 601", "bank 12 60 timer 30", "bank 12")
ANSWER = re.compile(r"\*\* (You invited .*|Give the seconds after 'bank'.*"
                    r"|Choose one clock: 'timer' or 'bank'\.)")


def flood_lines(invited: str) -> list[str]:
    return [f"invite {invited} 9 {WORDS[number % len(WORDS)]}" for number in range(ROUNDS)]


async def test_a_flood_of_time_bank_invitations_is_answered_and_slows_nobody(tmp_path,
                                                                            tracebacks):
    harness = await start_harness(tmp_path)
    try:
        for name in (*FLOODERS, "alice", "bob"):
            await harness.register(name)
        clients = {name: await harness.login_clip(name) for name in (*FLOODERS, "alice", "bob")}
        for client in clients.values():
            await client.toggle_ready()
        await begin(clients, "alice", "bob")
        bystander = clients["alice"]

        baseline_flood = asyncio.ensure_future(asyncio.gather(*(
            answers_to(clients[name], ["time"] * ROUNDS, DATE_LINE) for name in FLOODERS)))
        baseline = Baseline(await time_answers_during(bystander, baseline_flood), stretch())
        flooding = asyncio.ensure_future(asyncio.gather(*(
            answers_to(clients[name], flood_lines(FLOODERS[(index + 1) % len(FLOODERS)]),
                       ANSWER) for index, name in enumerate(FLOODERS))))
        delays = await time_answers_during(bystander, flooding)
        answers = flooding.result()
        running = harness.server.lobby.match_table.running_matches()
    finally:
        await harness.stop()

    for flooder in answers:
        assert len(flooder) == ROUNDS
        assert sum(answer.startswith("** You invited ") for answer in flooder) == ROUNDS // 4
    assert len(running) == 1  # alice's and bob's: an invitation alone times nothing
    assert_unhurt(baseline, delays, "floods of time bank invitations (against `time`)")
