"""Connecting, registering and the three ways of logging in."""
from __future__ import annotations

import asyncio
import re

import pytest

from fibs_server.lobby.presence import who_list as who_list_module
from tests.e2e.conftest import DATE_LINE
from tests.waiting import until

WILL_ECHO, WONT_ECHO = b"\xff\xfb\x01", b"\xff\xfc\x01"


async def test_banner_ends_with_house_rule_date_and_login_prompt(harness):
    from tests.e2e.client import FibsClient
    client = await FibsClient().connect(harness.server.port)
    harness.clients.append(client)
    before_date = await client.skip_until(DATE_LINE)
    assert "  One account per person only!" in before_date
    await client.expect_prompt("login: ")
    await client.expect_silence()


@pytest.mark.stored
async def test_registration_dialogue_and_its_errors(harness):
    await harness.register("taken")
    client = await harness.connect()
    await client.send("guest")
    await client.expect_lines(
        "Welcome to FIBS. You just logged in as guest.",
        "Please register before using this server:",
        "",
        "Type 'name username' where name is the word 'name' and ",
        "username is the login name you want to use.",
        "The username may not contain blanks ' ' or colons ':'.",
        "The system will then ask you for your password twice.",
        "Please make sure that you don't forget your password. All",
        "passwords are encrypted before they are saved. If you forget",
        "your password there is no way to find out what it was.",
        "Please type 'bye' if you don't want to register now.",
        "",
        "ONE USERNAME PER PERSON ONLY!!!")
    await client.expect_prompt()
    for wanted, reply in [
        ("bad1", "** Your name may only contain letters and the underscore character _ ."),
        ("a" * 21, "** Please use a name with at most 20 characters."),
        ("ab", "** Please use a name with at least 3 characters."),
        ("TAKEN", "** Please use another name. 'TAKEN' is already used by someone else."),
        ("guest", "** Please use another name. 'guest' is already used by someone else."),
        # visitors' names: `guest_` and letters
        ("Guest_abcde", "** Please use another name. 'Guest_abcde' is already used by someone else."),
        # this server runs without its bots: their names are kept for them all the same
        ("bot_expert", "** Please use another name. 'bot_expert' is already used by someone else."),
    ]:
        await client.send(f"name {wanted}")
        await client.expect_lines(reply)
        await client.expect_prompt()
    await client.send("name new_user")
    await client.expect_lines(
        "Your name will be new_user",
        "Type in no password and hit Enter/Return if you want to change it now.")
    await client.expect_prompt("Please give your password: ")
    assert client.telnet_commands.endswith(WILL_ECHO)
    await client.send("abc")
    await client.expect_lines("", "Minimal password length is 4 characters.")
    await client.expect_prompt("Please give your password: ")
    await client.send("ab:cd")
    await client.expect_lines("", "Your password may not contain ':'")
    await client.expect_prompt("Please give your password: ")
    await client.send("secret")
    await client.expect_lines("")
    await client.expect_prompt("Please retype your password: ")
    await client.send("other")
    await client.expect_lines("")
    await client.expect_prompt(
        "** The two passwords were not identical. Please give them again. Password: ")
    await client.send("secret")
    await client.expect_lines("")
    await client.expect_prompt("Please retype your password: ")
    await client.send("secret")
    await client.expect_lines("", "You are registered.", "Type 'help beginner' to get started.",
                              "** User new_user authenticated.")
    assert client.telnet_commands.endswith(WONT_ECHO)
    await client.skip_until(re.compile(r"\+-+\+"))
    await client.skip_until(re.compile(r"\+-+\+"))
    await client.expect_prompt()


async def test_empty_password_goes_back_to_choosing_a_name(harness):
    client = await harness.connect()
    await client.send("guest")
    await client.skip_until("ONE USERNAME PER PERSON ONLY!!!")
    await client.expect_prompt()
    await client.send("name someone")
    await client.skip_until("Type in no password and hit Enter/Return if you want to change it now.")
    await client.expect_prompt("Please give your password: ")
    await client.send("")
    await client.expect_lines("", "** No password given. Please choose a new name")
    await client.expect_prompt()
    await client.send("hello")  # anything but name/bye shows the guest text again
    await client.expect_lines("Welcome to FIBS. You just logged in as guest.")


@pytest.mark.stored
async def test_telnet_login_shows_last_login_on_the_second_time(harness):
    await harness.register("alice")
    client = await harness.connect()
    await client.send("alice")
    await client.expect_prompt("password: ")
    assert client.telnet_commands.endswith(WILL_ECHO)
    await client.send("secret")
    await client.expect_lines("", "** User alice authenticated.",
                              re.compile(r"\*\* Last login: " + DATE_LINE.pattern +
                                         r" from 127\.0\.0\.1"))
    assert client.telnet_commands.endswith(WONT_ECHO)


async def test_wrong_password_and_unknown_user_answer_login_again(harness):
    await harness.register("alice")
    client = await harness.connect()
    await client.send("alice")
    await client.expect_prompt("password: ")
    await client.send("wrong")
    await client.expect_lines("")
    await client.expect_prompt("login: ")
    await client.send("nobody")
    await client.expect_prompt("password: ")
    await client.send("secret")
    await client.expect_lines("")
    await client.expect_prompt("login: ")
    await client.send("ALICE")  # names are case-sensitive at login
    await client.expect_prompt("password: ")
    await client.send("secret")
    await client.expect_lines("")
    await client.expect_prompt("login: ")
    await client.send("login client 1008 alice wrong")
    await client.expect_lines("")
    await client.expect_prompt("login: ")


async def test_clip_login_sequence_field_by_field(harness):
    await harness.register("alice")
    await harness.register("bob")
    bob = await harness.login_clip("bob", client_name="MacFIBS")
    client = await harness.connect()
    await client.send("login Gibbon_0.2.0 1008 alice secret")
    assert await client.read_line() == ""  # the `1` line stands on its own line
    welcome = (await client.read_line()).split(" ")
    assert welcome[:2] == ["1", "alice"] and welcome[2].isdigit() and welcome[3] == "127.0.0.1"
    own = (await client.read_line()).split(" ")
    assert own == ["2", "alice", "1", "1", "0", "0", "0", "0", "1", "1", "0", "0", "0", "0",
                   "1", "1500.00", "0", "0", "0", "1", "0", "UTC"]  # redoubles: a number
    await client.expect_lines("3")
    motd = await client.skip_until("4")
    assert motd and all(line.startswith(("+", "|")) for line in motd)
    await client.expect_lines("")
    who = [(await client.read_line()).split(" ") for _ in range(2)]
    assert [w[1] for w in who] == ["bob", "alice"]
    for fields in who:
        assert len(fields) == 13 and fields[0] == "5"
        assert fields[2:6] == ["-", "-", "0", "0"] and fields[6] == "1500.00"
        assert fields[7] == "0" and fields[8].isdigit() and fields[9].isdigit()
        assert fields[10] == "127.0.0.1" and fields[12] == "-"
    assert who[0][11] == "MacFIBS" and who[1][11] == "Gibbon_0.2.0"
    await client.expect_lines("6")
    await client.expect_silence()
    # bob (notify on) hears of the login, then gets alice's who-info line
    await bob.expect_lines("7 alice alice logs in.", re.compile(r"5 alice - - 0 0 1500\.00 0 \d+ \d+ 127\.0\.0\.1 Gibbon_0\.2\.0 -"), "6")


async def test_connect_login_has_no_prompts(harness):
    await harness.register("alice")
    client = await harness.connect()
    await client.send("connect alice secret")
    await client.expect_lines("** User alice authenticated.")
    await client.skip_until(re.compile(r"\+-+\+"))
    await client.skip_until(re.compile(r"\+-+\+"))
    await client.send("time")
    await client.expect_lines(DATE_LINE)
    await client.expect_silence()


async def test_second_login_warns_and_closes_the_old_connection(harness):
    await harness.register("alice")
    old = await harness.login_clip("alice")
    new = await harness.connect()
    await new.send("login client 1008 alice secret")
    await new.expect_lines("", "** Warning: You are already logged in.")
    await old.expect_closed()
    await new.skip_until("6")
    await new.send("who count")
    await new.expect_lines("There is 1 user logged in.")


async def test_logout_notices_respect_notify(harness):
    for name in ("alice", "bob", "carol"):
        await harness.register(name)
    carol = await harness.login_telnet("carol")
    await carol.send("toggle notify")
    await carol.expect_lines("** You won't be notified when new users log in.")
    await carol.expect_prompt()
    bob = await harness.login_clip("bob")
    alice = await harness.login_clip("alice")
    await bob.expect_lines("7 alice alice logs in.", re.compile(r"5 alice .*"), "6")
    await alice.send("bye")
    await alice.expect_closed()
    await bob.expect_lines("8 alice alice logs out.")
    await carol.expect_silence()
    dropper = await harness.login_clip("alice")
    await bob.skip_until("6")
    await dropper.close()
    await bob.expect_lines("8 alice alice drops connection.")


async def test_a_burst_of_logins_and_drops_reads_as_before_to_a_clip_client(harness):
    """Notices told together (lobby/presence/fan_out.py) are FIBS's lines, each user's
    7, 5 and 6 together as one notice at a time sent them, whatever the order of users."""
    names = [f"burst{n}" for n in range(8)]
    for name in ("watcher", *names):
        await harness.register(name)
    watcher = await harness.login_clip("watcher")
    arrivals = await asyncio.gather(*(harness.login_clip(name) for name in names))
    lines = [await watcher.read_line() for _ in range(3 * len(names))]
    seen = []
    for index in range(0, len(lines), 3):
        seven, five, six = lines[index:index + 3]
        name = seven.split(" ")[1]
        assert seven == f"7 {name} {name} logs in."
        assert re.fullmatch(rf"5 {name} - - 0 0 1500\.00 0 \d+ \d+ 127\.0\.0\.1 testclient -",
                            five), five
        assert six == "6"
        seen.append(name)
    assert sorted(seen) == names
    await asyncio.gather(*(client.close() for client in arrivals))
    drops = [await watcher.read_line() for _ in names]
    assert sorted(drops) == sorted(f"8 {name} {name} drops connection." for name in names)
    await watcher.expect_silence()


async def who_list_at_login(harness, name: str) -> dict[str, list[str]]:
    """The CLIP who-list `name` gets at login: each user's 5 line split into fields."""
    client = await harness.connect()
    await client.send(f"login testclient 1008 {name} secret")
    await client.skip_until("4")  # the end of the MOTD block
    await client.expect_lines("")
    lines = await client.skip_until("6")
    return {fields[1]: fields for fields in (line.split(" ") for line in lines)}


async def test_the_login_who_list_is_reused_but_never_stale(harness, monkeypatch):
    for name in ("alice", "bob", "carol", "dave", "erin"):
        await harness.register(name)
    lobby = harness.server.lobby
    monkeypatch.setattr(who_list_module, "WHO_IDLE_REFRESH", 3600)  # however slow this machine
    alice = await harness.login_clip("alice")
    assert list(await who_list_at_login(harness, "bob")) == ["alice", "bob"]
    # The joined text is kept while no line changes.
    assert lobby.attendance.users.who_list.wire() is lobby.attendance.users.who_list.wire()
    assert list(await who_list_at_login(harness, "carol")) == ["alice", "bob", "carol"]
    # A changed line (alice ready and away) and a logout are never served from the old text.
    await alice.toggle_ready()
    await alice.send("away lunch")
    await alice.skip_until("6")
    lobby.attendance.users.online["bob"].connection.close()
    await until(lambda: "bob" not in lobby.attendance.users.online, "bob's logout")
    who = await who_list_at_login(harness, "dave")
    assert list(who) == ["alice", "carol", "dave"]
    assert who["alice"][4:6] == ["1", "1"]  # ready, away
    # Idle seconds (field 8) may lag up to WHO_IDLE_REFRESH seconds; then every line is
    # formatted afresh. (alice idle for 2 s, as if the test had waited.)
    lobby.attendance.users.online["alice"].who.last_active -= 2
    assert (await who_list_at_login(harness, "erin"))["alice"][8] == "0"
    monkeypatch.setattr(who_list_module, "WHO_IDLE_REFRESH", 0)
    assert int((await who_list_at_login(harness, "bob"))["alice"][8]) >= 1
