"""`waitfor`'s waiters kept by the name they wait for (lobby/presence/chat_state.py): a login
finds its waiters without asking everyone online, and a waiter who left is not kept."""
from __future__ import annotations

from fibs_server.lobby.presence.chat_state import ChatState


def test_a_login_finds_its_waiters_in_the_order_they_asked_once():
    chat = ChatState()
    chat.wait_for("Bob", "Carol")
    chat.wait_for("alice", "Carol")
    chat.wait_for("alice", "dave")
    assert chat.waiting_for_login("Carol") == ["bob", "alice"]
    assert chat.of("alice").waiting_for == {"dave"} and chat.of("bob").waiting_for == set()
    assert chat.waiting_for_login("Carol") == []  # told once


def test_a_waiter_who_left_or_stopped_waiting_is_not_found():
    chat = ChatState()
    chat.wait_for("alice", "Carol")
    chat.wait_for("bob", "Carol")
    chat.forget("alice")  # logged out, or logged in afresh
    assert chat.waiting_for_login("Carol") == ["bob"]
    chat.wait_for("bob", "dave")
    chat.forget("bob")
    assert chat._waiters == {}  # nothing kept for the names they waited for
    chat.wait_for("erin", "frank")
    chat.of("erin").waiting_for.clear()  # (no longer waiting, however that came)
    assert chat.waiting_for_login("frank") == []
