"""Login and logout texts, checked against exact expected text."""
from __future__ import annotations

import datetime

import pytest

from fibs_server.protocol import server_texts, texts
from fibs_server.protocol.texts import Departure

WHEN = datetime.datetime(2026, 11, 30, 10, 31, 52, tzinfo=datetime.timezone.utc)


@pytest.mark.parametrize("departure, notice, saved", [
    (Departure.LOGGED_OUT, "bob logs out.", "bob logs out. The game was saved."),
    (Departure.DROPPED, "bob drops connection.", "bob drops connection. The game was saved."),
    # everyone else reads a timeout as a dropped connection
    (Departure.TIMED_OUT, "bob drops connection.",
     "Connection with bob timed out. The game was saved."),
])
def test_a_departure_told_to_everyone_and_to_the_opponent(departure, notice, saved):
    assert texts.departed("bob", departure) == notice
    assert texts.game_saved_after("bob", departure) == saved


def test_times_in_utc():
    assert texts.utc_time(WHEN) == "Mon Nov 30 10:31:52 2026 UTC"
    assert texts.date_line(WHEN, "Europe/Berlin") == (
        "Monday, November 30 11:31:52 CET   ( Mon Nov 30 10:31:52 2026 UTC )")


def test_a_last_login_from_an_unknown_host():
    assert texts.last_login(WHEN, None, "UTC") == (
        "** Last login: Monday, November 30 10:31:52 UTC   ( Mon Nov 30 10:31:52 2026 UTC )"
        " from -")


def test_the_shutdown_countdown():
    assert server_texts.shutdown_in(1) == (
        "** The server will shut down in 1 minute. Running matches will be saved.")
    assert server_texts.shutdown_in(10).startswith("** The server will shut down in 10 minutes.")
