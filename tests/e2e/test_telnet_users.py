"""What a person at a telnet prompt sees: small texts, tables, a match's end."""
from __future__ import annotations

import re

import pytest

from fibs_server.lobby.ports.accounts import Account
from fibs_server.protocol.help_topics import SUBJECTS
from fibs_server.rules.board.position import Position
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
              "'savedcount', 'watchers', 'max' or 'tables'.")


async def test_address_alone_and_whois_spacing(harness, alice):
    await ask(alice, "address",
              "** You have no email address. Type 'address <email>' to give one.")
    await ask(alice, "address alice@example.org", "Your email address is 'alice@example.org'.")
    await ask(alice, "address", "Your email address is 'alice@example.org'.")
    await ask(alice, "whois alice", "Information about alice:",
              re.compile(r"  Last login: " + DATE_LINE.pattern + " from 127\\.0\\.0\\.1"),
              re.compile(r"  Still logged in\. 0:\d\d minutes idle\."),
              "  Rating: 1500.00 Experience: 0",  # FIBS's block: no line of ours
              "  Email address: alice@example.org")


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


@pytest.mark.stored
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


@pytest.mark.stored
async def test_fibs_commands_about_the_server_and_its_users(harness, alice):
    bob = await telnet_pair(harness, alice)
    await ask(alice, "version", re.compile(
        r"fibs_server version \d+\.\d+\.\d+\S*, speaking FIBS's client protocol CLIP 1008\."))
    about = await ask(alice, "about", *[re.compile(".+")] * 5)
    assert about[0].startswith("fibs_server: a backgammon server that speaks FIBS")
    await ask(alice, "stat", "Users logged in:          2", "Most logged in at once:   2",
              "Matches being played:     0",
              re.compile("Server running since:     " + DATE_LINE.pattern))
    await ask(alice, "average", "** This server keeps no hourly statistics of users. "
              "Type 'stat' for the numbers.")
    await ask(alice, "last bob", re.compile("Last login of bob:  " + DATE_LINE.pattern +
                                            r" from 127\.0\.0\.1"), "bob is still logged in.")
    await ask(bob, "where alice", "alice is logged in from 127.0.0.1.")
    await ask(alice, "where", "** Where is who?")
    await ask(alice, "where nobody", "** There is no one called nobody.")
    await ask(alice, "names", "alice  bob")
    await ask(alice, "hostnames", "alice                127.0.0.1", "bob                  127.0.0.1")
    await bob.send("bye")
    await alice.expect_lines("bob logs out.")
    await ask(alice, "last Bob",
              re.compile("Last login of bob:  " + DATE_LINE.pattern + r" from 127\.0\.0\.1"),
              re.compile("Last logout of bob: " + DATE_LINE.pattern))
    await ask(alice, "last nobody", "No information found on user nobody.")
    # An account made by hand (not through registration, which logs in at once).
    await harness.server.store.create_account(Account(name="carol", password_hash=b"-"))
    await ask(alice, "last carol", "carol has never logged in.")


async def test_commands_man_cls_save_panic_and_rawboard(harness, alice):
    await alice.send("commands")
    listed = " ".join(await alice.skip_until(re.compile(r".*\bwhois\b.*"))).split()
    await alice.expect_prompt()
    assert {"about", "accept", "cls", "help", "man"} - set(listed) == {"man"}  # man: an alias
    await alice.send("man show")
    await alice.expect_lines("show games|saved|savedcount [<name>]|watchers|max|tables")
    await alice.skip_until("  Short forms: sh")
    await alice.expect_prompt()
    await ask(alice, "cls", *[""] * 24)
    await ask(alice, "set pagelength 5", "Value of 'pagelength' set to 5.")
    await ask(alice, "clear", *[""] * 5)
    await ask(alice, "set pagelength 0", "Value of 'pagelength' set to 0.")  # boards below
    await ask(alice, "save", "** There is nothing to save: your settings and matches are "
              "stored as they change.")
    await ask(alice, "panic", "** Don't panic. A strange screen? Try 'set boardstyle 2', "
              "'set linelength 0', 'set pagelength 0' or 'cls'.")
    await ask(alice, "rawboard", "** You're not playing.")
    bob = await telnet_pair(harness, alice)
    harness.script_dice((3, 1))
    await ask(alice, "invite bob 1", "** You invited bob to a 1 point match.")
    await bob.skip_until("Type 'join alice' to accept.")
    await bob.send("join alice")
    await alice.skip_until("It's your turn to move.")
    await alice.skip_until(BOARD_END)
    await ask(alice, "rawboard", re.compile(r"board:You:bob:1:0:0:.*"))


async def help_reply(client, words: str) -> list[str]:
    """The whole reply to `help <words>` (every reply ends at the prompt)."""
    await client.send(f"help {words}".rstrip())
    lines = [await client.read_line()]
    while not client.buffer.startswith(b"> ") or b"\r\n" in client.buffer:
        lines.append(await client.read_line())
    await client.expect_prompt()
    return lines


async def test_every_command_has_help_that_fits_an_80_column_terminal(harness, alice):
    index = await help_reply(alice, "")
    indexed = {word for line in index[1:-1] for word in line.split() if word.isalpha()}
    commands = set(harness.server.lobby.dispatcher.command_words)
    # An extension a classic session is not shown (`quickplay`) has its help all the same.
    declared = harness.server.lobby.dispatcher.commands
    listed = {name for name in commands if not declared[name].facts.extension}
    assert listed - {"clear"} <= indexed | {"clear"}, listed - indexed
    everything = list(index)
    # FIBS's subjects that are no command (`autologin`, `rules`) have their own test.
    for command in sorted(commands | indexed - {"Information", "Yourself", "Matches",
                                                 "Talking", *SUBJECTS}):
        reply = await help_reply(alice, command)
        assert not reply[0].startswith("** No help"), command
        assert reply[0].split()[0] == command, (command, reply[0])
        assert any(line.startswith("  Example: ") for line in reply), command
        assert reply[-1].startswith("  Short forms: "), command
        everything += reply
    beginner = await help_reply(alice, "beginner")
    led_to = re.findall(r"'help ([a-z]+)'", " ".join(beginner))
    assert led_to == ["invite", "move", "toggle"]
    for command in led_to:
        assert (await help_reply(alice, command))[0].startswith(command), command
    everything += beginner
    assert max(len(line) for line in everything) <= 79
    assert await help_reply(alice, "m") == await help_reply(alice, "move")
    assert (await help_reply(alice, "date"))[0] == "time"
    assert (await help_reply(alice, "move"))[-1] == "  Short forms: m"
    assert (await help_reply(alice, "bye"))[-1] == (
        "  Short forms: adios, ciao, end, exit, logout, quit, tschoe, by")
    await ask(alice, "man xyzzy", "** No help on 'xyzzy'. Type 'help' for the list of commands.")


async def test_long_lines_break_at_linelength_unless_the_terminal_wraps(harness, alice):
    await ask(alice, "set linelength 40", "Value of 'linelength' set to 40.")
    await ask(alice, "tell alice the quick brown fox jumps over the lazy dog",
              "You say to yourself: the quick brown fox", "jumps over the lazy dog")
    await ask(alice, "toggle wrap", "** Your terminal knows how to wrap long lines.")
    await ask(alice, "tell alice the quick brown fox jumps over the lazy dog",
              "You say to yourself: the quick brown fox jumps over the lazy dog")


async def test_long_replies_come_in_pages_of_pagelength(harness, alice):
    await ask(alice, "set pagelength 5", "Value of 'pagelength' set to 5.")
    await alice.send("toggle")
    await alice.expect_lines("The current settings are:", "allowpip        YES",
                             "autoboard       YES", "autodouble      NO")
    await alice.expect_prompt("-- more -- (Enter: next page, any command: stop) ")
    await alice.send("")
    await alice.expect_lines("automove        NO", "bell            NO", "crawford        YES",
                             "double          YES")
    await alice.expect_prompt("-- more -- (Enter: next page, any command: stop) ")
    await ask(alice, "set pagelength 0", "Value of 'pagelength' set to 0.")  # stops the pager
    await alice.send("toggle")
    rows = await alice.expect_lines("The current settings are:", *[re.compile(".*")] * 17)
    assert rows[-1] == "wrap            NO"
    await alice.expect_prompt()
