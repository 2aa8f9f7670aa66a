"""Only the two players act on a match; watchers and strangers get FIBS's refusals and change
nothing; administrator commands do nothing for anyone else."""
from __future__ import annotations

import re

import pytest

from fibs_server.protocol.commands import unknown_command

NOT_PLAYING = "** You're not playing."
REFUSAL = re.compile(r"\*\* .+")
MATCH_ACTIONS = ["roll", "move 8-5 6-5", "m 24-18", "8-5 6-5", "off", "double", "accept",
                 "reject", "redouble", "beaver", "raccoon", "otter", "resign n", "resign g",
                 "resign b", "pip"]
OTHER_REFUSALS = {"join": "** Error: Join who?", "leave": "** Error: No one to leave."}


async def next_refusal(client) -> str:
    """The next `** ` line (notices such as `7 bob bob logs in.` may come first)."""
    while not (line := await client.read_line()).startswith("** "):
        pass
    return line


async def start_watched_match(harness):
    for name in ("alice", "bob", "carol", "dave"):
        await harness.register(name)
    harness.script_dice((3, 1))  # alice, the inviter, rolls the higher die and moves first
    alice, bob, carol, dave = [await harness.login_clip(n) for n in ("alice", "bob", "carol", "dave")]
    for client in (alice, bob):
        await client.toggle_ready()
    await alice.send("invite bob 3")
    await bob.skip_until("Type 'join alice' to accept.")
    await bob.send("join alice")
    await bob.skip_until("** You are now playing a 3 point match with alice")
    await carol.send("watch alice")
    await carol.skip_until("You're now watching alice.")
    return alice, bob, carol, dave


async def test_watchers_and_strangers_cannot_act_on_a_match(harness, tracebacks):
    alice, bob, carol, dave = await start_watched_match(harness)
    lobby = harness.server.lobby
    running = lobby.match_table.playing["alice"]
    before = running.match.to_dict()
    await alice.skip_until("It's your turn to move.")
    for client in (carol, dave):
        for action in MATCH_ACTIONS:
            await client.send(action)
            await client.skip_until(NOT_PLAYING)
        for action, refusal in OTHER_REFUSALS.items():
            await client.send(action)
            await client.skip_until(refusal)
    await dave.send("board")
    await dave.skip_until(NOT_PLAYING)
    assert running.match.to_dict() == before
    assert lobby.match_table.playing["alice"] is running and lobby.match_table.playing["bob"] is running


async def test_the_opponent_cannot_act_out_of_turn(harness, tracebacks):
    alice, bob, _, _ = await start_watched_match(harness)
    await alice.skip_until("It's your turn to move.")
    running = harness.server.lobby.match_table.playing["alice"]
    before = running.match.to_dict()
    for action in ("roll", "move 24-23", "double", "accept", "reject", "off"):
        await bob.send(action)
        await bob.skip_until(REFUSAL)
    assert running.match.to_dict() == before


async def test_admin_commands_do_nothing_for_other_users(harness, tracebacks):
    if not getattr(harness.server.lobby, "admin_commands", None):
        pytest.skip("no administrator commands in this build")
    for name in ("alice", "bob"):
        await harness.register(name)
    alice, bob = await harness.login_clip("alice"), await harness.login_clip("bob")
    lobby = harness.server.lobby
    for name in sorted(lobby.dispatcher.admin_commands):
        if name in lobby.dispatcher.command_words:
            continue  # also an ordinary command (motd): that one answers
        line = f"{name} bob 1"
        await alice.send(line)
        assert await next_refusal(alice) == unknown_command(line)
    assert "bob" in lobby.attendance.users.online and not lobby.attendance.users.online["bob"].account.is_admin
    await bob.send("who count")
    await bob.skip_until("There are 2 users logged in.")
