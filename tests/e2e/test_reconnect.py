"""A user who logs in again while playing: the new connection takes the match over, as on
FIBS: the old connection is told and closed, the opponent and watchers go on."""
from __future__ import annotations

import asyncio
import contextlib
import re

import pytest

from tests.e2e.client import FibsClient
from tests.e2e.test_match_play import join_match, players  # noqa: F401 (a fixture)
from tests.waiting import DEADLINE

BOARD = re.compile(r"board:.*")


async def test_a_new_login_takes_over_the_running_match(harness, players):
    alice, bob, carol = players
    harness.script_dice((3, 1), (6, 4))
    await carol.send("watch alice")
    await carol.skip_until("You're now watching alice.")
    await join_match(alice, bob, "5")
    await alice.skip_until("It's your turn to move.")
    await alice.skip_until(BOARD)
    await bob.skip_until(BOARD)
    new_alice = await harness.connect("alice again")
    await new_alice.send("login testclient 1008 alice secret")
    rest = await alice.expect_closed()
    assert rest.endswith(b"** You logged in again from 127.0.0.1. This connection is closed.\r\n")
    before_who_end = await new_alice.skip_until("6")
    assert "** Warning: You are already logged in." in before_who_end
    # the new session has the match: its board (alice to move 3-1) and the reminder
    board, _ = await new_alice.expect_lines(BOARD, "Please move 2 pieces.")
    assert board.split(":")[33:35] == ["3", "1"]
    # bob sees alice's who-line (still playing him) and never a drop
    who = await bob.skip_until("6")
    assert any(line.startswith("5 alice bob - 1 ") for line in who), who
    await new_alice.send("move 8-5 6-5")
    lines = await bob.skip_until("alice moves 8-5 6-5 .")
    assert not any("drops connection" in line or "logs out" in line for line in lines)
    await carol.skip_until("alice moves 8-5 6-5 .")  # the watcher follows the new session
    await bob.skip_until("It's your turn to roll or double.")
    await bob.send("roll")
    await new_alice.skip_until("bob rolls 6 and 4.")


SYNC_ANSWER = b"alice has no saved games.\r\n"


async def all_received(client: FibsClient) -> bytes:
    """All `client` receives: up to the server closing it (its login taken over), or on the
    connection that stays, up to the answer to a command sent once its login's who block is
    over (the server answers a connection's lines in order: nothing of the login comes
    after that answer)."""
    received, asked = client.buffer, False
    while SYNC_ANSWER not in received:
        data = await asyncio.wait_for(client.telnet.read(65536), DEADLINE)
        if not data:
            return received
        received += data
        if not asked and b"\r\n6\r\n" in received:
            asked = True
            with contextlib.suppress(ConnectionError):  # the one taken over may be closing
                await client.send("show savedcount")
    return received


@pytest.mark.stored
async def test_two_logins_at_once_show_the_stored_messages_exactly_once(harness):
    for name in ("alice", "carol"):
        await harness.register(name)
    carol = await harness.login_clip("carol")
    await carol.send("message alice see you at ten")
    await carol.expect_lines("11 alice")
    clients = [await harness.connect(f"alice {n}") for n in (1, 2)]
    for client in clients:
        await client.send_raw(b"login testclient 1008 alice secret\r\n")
    received = await asyncio.gather(*(all_received(client) for client in clients))
    assert sum(text.count(b"see you at ten") for text in received) == 1, received
