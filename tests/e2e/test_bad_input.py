"""Malformed input gets a `** ...` reply or is ignored, and never disturbs anyone else."""
from __future__ import annotations

from fibs_server.net.telnet import MAX_LINE_BYTES
from fibs_server.protocol.texts import LINE_TOO_LONG
from tests.e2e.conftest import DATE_LINE, ServerHarness
from tests.e2e.test_lobby_commands import ask
from tests.waiting import until

IDLE_TIMEOUT = 3600.0  # seconds, on the lobby's fake clock


async def test_huge_lines_control_bytes_and_telnet_commands(harness):
    for name in ("alice", "bob"):
        await harness.register(name)
    alice = await harness.login_telnet("alice")
    bob = await harness.login_clip("bob")
    await alice.expect_lines("bob logs in.")
    # A line far over the limit, sent in pieces, is dropped whole with one reply.
    await alice.send_raw(b"x" * (MAX_LINE_BYTES * 3))
    await alice.send_raw(b"y" * MAX_LINE_BYTES + b"\r\n")
    await alice.expect_lines(LINE_TOO_LONG)
    await alice.expect_prompt()
    # Telnet negotiation inside a command is consumed; NUL and escape bytes are dropped;
    # 8-bit bytes become `?`.
    await alice.send_raw(b"ti\xff\xfb\x18me\x00\r\n")
    await alice.expect_lines(DATE_LINE)
    await alice.expect_prompt()
    assert alice.telnet_commands.endswith(b"\xff\xfe\x18")  # IAC DONT TTYPE: refused
    await ask(alice, "f\x1b[2Joo\xe9", "** Unknown command: 'f[2Joo?'")
    await alice.send("   \t ")  # a blank line is ignored
    await alice.expect_prompt()
    # bob, untouched, still gets quick replies.
    await bob.send("who count")
    await bob.skip_until("There are 2 users logged in.")


async def test_missing_and_extra_arguments(harness):
    await harness.register("alice")
    alice = await harness.login_telnet("alice")
    await ask(alice, "whois", "** whois who?")
    await ask(alice, "whois nobody at all", "No information found on user nobody.")
    await ask(alice, "who from", "** who from where?")
    await ask(alice, "set boardstyle three", "** Valid arguments are the numbers 1 to 3.")
    await ask(alice, "ratings a b", "** Usage: ratings [name] [from N] [to M]")
    await ask(alice, "address a b", "** 'a b' is not an email address.")
    await ask(alice, "help who extra", "who [ready|away|playing|count|from <host>|<name>]",
              "  Lists the users logged in. Column S: P playing, W watching, A away,",
              "  R ready to play, - otherwise. 'set sortwho' chooses the order.",
              "  Example: who ready", "  Short forms: w")


async def test_idle_connections_time_out(database_url):
    """On the lobby's clock, moved past the timeout: a real timeout short enough to wait for
    was outlasted by a login on a busy machine."""
    harness = ServerHarness(database_url, idle_timeout=IDLE_TIMEOUT)
    clock = harness.use_fake_clock()
    await harness.start()
    try:
        await harness.register("alice")
        alice = await harness.login_clip("alice")
        waiting = await harness.connect()  # idle at the login prompt, too
        assert harness.server is not None
        lobby = harness.server.lobby
        await until(lambda: len(lobby.attendance.users.connections) == 2, "both connected")
        # The lobby's first look at the idle ones (in a minute) sees both idle for longer.
        clock.advance(IDLE_TIMEOUT + 60)
        assert await alice.expect_closed() == b"Connection timed out.\r\n"
        assert await waiting.expect_closed() == b"Connection timed out.\r\n"
    finally:
        await harness.stop()


async def test_binary_garbage_at_the_login_prompt(harness):
    client = await harness.connect()
    await client.send_raw(bytes(range(256)) + b"\r\n")
    await client.expect_prompt("login: ")  # bytes 0-9, before the LF at 10: an empty line
    await client.expect_prompt("password: ")  # the rest: taken as a (strange) user name
    await client.send_raw(b"\x00\x01\x02\r\n")
    await client.expect_lines("")
    await client.expect_prompt("login: ")
