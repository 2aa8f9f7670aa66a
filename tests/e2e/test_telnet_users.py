"""What a person at a telnet prompt sees (issue 15): small texts, tables, a match's end."""
from __future__ import annotations

import re

import pytest

from fibs_server.rules.position import Position
from tests.e2e.conftest import DATE_LINE
from tests.e2e.test_lobby_commands import ask
from tests.rules.match_helpers import arranged, side

WHO_HEADER = "No  S  username        rating  exp login    idle  from"
ROLL_OR_DOUBLE = "It's your turn to roll or double."
BOARD_END = re.compile(r"board:.*|   BAR: .*")  # a board's last line, in style 3 or 2
LONG_NAME = "VeryLongNameForTwent"  # 20 letters, the longest name allowed


@pytest.fixture
async def alice(harness):
    """alice logged in by telnet; bob and a user with a 20-letter name registered."""
    for name in ("alice", "bob", LONG_NAME):
        await harness.register(name)
    return await harness.login_telnet("alice")


async def telnet_pair(harness, alice):
    """bob logged in by telnet too, both ready to play."""
    bob = await harness.login_telnet("bob")
    await alice.expect_lines("bob logs in.")
    for client in (alice, bob):
        await ask(client, "toggle ready", "** You're now ready to invite or join someone.")
    return bob


async def test_the_welcome_box_is_square(harness):
    await harness.register("alice")
    client = await harness.connect("alice")
    await client.send("alice")
    await client.expect_prompt("password: ")
    await client.send("secret")
    await client.skip_until(re.compile(r"\*\* Last login: .*"))
    box = await client.expect_lines(*[re.compile(r"[+|].*")] * 5)
    assert {len(line) for line in box} == {70}


async def test_who_keeps_long_names_apart_from_the_rating(harness, alice):
    await harness.login_telnet(LONG_NAME)
    await alice.expect_lines(f"{LONG_NAME} logs in.")
    await ask(alice, "who", WHO_HEADER,
              re.compile(r" 1  -  alice          1500\.00    0 \d\d:\d\d    0:\d\d  127\.0\.0\.1"),
              re.compile(rf" 2  -  {LONG_NAME} 1500\.00    0 \d\d:\d\d    0:\d\d  127\.0\.0\.1"))


async def test_ambiguous_toggles_and_abbreviated_show(harness, alice):
    await ask(alice, "toggle au",
              "** 'au' could mean autoboard, autodouble, automove or autoroll.")
    await ask(alice, "toggle autor", "** You won't be asked if you want to double.")
    await ask(alice, "sh w", "Watching players:", "Nobody is watching.")
    await ask(alice, "show g", "List of games:")
    await ask(alice, "show m", "max_logins is 1")
    await ask(alice, "show saved", "no saved games.")
    await ask(alice, "show s", "** 's' could mean saved or savedcount.")
    await ask(alice, "show savedc bob", "bob has no saved games.")
    await ask(alice, "show Nothing", "** Don't know how to show nothing. Try 'games', 'saved', "
              "'savedcount', 'watchers' or 'max'.")


async def test_address_alone_and_whois_spacing(harness, alice):
    await ask(alice, "address",
              "** You have no email address. Type 'address <email>' to give one.")
    await ask(alice, "address alice@example.org", "Your email address is 'alice@example.org'.")
    await ask(alice, "address", "Your email address is 'alice@example.org'.")
    await ask(alice, "whois alice", "Information about alice:",
              re.compile(r"  Last login: " + DATE_LINE.pattern + " from 127\\.0\\.0\\.1"),
              re.compile(r"  Still logged in\. 0:\d\d minutes idle\."),
              "  Rating: 1500.00 Experience: 0", "  Email address: alice@example.org")


async def test_a_wrong_distance_of_one_is_one_point(harness, alice):
    bob = await telnet_pair(harness, alice)
    harness.script_dice((6, 5))
    await ask(alice, "invite bob 1", "** You invited bob to a 1 point match.")
    await bob.skip_until("Type 'join alice' to accept.")
    await bob.send("join alice")
    await alice.skip_until("It's your turn to move.")
    await alice.skip_until(BOARD_END)
    await ask(alice, "move 13-7 6-5", "** You can't move 1 point in your second move")
    await ask(alice, "move 13-7 8-4", "** You can't move 4 points in your second move")


async def test_a_player_who_logs_out_is_announced_once(harness, alice):
    bob = await telnet_pair(harness, alice)
    harness.script_dice((3, 1))
    await ask(alice, "invite bob 3", "** You invited bob to a 3 point match.")
    await bob.skip_until("Type 'join alice' to accept.")
    await bob.send("join alice")
    await alice.skip_until("It's your turn to move.")
    await bob.send("bye")
    await alice.skip_until("bob logs out. The game was saved.")
    await alice.expect_silence()


async def test_greedy_bear_offs_are_told_and_the_last_game_lists_its_moves(harness, alice):
    """alice (greedy, moves) has 3 checkers left against bob's 2 in a 1-point match."""
    store = harness.server.store
    position = Position((side({6: 1, 5: 1, 1: 1}), side({1: 2})))
    state = arranged(position, turn=0, length=1).to_dict()
    await store.create_match("alice", "bob", 1, state)
    bob = await telnet_pair(harness, alice)
    await ask(alice, "toggle greedy moves", "** Will use automatic greedy bearoffs.",
              "** You want a list of moves after this game.")
    harness.script_dice((6, 5), (2, 1))
    await ask(alice, "invite bob", "** You invited bob to resume a saved match.")
    await bob.skip_until("Type 'join alice' to accept.")
    await bob.send("join alice")
    await alice.skip_until("bob has joined you. Your running match was loaded.")
    await alice.skip_until(ROLL_OR_DOUBLE)
    await alice.send("roll")
    await alice.skip_until("You roll 6 and 5.")
    await alice.expect_lines("Bearing off: 19-off 20-off .")
    await bob.skip_until("alice moves 19-off 20-off .")
    await bob.skip_until("Please move 2 pieces.")
    await bob.send("off")
    await alice.skip_until("bob wins the game and gets 1 point. Sorry.")
    await alice.expect_lines("alice is X - bob is O", "Score is 0-0 in a 1 point match.",
                             "X: (6 5) 19-off 20-off", "O: (2 1) 1-off 1-off", "O: wins",
                             "bob wins the 1 point match 1-0 .")
