"""Login and logout texts, checked against exact expected text."""
from __future__ import annotations

import datetime
import re

import pytest

from fibs_server.protocol import settings, texts
from fibs_server.protocol.texts import Departure
from fibs_server.protocol.wording import server_texts, tournament_texts
from fibs_server.rules.tournament import RoundTerms

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


def test_a_count_of_points_is_singular_for_one_only():
    assert tournament_texts.your_match(3, "bob", 1, 1) == (
        "Tournament 3: you play bob, 1 point. The server starts the match as soon as you are "
        "both online and free (no need to join); whoever is not there within 1 minute of the "
        "round's start loses it by forfeit and plays no later round.")
    assert tournament_texts.your_standing(3, 1, 1, 2, 1) == (
        "Tournament 3: after round 1 you are 1st of 2, with 1 point.")
    assert tournament_texts.your_standing(3, 2, 12, 13, 0).endswith(
        "you are 12th of 13, with 0 points.")
    assert tournament_texts.starts_words(90, None) == "in 1 minute"
    assert tournament_texts.too_many_open(1).startswith("** You have 1 open tournament already")
    assert tournament_texts.server_full(1).startswith("** There is 1 open tournament already")
    assert tournament_texts.server_full(20).startswith("** There are 20 open tournaments")
    assert "you play bob, 5 points." in tournament_texts.your_match(3, "bob", 5, 5)
    assert tournament_texts.terms_words(RoundTerms(length=1, final_length=1)).startswith(
        "1 point, ")
    assert tournament_texts.terms_words(RoundTerms(length=5, final_length=7)).startswith(
        "5 points (final 7), ")


def test_allowpip_yes_keeps_fibss_words_that_the_classifiers_match():
    """FIBS says `use the server's` (a word short) and every classifier written against it
    matches exactly that: the corrected sentence would be an unknown line to them."""
    yes, no = settings.TOGGLE_TEXTS["allowpip"]
    assert re.match(r"^\*\* You allow the use the server's 'pip' command\.", yes)
    assert re.match(r"^\*\* You don't allow the use of the server's 'pip' command\.", no)
