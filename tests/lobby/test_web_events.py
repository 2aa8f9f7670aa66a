"""The typed messages through the lobby (docs/WEB-PROTOCOL.md): a session that asked for them
gets them in order with its FIBS lines, each valid by the schema, over a whole match of bots'
decisions with invitations, chat and watchers; a classic session gets FIBS's lines only."""
from __future__ import annotations

import json
import random

from fibs_server.bots import BEGINNER, decide, situation_for
from fibs_server.lobby import chat_commands, match_play
from tests.lobby.recording import RecordingConnection, logged_in, recording_lobby
from tests.protocol.test_web_events import VALIDATOR, check_board

ROLLS = 3_000


def split(connection: RecordingConnection) -> tuple[list[str], list[dict]]:
    """The FIBS lines and the typed messages recorded since the last take."""
    lines, messages = [], []
    for line in connection.lines():
        if line.startswith("{"):
            messages.append(json.loads(line))
            VALIDATOR.validate(messages[-1])
        else:
            lines.append(line)
    return lines, messages


async def play_to_the_end(lobby, sessions, rng: random.Random) -> None:
    """Both players' decisions by a bot, each through the match pipeline like a command."""
    running = lobby.match_table.match_of(sessions[0])
    while lobby.match_table.match_of(sessions[0]) is running:
        acted = False
        for player, session in enumerate(sessions):
            situation = situation_for(running.match, player)
            if situation is None:
                continue
            decision = decide(situation, BEGINNER, rng)
            assert await match_play.act(lobby, session, decision.apply)
            acted = True
            break
        assert acted, f"nobody acts in phase {running.match.phase}"


async def test_a_whole_match_in_typed_messages_beside_fibs_lines(tmp_path):
    rng = random.Random(5)
    lobby, store = await recording_lobby(
        tmp_path, *((rng.randint(1, 6), rng.randint(1, 6)) for _ in range(ROLLS)))
    lobby.add_commands(chat_commands.table)
    carol, carol_out = await logged_in(lobby, "carol", web_events=True)
    alice, alice_out = await logged_in(lobby, "alice", web_events=True, ready=True)
    bob, bob_out = await logged_in(lobby, "bob", ready=True)
    dave, dave_out = await logged_in(lobby, "dave")
    dave.clip = True  # a CLIP client that did not ask: FIBS's lines only
    _, logins = split(alice_out)
    assert [(m["name"], m["online"]) for m in logins] == [("bob", True), ("dave", True)]
    split(carol_out)

    await lobby.dispatch(bob, "invite alice 3 nack timer 30")
    _, told = split(alice_out)
    assert [m for m in told if m["type"] == "invitation"] == [{
        "type": "invitation", "from": "bob", "length": 3, "resume": False,
        "replaces_saved_match": False, "terms": {"variant": "nackgammon",
                                                 "lower_die_starts": False, "cube": True,
                                                 "turn_seconds": 30, "takeover_seconds": None}}]
    await lobby.dispatch(bob, "invite alice 3")
    await lobby.dispatch(alice, "join bob")
    lobby.match_table.set_watching(carol, bob)
    lobby.match_table.set_watching(dave, bob)
    await lobby.dispatch(alice, "say good luck {bob}")
    await lobby.dispatch(carol, "kibitz nice roll")
    await lobby.dispatch(bob, "tell carol thanks")
    await play_to_the_end(lobby, (bob, alice), rng)

    _, alice_told = split(alice_out)
    chats = [(m["kind"], m["from"], m["text"]) for m in alice_told if m["type"] == "chat"]
    assert chats == [("say", "alice", "good luck {bob}"), ("kibitz", "carol", "nice roll")]
    boards = [m for m in alice_told if m["type"] == "board"]
    assert all(b["as_player"] and b["player"]["name"] == "alice" for b in boards)
    assert any(b["legal_plays"] for b in boards)
    over = [m for m in alice_told if m["type"] == "match_over"]
    assert len(over) == 1 and over[0]["ratings"] is not None
    assert boards[-1]["phase"] in ("match_over", "between_games")

    _, carol_told = split(carol_out)
    carol_boards = [m for m in carol_told if m["type"] == "board"]
    assert carol_boards and all(not b["as_player"] and b["player"]["name"] == "bob"
                                for b in carol_boards)
    assert ("tell", "bob", "thanks") in [(m["kind"], m["from"], m["text"])
                                         for m in carol_told if m["type"] == "chat"]
    assert any(m["type"] == "presence" and m["name"] == "bob" and m["opponent"] is None
               for m in carol_told)  # the match is over: bob's who-line changed back

    for connection in (bob_out, dave_out):
        lines, messages = split(connection)
        assert messages == [] and lines and not any(line.startswith("{") for line in lines)
    await store.close()


async def test_the_board_command_and_a_takeover_send_the_board_as_a_message_too(tmp_path):
    lobby, store = await recording_lobby(tmp_path, (3, 1), (6, 5), (2, 2))
    alice, alice_out = await logged_in(lobby, "alice", web_events=True, ready=True)
    bob, _ = await logged_in(lobby, "bob", ready=True)
    await match_play.start_match(lobby, alice, bob, 1)
    split(alice_out)
    await lobby.dispatch(alice, "board")
    lines, messages = split(alice_out)
    assert lines[0].startswith("board:You:bob:1:")
    [board] = messages
    running = lobby.match_table.match_of(alice)
    check_board(running.match, running.match.moment(), board, 0)
    assert board["player"]["dice"] == [3, 1] and board["legal_plays"]
    await store.close()
