"""A program that answers a login-dialogue prompt with the same refused answer again and
again (the page once re-sent a refused short password forever) is cut off after a few: the
connection closes with a text, and what it sent after is never served."""
from __future__ import annotations

import asyncio
import string

from fibs_server.protocol import texts
from tests.hostile.bystander import assert_unhurt
from tests.hostile.conftest import count_lines_served
from tests.hostile.test_visitors_and_bot_matches import measured_during

REFUSED = f"Minimal password length is {texts.MIN_PASSWORD_LENGTH} characters."
SAME_ANSWERS = 1000  # sent at once: before, every one was answered


def newbie(round_: int, n: int) -> str:
    return "newbie" + string.ascii_lowercase[round_] + string.ascii_lowercase[n]  # letters only


async def resend_a_short_password(port: int, source: str, name: str) -> bytes:
    """Register as `name`, sending the same too-short password SAME_ANSWERS times; all that
    came back until the server hung up."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    try:
        await reader.readuntil(b"login: ")
        writer.write(f"guest\r\nname {name}\r\n".encode() + b"ab\r\n" * SAME_ANSWERS)
        return await asyncio.wait_for(reader.read(), 30)
    finally:
        writer.close()


async def test_the_same_refused_answer_again_and_again_is_cut_off(
        make_harness, tracebacks, monkeypatch):
    served = count_lines_served(monkeypatch)
    harness = await make_harness()
    port = harness.server.port
    answers: list[bytes] = []

    async def attack() -> None:  # 4 rounds of 20 connections from 5 addresses
        for round_ in range(4):
            answers.extend(await asyncio.gather(*(
                resend_a_short_password(port, f"127.0.0.{2 + n % 5}", newbie(round_, n))
                for n in range(20))))

    served_before = served["all"]
    quiet, delays = await measured_during(harness, attack())
    goodbye = texts.same_answer_refused(5).encode()
    for answer in answers:
        assert answer.count(REFUSED.encode()) == 4 and answer.rstrip().endswith(goodbye), answer
    # guest, name and 5 passwords each, and the bystander's `time`s: not 1,000 a connection.
    assert served["all"] - served_before <= len(answers) * 7 + len(quiet.delays) + len(delays) + 10
    assert_unhurt(quiet, delays, "connections resending a refused password")
    # Nothing was registered, and the dialogue still works for someone who types well.
    assert await harness.server.lobby.accounts.find_account(newbie(0, 0)) is None
    await harness.register_by_dialogue("carol")
