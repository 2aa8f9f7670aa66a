"""The match pipeline (lobby.match_play) without sockets: apply → follow-ups → store → tell."""
from __future__ import annotations

import json

import pytest

from fibs_server import command_tables
from fibs_server.protocol import texts
from fibs_server.rules.board.notation import parse_move
from fibs_server.rules.events import WinKind
from fibs_server.rules.match import Phase
from tests.lobby.recording import logged_in, recording_lobby


@pytest.fixture
async def table(tmp_path):
    """alice (player 0) and bob in a 1-point match that alice opens with 3-1; carol watches
    alice. Yields (lobby, store, {name: (session, connection)})."""
    lobby, store = await recording_lobby(tmp_path, (3, 1), (6, 5), (2, 2))
    users = {name: await logged_in(lobby, name, **toggles) for name, toggles in
             (("alice", {"ready": True}), ("bob", {"ready": True}), ("carol", {}))}
    (alice, _), (bob, _), (carol, _) = users["alice"], users["bob"], users["carol"]
    lobby.match_table.watchers.set_watching(carol, alice)
    await lobby.matches.start_match(alice, bob, 1)
    for _, connection in users.values():
        connection.lines()
    yield lobby, store, users
    await store.close()


def move(text: str):
    def play(match, player):
        return match.move(player, parse_move(text, match.position_seen_by(player), match.dice,
                                             match.colour(player), match.legal_results))
    return play


async def is_stored(store, running) -> bool:
    """Whether the store holds the match's state as it is in memory (JSON has no tuples)."""
    record = await store.running_match(*running.names)
    return record.state == json.loads(json.dumps(running.match.to_dict()))


async def test_an_action_is_stored_before_anyone_is_told(table):
    lobby, store, users = table
    (alice, alice_out), (bob, bob_out), (_, carol_out) = (users[n] for n in ("alice", "bob",
                                                                            "carol"))
    running = lobby.match_table.match_of(alice)
    await lobby.matches.act(alice, move("8-5 6-5"))
    # bob has no `double` toggle on: the server rolls for him (6-5) and asks for his move.
    assert await is_stored(store, running)
    assert running.match.phase is Phase.MOVE and running.match.turn == 1
    assert "alice moves 8-5 6-5 ." in bob_out.lines()
    assert alice_out.lines()[0].startswith("board:You:bob:1:")  # `autoboard` instead of Done.
    watched = carol_out.lines()
    assert watched[0] == "alice moves 8-5 6-5 ."
    assert watched[1].startswith("board:alice:bob:1:")  # as alice sees it (autoboard)


async def test_the_servers_own_rolls_and_prompts_follow_the_action(table):
    lobby, _, users = table
    alice, (_, bob_out) = users["alice"][0], users["bob"]
    await lobby.matches.act(alice, move("8-5 6-5"))
    lines = bob_out.lines()
    assert lines[lines.index("alice moves 8-5 6-5 .") + 2:] == [
        "You roll 6 and 5.", "Please move 2 pieces."]


async def test_a_refused_action_changes_nothing_and_tells_only_the_actor(table):
    lobby, store, users = table
    (alice, _), (bob, bob_out), (_, alice_out) = users["alice"], users["bob"], users["alice"]
    running = lobby.match_table.match_of(alice)
    before = running.match.to_dict()
    await lobby.matches.act(bob, lambda match, player: match.roll(player))
    assert running.match.to_dict() == before
    assert bob_out.lines() == ["** It's not your turn to roll the dice."]
    assert alice_out.lines() == []


async def test_a_failed_store_undoes_the_action_and_tells_only_the_actor(table, monkeypatch):
    lobby, store, users = table
    (alice, alice_out), (_, bob_out) = users["alice"], users["bob"]
    running = lobby.match_table.match_of(alice)
    before = running.match.to_dict()

    async def failing_save(match_id, state):
        raise OSError("disk full")
    monkeypatch.setattr(store, "save_match_state", failing_save)
    await lobby.matches.act(alice, move("8-5 6-5"))
    assert running.match.to_dict() == before
    assert alice_out.lines() == [texts.NOT_STORED]
    assert bob_out.lines() == []


async def test_the_end_of_a_rated_match_returns_its_rating_and_reports_it(table):
    lobby, store, users = table
    (alice, alice_out), (bob, bob_out), (_, carol_out) = (users[n] for n in ("alice", "bob",
                                                                            "carol"))
    alice.account.toggles["ratings"] = True
    await lobby.matches.act(alice, lambda match, player: match.resign(player, WinKind.SINGLE))
    await lobby.matches.act(bob, lambda match, player: match.accept(player))
    assert lobby.match_table.match_of(alice) is None and not lobby.match_table.playing
    record = (await store.finished_matches("alice", 1))[0]
    assert record.winner == "bob" and record.state["ratings"]["bob"][1] > 1500
    assert alice.account.rating < 1500 < bob.account.rating  # the accounts online, updated
    alice_lines = alice_out.lines()
    assert "rating calculation:" in alice_lines  # alice asked for it with `toggle ratings`
    assert alice_lines[-1] == "bob wins the 1 point match 1-0 ."
    bob_lines = bob_out.lines()
    assert "rating calculation:" not in bob_lines and bob_lines[-1] == \
        "You win the 1 point match 1-0 ."
    # carol watched (the watchers' line), and wants reports (`toggle report`).
    assert carol_out.lines()[-2:] == ["bob wins the 1 point match 1-0 .",
                                      "bob wins a 1 point match against alice  1-0 ."]


async def test_leaving_a_match_saves_it_and_parts_the_players(table):
    lobby, store, users = table
    (alice, alice_out), (bob, bob_out), (_, carol_out) = (users[n] for n in ("alice", "bob",
                                                                            "carol"))
    running = lobby.match_table.match_of(alice)
    await lobby.matches.leave(bob)
    assert bob_out.lines() == ["** You terminated the game. The game was saved."]
    assert alice_out.lines() == ["** Player bob has left the game. The game was saved."]
    assert carol_out.lines() == ["bob has left the game with alice."]
    assert lobby.match_table.match_of(alice) is None
    assert await is_stored(store, running)


async def test_leaving_an_unlimited_match_between_games_ends_it_unrated(tmp_path):
    lobby, store = await recording_lobby(tmp_path, (3, 1))
    (alice, alice_out), (bob, bob_out) = [await logged_in(lobby, n, ready=True)
                                          for n in ("alice", "bob")]
    await lobby.matches.start_match(alice, bob, None)
    await lobby.matches.act(alice, lambda match, player: match.resign(player, WinKind.SINGLE))
    await lobby.matches.act(bob, lambda match, player: match.accept(player))
    alice_out.lines(), bob_out.lines()
    await lobby.matches.leave(alice)
    assert alice_out.lines() == ["** You terminated the unlimited match."]
    assert bob_out.lines() == ["** Player alice has ended the unlimited match."]
    record = (await store.finished_matches("alice", 1))[0]
    assert record.winner is None and "ratings" not in record.state
    assert alice.account.rating == bob.account.rating == 1500
    await store.close()


async def test_a_match_invited_unrated_leaves_both_ratings(tmp_path):
    lobby, store = await recording_lobby(tmp_path, (3, 1))
    lobby.dispatcher.add_commands(command_tables.game(lobby.owners))
    (alice, alice_out), (bob, bob_out) = [await logged_in(lobby, n, ready=True)
                                          for n in ("alice", "bob")]
    await lobby.dispatch(alice, "invite bob 1 unrated")
    assert "The match is played with: unrated." in bob_out.lines()
    await lobby.dispatch(bob, "join alice")
    await lobby.matches.act(alice, lambda match, player: match.resign(player, WinKind.SINGLE))
    await lobby.matches.act(bob, lambda match, player: match.accept(player))
    record = (await store.finished_matches("alice", 1))[0]
    assert record.winner == "bob" and "ratings" not in record.state
    assert alice.account.rating == bob.account.rating == 1500
    await store.close()


@pytest.fixture
async def against_a_bot(tmp_path):
    """alice (player 0) against a bot's session that the test plays by hand; the bot opens
    with 3-1 and plays its first legal play; then alice is to roll or double."""
    lobby, store = await recording_lobby(tmp_path, (1, 3), (6, 5), (4, 2), (5, 5))
    alice, alice_out = await logged_in(lobby, "alice", ready=True)
    robot, _ = await logged_in(lobby, "robot")
    robot.is_bot = True
    await lobby.matches.start_match(alice, robot, 3)
    await lobby.matches.act(robot, lambda match, player: match.move(
        player, match.legal_plays()[0]))
    running = lobby.match_table.match_of(alice)
    assert running.match.phase is Phase.ROLL_OR_DOUBLE and running.match.turn == 0
    alice_out.lines()
    yield lobby, running, (alice, alice_out), robot
    await store.close()


async def test_undo_takes_back_a_double_and_the_take_after_it_and_the_dice_come_again(
        against_a_bot):
    lobby, running, (alice, alice_out), robot = against_a_bot
    before = running.match.to_dict()
    await lobby.matches.act(alice, lambda match, player: match.double(player))
    await lobby.matches.act(robot, lambda match, player: match.accept(player))
    assert running.match.cube == 2 and running.match.dice == (6, 5)  # alice rolled after
    await lobby.matches.undo(alice)
    assert running.match.to_dict() == before and running.keeping.unrated == "undo"
    await lobby.matches.act(alice, lambda match, player: match.roll(player))
    assert running.match.dice == (6, 5)  # the same dice again


async def test_undo_takes_back_a_take_and_a_move(against_a_bot):
    lobby, running, (alice, alice_out), robot = against_a_bot
    await lobby.matches.act(alice, lambda match, player: match.roll(player))
    await lobby.matches.act(alice, lambda match, player: match.move(
        player, match.legal_plays()[0]))
    await lobby.matches.act(robot, lambda match, player: match.double(player))
    offered = running.match.to_dict()
    await lobby.matches.act(alice, lambda match, player: match.accept(player))
    bot_roll = running.match.dice
    await lobby.matches.undo(alice)  # the take
    assert running.match.to_dict() == offered
    await lobby.matches.act(alice, lambda match, player: match.accept(player))
    assert running.match.dice == bot_roll
    await lobby.matches.undo(alice)
    await lobby.matches.undo(alice)  # and the move before it: alice's roll is back
    assert running.match.phase is Phase.MOVE and running.match.dice == (6, 5)
    told = alice_out.lines()
    assert told[-3] == texts.UNDONE and told[-1] == "Please move 2 pieces."


async def test_undo_is_refused_outside_a_match_against_a_bot(table):
    lobby, _, users = table
    alice, alice_out = users["alice"]
    await lobby.matches.undo(alice)
    assert alice_out.lines() == [texts.UNDO_ONLY_AGAINST_BOTS]


async def test_an_undo_the_store_refuses_changes_nothing(against_a_bot, monkeypatch):
    lobby, running, (alice, alice_out), robot = against_a_bot
    await lobby.matches.act(alice, lambda match, player: match.roll(player))
    rolled = running.match.to_dict()
    alice_out.lines()

    async def failing_save(match_id, state):
        raise OSError("disk full")
    monkeypatch.setattr(lobby.match_store, "save_match_state", failing_save)
    await lobby.matches.undo(alice)
    assert running.match.to_dict() == rolled and running.keeping.unrated is None
    assert alice_out.lines() == [texts.NOT_STORED] and len(running.undo_points) == 1
