"""The texts around a match (invite, join, start, resume, leave, watch), checked against exact
expected text; the end-to-end tests see the same lines on the wire."""
from __future__ import annotations

from fibs_server.protocol.chat import BELL
from fibs_server.protocol.wording import game_texts


def test_an_invitation_names_the_match_and_how_to_accept_it():
    assert game_texts.you_invited("bob", 5) == ["** You invited bob to a 5 point match."]
    assert game_texts.you_invited("bob", None) == ["** You invited bob to an unlimited match."]
    assert game_texts.invitation("alice", 5, saved_match=False, bell=False) == [
        "alice wants to play a 5 point match with you.", "Type 'join alice' to accept."]


def test_an_invitation_warns_of_a_saved_match_and_rings_the_bell():
    assert game_texts.invitation("alice", None, saved_match=True, bell=True) == [
        f"{BELL}alice wants to play an unlimited match with you.",
        "WARNING: Don't accept if you want to continue your saved match!",
        "Type 'join alice' to accept."]


def test_an_invitation_to_resume():
    assert game_texts.you_invited_to_resume("alice") == (
        "** You invited alice to resume a saved match.")
    assert game_texts.invitation_to_resume("bob", bell=False) == [
        "bob wants to resume a saved match with you.", "Type 'join bob' to accept."]
    assert game_texts.give_a_match_length("bob") == (
        "** There's no saved match with bob. Please give a match length.")


def test_a_match_start_to_the_joiner_the_inviter_and_the_reports():
    assert game_texts.you_are_now_playing("alice", 3) == (
        "** You are now playing a 3 point match with alice")
    assert game_texts.you_are_now_playing("alice", None) == (
        "** You are now playing an unlimited match with alice")
    assert game_texts.has_joined_you("bob", 3) == "** Player bob has joined you for a 3 point match."
    # FIBS's line for an unlimited match has no `**`
    assert game_texts.has_joined_you("bob", None) == (
        "Player bob has joined you for an unlimited match.")
    assert game_texts.match_starts("alice", "bob", 5) == "alice and bob start a 5 point match."


def test_a_resumed_match_is_reported_with_its_length():
    assert game_texts.match_resumes("bob", "alice", 5) == (
        "bob and alice are resuming their 5-point match.")
    assert game_texts.match_resumes("bob", "alice", None) == (
        "bob and alice are resuming their unlimited match.")


def test_stopping_to_watch_for_another_player_is_a_starred_line():
    assert game_texts.you_stop_watching("bob", for_another=False) == "You stop watching bob."
    assert game_texts.you_stop_watching("bob", for_another=True) == "** You stop watching bob."


def test_usage_lines_with_numbers_and_names():
    assert game_texts.match_length_usage(99) == (
        "** The match length must be a number from 1 to 99 or 'unlimited'.")
    assert game_texts.pip_not_allowed("bob") == (
        "** bob doesn't allow this. Ask bob to 'toggle allowpip'")
