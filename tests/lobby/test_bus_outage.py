"""A bus outage between two nodes in one process (lobby/presence/attendance.py,
lobby/play/seats.py): a node silent while this node's own bus carries nothing is out of
reach, not dead; the match across them waits, its clock held, and goes on when they hear
each other again (docs/NODES.md, "A bus outage")."""
from __future__ import annotations

import functools

from fibs_server import command_tables
from fibs_server.lobby.nodes.directory import NODE_SILENCE
from fibs_server.protocol.login_dialogue import WEB_PAGE
from fibs_server.protocol.wording import match_texts
from tests.lobby.recording import RecordingConnection
from tests.lobby.test_nodes import FakeClock, Wire
from tests.lobby.test_seats import lobby_on, nodes_with_a_match, settled, two_players
from tests.lobby.test_waiting_for_both import clocked_lobby
from tests.lobby.test_web_events import split


def typed_message_to(hears: RecordingConnection, line: str, broadcast: bool) -> None:
    hears.send(line + "\r\n", broadcast)


def reach(name: str, reachable: bool) -> dict:
    return {"type": "player_reach", "name": name, "reachable": reachable}


async def test_a_bus_outage_holds_a_timed_match_and_tells_the_pages_until_it_is_back(tmp_path):
    """Both nodes' bus carries nothing for longer than a node's silence: neither takes the
    other for dead, the match waits with its clock held, and the pages hear it waits; once
    each hears the other again the clock times the turn afresh, and both are told (their pages
by the typed `player_reach` as well)."""
    wire = Wire()
    a, a_clocks, _ = await clocked_lobby(tmp_path)  # the host times the match
    a.dispatcher.add_commands(command_tables.chat(a.owners))
    a.config.node_id = "a"
    a.attendance.messenger.bus = wire.bus_of("a", a.deliver)
    b = await lobby_on(tmp_path, wire, "b")
    alice, alice_hears, bob, bob_hears = await two_players(a, b)
    for session, hears in ((alice, alice_hears), (bob, bob_hears)):
        session.incoming.dialogue.transport_client = WEB_PAGE  # sees the server's own lines
        session.out.event_sink = functools.partial(typed_message_to, hears)
    await a.dispatch(alice, "invite bob 1 timer 60")
    await b.dispatch(bob, "join alice")
    await settled(a, b)
    running = a.match_table.match_of(alice)
    assert running is not None and running.timer is not None
    assert running.timer.countdowns  # alice's move is timed
    clock = FakeClock()
    for lobby, other in ((a, "b"), (b, "a")):
        lobby.attendance.users.directory.clock = clock
        lobby.attendance.users.directory.heard_from(other)
    alice_hears.lines()
    bob_hears.lines()

    nodes, wire.nodes = wire.nodes, {}  # Redis stalls: nothing is carried either way
    for lobby in (a, b):
        lobby.attendance.messenger.bus.carrying = False  # type: ignore[misc]
    for _ in range(3):
        clock.now += NODE_SILENCE
        for lobby in (a, b):
            lobby.attendance.check_in()
    assert split(alice_hears) == ([match_texts.out_of_reach("bob")], [reach("bob", False)])
    assert split(bob_hears) == ([match_texts.out_of_reach("alice")], [reach("alice", False)])
    assert a.match_table.match_of(alice) is running and "bob" in a.seats.here
    assert bob.place.seated_elsewhere is not None and not running.timer.countdowns

    wire.nodes = nodes  # Redis answers again
    for lobby in (a, b):
        lobby.attendance.messenger.bus.carrying = True  # type: ignore[misc]
        lobby.attendance.check_in()
    await settled(a, b)
    for hears, opponent in ((alice_hears, "bob"), (bob_hears, "alice")):
        lines, messages = split(hears)
        assert match_texts.back_in_reach(opponent) in lines
        assert [m for m in messages if m["type"] == "player_reach"] == [reach(opponent, True)]
    assert running.timer.countdowns  # timed afresh
    await b.dispatch(bob, "resign n")
    await settled(a, b)
    await a.dispatch(alice, "accept")
    await settled(a, b)
    [record] = await a.match_store.finished_matches("bob", 1)
    assert record.winner == "alice"


async def test_a_classic_session_hears_nothing_of_an_outage(tmp_path):
    wire, a, b, alice, alice_hears, bob, bob_hears = await nodes_with_a_match(tmp_path)
    a.seats.out_of_reach("b")
    b.seats.out_of_reach("a")
    a.seats.back_in_reach("b")
    b.seats.back_in_reach("a")
    await settled(a, b)
    assert not [line for line in alice_hears.lines() + bob_hears.lines() if "reach" in line]


async def test_a_match_letter_from_a_node_out_of_reach_tells_it_is_back_before_it_is_read(
        tmp_path):
    """Node a has not heard b's roll calls for a while (b out of reach: alice told the match
    waits), but a letter of the match comes from b before b's next roll call: alice is told
    bob is back in reach first, and then what bob did (not a match going on, or ending,
    while she was last told it waits)."""
    wire = Wire()
    a = await lobby_on(tmp_path, wire, "a")
    b = await lobby_on(tmp_path, wire, "b")
    alice, alice_hears, bob, bob_hears = await two_players(a, b)
    alice.incoming.dialogue.transport_client = WEB_PAGE  # sees the server's own lines
    alice.out.event_sink = functools.partial(typed_message_to, alice_hears)
    await a.dispatch(alice, "invite bob 1")
    await b.dispatch(bob, "join alice")
    await settled(a, b)
    clock = FakeClock()
    a.attendance.users.directory.clock = clock
    a.attendance.users.directory.heard_from("b")
    alice_hears.lines()
    clock.now += a.attendance.users.directory.times.out_of_reach + 1
    a.attendance.check_in()  # b's roll calls missed (b beats no more here)
    assert split(alice_hears) == ([match_texts.out_of_reach("bob")], [reach("bob", False)])

    await b.dispatch(bob, "resign n")
    await settled(a, b)
    lines, messages = split(alice_hears)
    assert lines[0] == match_texts.back_in_reach("bob"), lines
    assert any("bob wants to resign" in line for line in lines[1:]), lines
    assert [m for m in messages if m["type"] == "player_reach"] == [reach("bob", True)]
