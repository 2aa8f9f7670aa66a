"""Ways out of a match, and changes that meet in the same instant: a new match never destroys
a saved one that must be resumed, a grace period outlives a restart, and a move meeting the opponent's `leave` is not applied to a left match."""
from __future__ import annotations

import asyncio

import pytest

from fibs_server.protocol.commands import Command
from fibs_server.protocol.wording import game_texts
from tests.e2e.test_match_play import join_match, players  # noqa: F401 (a fixture)
from tests.e2e.test_timers import harness, ring, timed_match_left_by_bob  # noqa: F401 (a fixture)

pytestmark = pytest.mark.stored  # each race or escape meets in the store


async def test_a_bot_match_a_player_left_cannot_be_replaced_by_a_new_one(bot_harness):
    await bot_harness.register("alice")
    alice = await bot_harness.login_clip("alice")
    await alice.toggle_ready()
    bot_harness.script_dice((3, 1))
    await alice.send("bot intermediate 3")
    await alice.skip_until("It's your turn to move.")
    await alice.send("leave")
    await alice.skip_until("** You terminated the game. The game was saved.")
    store = bot_harness.server.store
    saved = await store.running_match("alice", "bot_intermediate")
    for attempt in ("bot intermediate 3", "invite bot_intermediate 5"):
        await alice.send(attempt)
        await alice.skip_until(game_texts.saved_match_first("bot_intermediate"))
    still = await store.running_match("alice", "bot_intermediate")
    assert still.match_id == saved.match_id and still.state == saved.state
    assert still.left_by == "alice"
    await alice.send("invite bot_intermediate")  # resuming it is the way on
    await alice.skip_until("bot_intermediate has joined you. Your running match was loaded.")


async def test_a_left_timed_match_is_not_replaced_by_a_new_one(harness, players):
    alice, bob, _ = players
    saved = await timed_match_left_by_bob(harness, players)
    await join_match(alice, bob, "5")
    await bob.skip_until(game_texts.saved_match_first("alice"))
    await alice.skip_until(game_texts.saved_match_first("bob"))
    still = await harness.server.store.running_match("alice", "bob")
    assert still.match_id == saved.match_id and still.state == saved.state
    await ring(harness, 60)  # its grace period decides it
    await alice.skip_until("bob forfeits the match. You win 3 points.")


async def test_the_grace_period_of_a_left_timed_match_outlives_a_restart(harness, players):
    saved = await timed_match_left_by_bob(harness, players)
    await ring(harness, 30)
    await harness.restart()
    await harness.login_clip("alice")  # back and waiting (a restart is nobody's absence)
    await ring(harness, 59)  # counted afresh: nobody could come back while it was down
    assert (await harness.server.store.match_by_id(saved.match_id)).finished is False
    await ring(harness, 1)
    record = await harness.server.store.match_by_id(saved.match_id)
    assert record.finished and record.winner == "alice" and record.state["score"] == [3, 0]


@pytest.mark.parametrize("terms", ["3", "3 timer 60"])
async def test_a_move_meeting_the_opponents_leave_is_not_applied(harness, players, terms):
    alice, bob, _ = players
    harness.script_dice((3, 1))
    await join_match(alice, bob, terms)
    await alice.skip_until("It's your turn to move.")
    before = await harness.server.store.running_match("alice", "bob")
    lobby = harness.server.lobby
    move = Command("move", "move", ["8-5", "6-5"], "8-5 6-5")
    # The leave is taken first; the move comes while it is being stored.
    handlers = lobby.dispatcher.commands
    await asyncio.gather(handlers["leave"].handler(lobby.attendance.users.online["bob"], Command(
        "leave", "leave", [], "")), handlers["move"].handler(lobby.attendance.users.online["alice"], move))
    await alice.skip_until("** Player bob has left the game. The game was saved.")
    await alice.skip_until(game_texts.NOT_PLAYING)
    after = await harness.server.store.running_match("alice", "bob")
    assert after.state == before.state and after.left_by == "bob"
    assert lobby.match_table.running_matches() == []
