"""Moderation over the wire: kick, ban/unban, mute/unmute, erase, motd set, shutdown; each
logged with its administrator; none of them exists for anyone else."""
from __future__ import annotations

import re

import pytest

from fibs_server.__main__ import set_admin
from tests.e2e.conftest import DATE_LINE
from tests.e2e.test_chat import TunedHarness
from tests.e2e.test_lobby_commands import ask

BANNED_UNTIL = re.compile(r"\*\* You are banned from this server until [A-Z][a-z]{2} "
                          r"[A-Z][a-z]{2} \d\d \d\d:\d\d:\d\d \d{4} UTC\.")
ADMIN_COMMANDS = ("kick", "ban", "unban", "mute", "unmute", "erase", "shutdown")


async def register_with_admin(harness, *names: str) -> None:
    """warden (an administrator, made by the CLI's function) and `names`."""
    for name in ("warden", *names):
        await harness.register(name)
    assert await set_admin(harness.config.database_url, "warden", True) == 0


async def actions_logged(harness) -> list[tuple[str, str, str]]:
    log = await harness.server.store.moderation_log(20)
    assert all(entry.admin == "warden" for entry in log)
    return [(entry.action, entry.target, entry.detail) for entry in reversed(log)]


async def refused_login(harness, name: str, refusal: str | re.Pattern) -> None:
    client = await harness.connect(name)
    await client.send(name)
    await client.expect_prompt("password: ")
    await client.send("secret")
    await client.expect_lines("", refusal)
    await client.expect_closed()


@pytest.fixture
async def root(harness):
    await register_with_admin(harness, "bob", "carol", "dave")
    return await harness.login_telnet("warden")


async def test_admin_commands_look_unknown_to_everyone_else(harness, root):
    bob = await harness.login_telnet("bob")
    await root.skip_until("bob logs in.")
    for command in ADMIN_COMMANDS:
        await ask(bob, f"{command} warden", f"** Unknown command: '{command} warden'")
    await ask(bob, "motd set Hacked", *harness.server.lobby.motd)  # plain `motd`
    # An administrator's abbreviations stay the users' commands: `ki` is kibitz, not kick.
    await ask(root, "ki hello", "** You're not watching or playing.")
    await ask(root, "shout", "** Shout what?")
    await ask(root, "kick", "** Usage: kick <name>")
    assert await actions_logged(harness) == []
    assert await set_admin(harness.config.database_url, "nobody", True) == 1


async def test_kick_logs_a_user_out(harness, root):
    bob = await harness.login_clip("bob")
    await root.skip_until("bob logs in.")
    await ask(root, "kick bob", "bob logs out.", "** bob was kicked out.")
    await bob.skip_until("** You were kicked out by an administrator.")
    await bob.expect_closed()
    await ask(root, "kick bob", "** There is no one called bob.")
    await ask(root, "kick nobody", "** Don't know user nobody")
    await ask(root, "kick WARDEN", "** You can't do that to yourself.")
    assert await actions_logged(harness) == [("kick", "bob", "")]


@pytest.mark.stored
async def test_ban_refuses_the_account_and_its_address_until_unbanned(harness, root):
    bob = await harness.login_telnet("bob")
    await root.skip_until("bob logs in.")
    await ask(root, "ban bob 2h", "bob logs out.", re.compile(
        r"\*\* bob and the address 127\.0\.0\.1 are banned until .* UTC\."))
    await bob.expect_lines(BANNED_UNTIL)
    await bob.expect_closed()
    await refused_login(harness, "bob", BANNED_UNTIL)
    # Every test client connects from 127.0.0.1: carol is caught by the address ban...
    await refused_login(harness, "carol", BANNED_UNTIL)
    # ...but an administrator is never locked out.
    root = await harness.login_telnet("warden")  # (the new login replaces the old one)
    await ask(root, "ban bob 3x", "** Usage: ban <name> [<number>m|h|d|w]")
    await ask(root, "ban", "** Usage: ban <name> [<number>m|h|d|w]")
    await ask(root, "unban bob", "** bob is no longer banned.")
    await ask(root, "unban bob", "** bob is not banned.")
    carol = await harness.login_telnet("carol")
    await root.skip_until("carol logs in.")
    # dave is offline: the address is the one he last used (here: registered from).
    await ask(root, "ban dave", "** dave and the address 127.0.0.1 are banned for good.")
    await refused_login(harness, "dave", "** You are banned from this server.")
    await ask(carol, "who count", "There are 2 users logged in.")
    logged = await actions_logged(harness)
    assert [(action, target) for action, target, _ in logged] == [
        ("ban", "bob"), ("unban", "bob"), ("unban", "bob"), ("ban", "dave")]
    assert logged[0][2].startswith("address 127.0.0.1 until ")
    assert logged[3][2] == "address 127.0.0.1 for good"


@pytest.mark.stored
async def test_muted_shouts_reach_nobody_until_unmuted(harness, root):
    bob = await harness.login_telnet("bob")
    await root.skip_until("bob logs in.")
    # (A mute given while bob's login still reads his stored one: tests/lobby/test_moderation.py.)
    await ask(root, "mute bob", "** bob is muted: nobody hears their shouts.")
    await ask(bob, "shout hello?", "** You shout: hello?", "** 1 user heard you.")
    await root.expect_silence()
    await bob.send("bye")
    await bob.expect_closed()
    bob = await harness.login_clip("bob")  # the mute is stored
    await root.skip_until("bob logs in.")
    await bob.send("shout still muted?")
    await bob.expect_lines("17 still muted?", "** 1 user heard you.")
    await root.expect_silence()
    await ask(root, "unmute bob", "** bob is no longer muted.")
    await ask(root, "unmute bob", "** bob is not muted.")
    await bob.send("shout heard now")
    await bob.skip_until("17 heard now")
    await root.expect_lines("bob shouts: heard now")
    assert [a for a, _, _ in await actions_logged(harness)] == ["mute", "unmute", "unmute"]


@pytest.mark.stored
async def test_erase_deletes_an_account_even_while_it_is_online(harness, root):
    bob = await harness.login_telnet("bob")
    await root.skip_until("bob logs in.")
    await ask(root, "erase bob", "bob logs out.", "** The account bob was erased.")
    await bob.expect_lines("** Your account was erased by an administrator.")
    await bob.expect_closed()
    await ask(root, "whois bob", "No information found on user bob.")
    await ask(root, "erase bob", "** Don't know user bob")
    await ask(root, "erase carol", "** The account carol was erased.")  # offline
    client = await harness.connect("bob")
    await client.send("login testclient 1008 bob secret")
    await client.expect_lines("")
    await client.expect_prompt("login: ")
    assert await actions_logged(harness) == [("erase", "bob", ""), ("erase", "carol", "")]


@pytest.mark.stored
async def test_motd_set_is_kept_across_a_restart(harness, root):
    await ask(root, "motd set  Tournament tonight at 20:00 UTC!",
              "** The message of the day was set.")
    await ask(root, "motd", "Tournament tonight at 20:00 UTC!")
    await ask(root, "motd set", "** Usage: motd set <text>")
    await harness.restart()
    bob = await harness.connect("bob")
    await bob.send("login testclient 1008 bob secret")
    await bob.skip_until("3")
    await bob.expect_lines("Tournament tonight at 20:00 UTC!", "4")
    assert await actions_logged(harness) == [("motd", "-", "Tournament tonight at 20:00 UTC!")]


@pytest.fixture
async def fast_harness(database_url):
    """Shutdown minutes of a fifth of a second."""
    harness = await TunedHarness(database_url, shutdown_minute=0.2).start()
    yield harness
    await harness.stop()


async def test_shutdown_counts_down_refuses_late_logins_and_stops(fast_harness):
    harness = fast_harness
    await register_with_admin(harness, "bob", "carol")
    root = await harness.login_telnet("warden")
    bob = await harness.login_clip("bob")
    await root.skip_until("bob logs in.")
    await ask(root, "shutdown 3",
              "** The server will shut down in 3 minutes. Running matches will be saved.")
    await bob.skip_until(
        "** The server will shut down in 3 minutes. Running matches will be saved.")
    for minutes in ("2 minutes", "1 minute"):
        line = f"** The server will shut down in {minutes}. Running matches will be saved."
        await root.expect_lines(line)
        await bob.expect_lines(line)
    await refused_login(harness, "carol", "** The server is shutting down. Please try again later.")
    await harness.server.lobby.stop_requested.wait()
    server, harness.server = harness.server, None
    await server.stop()  # what `serve` does when the event is set
    assert b"** The server is shutting down.\r\n" in await bob.expect_closed()


async def test_shutdown_can_be_cancelled(fast_harness):
    harness = fast_harness
    await register_with_admin(harness, "bob")
    root = await harness.login_telnet("warden")
    await ask(root, "shutdown soon", "** Usage: shutdown <minutes>|cancel")
    await ask(root, "shutdown cancel", "** No shutdown is under way.")
    await ask(root, "shutdown 30",
              "** The server will shut down in 30 minutes. Running matches will be saved.")
    await ask(root, "shutdown 5", "** A shutdown is already under way. 'shutdown cancel' stops it.")
    await harness.login_telnet("bob")  # 30 minutes away: logins are still welcome
    await root.skip_until("bob logs in.")
    await ask(root, "shutdown cancel", "** The shutdown was cancelled.")
    assert not harness.server.lobby.stop_requested.is_set()
    assert [d for _, _, d in await actions_logged(harness)] == ["in 30 minutes", "cancelled"]
    await ask(root, "time", DATE_LINE)
