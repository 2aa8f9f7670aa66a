"""Open tables over the wire: `table`, `show tables`, `sit`, `table close`;
public and private tables, tables that vanish with their creator, visitors refused, and
matches started at a table told exactly as a joined invitation, played by CLIP bots."""
from __future__ import annotations

import re

import pytest

from fibs_server.lobby.play.tables import CODE_LENGTH, CODE_LETTERS
from fibs_server.protocol import texts
from fibs_server.rules.dice import SeededDice
from tests.e2e.bot import Bot
from tests.e2e.test_lobby_commands import ask
from tests.e2e.test_match_play import START_O, WHO, play_out, players  # noqa: F401 (fixture)

# Every test here runs on a fake clock: only a timed match's clock reads it.
from tests.e2e.test_timers import clock_of, harness  # noqa: F401 (fixture)

CODE = f"[{CODE_LETTERS}]{{{CODE_LENGTH}}}"
USAGE = ("** Type 'table <points>|unlimited [nack|hyper|portes] [lowstart] [nocube] "
         "[timer 30|60|bank <s> <r> [mode]] [takeover <seconds>] [private]' to open a table, "
         "'table close' to close yours.")
COLUMNS = "code      creator              length     timer  rules"


async def open_table(client, words: str, kind: str = "a table",
                     match: str | None = None) -> str:
    """`table <words>` from a CLIP client; the code it was told."""
    await client.send(f"table {words}")
    match = match or f"a {words} point match"
    line = await client.read_line()
    while not line.startswith("You opened "):  # others' notices and who-lines meanwhile
        line = await client.read_line()
    found = re.fullmatch(rf"You opened {kind} for {re.escape(match)}\. Its code is "
                         rf"({CODE}): whoever types 'sit \1' plays you\.", line)
    assert found, line
    return found.group(1)


async def test_tables_are_opened_listed_and_closed_private_ones_unlisted(harness, players):
    alice, bob, carol = players
    await ask(carol, "show tables", "List of open tables:",
              "No table is open. Type 'table <points>' to open one.")
    public = await open_table(alice, "5 nack timer 60",
                              match="a 5 point nackgammon match (60 s a turn)")
    await alice.send("table 3")
    mine = (f"Your table {public} is open for a 5 point nackgammon match (60 s a turn). "
            "Type 'table close' to close it.")
    await alice.expect_lines(mine)
    await alice.send("table")
    await alice.expect_lines(mine)
    private = await open_table(bob, "unlimited nocube lows pr", kind="a private table",
                               match="an unlimited match (no cube, lower die starts)")
    assert private != public
    await bob.send("tab")
    await bob.expect_lines(f"Your table {private} is open for an unlimited match (no cube, "
                           "lower die starts). Type 'table close' to close it.")
    await ask(carol, "show tables", "List of open tables:", COLUMNS,
              f"{public}  alice                5 points   60 s   nackgammon")
    await ask(carol, "sh tab", "List of open tables:", COLUMNS,
              f"{public}  alice                5 points   60 s   nackgammon")
    await bob.send("table close")
    await bob.expect_lines(f"You closed your table {private}.")
    await bob.send("table close")
    await bob.expect_lines("** You have no open table.")
    await ask(carol, f"sit {private}", f"** There is no open table with the code {private}.")
    third = await open_table(bob, "1 portes takeover 20",
                             match="a 1 point portes match (a bot takes over after 20 s)")
    await ask(carol, "show tables", "List of open tables:", COLUMNS,
              f"{public}  alice                5 points   60 s   nackgammon",
              f"{third}  bob                  1 point    -      portes, a bot takes over "
              "after 20 s")
    await alice.send("table CLOSE")
    await alice.expect_lines(f"You closed your table {public}.")
    fourth = await open_table(alice, "unl", match="an unlimited match")
    await ask(carol, "show tables", "List of open tables:", COLUMNS,
              f"{third}  bob                  1 point    -      portes, a bot takes over "
              "after 20 s",
              f"{fourth}  alice                unlimited  -      standard")
    await ask(carol, "show", "** Don't know how to show nothing. Try 'games', 'saved', "
              "'savedcount', 'watchers', 'max' or 'tables'.")


async def test_what_table_and_sit_refuse(harness, players):
    alice, bob, carol = players
    await ask(carol, "table 5", "** Use 'toggle ready' first.")
    await alice.send("table")
    await alice.expect_lines(USAGE)
    await alice.send("table five")
    await alice.expect_lines("** The match length must be a number from 1 to 99 or 'unlimited'.")
    await alice.send("table 5 crawford")
    await alice.expect_lines("** Unknown word 'crawford' after the match length. "
                             "Use nack, hyper, portes, lowstart, nocube, unrated, timer, takeover or bank.",
                             USAGE)
    await alice.send("table 5 timer 45")
    await alice.expect_lines("** Give the seconds after 'timer': 30 or 60.", USAGE)
    await alice.send("table unlimited timer 30")
    await alice.expect_lines("** A timed match needs a length: 'timer' does not go with "
                             "'unlimited'.")
    await alice.send("table 5 nack hyper")
    await alice.expect_lines("** Choose one variant: nackgammon, hypergammon or portes.", USAGE)
    await alice.send("table 10")
    await alice.expect_lines("** You're not experienced enough to play a match of that length.")
    await ask(carol, "sit", "** Sit at which table? Type 'sit <code>'; 'show tables' lists "
              "the open ones.")
    await ask(carol, "sit abc", "** There is no open table with the code abc.")
    code = await open_table(alice, "3")
    await alice.send(f"sit {code}")
    await alice.expect_lines("** That is your own table: wait for someone to sit, or type "
                             "'table close'.")
    await alice.send("toggle ready")
    await alice.expect_lines("** You're now refusing to play with someone.", WHO, "6")
    await ask(carol, f"sit {code}", "** alice is refusing games.")
    await alice.send("toggle ready")
    await alice.expect_lines("** You're now ready to invite or join someone.", WHO, "6")
    await alice.send("table close")
    await alice.expect_lines(f"You closed your table {code}.")
    # Over 9 points both players need experience above 50, as for an invitation.
    harness.server.lobby.attendance.users.online["alice"].account.experience = 51
    long_one = await open_table(alice, "11")
    await ask(carol, f"sit {long_one}",
              "** You're not experienced enough to play a match of that length.")


async def test_sitting_starts_the_match_as_a_joined_invitation_does(harness, players):
    alice, bob, carol = players
    harness.script_dice((3, 1))
    code = await open_table(alice, "5")
    await bob.send(f"sit {code.lower()}")
    # the texts, who-lines and boards of `test_opening_first_move_double_take_and_resignations`
    await bob.expect_lines("** You are now playing a 5 point match with alice")
    await alice.expect_lines("** Player bob has joined you for a 5 point match.")
    await carol.expect_lines("alice and bob start a 5 point match.")
    for client in (alice, bob):
        await client.expect_lines(re.compile(r"5 alice bob - 1 .*"), "6",
                                  re.compile(r"5 bob alice - 1 .*"), "6")
    await alice.expect_lines(
        "Starting a new game with bob.", "You rolled 3, bob rolled 1", "It's your turn to move.",
        f"board:You:bob:5:0:0:{START_O}:1:3:1:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0")
    await bob.expect_lines(
        "Starting a new game with alice.", "You rolled 1, alice rolled 3",
        "alice makes the first move.",
        f"board:You:alice:5:0:0:{START_O}:1:0:0:3:1:1:1:1:0:-1:1:25:0:0:0:0:0:0:0:0:0")
    await ask(carol, "show tables", "List of open tables:",
              "No table is open. Type 'table <points>' to open one.")
    await ask(carol, f"sit {code}", f"** There is no open table with the code {code}.")
    # playing: no table of one's own, no seat at another's
    await alice.send("table 3")
    await alice.expect_lines("** You can't play two games at once")
    await ask(carol, "toggle ready", "** You're now ready to invite or join someone.")
    carols = await open_table_telnet(carol, "1")
    await bob.skip_until(re.compile(r"5 carol - - 1 .*"))
    await bob.expect_lines("6")
    await bob.send(f"sit {carols}")
    await bob.expect_lines("** You can't play two games at once")


async def open_table_telnet(client, words: str) -> str:
    await client.send(f"table {words}")
    line = await client.read_line()
    await client.expect_prompt()
    return re.fullmatch(rf"You opened a .* Its code is ({CODE}): .*", line).group(1)


async def test_a_private_table_is_reached_by_its_code_with_its_rules(harness, players):
    alice, bob, carol = players
    harness.script_dice((3, 1))
    code = await open_table(alice, "3 hyper nocube private", kind="a private table",
                            match="a 3 point hypergammon match (no cube)")
    await ask(carol, "show tables", "List of open tables:",
              "No table is open. Type 'table <points>' to open one.")
    await bob.send(f"sit {code}")
    await bob.expect_lines("** You are now playing a 3 point match with alice")
    await carol.expect_lines("alice and bob start a 3 point match.")
    await ask(carol, "show games", "List of games:",
              "alice            -  bob              (3 point hypergammon match 0-0; no cube)")
    await alice.skip_until("It's your turn to move.")
    board = (await alice.read_line()).split(":")
    assert board[6:32] == ["0", "-1", "-1", "-1", *["0"] * 18, "1", "1", "1", "0"]
    await alice.send("double")
    await alice.expect_lines("** The doubling cube is not used in this match.")


async def test_a_table_vanishes_when_its_creator_leaves_before_anyone_sits(harness, players):
    alice, bob, carol = players
    gone = await open_table(alice, "1")
    await alice.send("bye")
    await alice.expect_closed()
    await carol.expect_lines("alice logs out.")
    await ask(carol, f"sit {gone}", f"** There is no open table with the code {gone}.")
    await ask(carol, "show tables", "List of open tables:",
              "No table is open. Type 'table <points>' to open one.")
    # starting another match (here: sitting at someone else's table) leaves it too
    await ask(carol, "toggle ready", "** You're now ready to invite or join someone.")
    carols = await open_table_telnet(carol, "3 private")
    bobs = await open_table(bob, "1")
    await carol.send(f"sit {bobs}")
    await carol.skip_until("** You are now playing a 1 point match with bob")
    await bob.skip_until("** Player carol has joined you for a 1 point match.")
    await bob.send(f"sit {carols}")
    await bob.skip_until(f"** There is no open table with the code {carols}.")


async def test_a_new_login_of_the_creator_keeps_the_table(harness, players):
    alice, bob, carol = players
    code = await open_table(alice, "1")
    again = await harness.login_telnet("alice")
    await alice.skip_until("** You logged in again from 127.0.0.1. This connection is closed.")
    await bob.send(f"sit {code}")
    await bob.skip_until("** You are now playing a 1 point match with alice")
    await again.skip_until("** Player bob has joined you for a 1 point match.")


async def test_a_table_vanishes_when_its_creator_joins_an_invitation(harness, players):
    alice, bob, carol = players
    code = await open_table(alice, "1 private", kind="a private table",
                            match="a 1 point match")
    await bob.send("invite alice 1")
    await alice.skip_until("Type 'join bob' to accept.")
    await alice.send("join bob")
    await alice.skip_until("** You are now playing a 1 point match with bob")
    await carol.expect_lines("bob and alice start a 1 point match.")
    await ask(carol, f"sit {code}", f"** There is no open table with the code {code}.")


@pytest.mark.stored
async def test_a_saved_match_is_resumed_before_a_table_replaces_it(harness, players):
    alice, bob, carol = players
    harness.script_dice((3, 1))
    code = await open_table(alice, "5")
    await bob.send(f"sit {code}")
    await alice.skip_until("It's your turn to move.")
    await alice.send("leave")
    await alice.skip_until("** You terminated the game. The game was saved.")
    again = await open_table(alice, "3")
    await bob.skip_until("** Player alice has left the game. The game was saved.")
    await bob.send(f"sit {again}")
    await bob.skip_until("** You have a saved match with alice: type 'invite alice' to resume "
                         "it before you play another.")
    assert len(await harness.server.store.running_matches("alice")) == 1


@pytest.mark.parametrize("words, kind, match, checkers", [
    ("3", "a table", "a 3 point match", 15),
    ("1 hyper private", "a private table", "a 1 point hypergammon match", 3)])
async def test_clip_bots_play_a_whole_table_match(harness, players, words, kind, match, checkers):
    alice, bob, _ = players
    for client in (alice, bob):
        await client.send("toggle automove")
        await client.skip_until("** Forced moves will be done automatically.")
        await client.send("toggle moreboards")
        await client.skip_until("** Will send rawboards after rolling.")
    harness.dice.append(SeededDice(7))
    code = await open_table(alice, words, kind, match)
    await bob.send(f"sit {code}")
    await alice.skip_until(re.compile(r"\*\* Player bob has joined you for .*"))
    await bob.skip_until(re.compile(r"\*\* You are now playing .*"))
    alice_bot = Bot(alice, "alice", seed=7, checkers_per_side=checkers)
    bob_bot = Bot(bob, "bob", seed=1007, checkers_per_side=checkers)
    endings = await play_out(alice_bot, bob_bot)
    assert not alice_bot.refusals and not bob_bot.refusals
    assert alice_bot.boards_seen > 5 and bob_bot.boards_seen > 5
    length = words.split()[0]
    assert re.fullmatch(rf"(You win|bob wins) the {length} point match \d+-\d+ \.", endings[0])
    finished = await harness.server.store.finished_matches("alice", 1)
    assert len(finished) == 1


@pytest.fixture
def visitor_harness(bot_harness):
    return bot_harness


async def test_visitors_may_not_open_or_sit_at_tables(visitor_harness):
    harness = visitor_harness
    await harness.register("alice")
    alice = await harness.login_clip("alice")
    await alice.toggle_ready()
    code = await open_table(alice, "1")
    visitor = await harness.connect("visitor")
    await visitor.send("bot beginner 1")
    await visitor.skip_until(re.compile(r"(> )*\*\* Player bot_beginner has joined.*"))
    for command in ("table 1", f"sit {code}"):
        await visitor.send(command)
        await visitor.skip_until(re.compile(r"(> )*" + re.escape(texts.VISITORS_PLAY_BOTS)))


async def test_a_match_started_at_a_table_is_timed_by_its_terms(harness, players):
    alice, bob, carol = players
    clock = clock_of(harness)
    harness.script_dice((3, 1), (6, 4))
    code = await open_table(alice, "3 timer 30", match="a 3 point match (30 s a turn)")
    await bob.send(f"sit {code}")
    await bob.expect_lines("** You are now playing a 3 point match with alice")
    await alice.skip_until("It's your turn to move.")
    await alice.expect_lines("Clock: alice has 30 seconds to move.", re.compile(r"board:.*"))
    await carol.expect_lines("alice and bob start a 3 point match.")
    await ask(carol, "show games", "List of games:",
              "alice            -  bob              (3 point match 0-0; 30 s a turn)")
    clock.advance(20)
    await alice.expect_lines("You have 10 seconds left to move.")
    clock.advance(10)
    await alice.expect_lines("Your time to move is up: the server plays for you (1 of 3).")
    await bob.skip_until("alice's time to move is up: the server plays for alice (1 of 3).")
    await bob.skip_until("Clock: bob has 30 seconds to roll or double.")
    await bob.expect_lines(re.compile(r"board:.*"))  # after its clock
