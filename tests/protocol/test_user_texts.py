"""Texts of a user's own state (away, wave, password), checked against exact expected text."""
from __future__ import annotations

from fibs_server.protocol import texts
from fibs_server.protocol.wording import user_texts


def test_the_away_list():
    assert user_texts.away_list([]) == ["None of the users is away."]
    assert user_texts.away_list([("bob", "lunch"), ("carol", "back soon")]) == [
        "The following users are away:", "bob: lunch", "carol: back soon"]


def test_waving_twice_logs_out():
    assert user_texts.wave_reply(again=False) == "You wave goodbye."
    assert user_texts.wave_reply(again=True) == "You wave goodbye again and log out."
    assert user_texts.waves_goodbye("bob", again=False) == "bob waves goodbye."
    assert user_texts.waves_goodbye("bob", again=True) == "bob waves goodbye again."


def test_a_refused_new_password_is_a_starred_line():
    complaint = texts.password_error("two words")
    assert complaint is not None
    refused = user_texts.new_password_refused(complaint)
    assert refused == "** Your password may not contain blanks."
    # The complaint's code goes with it, for a page to show it in its own words.
    assert (refused.code, refused.params) == ("password_blank", {})
