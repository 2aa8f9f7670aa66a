"""Guessing private tables' codes: wrong codes are counted per account and per address, and
past the limit no code is tried (a right one neither), while everyone else is answered as
fast as ever."""
from __future__ import annotations

import asyncio
import random

from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.lobby.play.tables import CODE_LENGTH, CODE_LETTERS
from tests.e2e.test_tables import open_table

from .bystander import assert_unhurt, time_answers_during, time_answers_quiet

GUESSES = 300
NO_TABLE = "** There is no open table with the code"
TOO_MANY = "** Too many wrong table codes. You may try again in 60 minutes."


async def guess(client, codes: list[str]) -> list[str]:
    """`sit` each code, sent all at once; the answers, in order."""
    for code in codes:
        await client.send(f"sit {code}")
    answers = []
    while len(answers) < len(codes):
        line = await client.read_line()
        if line.startswith("** "):
            answers.append(line)
    return answers


async def test_guessing_codes_is_stopped_and_slows_nobody(make_harness, tracebacks):
    limits = AbuseLimits(wrong_table_codes_per_account=10, wrong_table_codes_per_address=25)
    harness = await make_harness(abuse=limits)
    names = ("alice", "mallory", "trudy", "eve", "bob", "bystander")
    for name in names:
        await harness.register(name)
    alice, mallory, trudy, eve, bob, bystander = [await harness.login_clip(n) for n in names]
    for client in (alice, bob):
        await client.send("toggle ready")
    code = await open_table(alice, "3 private", kind="a private table", match="a 3 point match")
    quiet = await time_answers_quiet(bystander)
    rng = random.Random(1)
    wrong = ["".join(rng.choice(CODE_LETTERS) for _ in range(CODE_LENGTH)) for _ in range(GUESSES)]
    guessing = asyncio.ensure_future(asyncio.gather(guess(mallory, wrong), guess(trudy, wrong)))
    delays = await time_answers_during(bystander, guessing)
    mallorys, trudys = guessing.result()
    # Each account is tried for 10 wrong codes, then refused: 20 of the address's 25 (the
    # harness's users all come from 127.0.0.1).
    for answers in (mallorys, trudys):
        assert all(answer.startswith(NO_TABLE) for answer in answers[:10])
        assert answers[10:] == [TOO_MANY] * (GUESSES - 10)
    await mallory.send(f"sit {code}")  # the right code, past the limit: refused all the same
    await mallory.skip_until(TOO_MANY)
    # The address's last 5: then nobody from it is tried, a new account neither.
    eves = await guess(eve, wrong[:10])
    assert all(answer.startswith(NO_TABLE) for answer in eves[:5])
    assert eves[5:] == [TOO_MANY] * 5
    await bob.send(f"sit {code}")
    await bob.skip_until(TOO_MANY)
    assert_unhurt(quiet, delays, "two accounts guessing table codes")
