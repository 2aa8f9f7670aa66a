"""Several nodes, one lobby (lobby/nodes/bus.py, lobby/nodes/directory.py): lobbies joined by a bus that
carries every letter encoded, as Redis does between processes. Who is online, logins and
logouts, tells, shouts and whois reach users on the other node in FIBS's texts; a node that
joins late learns everyone by a roll call; a node that falls silent is forgotten."""
from __future__ import annotations

import re
import time
from collections.abc import Collection

from fibs_server import command_tables
from fibs_server.lobby.lobby import Lobby
from fibs_server.lobby.nodes.bus import Deliver, Letter, NodeLetter, decode_letter, encode_letter
from fibs_server.lobby.nodes.directory import NODE_SILENCE
from fibs_server.lobby.ports.accounts import Account
from fibs_server.protocol.texts import Departure
from tests.lobby.recording import RecordingConnection, logged_in, recording_lobby
from tests.waiting import until


class Wire:
    """The bus between the nodes: each letter delivered at its own node at once, and to the
    others as bytes, in the order told."""

    def __init__(self) -> None:
        self.nodes: dict[str, Deliver] = {}
        self.letters = self.bytes = 0  # what crossed (bench/roster_repair.py counts them)

    def bus_of(self, node: str, deliver: Deliver) -> NodeBus:
        self.nodes[node] = deliver
        return NodeBus(self, node)

    def carry(self, sender: str, names: Collection[str] | None, letter: Letter) -> None:
        data = encode_letter(letter)
        self.letters += 1
        self.bytes += len(data)
        for node, deliver in list(self.nodes.items()):
            if node != sender:
                deliver(names, decode_letter(data))


class NodeBus:
    carrying = True

    def __init__(self, wire: Wire, node: str) -> None:
        self.wire, self.node = wire, node

    def tell(self, names: Collection[str], letter: Letter) -> None:
        self.wire.nodes[self.node](names, letter)
        self.wire.carry(self.node, names, letter)

    def tell_all(self, letter: Letter) -> None:
        self.wire.nodes[self.node](None, letter)
        self.wire.carry(self.node, None, letter)

    def tell_others(self, letter: NodeLetter) -> None:
        self.wire.carry(self.node, None, letter)


class FakeClock:
    """A node directory's clock, moved by hand. It starts where the real one stands, as tests
    swap it in after the directory heard of users on the real clock: a user heard then must
    not be heard in the fake clock's future (idle for a negative time)."""

    def __init__(self) -> None:
        self.now = time.monotonic()

    def __call__(self) -> float:
        return self.now


async def node(wire: Wire, name: str, tmp_path) -> Lobby:
    (tmp_path / name).mkdir()
    lobby, _ = await recording_lobby(tmp_path / name)
    lobby.dispatcher.add_commands(command_tables.chat(lobby.owners))
    lobby.config.node_id = name
    lobby.attendance.messenger.bus = wire.bus_of(name, lobby.deliver)
    return lobby


async def test_users_of_two_nodes_see_and_talk_to_each_other(tmp_path):
    wire = Wire()
    a, b = await node(wire, "a", tmp_path), await node(wire, "b", tmp_path)
    alice, alice_hears = await logged_in(a, "alice", notify=True)
    carol, carol_hears = await logged_in(a, "carol", web_events=True)
    bob, bob_hears = await logged_in(b, "bob", notify=True)
    assert alice_hears.lines() == ["carol logs in.", "bob logs in."]
    assert carol_hears.lines()[:3] == ["7 bob bob logs in.", "5 bob - - 0 0 1500.00 0 0 "
                                       + str(bob.who.login_time) + " 127.0.0.1 - -", "6"]

    await a.dispatch(alice, "who count")
    assert alice_hears.lines() == ["There are 3 users logged in."]
    await b.dispatch(bob, "rawwho")
    # In login order (seconds: the three logins may share one, and then any order).
    assert sorted(line.split()[1] for line in bob_hears.lines()[:-1]) == ["alice", "bob", "carol"]

    await a.dispatch(alice, "tell bob hello there")
    assert bob_hears.lines() == ["alice says: hello there"]
    assert alice_hears.lines() == ["** You tell bob: hello there"]
    await b.dispatch(bob, "away lunch")
    bob_hears.lines()
    await a.dispatch(alice, "tell bob  still there?")
    assert alice_hears.lines() == ["** You tell bob:  still there?", "bob is away: lunch"]
    assert bob_hears.lines() == ["alice says:  still there?"]
    await a.accounts.create_account(Account(name="bob", password_hash=b"-"))  # one store, in life
    await a.dispatch(alice, "whois bob")
    assert alice_hears.lines()[1:3] == ["  Still logged in. 0:00 minutes idle.",
                                        "  bob is away: lunch"]

    # bob's away, on a's CLIP client and page.
    assert carol_hears.lines()[-3:-1] == ["5 bob - - 0 1 1500.00 0 0 " + str(bob.who.login_time)
                                          + " 127.0.0.1 - -", "6"]
    await b.dispatch(bob, "shout anyone?")
    assert alice_hears.lines() == ["bob shouts: anyone?"]
    assert carol_hears.lines()[0] == "13 bob anyone?"
    # carol gags bob: a tell from him to her goes nowhere on her node.
    await a.dispatch(carol, "gag bob")
    carol_hears.lines()
    await b.dispatch(bob, "tell carol psst")
    assert not any("psst" in line for line in carol_hears.lines())

    # A message to a user on the other node is delivered, not kept; a waitfor is told there.
    await a.accounts.create_account(Account(name="dora", password_hash=b"-"))
    await a.dispatch(alice, "waitfor dora")
    assert alice_hears.lines() == ["** You'll be notified when dora logs in."]
    await logged_in(b, "dora")
    assert alice_hears.lines() == ["dora logs in.", "** FINALLY!!! dora logs in."]
    await b.accounts.create_account(Account(name="alice", password_hash=b"-"))
    await b.dispatch(bob, "message alice call me")
    assert bob_hears.lines()[-1] == "** Your message was delivered to alice."
    assert re.fullmatch(r"Message from bob at .* UTC: call me", alice_hears.lines()[-1])

    await b.dispatch(bob, "bye")
    assert alice_hears.lines() == ["bob logs out."]
    await a.dispatch(alice, "who count")
    assert alice_hears.lines() == ["There are 3 users logged in."]


async def test_a_late_node_learns_everyone_and_a_silent_one_is_forgotten(tmp_path):
    wire = Wire()
    a, b = await node(wire, "a", tmp_path), await node(wire, "b", tmp_path)
    await logged_in(a, "alice")
    await logged_in(b, "bob")
    c = await node(wire, "c", tmp_path)
    clock = FakeClock()
    c.attendance.users.directory.clock = clock
    dora, dora_hears = await logged_in(c, "dora", notify=True)
    assert len(c.attendance.users.directory) == 0  # logins before c joined were not heard there
    c.attendance.rejoined()
    assert sorted(user.name for user in c.attendance.users.directory) == ["alice", "bob"]
    assert sorted(user.name for user in a.attendance.users.directory) == ["bob", "dora"]
    await c.dispatch(dora, "who count")
    assert dora_hears.lines() == ["There are 3 users logged in."]

    # Node b stops (killed: no logout reaches anyone); a keeps beating.
    del wire.nodes["b"]
    clock.now += NODE_SILENCE / 2
    a.attendance.check_in()
    c.attendance.check_in()
    assert c.attendance.users.directory.get("bob") is not None
    clock.now += NODE_SILENCE
    a.attendance.check_in()
    c.attendance.check_in()
    assert c.attendance.users.directory.get("bob") is None and c.attendance.users.directory.get("alice") is not None
    assert dora_hears.lines() == ["bob drops connection."]


async def test_a_login_on_another_node_takes_the_user_over(tmp_path):
    wire = Wire()
    a, b = await node(wire, "a", tmp_path), await node(wire, "b", tmp_path)
    old, old_hears = await logged_in(a, "alice")
    carol, carol_hears = await logged_in(a, "carol", notify=True)
    old_hears.lines()
    await logged_in(b, "alice")  # her account is in b's store too: one PostgreSQL, in life
    await until(lambda: a.attendance.users.directory.get("alice") is not None, "alice known as b's on a")
    assert old_hears.lines() == [
        "** You logged in again from 127.0.0.1. This connection is closed."]
    assert old_hears.closed and "alice" not in a.attendance.users.online
    # carol saw her go from a and come back on b.
    assert carol_hears.lines() == ["alice logs out.", "alice logs in."]
    await a.dispatch(carol, "who count")
    assert carol_hears.lines() == ["There are 2 users logged in."]

    # Node b stops: its users are logged out on a at once, in one letter.
    await b.shut_down()
    assert carol_hears.lines() == ["alice logs out."] and a.attendance.users.directory.get("alice") is None


async def test_an_administrator_acts_on_users_of_another_node(tmp_path):
    """kick, ban, mute and unmute of a user online on another node: the other node carries
    them out, in the texts it would use for its own administrator's."""
    wire = Wire()
    a, b = await node(wire, "a", tmp_path), await node(wire, "b", tmp_path)
    for lobby in (a, b):
        lobby.dispatcher.add_commands(command_tables.admin(lobby.owners))
    await a.accounts.create_account(Account(name="warden", password_hash=b"-", is_admin=True))
    warden = a.connect(RecordingConnection())
    warden.out.prompts = False
    await a.log_in(warden, await a.accounts.find_account("warden"))
    for name in ("bob", "carol"):
        await a.accounts.create_account(Account(name=name, password_hash=b"-"))
    bob, bob_hears = await logged_in(b, "bob")
    carol, carol_hears = await logged_in(b, "carol")
    await a.dispatch(warden, "mute carol")
    assert b.chat_state.of("carol").muted is True
    await a.dispatch(warden, "unmute carol")
    assert b.chat_state.of("carol").muted is False
    await a.dispatch(warden, "kick bob")
    await until(lambda: bob_hears.closed, "bob's connection is closed on node b")
    assert bob_hears.lines()[-1] == "** You were kicked out by an administrator."
    assert "bob" not in b.attendance.users.online and a.attendance.users.directory.get("bob") is None
    await a.dispatch(warden, "ban carol 1h")
    await until(lambda: carol_hears.closed, "carol's connection is closed on node b")
    assert carol_hears.lines()[-1].startswith("** You are banned")


async def test_after_a_blip_a_node_is_told_the_changes_it_missed_and_no_more(tmp_path):
    """Rosters as changes: node b misses a's letters for a while (a blip of its bus); when
    its bus is back it asks for a's changes since the last it has, and its CLIP users hear
    the who-lines that changed and the logout missed, not everyone again. A heartbeat that
    shows a lost change has the change asked for likewise; a blip that missed nothing
    costs no line."""
    wire = Wire()
    a, b = await node(wire, "a", tmp_path), await node(wire, "b", tmp_path)
    for name in ("alice", "carol", "erin", "fred"):
        await logged_in(a, name)
    bob, bob_hears = await logged_in(b, "bob", notify=True)
    bob.out.clip = True
    b.attendance.rejoined()  # a blip that missed nothing
    assert bob_hears.lines() == []

    deliver_to_b = wire.nodes.pop("b")  # b hears nothing for a while
    carol = a.attendance.users.online["carol"]
    await a.dispatch(carol, "toggle ready")
    await logged_in(a, "dave")
    await a.log_out(a.attendance.users.online["alice"], Departure.LOGGED_OUT)
    a.attendance.check_in()
    wire.nodes["b"] = deliver_to_b
    b.attendance.rejoined()
    lines = bob_hears.lines()
    assert sorted(line.split()[1] for line in lines if line.startswith("5 ")) == ["carol", "dave"]
    assert [line for line in lines if not line.startswith("5 ")] == ["8 alice alice logs out.", "6"]
    assert sorted(user.name for user in b.attendance.users.directory) == ["carol", "dave", "erin", "fred"]

    # A lost letter: the next heartbeat shows a's roster moved on, and b asks.
    wire.nodes.pop("b")
    await a.dispatch(a.attendance.users.online["erin"], "toggle ready")
    wire.nodes["b"] = deliver_to_b
    a.attendance.check_in()
    assert [line.split()[1] for line in bob_hears.lines() if line.startswith("5 ")] == ["erin"]
    assert b.attendance.users.directory.versions["a"] == (a.attendance.roster_log.run,
                                                          a.attendance.roster_log.version)
