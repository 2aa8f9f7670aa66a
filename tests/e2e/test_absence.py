"""Only a player's real absence loses a timed match (docs/FAIRNESS.md, "Absence"): a saved
timed match whose players are both online resumes by itself, two drops at once forfeit
nobody, and the one who must come back is told by when. Each result is read from the
database: no player who was online, and neither of two who dropped at once, loses by
forfeit."""
from __future__ import annotations

import asyncio
import json
import logging
import re

import pytest

from fibs_server.lobby.play.match_play import STORE_RETRY_SECONDS
from fibs_server.protocol.wording import clock_texts, game_texts
from tests.durability.test_store_failures import NOT_STORED, failing_updates
from tests.e2e.conftest import ServerHarness
from tests.e2e.test_match_play import join_match, players  # noqa: F401 (a fixture)
from tests.e2e.test_timers import clock_of, harness, ring  # noqa: F401 (a fixture)
from tests.e2e.test_tournament_commands import create, pass_over

DROPPED = re.compile(r"(> )?(alice|bob) drops connection\.")


async def timed_match(harness, players) -> int:
    """alice and bob in a `3 timer 60` match, alice to move; its id."""
    alice, bob, _ = players
    harness.script_dice((3, 1))
    await join_match(alice, bob, "3 timer 60")
    await alice.skip_until("Clock: alice has 60 seconds to move.")
    await bob.skip_until("Clock: alice has 60 seconds to move.")
    return (await harness.server.store.running_match("alice", "bob")).match_id


async def drops(bob, alice) -> None:
    """bob's connection drops; alice, still there, is told his grace period."""
    await bob.close()
    await alice.skip_until("bob has 60 seconds to resume the match, or loses it.")


async def assert_not_forfeited(harness, match_id: int) -> None:
    record = await harness.server.store.match_by_id(match_id)
    assert not record.finished and record.winner is None, record


def typed_messages(harness, name: str) -> list[dict]:
    """The typed messages the server sends `name`'s session from now on, as a page would
    get them."""
    got: list[dict] = []
    session = harness.server.lobby.attendance.users.online[name]
    session.out.event_sink = lambda line, broadcast: got.append(json.loads(line))
    return got


async def test_a_dropped_player_who_logs_in_again_resumes_the_timed_match_by_itself(
        harness, players):
    alice, bob, carol = players
    match_id = await timed_match(harness, players)
    await carol.send("watch alice")
    await carol.skip_until("You're now watching alice.")
    pages = {name: typed_messages(harness, name) for name in ("alice", "carol")}
    await drops(bob, alice)
    countdown = {"type": "comeback_countdown", "name": "bob", "opponent": "alice", "seconds": 60}
    for name in ("alice", "carol"):  # the one who waits, and her watcher
        assert [m for m in pages[name] if m["type"] == "comeback_countdown"] == [countdown]
    await ring(harness, 20)
    bob = await harness.login_clip("bob")
    await bob.skip_until(game_texts.match_loaded_for_inviter("alice"))
    await alice.skip_until(game_texts.match_loaded_for_joiner("bob"))
    await alice.skip_until("Clock: alice has 60 seconds to move.")  # fresh time, running
    await ring(harness, 45)  # past the grace period's end: nobody loses by absence
    await assert_not_forfeited(harness, match_id)
    assert harness.server.clocks.graces == {}
    assert (await harness.server.store.match_by_id(match_id)).left_by is None


@pytest.mark.stored  # the two drops meet in the store (the first to leave)
async def test_two_drops_at_once_forfeit_nobody_and_the_match_resumes_when_both_are_back(
        harness, players, caplog):
    alice, bob, carol = players
    match_id = await timed_match(harness, players)
    caplog.set_level(logging.ERROR)
    await asyncio.gather(alice.close(), bob.close())
    await carol.skip_until(DROPPED)
    await carol.skip_until(DROPPED)
    record = await harness.server.store.match_by_id(match_id)
    assert record.left_by in ("alice", "bob")  # the first the server saw go: abandonment's
    assert list(harness.server.clocks.graces) == [match_id]  # one grace period, for it
    await ring(harness, 60)  # whoever the server saw go first, the other was not there
    await assert_not_forfeited(harness, match_id)
    assert harness.server.clocks.graces == {} and caplog.records == []
    await harness.server.clocks.resume_graces()  # the hourly sweep: it waits, untimed
    assert harness.server.clocks.graces == {}
    alice = await harness.login_clip("alice")
    await ring(harness, 600)  # alone, alice waits: no countdown runs for bob
    await assert_not_forfeited(harness, match_id)
    bob = await harness.login_clip("bob")
    await bob.skip_until(game_texts.match_loaded_for_inviter("alice"))
    await alice.skip_until(game_texts.match_loaded_for_joiner("bob"))
    await assert_not_forfeited(harness, match_id)


async def test_the_waiting_opponent_going_away_stops_the_countdown(harness, players):
    alice, bob, carol = players
    match_id = await timed_match(harness, players)
    await drops(bob, alice)
    await alice.close()  # a blip: alice is back at once, bob is not
    await carol.skip_until("alice drops connection.")
    alice = await harness.login_clip("alice")
    await ring(harness, 60)
    await assert_not_forfeited(harness, match_id)
    await alice.send("show saved")
    await alice.skip_until(re.compile(r"\s*bob\s+3\s+0 -\s+0"))


async def test_a_player_who_leaves_and_stays_online_is_held_to_the_deadline_told(
        harness, players):
    alice, bob, _ = players
    match_id = await timed_match(harness, players)
    await bob.send("leave")
    await bob.skip_until("Resume the match within 60 seconds ('invite alice'), or you lose it.")
    await alice.skip_until("bob has 60 seconds to resume the match, or loses it.")
    await ring(harness, 60)
    record = await harness.server.store.match_by_id(match_id)
    assert record.finished and record.winner == "alice"
    await bob.skip_until(clock_texts.did_not_come_back("bob", 60))


@pytest.mark.parametrize("terms", ["5", "5 timer 60"])
async def test_a_saved_match_never_blocks_a_tournament_pairing(tmp_path, terms):
    """bob left a match with alice (untimed: a new one would replace it; timed: it would
    have to be resumed first); their tournament pairing starts all the same, and the saved
    match waits beside it, as it was."""
    harness = ServerHarness(f"sqlite:///{tmp_path / 'pairing.db'}")
    harness.use_fake_clock()
    await harness.start()
    try:
        for name in ("alice", "bob"):
            await harness.register(name)
        alice, bob = [await harness.login_clip(name) for name in ("alice", "bob")]
        for client in (alice, bob):
            await client.toggle_ready()
        harness.script_dice((3, 1))
        await join_match(alice, bob, terms)
        await alice.skip_until("It's your turn to move.")
        await bob.send("leave")
        await alice.skip_until("** Player bob has left the game. The game was saved.")
        store = harness.server.store
        saved = await store.running_match("alice", "bob")
        tid = await create(alice, "knockout length 3 when 2")
        for name, client in (("alice", alice), ("bob", bob)):
            await client.send(f"tournament join {tid}")
            await client.skip_until(f"Tournament {tid}: {name} has joined.")
        harness.script_dice((3, 1))
        await pass_over(harness)
        await bob.skip_until(re.compile(r"\*\* You are now playing a 3 point match with alice"))
        (running,) = harness.server.lobby.match_table.running_matches()
        assert running.match_id != saved.match_id and running.match.length == 3
        kept = await store.match_by_id(saved.match_id)
        assert not kept.finished and kept.state == saved.state and kept.left_by == "bob"
    finally:
        await harness.stop()


async def test_after_a_refused_store_the_player_on_turn_is_asked_again_once_it_answers(
        harness, players):
    """A client that waits after `could not store that` rather than send its move again is
    shown the board and asked for its move once the store takes the match's state again."""
    alice, bob, _ = players
    harness.script_dice((3, 1), (6, 4))
    await join_match(alice, bob, "5")
    await alice.skip_until("It's your turn to move.")
    board_before = await alice.read_line()
    await bob.skip_until(re.compile(r"board:.*"))
    matches = harness.server.lobby.matches
    with failing_updates(harness, "matches"):
        await alice.send("move 8-5 6-5")
        await alice.expect_lines(NOT_STORED)
        await ring_store(harness)  # the store still refuses: nothing new to ask
        await alice.expect_silence()
        assert matches.unstored
    await ring_store(harness)
    await alice.expect_lines(board_before, "Please move 2 pieces.")
    assert not matches.unstored
    await bob.expect_silence()  # nothing is due from bob
    await alice.send("move 8-5 6-5")
    await bob.skip_until("alice moves 8-5 6-5 .")
    record = await harness.server.store.running_match("alice", "bob")
    assert record.state["turn"] == 1  # stored: bob's turn


async def ring_store(harness) -> None:
    """The next try at storing a refused match's state, and what it did."""
    clock_of(harness).advance(STORE_RETRY_SECONDS)
    await harness.server.lobby.matches.quiet()


async def test_a_saved_timed_match_waits_while_a_player_is_busy_and_resumes_when_free(
        harness, players):
    """bob drops; alice plays carol meanwhile; bob is back while she plays: his grace period
    ends with both online, which loses nothing; her match with carol over, it resumes."""
    alice, bob, carol = players
    match_id = await timed_match(harness, players)
    await drops(bob, alice)
    await carol.toggle_ready()
    harness.script_dice((3, 1))
    await alice.send("invite carol 1")
    await carol.skip_until("Type 'join alice' to accept.")
    await carol.send("join alice")
    await alice.skip_until("It's your turn to move.")
    bob = await harness.login_clip("bob")  # alice is busy: nothing resumes yet
    await ring(harness, 60)
    await assert_not_forfeited(harness, match_id)
    await alice.send("resign n")
    await carol.skip_until(re.compile(r".*alice wants to resign.*"))
    await carol.send("accept")
    await bob.skip_until(game_texts.match_loaded_for_joiner("alice"))
    await alice.skip_until(game_texts.match_loaded_for_inviter("bob"))
    await assert_not_forfeited(harness, match_id)
