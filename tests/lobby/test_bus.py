"""The bus (lobby/nodes/bus.py): letters are plain values that survive the wire between nodes, and
what users hear through a bus that carries them encoded is what they hear in one process."""
from __future__ import annotations

import collections
import re
from collections.abc import Collection

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fibs_server import command_tables
from fibs_server.lobby.lobby import Lobby
from fibs_server.lobby.nodes.bus import (
    Deliver,
    Forwarded,
    JoinArranged,
    JoinAsked,
    Letter,
    LocalBus,
    MatchArranged,
    Moderated,
    NodeLetter,
    Notice,
    Relayed,
    Said,
    Seated,
    SeekEnded,
    Seeking,
    SeeksAsked,
    decode_letter,
    encode_letter,
)
from tests.lobby.recording import logged_in, recording_lobby

names = st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=12)
words = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=60)
saids = st.builds(Said, st.sampled_from(["tell", "say", "shout", "kibitz", "whisper", "message"]),
                  names, words, st.none() | names, st.integers(0, 2**40))
json_values = st.recursive(st.none() | st.booleans() | st.integers(-2**50, 2**50) | words,
                           lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(words, inner, max_size=3), max_leaves=8)
notices = st.builds(Notice, st.lists(words, max_size=4).map(tuple),
                    st.none() | st.dictionaries(words, json_values, max_size=4),
                    st.sampled_from(["named", "clip", "report"]),
                    st.lists(names, max_size=3).map(tuple), st.booleans(), st.booleans())


seat_letters = (
    st.builds(JoinAsked, names, names, names, names,
              st.dictionaries(words, json_values, max_size=4), st.booleans())
    | st.builds(Seated, names, names, names, st.none() | names, st.integers(0, 2**40),
                st.integers(0, 2**40))
    | st.builds(Forwarded, names, names, names, words, st.booleans(), st.booleans(),
                st.integers(0, 2**40), st.integers(-1, 2**40))
    | st.builds(Relayed, names, names, names, st.sampled_from(["lines", "text", "event"]),
                st.lists(words, max_size=4).map(tuple), st.booleans(), st.integers(0, 2**40))
    | st.builds(Moderated, names, names, st.sampled_from(["throw_out", "mute", "unmute"]),
                words)
    | st.builds(MatchArranged, names, names, names, names, st.none() | st.integers(1, 25),
                st.dictionaries(words, json_values, max_size=4), st.booleans())
    | st.builds(JoinArranged, names, names, names, names)
    | st.builds(Seeking, names, names, st.floats(0, 3000) | st.integers(0, 3000),
                st.integers(1, 99), st.dictionaries(words, json_values, max_size=4),
                st.none() | st.floats(0, 3000), st.floats(0, 10**6))
    | st.builds(SeekEnded, names, names, st.none() | names)
    | st.builds(SeeksAsked, names))


@given(saids | notices | seat_letters)
def test_a_letter_is_what_it_was_after_the_wire(letter):
    assert decode_letter(encode_letter(letter)) == letter


@given(st.binary(max_size=80) | st.builds(lambda d: encode_letter(Said("tell", "a", "b"))[:d],
                                           st.integers(0, 40)))
def test_anything_but_a_letter_is_refused_as_such(data):
    try:
        letter = decode_letter(data)
    except ValueError:
        return
    assert encode_letter(letter) == data  # only what a letter encodes to decodes


@given(st.sampled_from([b'{"letter":"said","kind":"yell","speaker":"a","text":"b"}',
                        b'{"letter":"said","kind":"tell","speaker":1,"text":"b"}',
                        b'{"letter":"notice","lines":[1]}', b'{"letter":"notice","lines":"ab"}',
                        b'{"letter":"notice","lines":[],"audience":"all"}', b'[1]', b'"said"',
                        b'{"letter":"relayed","node":"a","to_node":"b","name":"c",'
                        b'"kind":"shout","lines":[]}',
                        b'{"letter":"forwarded","node":"a","to_node":"b","name":"c",'
                        b'"line":1}',
                        b'{"letter":"seated","node":"a","to_node":"b","name":"c",'
                        b'"opponent":null,"relayed":"1"}',
                        b'{"letter":"join_asked","node":"a","to_node":"b","name":"c",'
                        b'"inviter":"d","client":[]}',
                        b'{"letter":"match_arranged","node":"a","to_node":"b","name":"c",'
                        b'"inviter":"d","length":"1","terms":{}}',
                        b'{"letter":"match_arranged","node":"a","to_node":"b","name":"c",'
                        b'"inviter":"d","length":1,"terms":[]}',
                        b'{"letter":"join_arranged","node":"a","to_node":"b","name":"c",'
                        b'"inviter":5}',
                        b'{"letter":"seeking","node":"a","name":"c","rating":true,"length":1,'
                        b'"terms":{},"rating_range":null,"waited":0}',
                        b'{"letter":"seeking","node":"a","name":"c","rating":1500,"length":1.5,'
                        b'"terms":{},"rating_range":null,"waited":0}',
                        b'{"letter":"seeking","node":"a","name":"c","rating":1500,"length":1,'
                        b'"terms":{},"rating_range":"any","waited":0}',
                        b'{"letter":"seek_ended","node":"a","name":"c","opponent":7}',
                        b'{"letter":"seeks_asked","node":null}',
                        b'{"letter":"roll_call","node":"a","known":{"b":["run"]}}',
                        b'{"letter":"roll_call","node":"a","known":{"b":["run","1"]}}',
                        b'{"letter":"roll_call","node":"a","version":true}',
                        b'{"letter":"roster","node":"a","users":[],"since":"1"}',
                        b'{"letter":"roster","node":"a","users":[],"gone":[1]}',
                        b'{"letter":"absence","node":"a","name":"c","run":7}']))
def test_letters_of_the_wrong_shape_are_refused(data):
    with pytest.raises(ValueError):
        decode_letter(data)


class WireBus:
    """Every letter encoded and decoded on its way, as another node would receive it."""

    carrying = True

    def __init__(self, deliver: Deliver) -> None:
        self.deliver = deliver
        self.carried: list[bytes] = []

    def _carry(self, names: Collection[str] | None, letter: Letter) -> None:
        self.carried.append(encode_letter(letter))
        self.deliver(names, decode_letter(self.carried[-1]))

    def tell(self, names: Collection[str], letter: Letter) -> None:
        self._carry(names, letter)

    def tell_all(self, letter: Letter) -> None:
        self._carry(None, letter)

    def tell_others(self, letter: NodeLetter) -> None:
        self.carried.append(encode_letter(letter))  # nobody else: carried, not delivered


SCRIPT = [("alice", "tell bob hello there"), ("bob", "tell alice  two blanks kept"),
          ("alice", "shout anyone?"), ("carol", "shout me too"), ("bob", "away lunch"),
          ("alice", "tell bob still there?"), ("carol", "gag alice"), ("alice", "shout again"),
          ("bob", "back"), ("alice", "wave")]


async def heard_over(bus_of, tmp_path) -> tuple[dict[str, list[str]], Lobby]:
    tmp_path.mkdir()
    lobby, store = await recording_lobby(tmp_path)
    lobby.dispatcher.add_commands(command_tables.chat(lobby.owners))
    lobby.attendance.messenger.bus = bus_of(lobby.deliver)
    users = {"alice": await logged_in(lobby, "alice", bell=True),
             "bob": await logged_in(lobby, "bob"),
             "carol": await logged_in(lobby, "carol", web_events=True, report=True)}
    heard: dict[str, list[str]] = {name: [] for name in users}
    for speaker, line in SCRIPT:
        await lobby.dispatch(users[speaker][0], line)
        for name, (_, connection) in users.items():
            heard[name] += connection.lines()
    await store.close()
    return heard, lobby


async def test_users_hear_the_same_over_a_wire_as_in_one_process(tmp_path):
    local, _ = await heard_over(LocalBus, tmp_path / "local")
    wired, lobby = await heard_over(WireBus, tmp_path / "wired")
    assert same_but_times(wired) == same_but_times(local)
    bus = lobby.attendance.messenger.bus
    assert isinstance(bus, WireBus)
    kinds = collections.Counter(type(decode_letter(data)).__name__ for data in bus.carried)
    # 3 tells, 3 shouts and the wave; the 3 logins and 2 who-lines as presences to other
    # nodes (the who-lines are told here as they are).
    assert kinds == {"Said": 6, "Notice": 1, "Presence": 5}, kinds
    alice, bob, carol = local["alice"], local["bob"], local["carol"]
    assert "alice says: hello there" in bob and "\abob says:  two blanks kept" in alice
    assert ["13 alice anyone?", '{"type":"chat","kind":"shout","from":"alice","to":null,'
            '"text":"anyone?"}'] == carol[:2]
    # Only CLIP clients get who-lines; carol gagged alice, so alice's last shout reached bob.
    assert [line for line in carol if line.startswith("5 ")] == [
        line for line in carol if line.startswith("5 bob ")] and len(carol) > 8
    assert not any(line.startswith("5 ") for line in alice + bob)
    assert "alice shouts: again" in bob and not any("again" in line for line in carol)
    assert alice[-3:] == ["** You shout: again", "** 1 user heard you.", "You wave goodbye."]
    assert bob[-1] == carol[-1] == "alice waves goodbye."


def same_but_times(heard: dict[str, list[str]]) -> dict[str, list[str]]:
    """The two lobbies log their users in at their own second, and on a busy machine a user
    may have been idle a second longer in one of them (a who-line's idle seconds, before its
    login time; a presence's `idle_seconds`)."""
    def timeless(line: str) -> str:
        line = re.sub(r"\b1\d{9}\b", "<time>", line)
        line = re.sub(r"\b\d+ <time>", "<idle> <time>", line)
        return re.sub(r'"idle_seconds":\d+', '"idle_seconds":<idle>', line)
    return {name: [timeless(line) for line in lines] for name, lines in heard.items()}
