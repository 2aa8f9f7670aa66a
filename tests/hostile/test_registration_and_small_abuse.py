"""Registration abuse and small holes: concurrent registrations, reserved
names, bcrypt's 72-byte limit and blanks in passwords, gagged invitations, an over-long line at a
password prompt, recorded failed-login names, and a fatal signal's traceback in the log."""
from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from fibs_server.lobby.limits.throttle import ACCOUNTS, AbuseLimits
from fibs_server.protocol import texts
from fibs_server.protocol.texts import TOO_MANY_REGISTRATIONS
from tests.e2e.client import FibsClient
from tests.e2e.conftest import give_password, send_guest_name
from tests.hostile.bystander import CEILING
from tests.waiting import until

PROCESS_DEADLINE = 2 * CEILING  # a server process starting, idling or ending, at load 30 too

LINE_TOO_LONG = "** Your line was too long and has been ignored."
IAC_WONT_ECHO = bytes([255, 252, 1])


async def as_guest(harness, name: str) -> FibsClient:
    """A connection at the guest prompt, its `name` sent and the answer not yet read."""
    client = await harness.connect(name)
    await send_guest_name(client, name)
    return client


async def test_concurrent_registrations_from_one_address_stop_at_the_limit(
        make_harness, tracebacks):
    harness = await make_harness(abuse=AbuseLimits(registrations_per_hour=3))
    names = [f"user{chr(97 + n)}" for n in range(8)]
    clients = [await as_guest(harness, name) for name in names]
    for client in clients:  # every one passed the `name` check before any registered
        await give_password(client, "secret")
    for client in clients:
        await client.send("secret")
    answers = []
    for client in clients:
        await client.expect_lines("")
        answers.append(await client.read_line())
    assert answers.count("You are registered.") == 3
    assert answers.count(TOO_MANY_REGISTRATIONS) == 5


@pytest.mark.parametrize("name", ["system", "Admin", "root", "who", "guest", "GUEST", "invite",
                                  "shout", "message", "kick", "help", "bye"])
async def test_reserved_names_and_command_names_are_refused(harness, name):
    client = await as_guest(harness, name)
    await client.expect_lines(f"** Please use another name. '{name}' is already used by "
                              "someone else.")
    await client.expect_prompt()


@pytest.mark.parametrize("password, refusal", [
    ("x" * 73, "Please use a password of at most 72 characters."),
    ("two words", "Your password may not contain blanks."),
])
async def test_passwords_bcrypt_cannot_keep_or_login_cannot_use_are_refused(
        harness, password, refusal):
    client = await as_guest(harness, "alice")
    await client.skip_until("Type in no password and hit Enter/Return if you want to change it now.")
    await client.expect_prompt("Please give your password: ")
    await client.send(password)
    await client.expect_lines("", refusal)
    await client.expect_prompt("Please give your password: ")


async def test_a_new_password_over_72_bytes_is_refused_by_the_password_command(harness):
    await harness.register("alice")
    alice = await harness.login_clip("alice")
    long = "y" * 73
    await alice.send(f"password secret:{long}:{long}")
    await alice.expect_lines("** Please use a password of at most 72 characters.")
    await alice.send("password secret:" + "y" * 72 + ":" + "y" * 72)
    await alice.expect_lines("** Your password has been changed.")


async def test_a_gagged_users_invitations_do_not_reach_the_gagger(harness):
    await harness.register("alice")
    await harness.register("bob")
    alice = await harness.login_clip("alice")
    bob = await harness.login_clip("bob")
    for client in (alice, bob):
        await client.toggle_ready()
    await alice.send("gag bob")
    await alice.skip_until("** You gag bob.")
    await bob.send("invite alice 3")
    await bob.skip_until("** You invited alice to a 3 point match.")
    await alice.send("time")  # anything bob's invitation put on alice's line came before this
    lines = await alice.skip_until(re.compile(r"\w+day, .*"))
    assert not [line for line in lines if "bob" in line], lines


async def test_an_over_long_line_at_the_password_prompt_restores_echo_and_prompts_again(
        harness):
    await harness.register("alice")
    client = await harness.connect("alice")
    await client.send("alice")
    await client.expect_prompt("password: ")
    client.telnet_commands = b""
    await client.send("p" * 10_000)
    await client.expect_lines("", LINE_TOO_LONG)
    await client.expect_prompt("login: ")
    assert client.telnet_commands == IAC_WONT_ECHO
    await client.send("alice")
    await client.expect_prompt("password: ")
    await client.send("secret")
    await client.skip_until("** User alice authenticated.")


async def test_an_over_long_line_at_a_new_password_prompt_restores_echo(harness):
    client = await as_guest(harness, "alice")
    await client.skip_until("Type in no password and hit Enter/Return if you want to change it now.")
    await client.expect_prompt("Please give your password: ")
    client.telnet_commands = b""
    await client.send("p" * 10_000)
    await client.expect_lines("", LINE_TOO_LONG)
    await client.expect_prompt()
    assert client.telnet_commands == IAC_WONT_ECHO


async def test_failed_login_names_are_recorded_cut_to_a_name_length(harness):
    client = await harness.connect()
    await client.send("login bot 1008 " + "a" * 4000 + " guess")
    await client.expect_lines("")
    await client.expect_prompt("login: ")
    recorded = list(harness.server.lobby.gatekeeper.login_throttle.counts._tallies[ACCOUNTS])
    assert recorded and max(len(key) for key in recorded) <= texts.MAX_NAME_LENGTH


def idle(pid: int, quiet_for: float = 0.2):
    """A condition for `until`: the process `pid` (all its threads) has used no CPU time for
    `quiet_for` seconds (Linux's /proc; elsewhere after `quiet_for` seconds)."""
    def cpu_ticks() -> int | None:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return int(fields[11]) + int(fields[12])  # utime and stime, in clock ticks

    last = [cpu_ticks(), time.monotonic()]

    def quiet() -> bool:
        ticks, now = cpu_ticks(), time.monotonic()
        if ticks != last[0]:
            last[:] = [ticks, now]
        return now - last[1] >= quiet_for
    return quiet


async def test_a_fatal_signal_leaves_a_traceback_in_the_log(tmp_path):
    server = subprocess.Popen(
        [sys.executable, "-m", "fibs_server", "--port", "0", "--http-port", "0",
         "--host", "127.0.0.1",
         "--bcrypt-rounds", "4", "--database-url", f"sqlite:///{tmp_path / 'fatal.db'}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ}, text=True)
    try:
        loop = asyncio.get_running_loop()
        started = await asyncio.wait_for(loop.run_in_executor(None, server.stdout.readline),
                                         PROCESS_DEADLINE)
        assert "listening" in started
        # faulthandler reads the other threads' frames without a lock: a dump taken while
        # one runs Python code (the store's writer while the bots come online) can crash
        # (SIGSEGV in CI once). The signal comes once the server is idle.
        await until(idle(server.pid), "the server idle (no CPU time for 0.2 s)",
                    timeout=PROCESS_DEADLINE)
        server.send_signal(signal.SIGBUS)
        # Its output ends once every process that holds its pipes (its workers too) has ended.
        _, log = await asyncio.wait_for(loop.run_in_executor(None, server.communicate),
                                        PROCESS_DEADLINE)
    finally:
        if server.poll() is None:
            server.kill()
    assert server.returncode == -signal.SIGBUS
    assert "Fatal Python error: Bus error" in log
    assert "File " in log  # the traceback: where each thread was
