"""The options the sub-commands use come before or after the sub-command alike; the
start-up line."""
import asyncio
import json
import signal
import sys

import pytest

from fibs_server.__main__ import parse_arguments
from fibs_server.store import DEFAULT_DATABASE_URL
from tests.waiting import DEADLINE

URL = "sqlite:////var/lib/fibs/fibs.db"
SUB_COMMANDS = [["db", "upgrade"], ["db", "backup", "copy.db"], ["export-match", "7"],
                ["admin", "grant", "alice"]]


@pytest.mark.parametrize("sub_command", SUB_COMMANDS)
def test_options_before_or_after_the_sub_command(sub_command):
    options = ["--database-url", URL, "--log-level", "DEBUG", "--log-format", "json"]
    for argv in (options + sub_command, sub_command + options):
        arguments = parse_arguments(argv)
        assert (arguments.database_url, arguments.log_level, arguments.log_format) == (
            URL, "DEBUG", "json"), argv


@pytest.mark.parametrize("sub_command", SUB_COMMANDS)
def test_an_option_not_repeated_after_the_sub_command_keeps_its_value(sub_command, monkeypatch):
    for variable in ("FIBS_DATABASE_URL", "FIBS_LOG_LEVEL", "FIBS_LOG_FORMAT"):
        monkeypatch.delenv(variable, raising=False)
    arguments = parse_arguments(["--database-url", URL, "--log-format", "json", *sub_command,
                                 "--log-level", "DEBUG"])
    assert (arguments.database_url, arguments.log_level, arguments.log_format) == (
        URL, "DEBUG", "json")
    arguments = parse_arguments(sub_command)
    assert (arguments.database_url, arguments.log_level, arguments.log_format) == (
        DEFAULT_DATABASE_URL, "INFO", "text")


async def test_the_start_up_line_is_printed_once(tmp_path):
    """On stdout (scripts wait for it), and not a second time in the log at level INFO."""
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "fibs_server", "--host", "127.0.0.1", "--port", "0",
        "--http-port", "0",
        "--database-url", f"sqlite:///{tmp_path / 'fibs.db'}", "--bcrypt-rounds", "4",
        "--log-level", "INFO", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    first = await asyncio.wait_for(server.stdout.readline(), DEADLINE)
    assert first.startswith(b"fibs_server listening on 127.0.0.1:")
    server.send_signal(signal.SIGTERM)
    rest, log = await asyncio.wait_for(server.communicate(), DEADLINE)
    assert (first + rest + log).count(b"listening on") == 1


async def test_every_log_line_is_json_when_asked_even_from_a_killed_servers_workers(tmp_path):
    """`--log-format json` with the bots on, the server killed outright (SIGKILL): its workers
    (ended by the kernel) and multiprocessing's resource tracker (which cleans up after it)
    write nothing that is not a JSON object, up to the last of them to close the pipe."""
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "fibs_server", "--host", "127.0.0.1", "--port", "0",
        "--http-port", "0", "--database-url", f"sqlite:///{tmp_path / 'fibs.db'}",
        "--bcrypt-rounds", "4", "--bots", "on", "--log-level", "INFO", "--log-format", "json",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    first = await asyncio.wait_for(server.stdout.readline(), DEADLINE)
    assert first.startswith(b"fibs_server listening on 127.0.0.1:")
    server.kill()
    # Both pipes read to their end (every writer gone), so that none is left open for the
    # test's event loop to close after it has ended.
    _, log = await asyncio.wait_for(server.communicate(), DEADLINE)
    lines = log.decode().splitlines()
    assert lines and all(json.loads(line)["level"] for line in lines), log.decode()


def test_the_clock_options_default_to_a_minute_of_grace_and_no_takeover(monkeypatch):
    monkeypatch.delenv("FIBS_TAKEOVER_SECONDS", raising=False)
    monkeypatch.delenv("FIBS_GRACE_SECONDS", raising=False)
    arguments = parse_arguments([])
    assert (arguments.grace_seconds, arguments.takeover_seconds) == (60, None)
    monkeypatch.setenv("FIBS_TAKEOVER_SECONDS", "45")
    arguments = parse_arguments(["--grace-seconds", "90"])
    assert (arguments.grace_seconds, arguments.takeover_seconds) == (90, 45)
    with pytest.raises(SystemExit):
        parse_arguments(["--takeover-seconds", "0"])


def test_the_bots_time_budget_is_two_seconds_unless_set(monkeypatch):
    monkeypatch.delenv("FIBS_BOT_TIME_BUDGET", raising=False)
    assert parse_arguments([]).bot_time_budget == 2.0
    monkeypatch.setenv("FIBS_BOT_TIME_BUDGET", "0.5")
    assert parse_arguments([]).bot_time_budget == 0.5
    assert parse_arguments(["--bot-time-budget", "3"]).bot_time_budget == 3.0
