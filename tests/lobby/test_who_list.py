"""The who-list a CLIP login gets is kept encoded and extended at each login
(lobby/presence/who_list.py): after any logins, logouts, changed lines and idle times, it is
what formatting every online user's line afresh would give, but for idle times that may lag
until the next refresh."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fibs_server.lobby.presence.session import wire_bytes
from fibs_server.lobby.presence.who_list import WHO_IDLE_REFRESH, WhoList

NAMES = ["alice", "Bob", "carol", "dave", "erin"]
# Who-line text with what the wire drops or replaces (control characters, non-ASCII).
LINE_TEXT = st.text(st.sampled_from("abc 5-19.\x1b\x7f\u00e9\u2603"), max_size=12)


class FakeWho:
    """What the who-list reads of a session: its current who-line."""

    def __init__(self, text: str) -> None:
        self.text = text

    def line(self) -> str:
        return self.text


class FakeSession:
    def __init__(self, name: str, line: str) -> None:
        self.name = name
        self.who = FakeWho(line)


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


OPERATIONS = st.lists(st.tuples(
    st.sampled_from(["login", "logout", "change", "idle", "refresh"]),
    st.sampled_from(NAMES), LINE_TEXT), max_size=40)


@settings(max_examples=200)
@given(OPERATIONS)
def test_the_kept_who_list_is_the_one_formatted_afresh(operations):
    online: dict[str, FakeSession] = {}
    clock = FakeClock()
    who_list = WhoList(online, [], clock)  # type: ignore[arg-type]
    told: dict[str, str] = {}  # each line as the lobby last told the who-list (set)
    refresh_due = False

    for operation, name, text in operations:
        key = name.lower()
        session = online.get(key)
        if operation == "login" and session is None:
            # Attendance.came_online: online first, then the line
            online[key] = FakeSession(name, f"{name} {text}")
            who_list.set(name, online[key].who.text)
            told[key] = online[key].who.text
        elif operation == "logout" and session is not None:
            del online[key]
            who_list.remove(name)
            del told[key]
        elif operation == "change" and session is not None:
            # A field it shows changed (Attendance.broadcast_who): told at once.
            session.who.text = f"{name} {text}"
            who_list.set(name, session.who.text)
            told[key] = session.who.text
        elif operation == "idle" and session is not None:
            session.who.text = f"{name} {text}"  # only the idle seconds: nobody is told
        elif operation == "refresh":
            clock.now += WHO_IDLE_REFRESH
            refresh_due = True

        if refresh_due:
            told = {key: session.who.text for key, session in online.items()}
            refresh_due = False
        expected = b"".join(wire_bytes(told[key] + "\r\n") for key in online)
        assert who_list.wire() == expected
        assert who_list.wire() is who_list.wire()  # kept until something changes

    # Formatted afresh, it is every current line in login order, as the wire carries them.
    clock.now += WHO_IDLE_REFRESH
    assert who_list.wire() == wire_bytes("".join(s.who.text + "\r\n" for s in online.values()))
