"""GNU Backgammon plays both sides over real sockets, each player a gnubg process
listening with `external PATH` on a Unix socket (the player of `fibs-gnubg-bot`, recording for the
tests: tests/e2e/gnubg_player.py): every decision is gnubg's
answer to a board our server sent, so the server must draw each board as the moment it
stands for and accept everything gnubg plays. Seeded dice make every match deterministic."""
from __future__ import annotations

import asyncio
import re
from collections.abc import Coroutine

import pytest

from fibs_server.gnubg_bot.external import GNUBG, GnubgConnection, GnubgEngine
from fibs_server.gnubg_bot.player import ROLL_PROMPT
from fibs_server.rules.dice import SeededDice
from tests.conftest import skip_unless_ci
from tests.e2e.gnubg_player import RecordingPlayer

pytestmark = pytest.mark.gnubg
MATCH_END = re.compile(r"(You win|\S+ wins) the \d+ point match \d+-\d+ \.")
GAME_END = re.compile(r"(You win the game|\S+ wins the game|You give up|\S+ gives up|"
                      r"You accept and win|\S+ accepts and wins)\b.*")


@pytest.fixture(scope="module")
def engines():
    """Two gnubg processes (one per player), shared by the module's tests: each test opens
    its own connections, and gnubg listens again after a disconnect."""
    if not GNUBG.exists():
        skip_unless_ci(f"needs GNU Backgammon at {GNUBG} (apt-get install -y gnubg)")
    started = [GnubgEngine() for _ in range(2)]
    yield started
    for engine in started:
        engine.stop()


@pytest.fixture
async def seat(harness, engines):
    """Seats alice and bob as CLIP bots, ready, with their toggles; closes their gnubg
    connections afterwards (gnubg takes the next test's client only then)."""
    players: list[RecordingPlayer] = []

    async def seat_players(alice_toggles=(), bob_toggles=(), leave_after_games: int | None = None
                           ) -> tuple[RecordingPlayer, RecordingPlayer]:
        for name, engine, toggles in (("alice", engines[0], alice_toggles),
                                      ("bob", engines[1], bob_toggles)):
            await harness.register(name)
            client = await harness.login_clip(name, client_name="gnubg_bot")
            player = RecordingPlayer(client, name, await GnubgConnection.open(engine),
                                     leave_after_games if name == "alice" else None)
            players.append(player)
            await player.set_up("ready", *toggles)
        return players[0], players[1]

    yield seat_players
    for player in players:
        player.gnubg.close()


async def invite(harness, alice: RecordingPlayer, bob: RecordingPlayer, length: str,
                 seed: int) -> None:
    harness.dice.append(SeededDice(seed))
    await alice.client.send(f"invite bob {length}")
    await bob.client.skip_until("Type 'join alice' to accept.")
    await bob.client.send("join alice")


async def together(*runs: Coroutine) -> list:
    """The players' runs at once; a stall in one cancels the others."""
    async with asyncio.TaskGroup() as group:
        tasks = [group.create_task(run) for run in runs]
    return [task.result() for task in tasks]


async def play_match(alice: RecordingPlayer, bob: RecordingPlayer) -> list[str]:
    return await together(alice.play_until(MATCH_END.fullmatch),
                          bob.play_until(MATCH_END.fullmatch))


def assert_clean(*players: RecordingPlayer) -> None:
    for player in players:
        assert not player.refused, player.report()
        assert not player.problems, player.report()
        assert player.decisions, f"{player.name} never decided anything"


def scores(player: RecordingPlayer, length: int) -> list[str]:
    prefix = f"score in {length} point match: "
    return [line.removeprefix(prefix) for line in player.lines if line.startswith(prefix)]


def games(player: RecordingPlayer) -> list[list[str]]:
    """The player's lines cut at each `Starting a new game`."""
    cut: list[list[str]] = []
    for line in player.lines:
        if line.startswith("Starting a new game with "):
            cut.append([])
        if cut:
            cut[-1].append(line)
    return cut


def assert_every_game_ended(player: RecordingPlayer) -> None:
    for number, game in enumerate(games(player), 1):
        assert any(GAME_END.fullmatch(line) for line in game), \
            f"{player.name}'s game {number} has no end"


async def test_one_point_match(harness, seat):
    alice, bob = await seat(("moreboards",), ("moreboards",))
    await invite(harness, alice, bob, "1", seed=1)
    ends = await play_match(alice, bob)
    assert_clean(alice, bob)
    assert len(games(alice)) == 1
    assert_every_game_ended(alice)
    winner_view, loser_view = sorted(ends, key=lambda end: not end.startswith("You "))
    points = re.fullmatch(r"You win the 1 point match ([123])-0 \.", winner_view)[1]
    winner = "alice" if ends[1] == loser_view else "bob"
    assert loser_view == f"{winner} wins the 1 point match {points}-0 ."


async def test_three_point_match_rolled_for_without_boards(harness, seat):
    """alice turns `double` off before the match (as MatchDog does at login: it lapses when
    each game starts, the first included, so she is asked all the same) and gets no boards
    by herself (autoboard and moreboards NO), so she asks for each board she needs."""
    alice, bob = await seat(("double", "autoboard"), ("moreboards",))
    await invite(harness, alice, bob, "3", seed=9)
    await play_match(alice, bob)
    assert_clean(alice, bob)
    assert_every_game_ended(alice)
    alice_games = games(alice)
    assert alice.board_requests > 0
    assert all(ROLL_PROMPT in game for game in alice_games if len(game) > 8)


async def test_a_timed_match_asks_for_no_board(harness, seat):
    """The clock line comes before each board: between a board and its prompt it made the
    bot ask for the board again before nearly every decision."""
    alice, bob = await seat(("moreboards",), ("moreboards",))
    await invite(harness, alice, bob, "3 timer 60", seed=9)
    await play_match(alice, bob)
    assert_clean(alice, bob)
    assert any(line.startswith("Clock: ") for line in alice.lines)
    assert (alice.board_requests, bob.board_requests) == (0, 0)


async def test_five_point_match_through_crawford_and_post_crawford(harness, seat):
    alice, bob = await seat(("moreboards",), ("moreboards",))
    await invite(harness, alice, bob, "5", seed=16)
    await play_match(alice, bob)
    assert_clean(alice, bob)
    assert_every_game_ended(alice)
    score_lines = scores(alice, 5)
    # The game after the first score at match point (4) is the Crawford game; every game
    # after it is post-Crawford (board field 51); with this seed there is at least one.
    crawford = next(index for index, line in enumerate(score_lines)
                    if re.search(r"-4\b", line)) + 1
    alice_games = games(alice)
    post_crawford = [any(line.startswith("board:") and line.split(":")[51] == "1"
                         for line in game) for game in alice_games]
    assert len(alice_games) > crawford + 1, score_lines
    assert post_crawford == [False] * (crawford + 1) + [True] * (len(alice_games) - crawford - 1)


async def test_unlimited_match_with_greedy_bearoffs_then_leave(harness, seat):
    """alice bears off greedily in game 1 (greedy, toggled once it started, lasts that game;
    no `moreboards` board asks her for a move the server makes itself) and leaves after
    game 3."""
    alice, bob = await seat(("moreboards",), ("moreboards",), leave_after_games=3)
    alice.first_game_toggles = ("greedy",)
    await invite(harness, alice, bob, "unlimited", seed=4)
    await together(alice.play_until(lambda line: line == "** You terminated the unlimited match."),
                   bob.play_until(lambda line: line == "** Player alice has ended the unlimited "
                                                      "match."))
    assert_clean(alice, bob)
    assert_every_game_ended(alice)
    assert len(games(alice)) == 3
    assert len([line for line in alice.lines if line.startswith("score in unlimited match: ")]) == 3
    # the server played some of alice's moves that she never sent
    announced = [line for line in bob.lines if line.startswith("alice moves ")]
    sent = [command for _, _, command in alice.decisions if command.startswith("move ")]
    assert len(announced) > len(sent)


@pytest.mark.stored  # the one test here that stores and reloads a match
async def test_a_dropped_match_resumes_and_ends(harness, seat):
    alice, bob = await seat(("moreboards",), ("moreboards",))
    await invite(harness, alice, bob, "3", seed=5)

    async def drop_alice() -> None:
        await alice.play_until(lambda line: len(alice.boards) >= 30)
        await alice.client.close()

    await together(drop_alice(),
                   bob.play_until(lambda line: line == "alice drops connection. "
                                                       "The game was saved."))
    alice.reconnected(await harness.login_clip("alice", client_name="gnubg_bot"))
    await alice.set_up()
    await bob.client.send("invite alice")
    await bob.client.skip_until("** You invited alice to resume a saved match.")
    await alice.client.skip_until("bob wants to resume a saved match with you.")
    await alice.client.send("join bob")
    await alice.client.skip_until("You are now playing with bob. Your running match was loaded.")
    await play_match(alice, bob)
    assert_clean(alice, bob)
    assert any(line.startswith("turn: ") for line in bob.lines)


async def test_gnubg_answers_a_resignation(harness, seat):
    """gnubg never resigns through `external`, so bob's client offers one by hand; alice's
    gnubg answers it (the board with the resignation extension)."""
    alice, bob = await seat(("moreboards",), ("moreboards",))
    await invite(harness, alice, bob, "1", seed=1)
    await bob.resign("b")
    ends = await play_match(alice, bob)
    assert_clean(alice)
    assert not bob.refused and not bob.problems, bob.report()
    assert ("bob wants to resign. You will win 3 points. Type 'accept' or 'reject'."
            in alice.lines)
    assert ends[0] == "You win the 1 point match 3-0 ."  # gnubg takes the backgammon
