"""The lobby commands of the server core, over the wire, with FIBS's exact texts."""
from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import DATE_LINE

TOGGLE_ROWS = ["allowpip        YES", "autoboard       YES", "autodouble      NO",
               "automove        NO", "bell            NO", "crawford        YES",
               "double          YES", "greedy          NO", "moreboards      NO",
               "moves           NO", "notify          YES", "ratings         NO",
               "ready           NO", "report          YES", "silent          NO",
               "telnet          YES", "wrap            NO"]


async def ask(client, line, *expected):
    """Send a command as a telnet user and check the whole reply up to the prompt."""
    await client.send(line)
    got = await client.expect_lines(*expected)
    await client.expect_prompt()
    return got


@pytest.fixture
async def alice(harness):
    """alice logged in by telnet; bob, carol and dave registered but offline."""
    for name in ("alice", "bob", "carol", "dave"):
        await harness.register(name)
    return await harness.login_telnet("alice")


async def test_toggle_lists_and_flips_settings(harness, alice):
    await ask(alice, "toggle", "The current settings are:", *TOGGLE_ROWS)
    await ask(alice, "to ready autoroll", "** You're now ready to invite or join someone.",
              "** You won't be asked if you want to double.")
    await ask(alice, "toggle moreb wrap tel",
              "** Will send rawboards after rolling.",
              "** Your terminal knows how to wrap long lines.",
              "** You use a client program and will receive extra 'newlines'.")
    await ask(alice, "toggle nonsense r", "** Don't know how to toggle nonsense",
              "** 'r' could mean ratings, ready or report.")
    for name, yes, no in [
        ("allowpip", "** You allow the use the server's 'pip' command.",
         "** You don't allow the use of the server's 'pip' command."),
        ("autoboard", "** The board will be refreshed after every move.",
         "** The board won't be refreshed after every move."),
        ("autodouble", "** You agree that doublets during opening double the cube.",
         "** You don't agree that doublets during opening double the cube."),
        ("automove", "** Forced moves will be done automatically.",
         "** Forced moves won't be done automatically."),
        ("bell", "** Your terminal will ring the bell if someone talks to you or invites you",
         "** Your terminal won't ring the bell if someone talks to you or invites you"),
        ("crawford", "** You insist on playing with the Crawford rule.",
         "** You would like to play without using the Crawford rule."),
        ("greedy", "** Will use automatic greedy bearoffs.", "** Won't use automatic greedy bearoffs."),
        ("moves", "** You want a list of moves after this game.",
         "** You won't see a list of moves after this game."),
        ("notify", "** You'll be notified when new users log in.",
         "** You won't be notified when new users log in."),
        ("ratings", "** You'll see how the rating changes are calculated.",
         "** You won't see how the rating changes are calculated."),
        ("report", "** You will be informed about starting and ending matches.",
         "** You won't be informed about starting and ending matches."),
        ("silent", "** You won't hear what other players shout.",
         "** You will hear what other players shout."),
    ]:
        replies = await ask(alice, f"toggle {name}", re.compile(r"\*\* .*"))
        await ask(alice, f"toggle {name}", yes if replies[0] == no else no)


async def test_set_shows_checks_and_changes_variables(harness, alice):
    await ask(alice, "set", "Settings of variables:", "boardstyle: 2", "linelength: 0",
              "pagelength: 0", "redoubles:  none", "sortwho:    login", "timezone:   UTC")
    await ask(alice, "set boardstyle", "Value of 'boardstyle' is 2")
    await ask(alice, "set boardstyle 3", "Value of 'boardstyle' set to 3.")
    await ask(alice, "set boardstyle 4", "** Valid arguments are the numbers 1 to 3.")
    await ask(alice, "set linelength 80", "Value of 'linelength' set to 80.")
    await ask(alice, "set linelength 0", "Value of 'linelength' set to 0.")  # long lines below
    await ask(alice, "set pagelength 1000",
              "** Valid arguments are the numbers 0 to 999. Use 0 for no pagelength.")
    await ask(alice, "set redoubles unlimited", "Value of 'redoubles' set to 'unlimited'.")
    await ask(alice, "set redoubles 42", "Value of 'redoubles' set to 42.")
    await ask(alice, "set redoubles none", "Value of 'redoubles' set to 'none'.")
    await ask(alice, "set sortwho rating", "Value of 'sortwho' set to rating.")
    await ask(alice, "set sortwho height",
              "** Unknown value 'height'. Try 'login', 'name', 'rating' or 'rrating'.")
    await ask(alice, "set timezone europe/berlin", "Value of 'timezone' set to Europe/Berlin.")
    await ask(alice, "set timezone Mars/Olympus", re.compile(r"\*\* Can't find timezone 'Mars/Olympus'\. Try one of: .*"))
    await ask(alice, "set colour red", "** Invalid argument. Type 'help set'.")
    await ask(alice, "time", re.compile(r"[A-Z][a-z]+day, .* CE[S]?T   \( .* UTC \)"))


@pytest.mark.stored
async def test_settings_and_toggles_survive_a_restart(harness, alice):
    await ask(alice, "set boardstyle 1", "Value of 'boardstyle' set to 1.")
    await ask(alice, "toggle moreboards", "** Will send rawboards after rolling.")
    # Per-game toggles are back to their defaults at the next login (docs/PROTOCOL.md).
    await ask(alice, "toggle double", "** You won't be asked if you want to double.")
    await ask(alice, "toggle greedy", "** Will use automatic greedy bearoffs.")
    await ask(alice, "address alice@example.org", "Your email address is 'alice@example.org'.")
    await ask(alice, "password secret:newpass:newpass", "** Your password has been changed.")
    await harness.restart()
    alice = await harness.login_telnet("alice", "newpass")
    await ask(alice, "set boardstyle", "Value of 'boardstyle' is 1")
    await alice.send("toggle")
    rows = await alice.expect_lines("The current settings are:", *[re.compile(".*")] * 17)
    assert "moreboards      YES" in rows
    assert "double          YES" in rows and "greedy          NO" in rows
    await alice.expect_prompt()
    await alice.send("whois alice")
    lines = await alice.skip_until("  Email address: alice@example.org")
    assert lines[0] == "Information about alice:"


async def test_password_command_errors(harness, alice):
    await ask(alice, "password wrong:abcd:abcd", "** Sorry, that is not your password.")
    await ask(alice, "password secret:abcd:abce", "** The two new passwords were not identical.")
    await ask(alice, "password secret:abc:abc", "** Minimal password length is 4 characters.")
    await ask(alice, "password secret", "** Usage: password <old>:<new>:<new>")


async def test_address_rejects_non_addresses(harness, alice):
    await ask(alice, "address foo", "** 'foo' is not an email address.")


async def test_who_variants_in_telnet_and_clip(harness, alice):
    bob = await harness.login_clip("bob", client_name="MatchDog")
    await alice.expect_lines("bob logs in.")
    await ask(alice, "who", "No  S  username        rating  exp login    idle  from",
              re.compile(r" 1  -  alice          1500\.00    0 \d\d:\d\d    0:\d\d  127\.0\.0\.1"),
              re.compile(r" 2  -  bob            1500\.00    0 \d\d:\d\d    0:\d\d  127\.0\.0\.1"))
    await ask(alice, "who count", "There are 2 users logged in.")
    await ask(alice, "w bo", "No  S  username        rating  exp login    idle  from",
              re.compile(r" 1  -  bob .*"))
    await ask(alice, "who nobody", "** There is no one called nobody.")
    await ask(alice, "who ready", "No  S  username        rating  exp login    idle  from")
    await ask(alice, "who from 127.0", "No  S  username        rating  exp login    idle  from",
              re.compile(r" 1  -  alice .*"), re.compile(r" 2  -  bob .*"))
    await ask(alice, "toggle ready", "** You're now ready to invite or join someone.")
    await bob.expect_lines(re.compile(r"5 alice - - 1 0 1500\.00 0 \d+ \d+ 127\.0\.0\.1 - -"), "6")
    await ask(alice, "who ready", "No  S  username        rating  exp login    idle  from",
              re.compile(r" 1  R  alice .*"))
    await ask(alice, "rawwho bob", re.compile(r"5 bob - - 0 0 1500\.00 0 \d+ \d+ 127\.0\.0\.1 MatchDog -"), "6")
    await bob.send("who")
    await bob.expect_lines(re.compile(r"5 alice - - 1 0 .*"), re.compile(r"5 bob - - 0 0 .*"), "6")
    await bob.send("away having lunch")
    await bob.expect_lines("You're away. Please type 'back'",
                           re.compile(r"5 bob - - 0 1 .*"), "6")
    await ask(alice, "who away", "No  S  username        rating  exp login    idle  from",
              re.compile(r" 1  A  bob .*"))
    await ask(alice, "away", "The following users are away:", "bob: having lunch")
    await bob.send("back")
    await bob.expect_lines("Welcome back.", re.compile(r"5 bob - - 0 0 .*"), "6")
    await bob.send("back")
    await bob.expect_lines("** You're not away.")
    await ask(alice, "away", "None of the users is away.")


@pytest.mark.stored
async def test_whois_online_offline_and_unknown(harness, alice):
    await ask(alice, "whois bob", "Information about bob:",
              re.compile(r"  Last login: " + DATE_LINE.pattern + " from 127\\.0\\.0\\.1"),
              re.compile(r"  Last logout: " + DATE_LINE.pattern), "  Not logged in right now.",
              "  Rating: 1500.00 Experience: 0", "  No email address.")
    await ask(alice, "whois al", "Information about alice:",
              re.compile(r"  Last login: " + DATE_LINE.pattern + " from 127\\.0\\.0\\.1"),
              re.compile(r"  Still logged in\. 0:\d\d minutes idle\."),
              "  Rating: 1500.00 Experience: 0", "  No email address.")
    await ask(alice, "whois nobody", "No information found on user nobody.")
    await ask(alice, "whois", "** whois who?")


@pytest.mark.stored
async def test_ratings_lists_only_experienced_players(harness, alice):
    store = harness.server.store
    for name, rating, experience in [("bob", 1612.5, 120), ("carol", 1701.25, 400),
                                     ("dave", 1800.0, 50)]:
        await store.update_account(name, rating=rating, experience=experience)
    await store.update_account("alice", rating=1650.0, experience=60)
    await ask(alice, "ratings", " rank name            rating    Experience",
              "    1 carol           1701.25     400", "*   2 alice           1650.00     60",
              "    3 bob             1612.50     120")
    await ask(alice, "ratings bob", " rank name            rating    Experience",
              "    3 bob             1612.50     120")
    await ask(alice, "ratings from 2 to 2", " rank name            rating    Experience",
              "*   2 alice           1650.00     60")
    await ask(alice, "ratings dave",
              "** dave has no rating rank yet (experience 50, ranked above 50).")
    await ask(alice, "ratings nobody", "No information found on user nobody.")
    await ask(alice, "ratings from x", "** Usage: ratings [name] [from N] [to M]")


async def test_show_time_motd_help(harness, alice):
    await ask(alice, "show games", "List of games:")
    await ask(alice, "show saved", "no saved games.")
    await ask(alice, "show savedcount alice", "alice has no saved games.")
    await ask(alice, "show watchers", "Watching players:", "Nobody is watching.")
    await ask(alice, "show max", "max_logins is 1")
    await ask(alice, "show", "** Don't know how to show nothing. Try 'games', 'saved', "
              "'savedcount', 'watchers', 'max' or 'tables'.")
    await ask(alice, "date", DATE_LINE)
    await alice.send("motd")
    await alice.expect_lines(re.compile(r"\+-+\+"))
    await alice.skip_until(re.compile(r"\+-+\+"))
    await alice.expect_prompt()
    await alice.send("help")
    lines = await alice.skip_until(re.compile(r"Commands may be abbreviated.*"))
    assert lines[0].startswith("Commands (type 'help <command>'")
    await alice.expect_prompt()
    await alice.send("help beginner")
    assert (await alice.read_line()) == "Getting started:"
    await alice.skip_until(re.compile(r"  6\. 'bye' logs out\..*"))
    await alice.expect_lines("Each command has its own help: 'help invite', 'help move', "
                             "'help toggle', ...")
    await alice.expect_prompt()
    await ask(alice, "help xyzzy", "** No help on 'xyzzy'. Type 'help' for the list of commands.")


# The topics of FIBS's own help index (`help` on FIBS), all 75.
FIBS_HELP_INDEX = (
    "about accept address autologin average away back beaver beginner board boardstyle bye "
    "client cls commands complaints countries crawford date dicetest double erase formula gag "
    "help hostnames invite join kibitz last leave look man message motd move names off "
    "oldboard oldmoves otter panic password pip raccoon ratings rawboard rawwho redouble "
    "reject resign roll rules save say set shout show shutdown sortwho stat tell time "
    "timezones tinyfugue toggle unwatch version watch wave where whisper who whois !!").split()


async def test_every_topic_of_fibs_help_index_has_help(harness, alice):
    assert len(FIBS_HELP_INDEX) == 75
    for word in FIBS_HELP_INDEX:
        await alice.send(f"help {word}")
        lines = await alice.lines_until_prompt()
        assert lines and not lines[0].startswith("** "), (word, lines)
        assert all(len(line) <= 79 for line in lines), (word, lines)


async def test_motd_in_clip_mode_is_wrapped_in_3_and_4(harness):
    await harness.register("bob")
    bob = await harness.login_clip("bob")
    await bob.send("motd")
    await bob.expect_lines("3")
    await bob.skip_until("4")
    await bob.expect_silence()


async def test_unknown_commands_abbreviations_and_repeat(harness, alice):
    await ask(alice, "fizzbuzz", "** Unknown command: 'fizzbuzz'")
    await ask(alice, "wh", "** You're not watching or playing.")  # `wh` = whisper
    await ask(alice, "!!", "** No previous command.")
    await ask(alice, "tim", DATE_LINE)
    await ask(alice, "!!", DATE_LINE)
    await ask(alice, "sh max", "max_logins is 1")


async def test_bye_and_its_aliases(harness, alice):
    await alice.send("bye")
    rest = await alice.expect_closed()
    assert rest.startswith(b"           Goodbye.\r\n")
    for alias in ("quit", "logout", "adios", "exit", "ciao", "tschoe", "end"):
        client = await harness.login_telnet("alice")
        await client.send(alias)
        assert (await client.expect_closed()).startswith(b"           Goodbye.\r\n")


async def test_wave_twice_logs_out(harness, alice):
    bob = await harness.login_telnet("bob")
    await alice.expect_lines("bob logs in.")
    await ask(alice, "wave", "You wave goodbye.")
    await bob.expect_lines("alice waves goodbye.")
    await alice.send("wave")
    await alice.expect_lines("You wave goodbye again and log out.")
    await alice.expect_closed()
    await bob.expect_lines("alice waves goodbye again.", "alice logs out.")
