"""Guessing web session tokens (lobby/presence/reconnect.py): a flood of reconnects with wrong tokens
from one address is answered like a page without a token, counted by the login throttle,
and slows nobody; the owner's held session is still theirs to take over afterwards."""
from __future__ import annotations

import asyncio
import dataclasses
import secrets

from fibs_server.lobby.limits.session_tokens import TOKEN_BYTES
from fibs_server.lobby.limits.throttle import ADDRESSES, AbuseLimits
from tests.web.conftest import WebHarness
from tests.web.test_websocket import WebClient, session_token, typed_message, web_login

from .bystander import assert_unhurt, time_answers_during, time_answers_quiet

GUESSES = 80
AT_ONCE = 10  # connections guessing at a time (under the address's 30)
REFUSED = {"type": "session", "token": None}


async def guess(harness: WebHarness, tokens: list[str]) -> list[dict]:
    """A connection of its own for each token, presenting it at the login prompt."""
    answers = []
    for token in tokens:
        client = await WebClient.connect(harness, params={"events": "1"})
        try:
            await client.skip_until("login: ")
            await client.send(f"resume {token}")
            answers.append(await typed_message(client, "session"))
            await client.skip_until("login: ")  # the same as for a page with no token
        finally:
            await client.close()
    return answers


async def test_wrong_session_tokens_are_refused_throttled_and_slow_nobody(tmp_path, tracebacks):
    harness = WebHarness(f"sqlite:///{tmp_path / 'hostile.db'}")
    # Short delays, so that the flood reaches the throttle's refusals in seconds.
    harness.config = dataclasses.replace(
        harness.config, reconnect_seconds=300,
        abuse_limits=AbuseLimits(login_delay=0.05, max_login_delay=0.5))
    await harness.start()
    clients: list[WebClient] = []
    try:
        await harness.register("alice")
        await harness.register("bystander")
        alice = await web_login(harness, clients, "alice", params={"events": "1"})
        token = await session_token(alice)
        await alice.socket.close()  # held: its token is what the guessers are after
        bystander = await harness.login_clip("bystander")
        quiet = await time_answers_quiet(bystander)
        wrong = [secrets.token_urlsafe(TOKEN_BYTES) for _ in range(GUESSES)]
        flooding = asyncio.ensure_future(asyncio.gather(
            *(guess(harness, wrong[n::AT_ONCE]) for n in range(AT_ONCE))))
        delays = await time_answers_during(bystander, flooding)
        answers = [answer for batch in flooding.result() for answer in batch]
        assert answers == [REFUSED] * GUESSES
        lobby = harness.server.lobby
        assert lobby.gatekeeper.login_throttle.counts.count((ADDRESSES, "127.0.0.1")) >= GUESSES
        assert_unhurt(quiet, delays, "a flood of wrong session tokens")
        # The owner, from the same address, is not held back: its token is proof enough.
        page = await WebClient.connect(harness, params={"events": "1"})
        clients.append(page)
        await page.skip_until("login: ")
        await page.send(f"resume {token}")
        assert (await typed_message(page, "session"))["token"] not in (None, token)
        assert lobby.attendance.users.online["alice"].connection.host == "127.0.0.1" and len(lobby.held) == 0
    finally:
        for client in clients:
            await client.close()
        await harness.stop()
