"""Every way a match is interrupted saves it (FIBS's texts to the opponent and watchers), and
`invite`/`join` resumes it to the identical position, dice and cube, also after a restart."""
from __future__ import annotations

import re
import time

import pytest

from tests.e2e.test_lobby_commands import ask


async def next_board(client) -> str:
    while True:
        line = await client.read_line()
        if line.startswith("board:"):
            return line


async def interrupted_position(harness):
    """alice, bob (CLIP) and carol (telnet, watching bob) in a 5-point match: alice opens with
    3-1, bob doubles, alice takes, bob's 6-4 is rolled and not yet played. Returns the clients
    and each player's board line at that moment."""
    for name in ("alice", "bob", "carol"):
        await harness.register(name)
    alice = await harness.login_clip("alice")
    bob = await harness.login_clip("bob")
    carol = await harness.login_telnet("carol")
    await ask(carol, "set boardstyle 3", "Value of 'boardstyle' set to 3.")  # reads board: lines
    for client in (alice, bob):
        await client.toggle_ready()
    harness.script_dice((3, 1), (6, 4))
    await alice.send("invite bob 5")
    await bob.skip_until("Type 'join alice' to accept.")
    await bob.send("join alice")
    await alice.skip_until("It's your turn to move.")
    await alice.send("move 8-5 6-5")
    await bob.skip_until("It's your turn to roll or double.")
    await carol.send("watch bob")
    await carol.skip_until(re.compile(r"board:bob:alice:5:0:0:.*"))
    await bob.skip_until("carol is watching you.")
    await bob.send("double")
    await alice.skip_until("bob doubles. Type 'accept' or 'reject'.")
    await alice.send("accept")
    await bob.skip_until("alice accepts the double. The cube shows 2.")
    await bob.skip_until("You roll 6 and 4.")
    await carol.skip_until("bob rolls 6 and 4.")
    await alice.skip_until("bob rolls 6 and 4.")
    boards = []
    for client in (alice, bob):
        await client.send("board")
        boards.append(await next_board(client))
    # bob's own view: his 6-4 to play, the cube at 2 owned by alice, 2 pieces to move
    fields = boards[1].split(":")
    assert fields[1:6] == ["You", "alice", "5", "0", "0"]
    assert fields[33:38] == ["6", "4", "0", "0", "2"] and fields[38:40] == ["0", "1"]
    assert fields[49] == "2"
    return alice, bob, carol, boards


async def resume(harness, alice, bob, boards) -> None:
    """bob invites alice to resume; both see FIBS's resume texts and their old board exactly."""
    await bob.send("invite alice")
    await bob.skip_until("** You invited alice to resume a saved match.")
    await alice.skip_until("bob wants to resume a saved match with you.")
    await alice.expect_lines("Type 'join bob' to accept.")
    await alice.send("join bob")
    await alice.skip_until("You are now playing with bob. Your running match was loaded.")
    await bob.skip_until("alice has joined you. Your running match was loaded.")
    for client, board in zip((alice, bob), boards):
        await client.skip_until("turn: bob")
        await client.expect_lines("match length: 5", "points for user alice: 0",
                                  "points for user bob: 0", board)
    await bob.expect_lines("Please move 2 pieces.")
    await bob.send("move 1-7 7-11")
    await alice.skip_until("bob moves 1-7 7-11 .")


async def log_in_again(harness, name: str):
    """A CLIP login; `ready` is stored with the account, so it is still on."""
    return await harness.login_clip(name)


@pytest.mark.parametrize("restart", [False, True], ids=["same server", "after restart"])
async def test_bye_saves_the_match(harness, restart):
    alice, bob, carol, boards = await interrupted_position(harness)
    await bob.send("bye")
    await bob.skip_until("           Goodbye.")
    await alice.skip_until("bob logs out. The game was saved.")
    await carol.skip_until("bob logs out. The game was saved.")
    if restart:
        await harness.restart()
        alice = await log_in_again(harness, "alice")
    bob = await log_in_again(harness, "bob")
    await resume(harness, alice, bob, boards)


@pytest.mark.parametrize("restart", [False, True], ids=["same server", "after restart"])
async def test_an_idle_timeout_saves_the_match(harness, restart):
    alice, bob, carol, boards = await interrupted_position(harness)
    lobby = harness.server.lobby
    lobby.attendance.users.online["bob"].who.last_active = time.monotonic() - 2 * lobby.config.idle_timeout
    await lobby.time_out_idle()
    await bob.skip_until("Connection timed out.")
    await bob.expect_closed()
    await alice.skip_until("Connection with bob timed out. The game was saved.")
    await carol.skip_until("Connection with bob timed out. The game was saved.")
    if restart:
        await harness.restart()
        alice = await log_in_again(harness, "alice")
    bob = await log_in_again(harness, "bob")
    await resume(harness, alice, bob, boards)


@pytest.mark.parametrize("restart", [False, True], ids=["same server", "after restart"])
async def test_leave_and_a_dropped_connection_save_the_match(harness, restart):
    alice, bob, carol, boards = await interrupted_position(harness)
    await bob.send("leave")
    await bob.expect_lines("** You terminated the game. The game was saved.")
    await alice.skip_until("** Player bob has left the game. The game was saved.")
    await carol.skip_until("bob has left the game with alice.")
    await resume(harness, alice, bob, boards)
    await bob.send("board")
    boards[1] = await next_board(bob)
    await alice.send("board")
    boards[0] = await next_board(alice)
    await alice.close()
    await bob.skip_until("alice drops connection. The game was saved.")
    await carol.skip_until("alice drops connection. The game was saved.")
    if restart:
        await harness.restart()
        bob = await log_in_again(harness, "bob")
    alice = await log_in_again(harness, "alice")
    # after bob's 1-7 7-11 it is alice's turn to roll or double
    await bob.send("invite alice")
    await alice.skip_until("bob wants to resume a saved match with you.")
    await alice.send("join bob")
    for client, board in zip((alice, bob), boards):
        await client.skip_until("turn: alice")
        await client.expect_lines("match length: 5", "points for user alice: 0",
                                  "points for user bob: 0", board)
    await alice.expect_lines("It's your turn to roll or double.")


async def test_a_server_shutdown_saves_the_match_and_it_resumes_after_the_restart(harness):
    alice, bob, carol, boards = await interrupted_position(harness)
    await harness.server.stop()
    harness.server = None
    for client in (alice, bob, carol):
        await client.skip_until("** The server is shutting down. The game was saved.")
        await client.expect_closed()
    await harness.restart()
    alice = await log_in_again(harness, "alice")
    bob = await log_in_again(harness, "bob")
    await bob.send("show saved")
    await bob.skip_until("  opponent          matchlength   score (your points first)")
    await bob.expect_lines("**alice                   5                0 -  0")
    await resume(harness, alice, bob, boards)


async def test_users_who_are_not_playing_are_told_of_the_shutdown(harness):
    await harness.register("dave")
    await harness.register("erin")
    dave = await harness.login_telnet("dave")
    await harness.login_telnet("erin")
    await dave.skip_until("erin logs in.")
    await harness.server.stop()
    harness.server = None
    await dave.expect_lines("** The server is shutting down.")
    # and nothing of the others leaving: at 10,000 online that was 10,000 notices each
    assert b"drops connection" not in await dave.expect_closed()
