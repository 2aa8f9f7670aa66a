"""Two lobbies on one database, as two nodes cut off from each other: a match that one node
runs is resumed on the other (its players came back there), and the first node's copy can
store nothing more (the owner epoch, lobby.match_records.StaleMatchOwner). Its next action
there is refused as not stored, nobody is told of it, and the match stops running there."""
from __future__ import annotations

import json

import pytest

from fibs_server.lobby.limits.passwords import PasswordHasher
from fibs_server.lobby.lobby import Lobby, LobbyConfig
from fibs_server.lobby.presence.session import Session
from fibs_server.protocol import texts
from fibs_server.protocol.wording import game_texts
from fibs_server.rules.dice import ScriptedDice
from fibs_server.rules.match import Phase
from fibs_server.store import SqlStore, upgrade_database_async
from tests.lobby.recording import RecordingConnection, logged_in, user_and_game
from tests.lobby.test_match_play import move


def node_on(store: SqlStore, *dice: tuple[int, int]) -> Lobby:
    script = ScriptedDice(dice)
    return Lobby(store, store, PasswordHasher(rounds=4),
                 LobbyConfig(new_dice=lambda: script, choose_first_x=lambda: 1),
                 user_and_game, chat_records=store)


async def back_on(lobby: Lobby, name: str) -> tuple[Session, RecordingConnection]:
    """`name`, whose account exists, logged in on `lobby` (boardstyle 3, no prompts)."""
    account = await lobby.accounts.find_account(name)
    assert account is not None
    connection = RecordingConnection()
    session = lobby.connect(connection)
    session.out.prompts = False
    await lobby.log_in(session, account)
    connection.lines()
    return session, connection


@pytest.fixture
async def two_nodes(tmp_path):
    """Node A runs a 1-point match of alice and bob, alice to move her opening 3-1; node B
    is another lobby on the same database file. Yields (a, b, {name: (session, connection)}
    on A)."""
    url = f"sqlite:///{tmp_path / 'lobby.db'}"
    await upgrade_database_async(url)
    stores = [await SqlStore.open(url) for _ in range(2)]
    a, b = node_on(stores[0], (3, 1), (6, 5)), node_on(stores[1], (6, 5), (2, 2))
    users = {name: await logged_in(a, name, ready=True) for name in ("alice", "bob")}
    await a.matches.start_match(users["alice"][0], users["bob"][0], 1)
    for _, connection in users.values():
        connection.lines()
    yield a, b, users
    for store in stores:
        await store.close()


async def stored_state(lobby: Lobby) -> dict:
    record = await lobby.match_store.running_match("alice", "bob")
    assert record is not None
    return record.state


def as_json(state: dict) -> dict:
    return json.loads(json.dumps(state))


async def test_a_match_resumed_on_another_node_is_stored_no_more_by_the_first(two_nodes):
    a, b, users = two_nodes
    (alice, alice_hears), (bob, bob_hears) = users["alice"], users["bob"]
    on_a = a.match_table.match_of(alice)
    assert on_a is not None

    # alice and bob come back on node B, and resume their match there: B claims it.
    alice_b, _ = await back_on(b, "alice")
    bob_b, _ = await back_on(b, "bob")
    await b.matches.resume_match(alice_b, bob_b)
    on_b = b.match_table.match_of(alice_b)
    assert on_b is not None and on_b.keeping.owner_epoch == on_a.keeping.owner_epoch + 1
    await b.matches.act(alice_b, move("8-5 6-5"))
    assert on_b.match.phase is Phase.MOVE and on_b.match.turn == 1  # bob rolled 6-5 on B
    stored_by_b = await stored_state(b)
    assert stored_by_b == as_json(on_b.match.to_dict())

    # Node A still runs its copy; alice's move there is refused and the match stops there.
    before = on_a.match.to_dict()
    await a.matches.act(alice, move("8-5 6-5"))
    assert on_a.match.to_dict() == before  # the snapshot, restored
    goes_on = texts.match_goes_on_elsewhere
    assert alice_hears.lines() == [texts.NOT_STORED, goes_on("bob")]
    assert bob_hears.lines() == [goes_on("alice")]  # nothing of the move
    assert a.match_table.match_of(alice) is None and a.match_table.match_of(bob) is None
    assert a.match_table.running_matches() == []
    assert await stored_state(a) == stored_by_b

    # B goes on storing; on A there is nothing left to act on.
    await b.matches.act(bob_b, move("1-7 7-12"))
    assert await stored_state(b) == as_json(on_b.match.to_dict())
    await a.matches.act(alice, move("8-5 6-5"))
    assert alice_hears.lines() == [game_texts.NOT_PLAYING]


async def test_a_stale_node_leaving_the_match_marks_nothing(two_nodes):
    a, b, users = two_nodes
    alice, alice_hears = users["alice"]
    await b.matches.resume_match(*[(await back_on(b, name))[0] for name in ("alice", "bob")])
    await a.matches.leave(alice)
    assert alice_hears.lines() == ["** You terminated the game. The game was saved."]
    assert a.match_table.match_of(alice) is None
    record = await b.match_store.running_match("alice", "bob")
    assert record is not None and record.left_by is None  # B's players play it


async def test_a_node_resuming_a_match_runs_the_last_state_any_node_stored(two_nodes):
    """The claim comes before the read: what the old owner stored up to the claim is what
    runs on the new one."""
    a, b, users = two_nodes
    alice = users["alice"][0]
    await a.matches.act(alice, move("8-5 6-5"))  # stored by A, bob rolls from A's script
    stored_by_a = await stored_state(a)
    await b.matches.resume_match(*[(await back_on(b, name))[0] for name in ("alice", "bob")])
    on_b = b.match_table.match_of(b.attendance.users.online["alice"])
    assert on_b is not None and as_json(on_b.match.to_dict()) == stored_by_a


async def test_an_abandonment_check_closes_no_match_claimed_since_it_read_it(two_nodes):
    """Node A's check reads a match idle for long; node B claims it (its players resume it)
    before A closes it: A's close changes nothing."""
    a, b, users = two_nodes
    await a.matches.leave(users["bob"][0])  # saved, left by bob
    a.config.abandon_after = 0.0
    a.config.wall_clock = lambda: 2e9  # long after every update
    read_idle = a.match_store.idle_matches

    async def resumed_on_b_meanwhile(before: int) -> list:
        records = await read_idle(before)
        for record in records:
            await b.match_store.claim_match(record.match_id)
        return records
    a.match_store.idle_matches = resumed_on_b_meanwhile  # type: ignore[method-assign]
    assert await a.matches.saved.close_abandoned() == 0
    record = await b.match_store.running_match("alice", "bob")
    assert record is not None and not record.finished and not record.abandoned
