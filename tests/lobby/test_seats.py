"""Matches across nodes (lobby/play/seats.py): a match runs at its inviter's node, the joiner's
commands are forwarded there and what the match tells them is relayed home. The same
commands with the same dice make each player hear, line for line, what they hear when both
are on one node; the stored match is the same; leaving, logging out and a node that falls
silent end the seat as they end a match on one node."""
from __future__ import annotations

import dataclasses
import json

import pytest

from fibs_server import command_tables
from fibs_server.lobby.commands import common, user_commands
from fibs_server.lobby.lobby import Lobby
from fibs_server.lobby.nodes.bus import Forwarded, JoinAsked, Relayed
from fibs_server.lobby.nodes.directory import NODE_SILENCE
from fibs_server.lobby.play.seats import TAKEOVER_ANSWER_SECONDS, SeatSession
from fibs_server.lobby.ports.accounts import Account
from fibs_server.lobby.presence.session import SeatElsewhere, Session
from fibs_server.rules.board.notation import format_play
from tests.fake_clock import FakeClock as AlarmClock
from tests.lobby.recording import RecordingConnection, logged_in, recording_lobby
from tests.lobby.test_nodes import FakeClock, Wire
from tests.waiting import until

# alice (player 0) opens with 3-1; bob rolls 6-5.
DICE = ((3, 1), (6, 5), (2, 2), (4, 1), (5, 3))


async def lobby_on(tmp_path, wire: Wire | None, name: str) -> Lobby:
    """A node on the database in `tmp_path` (one for all nodes, as PostgreSQL is in life)."""
    lobby, _ = await recording_lobby(tmp_path, *DICE)
    lobby.dispatcher.add_commands(command_tables.chat(lobby.owners))
    lobby.config.node_id = name
    if wire is not None:
        lobby.attendance.messenger.bus = wire.bus_of(name, lobby.deliver)
    return lobby


async def two_players(home_a: Lobby, home_b: Lobby
                      ) -> tuple[Session, RecordingConnection, Session, RecordingConnection]:
    alice, alice_hears = await logged_in(home_a, "alice", ready=True)
    bob, bob_hears = await logged_in(home_b, "bob", ready=True)
    for lobby, session in ((home_a, alice), (home_b, bob)):
        lobby.attendance.broadcast_who(session)  # ready, as `toggle ready` tells everyone
    return alice, alice_hears, bob, bob_hears


async def logged_in_again(lobby: Lobby, name: str, ready: bool = False
                          ) -> tuple[Session, RecordingConnection, Account]:
    """`name`, whose account is in the database under every node, logs in on `lobby`."""
    account = await lobby.accounts.find_account(name)
    assert account is not None
    account.toggles["ready"] = account.toggles["ready"] or ready
    hears = RecordingConnection()
    session = lobby.connect(hears)
    session.out.prompts = False
    await lobby.log_in(session, account)
    return session, hears, account


async def settled(*lobbies: Lobby) -> None:
    """Until the seats of every node have done what the other nodes asked of them."""
    await until(lambda: all(lobby.seats.idle() for lobby in lobbies),
                "the seats have carried out every join, line and parting")


async def a_match_played(a: Lobby, b: Lobby, lobbies: tuple[Lobby, ...]
                         ) -> tuple[list[str], list[str]]:
    """alice (on `a`) and bob (on `b`) play: invite, join, a move each, talk, boards,
    toggles, then bob resigns and alice accepts. What each heard."""
    alice, alice_hears, bob, bob_hears = await two_players(a, b)
    heard: dict[str, list[str]] = {"alice": [], "bob": []}

    async def say(lobby: Lobby, session: Session, line: str) -> None:
        await lobby.dispatch(session, line)
        await settled(*lobbies)
        heard["alice"] += alice_hears.lines()
        heard["bob"] += bob_hears.lines()

    await say(a, alice, "invite bob 1")
    await say(b, bob, "join alice")
    await say(a, alice, "move 8-5 6-5")
    await say(b, bob, "roll")
    running = a.match_table.playing["bob"]
    bobs_play = format_play(running.match.legal_plays()[0], running.match.colour(1))
    await say(b, bob, "pip")
    await say(b, bob, f"move {bobs_play}")
    await say(b, bob, "say good luck")
    await say(a, alice, "say thanks")
    await say(b, bob, "board")
    await say(b, bob, "toggle double")
    await say(b, bob, "resign n")
    await say(a, alice, "accept")
    await say(b, bob, "board")
    return heard["alice"], heard["bob"]


async def test_a_match_across_nodes_is_heard_as_on_one_node(tmp_path):
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    one = await lobby_on(tmp_path / "one", None, "one")
    alone = await a_match_played(one, one, (one,))
    wire = Wire()
    a = await lobby_on(tmp_path / "two", wire, "a")
    b = await lobby_on(tmp_path / "two", wire, "b")
    across = await a_match_played(a, b, (a, b))
    assert across == alone
    alice_heard, bob_heard = across
    assert "bob moves" in " ".join(alice_heard) and "You roll 6 and 5." in bob_heard
    assert "alice says: thanks" in bob_heard and "bob says: good luck" in alice_heard
    assert "alice wins the 1 point match 1-0 ." in bob_heard
    assert bob_heard[-1] == "** You're not playing."  # at home, once the match was over
    # The match ran on a: stored there, the seat gone with it, bob free again on b.
    assert not a.seats.here and b.attendance.users.online["bob"].place.seated_elsewhere is None
    [record] = await a.match_store.finished_matches("bob", 1)
    assert (record.player_a, record.winner) == ("alice", "alice")


async def nodes_with_a_match(tmp_path) -> tuple[Wire, Lobby, Lobby, Session, RecordingConnection,
                                                Session, RecordingConnection]:
    wire = Wire()
    a, b = await lobby_on(tmp_path, wire, "a"), await lobby_on(tmp_path, wire, "b")
    alice, alice_hears, bob, bob_hears = await two_players(a, b)
    await a.dispatch(alice, "invite bob 3")
    await b.dispatch(bob, "join alice")
    await settled(a, b)
    assert a.match_table.match_of(alice) is not None
    alice_hears.lines()
    bob_hears.lines()
    return wire, a, b, alice, alice_hears, bob, bob_hears


async def test_both_nodes_show_who_plays_whom(tmp_path):
    _, a, b, alice, alice_hears, bob, bob_hears = await nodes_with_a_match(tmp_path)
    seat = a.seats.here["bob"]
    assert isinstance(seat, SeatSession) and "bob" not in a.attendance.users.online
    assert dataclasses.astuple(bob.place.seated_elsewhere) == ("a", "alice", None)  # type: ignore[arg-type]
    for lobby, session, hears in ((a, alice, alice_hears), (b, bob, bob_hears)):
        await lobby.dispatch(session, "rawwho")
        lines = {line.split()[1]: line.split()[2] for line in hears.lines()[:-1]}
        assert lines == {"alice": "bob", "bob": "alice"}, lines
    # Others cannot invite either of them; bob cannot join or invite anyone else.
    carol, carol_hears = await logged_in(a, "carol", ready=True)
    bob_hears.lines()
    await a.dispatch(carol, "invite bob 1")
    await a.dispatch(carol, "invite alice 1")
    assert carol_hears.lines() == ["** Error: bob is already playing with someone else.",
                                   "** Error: alice is already playing with someone else."]
    await b.dispatch(bob, "invite carol 1")
    assert bob_hears.lines() == ["** You can't play two games at once"]


async def test_leaving_and_logging_out_end_the_seat_and_save_the_match(tmp_path):
    _, a, b, alice, alice_hears, bob, bob_hears = await nodes_with_a_match(tmp_path)
    await b.dispatch(bob, "leave")
    await settled(a, b)
    assert bob_hears.lines()[0] == "** You terminated the game. The game was saved."
    assert "bob has left the game." in alice_hears.lines()[0]
    assert not a.seats.here and bob.place.seated_elsewhere is None
    assert a.match_table.match_of(alice) is None
    # Resumed across nodes, then bob logs out at home: saved again, alice told.
    await a.dispatch(alice, "invite bob")
    await b.dispatch(bob, "join alice")
    await settled(a, b)
    assert a.match_table.match_of(alice) is not None
    alice_hears.lines()
    await b.log_out(bob, user_commands.Departure.DROPPED)
    await settled(a, b)
    assert "bob drops connection. The game was saved." in alice_hears.lines()
    assert not a.seats.here and a.match_table.match_of(alice) is None
    assert await a.match_store.running_match("alice", "bob") is not None


async def test_a_join_the_host_refuses_is_answered_and_frees_the_joiner(tmp_path):
    wire = Wire()
    a, b = await lobby_on(tmp_path, wire, "a"), await lobby_on(tmp_path, wire, "b")
    _, _, bob, bob_hears = await two_players(a, b)
    await b.dispatch(bob, "join alice")
    await settled(a, b)
    assert bob_hears.lines() == ["** alice didn't invite you."]
    assert bob.place.seated_elsewhere is None and not a.seats.here


async def test_a_silent_host_frees_its_players_elsewhere_and_a_silent_home_saves_the_match(
        tmp_path):
    wire, a, b, alice, alice_hears, bob, bob_hears = await nodes_with_a_match(tmp_path)
    clock = FakeClock()
    b.attendance.users.directory.clock = a.attendance.users.directory.clock = clock
    a.attendance.users.directory.heard_from("b")
    b.attendance.users.directory.heard_from("a")
    # Node a is killed: nothing it says reaches b any more, and b stops hearing it.
    del wire.nodes["a"]
    clock.now += NODE_SILENCE + 1
    b.attendance.check_in()
    assert "alice drops connection. The game was saved." in bob_hears.lines()
    assert bob.place.seated_elsewhere is None
    # Node a, for its part, hears b no more: alice's match is saved there.
    a.attendance.check_in()
    await settled(a)
    assert "bob drops connection. The game was saved." in alice_hears.lines()
    assert a.match_table.match_of(alice) is None and not a.seats.here


async def test_a_forwarded_line_for_a_seat_that_is_gone_frees_the_player_at_home(tmp_path):
    _, a, b, _, _, bob, bob_hears = await nodes_with_a_match(tmp_path)
    seat = a.seats.here.pop("bob")  # as if the host had lost it, and its letter too
    seat.inbox.put_nowait(None)
    assert bob.place.seated_elsewhere is not None
    await b.dispatch(bob, "board")
    assert bob.place.seated_elsewhere is None
    await b.dispatch(bob, "board")
    assert bob_hears.lines() == ["** You're not playing."]


async def test_a_killed_hosts_player_back_on_another_node_resumes_with_a_player_there(tmp_path):
    wire, a, b, alice, _, bob, bob_hears = await nodes_with_a_match(tmp_path)
    running = a.match_table.match_of(alice)
    assert running is not None
    stored = (await a.match_store.running_match("alice", "bob")).state  # type: ignore[union-attr]
    del wire.nodes["a"]  # killed: b hears nothing more from it
    b.config.clock = clock = AlarmClock()
    # alice reconnects to b before b misses node a: b asks a to hand her match over, and a
    # never answers. Then bob is free to resume with her there.
    alice_again, _, account = await logged_in_again(b, "alice")
    assert bob.place.seated_elsewhere is not None
    clock.advance(TAKEOVER_ANSWER_SECONDS)
    assert bob.place.seated_elsewhere is None and alice_again.place.seated_elsewhere is None
    account.toggles["ready"] = True
    await b.dispatch(alice_again, "invite bob")
    await b.dispatch(bob, "join alice")
    resumed = b.match_table.match_of(bob)
    assert resumed is not None and json.loads(json.dumps(resumed.match.to_dict())) == stored
    assert "You are now playing with alice. Your running match was loaded." in bob_hears.lines()


async def test_after_the_bus_came_back_each_seated_player_is_shown_the_board(tmp_path):
    wire, a, b, alice, _, bob, bob_hears = await nodes_with_a_match(tmp_path)
    deliver_to_b = wire.nodes.pop("b")  # b hears nothing for a while: a's letters are lost
    await a.dispatch(alice, "move 8-5 6-5")
    wire.nodes["b"] = deliver_to_b
    assert bob_hears.lines() == []
    a.attendance.rejoined()  # after a Redis restart both nodes resubscribe
    b.attendance.rejoined()
    await settled(a, b)
    shown = bob_hears.lines()
    boards = [line for line in shown if line.startswith("board:")]
    # What a's seat showed (b asked for it too): the match as it stands, bob to roll, as
    # a new login that takes a match over sees it.
    assert len(boards) == 1 and boards[0].startswith("board:You:alice:3:")
    assert shown[shown.index(boards[0]) + 1] == "It's your turn to roll or double."
    await b.dispatch(bob, "roll")
    await settled(a, b)
    assert "You roll 6 and 5." in bob_hears.lines()


async def both_on_node_a(tmp_path) -> tuple[Lobby, Lobby, Session, RecordingConnection,
                                            Session, RecordingConnection]:
    """Nodes a and b; alice and bob, both on a, in a 3-point match there."""
    wire = Wire()
    a, b = await lobby_on(tmp_path, wire, "a"), await lobby_on(tmp_path, wire, "b")
    alice, alice_hears = await logged_in(a, "alice", ready=True)
    bob, bob_hears = await logged_in(a, "bob", ready=True)
    await a.dispatch(alice, "invite bob 3")
    await a.dispatch(bob, "join alice")
    return a, b, alice, alice_hears, bob, bob_hears


async def test_a_login_on_another_node_takes_the_match_over_from_there(tmp_path):
    a, b, alice, alice_hears, old_bob, old_bob_hears = await both_on_node_a(tmp_path)
    await a.dispatch(alice, "move 8-5 6-5")
    alice_hears.lines()
    old_bob_hears.lines()
    bob, bob_hears, account = await logged_in_again(b, "bob")
    await settled(a, b)
    await until(lambda: old_bob_hears.closed, "bob's connection to a is closed")
    # The old connection is told and closed; the match goes on, with bob's seat in it.
    assert old_bob_hears.lines()[:1] == [
        "** You logged in again from 127.0.0.1. This connection is closed."]
    running = a.match_table.match_of(alice)
    assert running is not None and running.sessions[1] is a.seats.here["bob"]
    assert bob.place.seated_elsewhere is not None and bob.place.seated_elsewhere.opponent == "alice"
    # bob at b is shown the match where it stands (as a re-login on one node shows it).
    shown = bob_hears.lines()
    board = next(line for line in shown if line.startswith("board:You:alice:3:"))
    assert shown[shown.index(board) + 1] == "It's your turn to roll or double."
    await b.dispatch(bob, "roll")
    await settled(a, b)
    assert "You roll 6 and 5." in bob_hears.lines()
    assert "bob rolls 6 and 5." in alice_hears.lines()


async def test_seat_letters_of_the_wrong_shape_cost_only_themselves(tmp_path):
    wire = Wire()
    a, b = await lobby_on(tmp_path, wire, "a"), await lobby_on(tmp_path, wire, "b")
    alice, alice_hears, bob, bob_hears = await two_players(a, b)
    await a.dispatch(alice, "invite bob 1")
    bob_hears.lines()
    bob.place.seated_elsewhere = SeatElsewhere("a")  # as `join alice` leaves it
    # A join whose client a cannot read, a line for no seat, a relay for nobody: refused or
    # dropped; bob is told the join failed and is free, alice's invitation stands.
    b.attendance.messenger.tell_node(JoinAsked("b", "a", "bob", "alice", {"clip": "yes"}))
    b.attendance.messenger.tell_node(Forwarded("b", "a", "nobody", "move 1-2"))
    a.attendance.messenger.tell_node(Relayed("a", "b", "nobody", "lines", ("hello",)))
    await settled(a, b)
    assert bob_hears.lines() == ["** Error: can't find player bob"]
    assert bob.place.seated_elsewhere is None and not a.seats.here
    assert a.match_table.invitations.invitation_from("alice") is not None
    await b.dispatch(bob, "join alice")
    await settled(a, b)
    assert a.match_table.match_of(alice) is not None


@pytest.mark.parametrize("returns_to", ["a", "c"])
async def test_a_killed_homes_player_back_on_another_node_resumes(tmp_path, returns_to):
    """bob's home (node b) is killed while his seat plays on node a; he logs in again on
    the host itself (the match is his session's there at once, as a re-login's) or on a
    third node (his seat goes, the match saved, and alice resumes it with him there)."""
    wire, a, b, alice, alice_hears, bob, bob_hears = await nodes_with_a_match(tmp_path)
    c = await lobby_on(tmp_path, wire, "c")
    del wire.nodes["b"]
    back_on = {"a": a, "c": c}[returns_to]
    bob_again, bob_again_hears, _ = await logged_in_again(back_on, "bob", ready=True)
    await settled(a, c)
    assert not a.seats.here
    if returns_to == "a":
        running = a.match_table.match_of(bob_again)
        assert running is not None and running is a.match_table.match_of(alice)
        return
    assert "bob drops connection. The game was saved." in alice_hears.lines()
    await a.dispatch(alice, "invite bob")
    assert alice_hears.lines()[0] == "** You invited bob to resume a saved match."
    await c.dispatch(bob_again, "join alice")
    await settled(a, c)
    assert a.match_table.match_of(alice) is not None
    assert "You are now playing with alice. Your running match was loaded." in \
        bob_again_hears.lines()


async def test_a_killed_hosts_player_back_on_a_third_node_frees_their_opponent_elsewhere(
        tmp_path):
    """Node a (the host) is killed; alice logs in again on node c, bob is at home on b: b
    asks a whether it still runs bob's match, and with no answer frees him to resume it
    with her (while a live host would have answered at once)."""
    wire, a, b, alice, _, bob, _ = await nodes_with_a_match(tmp_path)
    c = await lobby_on(tmp_path, wire, "c")
    b.config.clock = clock = AlarmClock()
    del wire.nodes["a"]
    alice_again, _, account = await logged_in_again(c, "alice")
    assert bob.place.seated_elsewhere is not None
    clock.advance(TAKEOVER_ANSWER_SECONDS)
    assert bob.place.seated_elsewhere is None
    alice_again.account.toggles["ready"] = True  # type: ignore[union-attr]
    await c.dispatch(alice_again, "invite bob")
    await b.dispatch(bob, "join alice")
    await settled(b, c)
    assert c.match_table.match_of(alice_again) is not None


async def test_a_live_host_answers_the_check_and_its_players_play_on(tmp_path):
    """The same, but node a lives (alice logged in on c while her connection to a stands):
    a answers b's check, and bob stays seated."""
    wire, a, b, alice, _, bob, _ = await nodes_with_a_match(tmp_path)
    c = await lobby_on(tmp_path, wire, "c")
    c.attendance.rejoined()  # c learns who is where, as a node joining the bus does
    b.config.clock = clock = AlarmClock()
    alice_again, _, account = await logged_in_again(c, "alice")
    await settled(a, b, c)
    clock.advance(TAKEOVER_ANSWER_SECONDS)
    assert bob.place.seated_elsewhere is not None and bob.place.seated_elsewhere.host == "a"
    assert a.seats.here["bob"] is not None and a.seats.here["alice"] is not None


async def test_a_seated_players_toggles_are_told_of_by_their_home_only(tmp_path):
    """`toggle ready` is answered at home and copied to the seat: only the home tells the
    others (a presence from the host would say bob was there)."""
    wire, a, b, _, _, bob, _ = await nodes_with_a_match(tmp_path)
    c = await lobby_on(tmp_path, wire, "c")
    c.attendance.rejoined()
    carried: list[object] = []
    carry = wire.carry
    wire.carry = lambda sender, names, letter: (carried.append((sender, letter)),  # type: ignore
                                                carry(sender, names, letter))[1]
    await b.dispatch(bob, "toggle ready")
    await settled(a, b, c)
    presences = [(sender, letter) for sender, letter in carried
                 if type(letter).__name__ == "Presence"]
    assert presences and all(sender == "b" for sender, _ in presences), presences
    for lobby in (a, c):
        user = lobby.attendance.users.directory.get("bob")
        assert user is not None and user.node == "b" and user.info.ready is False


async def test_a_user_watches_a_match_on_another_node(tmp_path):
    """carol, on node b, watches alice, who plays bob on node a: a seat on a watches for her,
    she hears the match there as a watcher on a does, her who-line says whom she watches,
    and `unwatch` ends it."""
    a, b, alice, alice_hears, bob, bob_hears = await both_on_node_a(tmp_path)
    alice_hears.lines()
    carol, carol_hears = await logged_in(b, "carol")
    dora, dora_hears = await logged_in(a, "dora")  # watches alice on a, for comparison
    carol_hears.lines()
    await b.dispatch(carol, "watch alice")
    await a.dispatch(dora, "watch alice")
    await settled(a, b)
    watched = carol_hears.lines()
    assert watched[0] == "You're now watching alice."
    assert watched[1:] == dora_hears.lines()[1:]  # the board, as dora sees it
    assert "carol is watching you." in alice_hears.lines()
    assert carol.place.seated_elsewhere is not None and carol.place.seated_elsewhere.watching == "alice"
    await b.dispatch(carol, "rawwho")
    lines = {line.split()[1]: line.split()[3] for line in carol_hears.lines()[:-1]}
    assert lines["carol"] == "alice"
    # alice moves: both watchers hear the same.
    await a.dispatch(alice, "move 8-5 6-5")
    await settled(a, b)
    assert carol_hears.lines() == dora_hears.lines()
    # carol can still invite and be invited (a watcher is not playing).
    await a.dispatch(dora, "toggle ready")
    assert not b.match_table.busy(carol)
    await b.dispatch(carol, "unwatch")
    await settled(a, b)
    assert carol_hears.lines()[0] == "You stop watching alice."
    assert carol.place.seated_elsewhere is None and not a.seats.here
    assert "carol stops watching you." in alice_hears.lines()


async def test_a_line_typed_right_after_join_waits_for_the_seat(tmp_path):
    """bob types `board` before the host has made his seat (its account is being read): the
    line is served after the join, and bob stays seated at home."""
    wire = Wire()
    a, b = await lobby_on(tmp_path, wire, "a"), await lobby_on(tmp_path, wire, "b")
    alice, _, bob, bob_hears = await two_players(a, b)
    await a.dispatch(alice, "invite bob 3")
    await b.dispatch(bob, "join alice")
    await b.dispatch(bob, "board")
    await settled(a, b)
    boards = [line for line in bob_hears.lines() if line.startswith("board:You:alice:3:")]
    assert len(boards) == 2  # the join's, then the one asked for
    assert a.match_table.match_of(alice) is not None
    assert bob.place.seated_elsewhere is not None and bob.place.seated_elsewhere.opponent == "alice"


async def test_a_line_the_seat_never_served_is_answered_at_home(tmp_path):
    """bob leaves and types `board` before he hears the match stopped: the seat goes without
    serving it, and his home answers it as one node would."""
    _, a, b, alice, alice_hears, bob, bob_hears = await nodes_with_a_match(tmp_path)
    await b.dispatch(bob, "leave")
    await b.dispatch(bob, "board")
    await settled(a, b)
    assert bob_hears.lines() == ["** You terminated the game. The game was saved.",
                                 "** You're not playing."]
    assert bob.place.seated_elsewhere is None and not a.seats.here


async def test_a_match_running_on_another_node_is_not_counted_as_saved(tmp_path):
    """`whois` and `history` count the saved matches waiting: not one being played, wherever
    it runs and wherever its player is."""
    _, a, b, alice, _, bob, _ = await nodes_with_a_match(tmp_path)
    for lobby in (a, b):
        for name in ("alice", "bob"):
            assert await common.match_counts(lobby.match_store, lobby.attendance, lobby.match_table, name) == (0, 0), (lobby.config.node_id, name)
    await a.dispatch(alice, "leave")
    await settled(a, b)
    for lobby in (a, b):
        for name in ("alice", "bob"):
            assert await common.match_counts(lobby.match_store, lobby.attendance, lobby.match_table, name) == (1, 0), (lobby.config.node_id, name)
