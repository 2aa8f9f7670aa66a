"""Timed matches over the wire, on a fake clock (`invite bob 3 timer 30`, `takeover 20`):
warnings, the server playing the bot's decision when time is up, the third expiry losing the
match, a bot taking a decision over, the grace period after a player left, and untimed
matches that never time out."""
from __future__ import annotations

import re

import pytest

from fibs_server.rules.ratings import PlayerRating, rate_match
from tests.e2e.conftest import ServerHarness
from tests.e2e.test_lobby_commands import ask
from tests.e2e.test_match_play import join_match, players  # noqa: F401 (fixture)
from tests.fake_clock import FakeClock

BOARD = re.compile(r"board:.*")
MOVES = re.compile(r"(\w+) moves (\S+ )+\.")


@pytest.fixture
async def harness(database_url):
    """The server on a fake clock (`players` log in to it)."""
    server = ServerHarness(database_url)
    server.lobby_options["clock"] = FakeClock()
    await server.start()
    yield server
    await server.stop()


def clock_of(harness) -> FakeClock:
    return harness.lobby_options["clock"]


async def watched_by_carol(carol) -> None:
    await carol.skip_until("alice and bob start a 3 point match.")
    await carol.send("watch alice")
    await carol.skip_until("You're now watching alice.")


async def test_warning_then_the_server_plays_the_bots_move_and_tells_everyone(harness, players):
    alice, bob, carol = players
    clock = clock_of(harness)
    harness.script_dice((3, 1), (6, 4))
    await join_match(alice, bob, "3 timer 30")
    await alice.skip_until("It's your turn to move.")
    await alice.expect_lines(BOARD, "** Clock: alice has 30 seconds to move.")
    await watched_by_carol(carol)
    await alice.skip_until("carol is watching you.")
    await alice.expect_lines(re.compile("5 carol .*"), "6")
    clock.advance(19)
    await alice.expect_silence()
    clock.advance(1)
    await alice.expect_lines("** You have 10 seconds left to move.")
    await bob.skip_until("carol starts watching alice.")
    await bob.expect_lines(re.compile("5 carol .*"), "6")
    await bob.expect_silence()  # the warning is alice's only
    clock.advance(10)
    await alice.expect_lines("Your time to move is up: the server plays for you (1 of 3).")
    await bob.skip_until("alice's time to move is up: the server plays for alice (1 of 3).")
    await carol.skip_until(re.compile(
        r"(> )?alice's time to move is up: the server plays for alice \(1 of 3\)\."))
    move = (await bob.expect_lines(MOVES))[0]
    await bob.expect_lines(BOARD, "** Clock: bob has 30 seconds to roll or double.",
                           "It's your turn to roll or double.")
    await carol.expect_lines(move, BOARD, "** Clock: bob has 30 seconds to roll or double.")
