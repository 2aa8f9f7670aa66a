"""A client that writes its last commands and closes the socket at once (as FIBS bots do with
`leave` and `bye`) has those commands served, in order, before its disconnect is handled."""
from __future__ import annotations

import re

import pytest

WHO = re.compile(r"5 .*")


@pytest.fixture
async def alice_and_bob(harness):
    """alice and bob, CLIP clients, ready to play; each has read everything so far."""
    for name in ("alice", "bob"):
        await harness.register(name)
    alice = await harness.login_clip("alice")
    bob = await harness.login_clip("bob")
    await alice.skip_until("6")  # bob's login
    for client in (alice, bob):
        await client.toggle_ready()
    for client in (alice, bob):  # the who-info updates of both toggles
        await client.skip_until(re.compile(r"5 bob - - 1 .*"))
        await client.expect_lines("6")
    return alice, bob


async def send_and_hang_up(client, *lines: str) -> None:
    """The lines and the close in one go: the server reads them just before the end of file."""
    await client.send_raw("".join(f"{line}\r\n" for line in lines).encode())
    await client.close()


async def test_a_move_leave_and_bye_sent_with_the_close_are_served(harness, alice_and_bob):
    alice, bob = alice_and_bob
    harness.script_dice((3, 1))
    await alice.send("invite bob 5")
    await bob.skip_until("Type 'join alice' to accept.")
    await bob.send("join alice")
    await alice.skip_until("It's your turn to move.")
    await send_and_hang_up(alice, "move 8-5 6-5", "leave", "bye")
    before = await bob.skip_until("** Player alice has left the game. The game was saved.")
    after = await bob.skip_until("8 alice alice logs out.")
    assert "alice moves 8-5 6-5 ." in before
    assert not [line for line in before + after if "drops connection" in line]
    await bob.send("show savedcount")
    await bob.skip_until("bob has 1 saved game.")


async def test_commands_sent_with_the_close_are_served_in_order(harness, alice_and_bob):
    alice, bob = alice_and_bob
    await send_and_hang_up(bob, "toggle ready", "away gone fishing", "bye")
    await alice.expect_lines(re.compile(r"5 bob - - 0 0 .*"), "6",  # not ready any more
                             re.compile(r"5 bob - - 0 1 .*"), "6",  # away
                             "8 bob bob logs out.")


async def test_lines_after_bye_are_dropped(harness, alice_and_bob):
    alice, bob = alice_and_bob
    await send_and_hang_up(bob, "bye", "shout still here")
    await alice.expect_lines("8 bob bob logs out.")
    await alice.expect_silence()
