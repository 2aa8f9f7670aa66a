"""The built-in bots over real sockets: in `who`, invited or asked for with `bot`, playing
whole matches with every decision accepted; visitors without an account; `undo`."""
from __future__ import annotations

import re

import pytest

from fibs_server.protocol import texts
from tests.e2e.bot import Bot

LEVELS = ("beginner", "intermediate", "expert")
MATCH_WON = re.compile(r"(You win|\S+ wins) the \d+ point match .*")


@pytest.fixture
def harness(bot_harness):
    return bot_harness


async def player(harness, name: str) -> Bot:
    """A registered CLIP player who gets a board with every roll (`moreboards`)."""
    await harness.register(name)
    client = await harness.login_clip(name)
    for toggle in ("moreboards", "ready"):
        await client.send(f"toggle {toggle}")
        await client.skip_until(re.compile(r"\*\* .*"))
    return Bot(client, name, seed=len(name))


async def test_the_bots_are_online_ready_and_rated(harness):
    await harness.register("alice")
    alice = await harness.connect("alice")
    await alice.send("login testclient 1008 alice secret")
    who = [line.split() for line in await alice.skip_until("6") if line.startswith("5 ")]
    bots = {fields[1]: fields for fields in who if fields[1].startswith("bot_")}
    assert sorted(bots) == sorted(f"bot_{level}" for level in LEVELS)
    for fields in bots.values():
        assert fields[4] == "1" and fields[6] == "1500.00"  # ready; rating


@pytest.mark.parametrize("level, length", [(level, length) for level in LEVELS
                                           for length in (1, 5)])
async def test_a_player_plays_a_bot_at_each_level_to_the_end(harness, level, length):
    alice = await player(harness, "alice")
    await alice.send(f"bot {level} {length}")
    await alice.play_until(lambda line: MATCH_WON.fullmatch(line) is not None)
    assert alice.refusals == [] and harness.server.bots.refusals == []
    record = (await harness.server.store.finished_matches("alice", 1))[0]
    assert record.player_b == f"bot_{level}" and record.winner is not None
    assert set(record.state["ratings"]) == {"alice", f"bot_{level}"}  # rated


async def test_a_long_rated_bot_match_needs_experience_as_an_invitation_does(harness):
    """`bot` follows `invite`'s rule: over 9 points, rated, only for a rating-list player."""
    alice = await player(harness, "alice")
    for words in ("bot expert 49", "bot 11"):
        await alice.client.send(words)
        await alice.client.skip_until(
            "** You're not experienced enough to play a match of that length.")
    await alice.client.send("invite bot_expert 49")
    await alice.client.skip_until(
        "** You're not experienced enough to play a match of that length.")
    await alice.client.send("bot expert 49 unrated")  # no rating at stake: played
    await alice.client.skip_until("** Player bot_expert has joined you for a 49 point match.")
    assert harness.server.lobby.match_table.playing["alice"].keeping.unrated == "asked"


async def test_an_invited_bot_plays_a_match_with_the_cube(harness):
    alice = await player(harness, "alice")
    alice.doubles = True  # alice doubles at every turn: the bot takes or drops each time
    await alice.send("invite bot_expert 3")
    await alice.client.skip_until("** Player bot_expert has joined you for a 3 point match.")
    await alice.play_until(lambda line: MATCH_WON.fullmatch(line) is not None)
    assert alice.refusals == [] and harness.server.bots.refusals == []
    cube_answers = [line for line in alice.lines if re.fullmatch(
        r"bot_expert (accepts the double|gives up)\..*", line)]
    assert cube_answers, "the bot answered no double"


async def test_an_unlimited_match_against_a_bot_goes_on_until_the_player_leaves(harness):
    alice = await player(harness, "alice")
    alice.doubles = True
    await alice.send("bot intermediate unlimited")
    await alice.play_until(lambda line: line.startswith("Type 'join' if you want"))
    await alice.send("join")
    await alice.play_until(lambda line: line.startswith("Type 'join' if you want"))
    await alice.send("leave")
    await alice.client.skip_until("** You terminated the unlimited match.")
    assert alice.refusals == []


@pytest.mark.stored
async def test_a_visitor_plays_a_bot_without_an_account_and_nothing_is_stored(harness):
    visitor = await harness.connect("visitor")
    await visitor.send("bot beginner 1")  # at the login prompt
    before = await visitor.skip_until(re.compile(
        r"(> )*\*\* Player bot_beginner has joined you for a 1 point match\."))
    name = re.search(r"\*\* User (\S+) authenticated\.", "\n".join(before)).group(1)
    # Names are letters and `_` only (docs/PROTOCOL.md): a digit makes the classic
    # classifiers misread every board line of the visitor's match.
    assert re.fullmatch(r"guest_[A-Za-z_]+", name)
    # The visitor's turn (the bot plays its own at once): the visitor resigns the game.
    await visitor.skip_until(re.compile(
        r"(> )*(It's your turn to (move|roll or double)\.|Please move \d pieces?\.)"))
    await visitor.send("resign n")
    await visitor.skip_until(re.compile(r"(> )*bot_beginner wins the 1 point match 1-0 \."))
    store = harness.server.store
    assert await store.find_account(name) is None
    assert await store.finished_matches("bot_beginner", 1) == []
    assert await store.running_matches("bot_beginner") == []
    # Unrated for both: a visitor's loss moves the bot's rating no more than its own.
    bot_account = await store.find_account("bot_beginner")
    online = harness.server.lobby.attendance.users.online["bot_beginner"].account
    assert (bot_account.rating, bot_account.experience) == (1500.0, 0)
    assert (online.rating, online.experience) == (1500.0, 0)  # as `who` and `rating` show it
    await visitor.send("bye")
    await visitor.expect_closed()
    assert harness.server.lobby.accounts.visitors == {}


async def test_undo_takes_a_move_back_with_the_same_dice(harness):
    alice = await player(harness, "alice")
    client = alice.client
    await alice.send("bot beginner 3")
    board_line = None
    while True:  # until alice has rolled and must move: her board is the one before
        line = await client.read_line()
        if line.startswith("Please move "):
            break
        if line.startswith("board:"):
            board_line = line
        await alice.react(line)
    await client.send("move " + alice.choose_play())
    await client.send("undo")
    await client.skip_until("You take back your last decision. This match is not rated any more.")
    assert await client.read_line() == board_line  # the same position, the same dice
    assert (await client.read_line()).startswith("Please move ")


async def test_a_visitor_plays_bots_only_and_stores_nothing(harness):
    await harness.register("alice")
    alice = await harness.login_clip("alice")
    await alice.send("toggle ready")
    visitor = await harness.connect("visitor")
    await visitor.send("bot beginner 1")
    before = await visitor.skip_until(re.compile(r"(> )*\*\* Player bot_beginner has joined.*"))
    name = re.search(r"\*\* User (guest_[a-z]{5}) authenticated\.", "\n".join(before)).group(1)
    await alice.send(f"invite {name} 1")
    await alice.skip_until(texts.VISITORS_PLAY_BOTS)
    for command in ("gag alice", "message alice hello", "password a:b:b"):
        await visitor.send(command)
        await visitor.skip_until(re.compile(r"(> )*" + re.escape(texts.NOT_FOR_VISITORS)))


async def test_a_bot_in_a_match_names_its_opponent_in_its_who_line_until_the_match_ends(
        harness):
    """As FIBS's who-line names a player's opponent: a program waiting for the bot to be free
    (MatchDog polls `who <name>` until the opponent field is `-`) sees it busy, then free."""
    await harness.register("bob")
    bob = await harness.login_clip("bob")
    alice = await player(harness, "alice")
    await alice.send("bot expert 1")
    await bob.skip_until(re.compile(r"5 bot_expert alice - 1 .*"))  # told when it began
    await bob.send("who bot_expert")
    await bob.skip_until(re.compile(r"5 bot_expert alice - 1 .*"))
    await bob.expect_lines("6")
    # A long ceiling: the bot's first decision may wait for its pool to load the networks.
    await alice.client.skip_until(re.compile(
        r"It's your turn to (move|roll or double)\.|Please move \d pieces?\."), timeout=120)
    await alice.client.send("resign n")
    await alice.client.skip_until("bot_expert wins the 1 point match 1-0 .", timeout=120)
    await bob.skip_until(re.compile(r"5 bot_expert - - 1 .*"))  # told when it ended
    await bob.send("who bot_expert")
    await bob.skip_until(re.compile(r"5 bot_expert - - 1 .*"))
    await bob.expect_lines("6")
