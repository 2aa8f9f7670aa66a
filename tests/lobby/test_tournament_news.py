"""The sign-ups and withdrawals of a tournament told to its entrants and pages: the burst at
once, then one summary a token later, net of who left and came back, with the tournament as
it is then (lobby/services/tournament_news.py)."""
from __future__ import annotations

from fibs_server import command_tables
from fibs_server.lobby.limits.passwords import PasswordHasher
from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.lobby.lobby import Lobby, LobbyConfig
from fibs_server.protocol.wording import tournament_texts
from fibs_server.store import SqlStore
from fibs_server.store.migrate import upgrade_database_async
from tests.fake_clock import FakeClock
from tests.lobby.recording import RecordingConnection, logged_in, user_and_game
from tests.lobby.test_web_events import split
from tests.waiting import until

BURST, PER_SECOND = 2, 1.0
DONE = {"join": "joined", "leave": "left"}


async def paced_lobby(tmp_path, clock: FakeClock) -> tuple[Lobby, SqlStore]:
    url = f"sqlite:///{tmp_path / 'lobby.db'}"
    await upgrade_database_async(url)
    store = await SqlStore.open(url)
    limits = AbuseLimits(tournament_notice_burst=BURST, tournament_notices_per_second=PER_SECOND)
    lobby = Lobby(store, store, PasswordHasher(rounds=4),
                  LobbyConfig(clock=clock, wall_clock=clock.wall, abuse_limits=limits),
                  user_and_game, chat_records=store)
    lobby.dispatcher.add_commands(command_tables.tournaments(lobby.owners, store, None))
    return lobby, store


def about_tournaments(lines: list[str]) -> list[str]:
    """The tournament lines among `lines` (not the logins' notices, delivered meanwhile)."""
    return [line for line in lines if line.startswith("Tournament ")]


def entrants_shown(messages: list[dict]) -> list[list[str]]:
    return [[entrant["name"] for entrant in message["entrants"]] for message in messages
            if message["type"] == "tournament"]


async def test_sign_ups_beyond_the_burst_are_told_in_one_summary_of_the_latest_state(tmp_path):
    clock = FakeClock()
    lobby, store = await paced_lobby(tmp_path, clock)
    alice, alice_out = await logged_in(lobby, "alice", web_events=True)  # the creator's page
    users = {name: await logged_in(lobby, name) for name in ("bob", "carol", "dave", "erin")}
    await lobby.dispatch(alice, "tournament create swiss in 60")
    split(alice_out)

    for name in ("bob", "carol"):  # the burst: told at once
        session, out = users[name]
        await lobby.dispatch(session, "tournament join 1")
        assert about_tournaments(out.lines()) == [f"Tournament 1: {name} has joined."]
    lines, messages = split(alice_out)
    assert about_tournaments(lines) == ["Tournament 1: bob has joined.", "Tournament 1: carol has joined."]
    assert entrants_shown(messages) == [["bob"], ["bob", "carol"]]
    assert about_tournaments(users["bob"][1].lines()) == ["Tournament 1: carol has joined."]

    # Held: each typer is told at once, nobody else until a token is due.
    for name, verb in (("dave", "join"), ("bob", "leave"), ("erin", "join"), ("erin", "leave")):
        session, out = users[name]
        await lobby.dispatch(session, f"tournament {verb} 1")
        assert about_tournaments(out.lines()) == [f"Tournament 1: {name} has {DONE[verb]}."]
    lines, messages = split(alice_out)
    assert about_tournaments(lines) == [] and messages == []
    assert about_tournaments(users["carol"][1].lines()) == []

    clock.advance(1 / PER_SECOND)
    told: list[str] = []
    await until(lambda: told.extend(alice_out.lines()) or about_tournaments(told),
                "the held sign-ups told")
    summary = "Tournament 1: dave has joined; bob has left."  # erin came and went: not told
    lines, messages = split_told(told)
    assert about_tournaments(lines) == [summary]
    assert entrants_shown(messages) == [["carol", "dave"]]  # the latest state only
    for name, heard in (("carol", [summary]), ("dave", [summary]), ("bob", []), ("erin", [])):
        assert about_tournaments(users[name][1].lines()) == heard, name  # bob, erin: left
    await store.close()


def split_told(lines: list[str]) -> tuple[list[str], list[dict]]:
    connection = RecordingConnection()
    connection.events = [line + "\r\n" for line in lines]
    return split(connection)


def test_a_summary_names_a_few_and_counts_the_rest():
    assert tournament_texts.signed_up(3, ["bob"], []) == tournament_texts.joined(3, "bob")
    assert tournament_texts.signed_up(3, [], ["bob"]) == tournament_texts.left(3, "bob")
    assert tournament_texts.signed_up(3, ["bob", "carol"], ["dave"]) == (
        "Tournament 3: bob and carol have joined; dave has left.")
    many = [f"p{number}" for number in range(7)]
    assert tournament_texts.signed_up(3, [], many) == (
        "Tournament 3: p0, p1, p2, p3, p4 and 2 others have left.")
    assert tournament_texts.signed_up(3, [], many[:6]) == (
        "Tournament 3: p0, p1, p2, p3, p4 and 1 other have left.")
