"""The typed messages through the lobby (docs/WEB-PROTOCOL.md): a session that asked for them
gets them in order with its FIBS lines, each valid by the schema, over a whole match of bots'
decisions with invitations, chat and watchers; a classic session gets FIBS's lines only."""
from __future__ import annotations

import json
import random

from fibs_server import command_tables
from fibs_server.bots import BEGINNER, decide, situation_for
from fibs_server.lobby.play import match_play
from fibs_server.lobby.services.tournaments import TournamentDirector
from fibs_server.protocol.login_dialogue import WEB_PAGE
from fibs_server.protocol.match_rules import ONE_VARIANT
from fibs_server.protocol.texts import Departure
from fibs_server.rules.dice import VerifiableDice
from tests.fake_clock import FakeClock
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
            assert await lobby.matches.act(session, decision.apply)
            acted = True
            break
        assert acted, f"nobody acts in phase {running.match.phase}"


async def test_a_whole_match_in_typed_messages_beside_fibs_lines(tmp_path):
    rng = random.Random(5)
    lobby, store = await recording_lobby(
        tmp_path, *((rng.randint(1, 6), rng.randint(1, 6)) for _ in range(ROLLS)))
    lobby.dispatcher.add_commands(command_tables.chat(lobby.owners))
    carol, carol_out = await logged_in(lobby, "carol", web_events=True)
    alice, alice_out = await logged_in(lobby, "alice", web_events=True, ready=True)
    bob, bob_out = await logged_in(lobby, "bob", ready=True)
    dave, dave_out = await logged_in(lobby, "dave")
    dave.out.clip = True  # a CLIP client that did not ask: FIBS's lines only
    _, logins = split(alice_out)
    assert [(m["name"], m["online"]) for m in logins] == [("bob", True), ("dave", True)]
    split(carol_out)

    await lobby.dispatch(bob, "invite alice 3 nack timer 30")
    _, told = split(alice_out)
    assert [m for m in told if m["type"] == "invitation"] == [{
        "type": "invitation", "from": "bob", "length": 3, "resume": False,
        "replaces_saved_match": False, "terms": {"variant": "nackgammon",
                                                 "lower_die_starts": False, "cube": True,
                                                 "turn_seconds": 30, "takeover_seconds": None, "rated": True, "bank": None}}]
    await lobby.dispatch(bob, "invite alice 3")
    await lobby.dispatch(alice, "join bob")
    lobby.match_table.watchers.set_watching(carol, bob)
    lobby.match_table.watchers.set_watching(dave, bob)
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
    # The finished match's number in the archive: its review's.
    (record,) = await lobby.match_store.finished_matches("alice", 1)
    assert over[0]["match_id"] == record.match_id
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
    await lobby.matches.start_match(alice, bob, 1)
    split(alice_out)
    await lobby.dispatch(alice, "board")
    lines, messages = split(alice_out)
    assert lines[0].startswith("board:You:bob:1:")
    [board] = messages
    running = lobby.match_table.match_of(alice)
    check_board(running.match, running.match.moment(), board, 0)
    assert board["player"]["dice"] == [3, 1] and board["legal_plays"]
    await store.close()


def refusals(messages: list[dict]) -> list[tuple[str | None, dict]]:
    return [(m["code"], m["params"]) for m in messages if m["type"] == "refusal"]


async def refused_commands(tmp_path, web_events: bool) -> list[str]:
    """What alice gets for commands that are mostly refused, in a lobby of her own."""
    tmp_path.mkdir()
    lobby, store = await recording_lobby(tmp_path)
    lobby.dispatcher.add_commands(command_tables.chat(lobby.owners))
    alice, alice_out = await logged_in(lobby, "alice", web_events=web_events)
    if not web_events:
        alice.out.clip = True  # a CLIP client that did not ask for messages
    await logged_in(lobby, "bob")
    await logged_in(lobby, "dave", ready=True)
    for command in ("invite bob 5", "toggle ready", "invite zed 5", "invite alice",
                    "invite bob 5", "join bob", "watch", "unwatch", "invite dave 100",
                    "move 1-2", "bogus", "invite dave 3 portes nack", "tell", "tell dave"):
        await lobby.dispatch(alice, command)
    await store.close()
    # The who-lines (CLIP 5) show login times, which differ from one lobby to the other.
    return [line for line in alice_out.lines() if not line.startswith("5 ")]


async def test_the_lobbys_refusals_come_as_coded_messages_right_after_their_lines(tmp_path):
    recorded = await refused_commands(tmp_path / "events", web_events=True)
    for before, line in zip(recorded, recorded[1:]):
        if line.startswith('{"type":"refusal"'):
            assert before == "** " + json.loads(line)["text"]
    lines, messages = split_lines(recorded)
    assert refusals(messages) == [
        ("not_ready", {}), ("no_such_user", {"name": "zed"}), ("invite_yourself", {}),
        ("refusing_games", {"name": "bob"}), ("no_invitation", {"name": "bob"}),
        ("watch_whom", {}), ("not_watching", {}), ("bad_length", {"longest": 99}),
        ("not_playing", {}), ("unknown_command", {"command": "bogus"}), ("one_variant", ONE_VARIANT.params),
        ("tell_whom", {}), ("tell_what", {"name": "dave"})]
    # A CLIP client that did not ask gets exactly the same lines, and nothing else.
    assert await refused_commands(tmp_path / "clip", web_events=False) == lines


async def test_the_server_commands_fairdices_and_sets_refusals_are_coded_too(tmp_path):
    # Texts that had no code: a page shows them in its own words, with the facts as params.
    lobby, store = await recording_lobby(tmp_path)
    lobby.dispatcher.add_commands(command_tables.server(lobby.owners))
    lobby.dispatcher.add_commands(command_tables.fair(lobby.owners))
    alice, alice_out = await logged_in(lobby, "alice", web_events=True)
    for command in ("where", "fairdice 12", "fairdice x", "set boardstyle 9",
                    "set linelength x", "set timezone Mars", "toggle zzz"):
        await lobby.dispatch(alice, command)
    recorded = alice_out.lines()
    for before, line in zip(recorded, recorded[1:]):
        if line.startswith('{"type":"refusal"'):
            assert before == "** " + json.loads(line)["text"]
    lines, messages = split_lines(recorded)
    assert refusals(messages) == [
        ("where_whom", {}), ("no_such_match", {"match": "12"}), ("fairdice_usage", {}),
        ("boardstyle_values", {}), ("length_setting_values", {"setting": "linelength"}),
        ("unknown_timezone", {"timezone": "Mars"}), ("unknown_toggle", {"word": "zzz"})]
    assert lines[1] == "** There is no match 12."
    await store.close()


def split_lines(lines: list[str]) -> tuple[list[str], list[dict]]:
    messages = [json.loads(line) for line in lines if line.startswith("{")]
    for message in messages:
        VALIDATOR.validate(message)
    return [line for line in lines if not line.startswith("{")], messages


async def dialogue(lobby, lines: list[str], events: bool) -> list[str]:
    """A web page's connection at the login prompt that sends `lines`; what it got."""
    connection = RecordingConnection()
    session = lobby.connect(connection, WEB_PAGE)
    if events:
        session.out.event_sink = lambda line, broadcast: connection.send(line + "\r\n", broadcast)
    connection.take()
    for line in lines:
        await session.incoming.handle_line(line)
    return connection.events


async def test_the_login_dialogues_refusals_come_as_messages_before_login(tmp_path):
    lobby, store = await recording_lobby(tmp_path)
    await logged_in(lobby, "alice")
    await dialogue(lobby, ["guest", "name carol", "secret", "secret"], events=False)
    for answers, codes in (
            (["guest", "name ab", "name alice", "name new_user", "abc", "abcd", "abce"],
             ["name_too_short", "name_taken", "password_too_short", "passwords_differ"]),
            (["carol", "wrong"], ["wrong_login"])):
        with_events = await dialogue(lobby, answers, events=True)
        messages = [json.loads(text) for text in with_events if text.startswith("{")]
        for message in messages:
            VALIDATOR.validate(message)
        assert [code for code, _ in refusals(messages)] == codes
        # Without the messages, exactly what a page gets that did not ask for them.
        assert [text for text in with_events if not text.startswith("{")] == \
            await dialogue(lobby, answers, events=False)
    await store.close()


async def test_a_match_told_in_messages_from_the_invitation_to_its_saved_matches(tmp_path):
    lobby, store = await recording_lobby(tmp_path, *[(6, 5), (3, 1)] * 20)
    alice, alice_out = await logged_in(lobby, "alice", web_events=True, ready=True)
    bob, bob_out = await logged_in(lobby, "bob", web_events=True, ready=True)
    carol, carol_out = await logged_in(lobby, "carol", web_events=True, ready=True)
    dave, dave_out = await logged_in(lobby, "dave", ready=True)
    dave.out.clip = True
    for connection in (alice_out, bob_out, carol_out):
        split(connection)

    await lobby.dispatch(alice, "invite carol 3 nack")
    await lobby.dispatch(alice, "invite bob 5")  # in place of the invitation to carol
    _, alice_told = split(alice_out)
    assert [(m["to"], m["length"], m["terms"]["variant"]) for m in alice_told
            if m["type"] == "invitation_sent"] == [("carol", 3, "nackgammon"),
                                                   ("bob", 5, "standard")]
    _, carol_told = split(carol_out)
    assert carol_told[-1] == {"type": "invitation_withdrawn", "from": "alice"}

    await lobby.dispatch(carol, "invite alice 1")
    await lobby.dispatch(carol, "invite dave 1")  # one invitation each: alice's is gone
    await lobby.log_out(carol, Departure.LOGGED_OUT)  # and dave's goes with her
    _, alice_told = split(alice_out)
    assert [m for m in alice_told if m["type"] == "invitation_withdrawn"] == [
        {"type": "invitation_withdrawn", "from": "carol"}]
    erin, erin_out = await logged_in(lobby, "erin", web_events=True, ready=True)

    await lobby.dispatch(bob, "join alice")
    _, alice_told = split(alice_out)
    _, bob_told = split(bob_out)
    started = [m for m in alice_told if m["type"] == "match_started"]
    assert started == [{"type": "match_started", "opponent": "bob", "length": 5,
                        "resumed": False, "rated": True, "terms": {
                            "variant": "standard", "lower_die_starts": False, "cube": True,
                            "turn_seconds": None, "takeover_seconds": None, "rated": True, "bank": None},
                        "commitment": None, "salted": False}]  # dice scripted: no seed
    types = [m["type"] for m in alice_told]
    assert types.index("match_started") < types.index("board")
    assert not any(m["type"] == "invitation_withdrawn" for m in bob_told)  # it was accepted
    assert [m["opponent"] for m in bob_told if m["type"] == "match_started"] == ["alice"]

    split(erin_out)
    await lobby.dispatch(erin, "watch alice")
    await lobby.dispatch(erin, "unwatch")
    await lobby.dispatch(erin, "watch bob")
    _, erin_told = split(erin_out)
    assert [(m["type"], m["player"]) for m in erin_told
            if m["type"] in ("watching", "watch_ended")] == [
        ("watching", "alice"), ("watch_ended", "alice"), ("watching", "bob")]
    assert erin_told[0]["opponent"] == "bob"

    running = lobby.match_table.match_of(alice)
    await lobby.log_out(bob, Departure.DROPPED)  # the match is saved
    _, erin_told = split(erin_out)
    assert {"type": "watch_ended", "player": "bob"} in erin_told
    _, alice_told = split(alice_out)
    assert [m for m in alice_told if m["type"] == "saved_matches"] == [
        {"type": "saved_matches", "matches": [
            {"opponent": "bob", "length": 5, "score": {"player": 0, "opponent": 0},
             "online": False}]}]
    # bob's grace period is over (a timed match's): he forfeits it, and it is saved no more.
    assert await lobby.matches.saved.forfeit_saved(running.match_id, running.names,
                                             running.names.index("bob"), [])
    _, alice_told = split(alice_out)
    assert alice_told[-1] == {"type": "saved_matches", "matches": []}

    lines, messages = split(dave_out)
    assert messages == [] and not any(line.startswith("{") for line in lines)
    await store.close()


async def test_a_login_tells_the_page_who_it_is_and_its_saved_matches(tmp_path):
    lobby, store = await recording_lobby(tmp_path, *[(6, 5), (3, 1)] * 20)
    alice, _ = await logged_in(lobby, "alice", ready=True)
    bob, _ = await logged_in(lobby, "bob", ready=True)
    await lobby.matches.start_match(alice, bob, 3)
    await lobby.log_out(alice, Departure.LOGGED_OUT)

    account = await lobby.accounts.find_account("alice")
    connection = RecordingConnection()
    page = lobby.connect(connection, WEB_PAGE)
    page.out.event_sink = lambda line, broadcast: connection.send(line + "\r\n", broadcast)
    page.out.clip, page.out.prompts = True, False
    await lobby.log_in(page, account)
    lines, messages = split(connection)
    welcome = next(index for index, line in enumerate(lines) if line.startswith("1 alice "))
    assert messages[0] == {"type": "logged_in", "name": "alice", "visitor": False,
                           "rating": round(account.rating, 2),
                           "experience": account.experience}
    assert messages[-1] == {"type": "saved_matches", "matches": [
        {"opponent": "bob", "length": 3, "score": {"player": 0, "opponent": 0},
         "online": True}]}
    assert welcome >= 0
    await store.close()


async def test_show_tables_lists_the_public_tables_in_a_message_too(tmp_path):
    lobby, store = await recording_lobby(tmp_path)
    lobby.dispatcher.add_commands(command_tables.tables(lobby.owners))
    alice, alice_out = await logged_in(lobby, "alice", web_events=True, ready=True)
    bob, _ = await logged_in(lobby, "bob", ready=True)
    carol, _ = await logged_in(lobby, "carol", ready=True)
    await lobby.dispatch(bob, "table 5 nack timer 30")
    await lobby.dispatch(carol, "table 3 private")
    split(alice_out)
    await lobby.dispatch(alice, "show tables")
    await lobby.dispatch(alice, "sit NOSUCHXX")
    lines, messages = split(alice_out)
    [code] = [t.code for t in lobby.match_table.open_tables.public()]
    assert lines[0] == "List of open tables:" and any(line.startswith(code) for line in lines)
    assert messages == [
        {"type": "tables", "tables": [{"code": code, "host": "bob", "length": 5, "terms": {
            "variant": "nackgammon", "lower_die_starts": False, "cube": True,
            "turn_seconds": 30, "takeover_seconds": None, "rated": True, "bank": None}}]},
        {"type": "refusal", "code": "no_table", "params": {"code": "NOSUCHXX"},
         "text": "There is no open table with the code NOSUCHXX."}]
    await store.close()


async def test_a_tables_creator_is_told_its_code_even_for_a_private_table(tmp_path):
    lobby, store = await recording_lobby(tmp_path)
    lobby.dispatcher.add_commands(command_tables.tables(lobby.owners))
    alice, alice_out = await logged_in(lobby, "alice", web_events=True, ready=True)
    split(alice_out)
    await lobby.dispatch(alice, "table 3 private")
    await lobby.dispatch(alice, "table")
    await lobby.dispatch(alice, "table close")
    _, messages = split(alice_out)
    [opened, shown, closed] = messages
    code = opened["table"]["code"]
    assert opened == shown == {"type": "my_table", "table": {
        "code": code, "length": 3, "private": True, "terms": {
            "variant": "standard", "lower_die_starts": False, "cube": True,
            "turn_seconds": None, "takeover_seconds": None, "rated": True, "bank": None}}}
    assert closed == {"type": "my_table", "table": None}
    await store.close()


async def test_a_pages_login_gets_everyone_online_kept_but_never_stale(tmp_path, monkeypatch):
    from fibs_server.lobby.presence import who_list as who_list_module
    lobby, store = await recording_lobby(tmp_path)
    monkeypatch.setattr(who_list_module, "WHO_IDLE_REFRESH", 3600)  # however slow this machine

    async def presences_at_login(name: str) -> dict[str, dict]:
        await logged_in(lobby, name)
        await lobby.log_out(lobby.attendance.users.online[name], Departure.LOGGED_OUT)
        account = await lobby.accounts.find_account(name)
        page_connection = RecordingConnection()
        page = lobby.connect(page_connection, WEB_PAGE)
        page.out.event_sink = lambda line, broadcast: page_connection.send(line + "\r\n", broadcast)
        page.out.clip, page.out.prompts = True, False
        await lobby.log_in(page, account)
        lines = page_connection.lines()
        # The block is lines of messages, with no empty line after it.
        assert all(following for line, following in zip(lines, lines[1:]) if line.startswith("{"))
        _, messages = split_lines(lines)
        return {m["name"]: m for m in messages if m["type"] == "presence"}

    alice, _ = await logged_in(lobby, "alice")
    assert list(await presences_at_login("bob")) == ["alice", "bob"]
    assert lobby.attendance.users.who_list.presence_text() is lobby.attendance.users.who_list.presence_text()  # kept
    # A change of alice's (ready, away) and bob's logout are never served from the old block.
    await lobby.dispatch(alice, "toggle ready")
    await lobby.dispatch(alice, "away lunch")
    await lobby.log_out(lobby.attendance.users.online["bob"], Departure.LOGGED_OUT)
    seen = await presences_at_login("carol")
    assert list(seen) == ["alice", "carol"]
    assert seen["alice"]["ready"] and seen["alice"]["away"]
    await store.close()



def tournament_states(messages: list[dict]) -> list[tuple]:
    """Each `tournament` message as (status, entrants, results so far, winner)."""
    return [(m["status"], [e["name"] for e in m["entrants"]],
             [p["winner"] for r in m["rounds"] for p in r["pairings"] if p["decided"]],
             m["winner"]) for m in messages if m["type"] == "tournament"]


async def test_a_tournament_told_to_the_pages_that_follow_it_from_sign_up_to_its_winner(
        tmp_path):
    lobby, store = await recording_lobby(tmp_path, *[(6, 5), (3, 1)] * 20)
    lobby.dispatcher.add_commands(command_tables.tournaments(lobby.owners, store, None))
    director = TournamentDirector(lobby.owners, lobby.arranging, store, FakeClock())
    alice, alice_out = await logged_in(lobby, "alice", web_events=True)
    bob, bob_out = await logged_in(lobby, "bob", web_events=True)
    carol, carol_out = await logged_in(lobby, "carol", web_events=True)  # follows by `show`
    dave, dave_out = await logged_in(lobby, "dave", web_events=True)  # follows none
    erin, erin_out = await logged_in(lobby, "erin")
    erin.out.clip = True  # a CLIP client that did not ask for messages, told of every tournament
    await lobby.dispatch(erin, "tournament notify on")
    for connection in (alice_out, bob_out, carol_out, dave_out, erin_out):
        split(connection)

    await lobby.dispatch(alice, "tournament create knockout length 1 when 2 cap 4")
    await lobby.dispatch(carol, "tournament list")
    await lobby.dispatch(carol, "tournament show 1")
    _, carol_told = split(carol_out)
    assert [m["type"] for m in carol_told] == ["tournaments", "tournament"]
    assert carol_told[0]["tournaments"] == [{k: v for k, v in carol_told[1].items() if k in (
        "id", "format", "status", "creator", "entered", "cap", "winner", "starts_at", "every",
        "side_flights", "swiss_rounds", "arena_minutes", "terms")}]
    await lobby.dispatch(bob, "tournament join 1")
    await lobby.dispatch(alice, "tournament join 1")
    await director.run_pass()  # two have joined: it starts, and their match with it
    assert lobby.match_table.match_of(alice) is not None
    await lobby.dispatch(alice, "resign n")
    await lobby.dispatch(bob, "accept")
    await director.run_pass()

    started = ("running", ["alice", "bob"], [], None)
    won = ("finished", ["alice", "bob"], ["bob"], "bob")
    _, alice_told = split(alice_out)
    assert tournament_states(alice_told) == [
        ("signup", [], [], None), ("signup", ["bob"], [], None),
        ("signup", ["bob", "alice"], [], None), started, won]  # sign-up order, then seeds
    _, carol_told = split(carol_out)
    assert tournament_states(carol_told) == tournament_states(alice_told)[1:]
    _, bob_told = split(bob_out)
    assert tournament_states(bob_told) == tournament_states(alice_told)[1:]
    assert [m for m in bob_told if m["type"] == "tournament"][-1]["standings"][0]["name"] == "bob"
    _, dave_told = split(dave_out)
    assert tournament_states(dave_told) == []
    lines, messages = split(erin_out)
    assert messages == [] and "Tournament 1: the tournament is over. bob wins it!" in lines
    await store.close()


async def test_match_started_carries_the_commitment_and_whether_the_player_has_salted(tmp_path):
    """The page salts a match when its `match_started` has a commitment and says it has not
    salted yet: at the start, and at a resume before its salt was given."""
    lobby, store = await recording_lobby(tmp_path)
    lobby.dispatcher.add_commands(command_tables.fair(lobby.owners))
    seed = bytes(range(32))
    lobby.config.new_dice = lambda: VerifiableDice(seed)
    alice, alice_out = await logged_in(lobby, "alice", web_events=True, ready=True)
    bob, bob_out = await logged_in(lobby, "bob", web_events=True, ready=True)
    await lobby.dispatch(alice, "invite bob 5")
    await lobby.dispatch(bob, "join alice")
    commitment = VerifiableDice(seed).commitment
    for connection in (alice_out, bob_out):
        _, told = split(connection)
        started = [m for m in told if m["type"] == "match_started"]
        assert [(m["commitment"], m["salted"]) for m in started] == [(commitment, False)]
    await lobby.dispatch(alice, "salt 0123abcd")
    running = lobby.match_table.match_of(alice)
    assert running is not None
    match_play.tell_match_started(running, resumed=True)
    for connection, salted in ((alice_out, True), (bob_out, False)):
        _, told = split(connection)
        assert [m["salted"] for m in told if m["type"] == "match_started"] == [salted]
