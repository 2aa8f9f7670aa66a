"""A store that fails while the server changes a match by itself (a turn timer's expiry, a
takeover, a forfeit, a logout): nobody is told what was not stored, memory stays what the
database holds, and the clock times the decision again."""
from __future__ import annotations

import json
import re
import time

from fibs_server.lobby.play.running_match import RunningMatch
from fibs_server.lobby.play.turn_clock import RETRY_SECONDS
from tests.durability.test_store_failures import failing_updates
from tests.e2e.test_match_play import join_match, players  # noqa: F401 (a fixture)
from tests.e2e.test_timers import harness, ring, timed_match_left_by_bob, watched_by_carol  # noqa: F401 (a fixture)

BOARD = re.compile(r"board:.*")
WHO_LINE = re.compile(r"5 \w+ .*")


def running_between(harness, first: str, second: str) -> RunningMatch:
    matches = [running for running in harness.server.lobby.match_table.running_matches()
               if set(running.names) == {first, second}]
    assert len(matches) == 1, matches
    return matches[0]


async def assert_memory_is_stored(harness, running: RunningMatch) -> None:
    """What the server holds of the match is what its record holds, clock included."""
    record = await harness.server.store.running_match(*running.names)
    held = {**running.match.to_dict(), **running.keeping.clock_state()}
    if running.keeping.unrated is not None:
        held["unrated"] = running.keeping.unrated
    assert record is not None and record.state == json.loads(json.dumps(held))


async def a_timed_match_watched_by_carol(harness, players, terms: str):
    alice, bob, carol = players
    harness.script_dice((3, 1), (6, 4))
    await join_match(alice, bob, terms)
    await alice.skip_until("It's your turn to move.")
    await watched_by_carol(carol)
    await carol.expect_lines(re.compile(r"Clock: alice has \d+ seconds to move\."), BOARD)
    await carol.expect_prompt()
    await alice.skip_until("carol is watching you.")
    await alice.expect_lines(WHO_LINE, "6")
    await bob.skip_until("carol starts watching alice.")
    await bob.expect_lines(WHO_LINE, "6")
    return running_between(harness, "alice", "bob")


async def test_an_expiry_that_cannot_be_stored_tells_nobody_and_is_timed_again(harness, players):
    alice, bob, carol = players
    running = await a_timed_match_watched_by_carol(harness, players, "3 timer 30")
    await ring(harness, 20)
    await alice.expect_lines("You have 10 seconds left to move.")
    with failing_updates(harness, "matches"):
        await ring(harness, 10)
    for client in (alice, bob, carol):
        await client.expect_silence()
    assert running.timing.expiries == [0, 0] and running.timing.played_for == []
    await assert_memory_is_stored(harness, running)
    await alice.send("board")
    await alice.expect_lines("Clock: alice has 30 seconds to move.", BOARD)  # timed again
    await ring(harness, 30)
    await alice.skip_until("Your time to move is up: the server plays for you (1 of 3).")
    await bob.skip_until("alice's time to move is up: the server plays for alice (1 of 3).")
    await carol.skip_until(re.compile(
        r"(> )?alice's time to move is up: the server plays for alice \(1 of 3\)\."))
    assert running.timing.expiries == [1, 0]
    await assert_memory_is_stored(harness, running)


async def test_a_takeover_that_cannot_be_stored_tells_nobody_and_is_timed_again(harness, players):
    alice, bob, carol = players
    running = await a_timed_match_watched_by_carol(harness, players, "3 takeover 20")
    with failing_updates(harness, "matches"):
        await ring(harness, 20)
    await alice.expect_lines("You have 10 seconds left to move.")
    for client in (alice, bob, carol):
        await client.expect_silence()
    assert running.timing.played_for == []
    await assert_memory_is_stored(harness, running)
    await alice.send("board")
    await alice.expect_lines("Clock: alice has 20 seconds to move.", BOARD)
    await ring(harness, 20)
    await alice.skip_until("You took too long to move: a bot decides for you.")
    await bob.skip_until("alice took too long to move: a bot decides for alice.")
    await bob.skip_until("alice moves 8-5 6-5 .")
    assert [mark["why"] for mark in running.timing.played_for] == ["takeover"]
    await assert_memory_is_stored(harness, running)


async def test_a_grace_forfeit_that_cannot_be_stored_is_tried_again(harness, players):
    alice = players[0]
    before = await timed_match_left_by_bob(harness, players)
    with failing_updates(harness, "matches"):
        await ring(harness, 60)
    await alice.expect_lines(WHO_LINE, "6", WHO_LINE, "6")  # of the leave; nothing more
    await alice.expect_silence()
    after = await harness.server.store.running_match("alice", "bob")
    assert after is not None and after.state == before.state and after.left_by == "bob"
    await ring(harness, RETRY_SECONDS)
    await alice.expect_lines("bob did not resume the match within 60 seconds and loses it.",
                             "bob forfeits the match. You win 3 points.",
                             "You win the 3 point match 3-0 .")
    assert await harness.server.store.running_match("alice", "bob") is None


async def test_an_abandonment_forfeit_that_cannot_be_stored_changes_nothing(harness, players):
    alice, bob, carol = players
    harness.script_dice((3, 1))
    await join_match(alice, bob, "3")
    await alice.skip_until("It's your turn to move.")
    await alice.send("leave")
    await bob.skip_until("** Player alice has left the game. The game was saved.")
    lobby = harness.server.lobby
    lobby.config.forfeit_abandoned = True
    lobby.config.wall_clock = lambda: time.time() + lobby.config.abandon_after + 60
    before = await harness.server.store.running_match("alice", "bob")
    with failing_updates(harness, "matches"):
        assert await lobby.matches.saved.close_abandoned() == 0
    after = await harness.server.store.running_match("alice", "bob")
    assert after is not None and after.state == before.state and after.left_by == "alice"
    ratings = [(await lobby.attendance.users.user_named(name))[1].rating for name in ("alice", "bob")]
    assert ratings == [1500.0, 1500.0]  # in memory too
    await bob.expect_lines(WHO_LINE, "6", WHO_LINE, "6")
    await bob.expect_silence()
    assert await lobby.matches.saved.close_abandoned() == 1  # the next check does it
    record = await harness.server.store.match_by_id(before.match_id)
    assert record.finished and record.winner == "bob"


async def test_a_logout_whose_mark_cannot_be_stored_still_saves_and_times_the_match(
        harness, players):
    alice, bob, carol = players
    running = await a_timed_match_watched_by_carol(harness, players, "3 timer 60")
    stored = await harness.server.store.running_match("alice", "bob")
    await assert_memory_is_stored(harness, running)
    with failing_updates(harness, "matches"):
        await bob.close()
        await alice.skip_until("bob drops connection. The game was saved.")
        await alice.expect_lines("bob has 60 seconds to resume the match, or loses it.")
    after = await harness.server.store.running_match("alice", "bob")
    assert after.state == stored.state  # the match as both last saw it
    await ring(harness, 60)
    await alice.skip_until("bob did not resume the match within 60 seconds and loses it.")
    await alice.expect_lines("bob forfeits the match. You win 3 points.",
                             "You win the 3 point match 3-0 .")
    await carol.skip_until(re.compile(r"(> )?alice wins a 3 point match against bob  3-0 \."))
