"""Moderation texts, checked against exact expected text."""
from __future__ import annotations

import datetime

from fibs_server.protocol.wording import admin_texts

UNTIL = int(datetime.datetime(2026, 11, 30, 10, 31, 52, tzinfo=datetime.timezone.utc).timestamp())


def test_a_ban_for_good_or_until_a_time_in_utc():
    assert admin_texts.banned(None) == "** You are banned from this server."
    assert admin_texts.banned(UNTIL) == (
        "** You are banned from this server until Mon Nov 30 10:31:52 2026 UTC.")


def test_the_ban_reply_names_the_address_banned_too():
    assert admin_texts.ban_reply("bob", "10.0.0.7", None) == (
        "** bob and the address 10.0.0.7 are banned for good.")
    assert admin_texts.ban_reply("bob", None, UNTIL) == (
        "** bob is banned until Mon Nov 30 10:31:52 2026 UTC.")


def test_lifting_a_sanction_there_was_or_was_not():
    assert admin_texts.lifted_reply("bob", "ban", lifted=True) == "** bob is no longer banned."
    assert admin_texts.lifted_reply("bob", "mute", lifted=False) == "** bob is not muted."


def test_the_usage_of_a_command_that_takes_a_name():
    assert admin_texts.name_usage("kick") == "** Usage: kick <name>"
