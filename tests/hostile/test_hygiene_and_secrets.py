"""Terminal escapes, control and 8-bit bytes never reach anyone's screen; passwords appear in
no log, reply or database column (only bcrypt hashes, cost 12 by default)."""
from __future__ import annotations

import dataclasses
import logging
import sqlite3

import bcrypt
import pytest

import fibs_server.__main__ as cli
from fibs_server.app import ServerConfig
from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.lobby.presence.session import wire_bytes
from fibs_server.net.limits import NetLimits
from fibs_server.net.telnet import clean_line
from tests.e2e.conftest import DATE_LINE

ESCAPES = b"\x1b[2J\x1b]0;owned\x07\x9b31m\x00\x08\x7f\xff\xfb\x01"


def test_outgoing_text_is_seven_bit_printable_whatever_slips_in():
    assert wire_bytes("ok\x1b[2J\x00\x7f\x9b\xe9\u2603\r\n\x07") == b"ok[2J???\r\n\x07"


async def test_escape_sequences_reach_nobody_through_user_text(harness, tracebacks):
    """Every command that echoes a user's text to others: away messages, the client name in
    who lines, email addresses in whois, unknown-command echoes, and chat where it exists."""
    for name in ("alice", "bob"):
        await harness.register(name)
    bob = await harness.login_clip("bob")
    evil = await harness.connect("evil")
    await evil.send_raw(b"login ev\x1b[31mil\x9b 1008 alice secret\r\n")
    await evil.skip_until("6")
    lines = [f"away brb{ESCAPES.decode('latin-1')}!", f"address a\x1b[5m@b.c{chr(0x9b)}",
             f"zork\x1b[2J{chr(0xe9)}", "tell bob hi\x1b[2J\x07", "shout hey\x1b]0;x\x07"]
    for line in lines:
        await evil.send_raw(line.encode("latin-1") + b"\r\n")
    await evil.send("time")
    echoed = "\n".join(await evil.skip_until(DATE_LINE))
    assert "** Unknown command: 'zork[2J?'" in echoed
    await bob.send("away")
    await bob.send("whois alice")
    await bob.send("who alice")
    await bob.send("time")
    text = "\n".join(await bob.skip_until(DATE_LINE))
    # What is left of the escapes is harmless text: ESC, BEL, NUL, BS dropped, CSI and DEL `?`,
    # the telnet command consumed.
    assert "alice: brb[2J]0;owned?31m?!" in text
    assert " ev[31mil? " in text  # the client name in bob's `5 alice ...` lines
    assert all(32 <= ord(c) < 127 for c in (text + echoed).replace("\n", ""))


def test_clean_line_drops_controls_and_maps_eight_bit():
    assert clean_line(b"a\x00b\x1b[1mc\td\xc3\xa9") == "ab[1mc d??"


async def test_passwords_appear_in_no_log_reply_or_column(make_harness, caplog, tmp_path):
    caplog.set_level(logging.DEBUG)
    logging.getLogger("aiosqlite").setLevel(logging.INFO)  # as fibs-server sets it
    harness = await make_harness(abuse=AbuseLimits(login_delay=0.01, account_free_failures=0))
    secret, guess, new = "Sekr1tPw", "Gu3ssW0rd", "N3wPassw"
    await harness.register("alice", secret)
    alice = await harness.login_clip("alice", secret)
    await alice.send(f"password {guess}:{new}:{new}")
    await alice.skip_until("** Sorry, that is not your password.")
    # A command that fails inside the server is logged: its arguments must not be.
    async def broken_hash(password: str) -> bytes:
        raise RuntimeError("hashing failed")
    harness.server.lobby.gatekeeper.hasher.hash = broken_hash
    await alice.send(f"password {secret}:{new}:{new}")
    await alice.skip_until("** Sorry, the server could not do that. It has been logged.")
    failures = [r for r in caplog.records if r.exc_info]
    assert len(failures) == 1 and failures[0].getMessage() == "command password of alice failed"
    caplog.clear()
    other = await harness.connect()
    await other.send("alice")
    await other.expect_prompt("password: ")
    await other.send(guess)
    await other.expect_lines("")
    await other.expect_prompt("login: ")
    transcript = alice.buffer + other.buffer
    logged = caplog.text
    for password in (secret, guess, new):
        assert password not in logged and password.encode() not in transcript
    await harness.stop()
    database = sqlite3.connect(tmp_path / "hostile.db")
    [(stored,)] = database.execute("SELECT password_hash FROM accounts WHERE name = 'alice'")
    stored = stored if isinstance(stored, bytes) else stored.encode()
    assert stored.startswith(b"$2b$04$") and bcrypt.checkpw(secret.encode(), stored)
    dump = "\n".join(database.iterdump())
    assert all(p not in dump for p in (secret, guess, new))


def test_production_defaults_bcrypt_cost_12_and_limits_come_from_flags_and_env(monkeypatch):
    assert ServerConfig().bcrypt_rounds == 12
    started = []

    async def fake_serve(config):
        started.append(config)
    monkeypatch.setattr(cli, "serve", fake_serve)
    monkeypatch.setenv("FIBS_CONNECTIONS_PER_ADDRESS", "7")
    cli.main(["--log-level", "DEBUG", "--max-line-bytes", "512", "--login-delay", "0.5"])
    [config] = started
    assert config.net_limits == NetLimits(max_line_bytes=512, connections_per_address=7)
    assert config.abuse_limits == AbuseLimits(login_delay=0.5)
    # Even at DEBUG, the database driver does not log query parameters (password hashes).
    assert logging.getLogger("aiosqlite").getEffectiveLevel() >= logging.INFO


@pytest.mark.parametrize("field", [f.name for f in (*dataclasses.fields(NetLimits),
                                                     *dataclasses.fields(AbuseLimits))])
def test_every_limit_has_a_flag(field):
    assert getattr(cli.parse_arguments(["--" + field.replace("_", "-"), "3"]), field) == 3
