"""A web page comes back to its session (lobby/presence/reconnect.py): the token store on a fake
clock, and a real lobby whose web session drops in the middle of a match, is held, and is
taken over by a new connection that presents the token; telnet drops are as before."""
from __future__ import annotations

from fibs_server.lobby.limits.passwords import PasswordHasher
from fibs_server.lobby.limits.session_tokens import TOKEN_BYTES, SessionTokens
from fibs_server.lobby.limits.throttle import ADDRESSES
from fibs_server.lobby.lobby import Lobby, LobbyConfig
from fibs_server.lobby.ports.accounts import Account
from fibs_server.lobby.presence.reconnect import AwayConnection
from fibs_server.protocol.login_dialogue import WEB_PAGE, Stage
from fibs_server.rules.dice import ScriptedDice
from fibs_server.store import SqlStore
from fibs_server.store.migrate import upgrade_database_async
from tests.fake_clock import FakeClock
from tests.lobby.recording import RecordingConnection, logged_in, user_and_game
from tests.lobby.test_web_events import split

HOLD = 30.0


# --- the tokens -------------------------------------------------------------------------------

def test_a_token_names_its_user_until_revoked_or_replaced():
    tokens = SessionTokens(FakeClock().time)
    first = tokens.issue("Alice")
    assert len(first) >= TOKEN_BYTES * 4 // 3 and tokens.name_for(first) == "alice"
    second = tokens.issue("alice")  # a new login: the old token is no more
    assert tokens.name_for(first) is None and tokens.name_for(second) == "alice"
    assert tokens.name_for(second[:-1] + ("A" if second[-1] != "A" else "B")) is None
    assert tokens.name_for("") is None and tokens.name_for("é" * 50) is None
    tokens.revoke("ALICE")
    assert tokens.name_for(second) is None and len(tokens) == 0


def test_a_token_lasts_while_connected_and_expires_at_the_end_of_a_hold():
    clock = FakeClock()
    tokens = SessionTokens(clock.time)
    token = tokens.issue("alice")
    clock.advance(10 * 24 * 3600)
    assert tokens.name_for(token) == "alice"  # its session is online: no expiry
    tokens.expire_in("alice", HOLD)
    clock.advance(HOLD - 0.1)
    assert tokens.name_for(token) == "alice"
    clock.advance(0.1)
    assert tokens.name_for(token) is None and not tokens.has_token("alice")


def test_tokens_are_random():
    tokens = SessionTokens(FakeClock().time)
    assert len({tokens.issue(f"user{n}") for n in range(1000)}) == 1000


# --- a real lobby ---------------------------------------------------------------------------

async def lobby_on(tmp_path, clock: FakeClock) -> Lobby:
    url = f"sqlite:///{tmp_path / 'lobby.db'}"
    await upgrade_database_async(url)
    store = await SqlStore.open(url)
    script = ScriptedDice([(6, 5)] * 200)
    return Lobby(store, store, PasswordHasher(rounds=4),
                 LobbyConfig(new_dice=lambda: script, choose_first_x=lambda: 1, clock=clock,
                             reconnect_seconds=HOLD),
                 user_and_game, chat_records=store)


async def web_page(lobby: Lobby) -> tuple:
    """A new web page's connection at the login prompt (as net/websocket.py makes it)."""
    connection = RecordingConnection()
    session = lobby.connect(connection, WEB_PAGE)
    session.out.event_sink = lambda line, broadcast: connection.send(line + "\r\n", broadcast)
    connection.take()
    return session, connection


async def playing_web_alice(tmp_path):
    clock = FakeClock()
    lobby = await lobby_on(tmp_path, clock)
    bob, bob_out = await logged_in(lobby, "bob", ready=True)
    alice, alice_out = await web_page(lobby)
    account = Account(name="alice", password_hash=b"-")
    account.settings["boardstyle"] = "3"
    await lobby.accounts.create_account(account)
    alice.out.clip, alice.out.prompts = True, False  # as its login line makes it
    await lobby.log_in(alice, account)
    _, typed = split(alice_out)
    [token] = [m["token"] for m in typed if m["type"] == "session"]
    await lobby.dispatch(alice, "toggle ready")
    await lobby.dispatch(bob, "invite alice 3")
    await lobby.dispatch(alice, "join bob")
    assert lobby.match_table.match_of(alice) is not None
    alice_out.take(), bob_out.take()
    return lobby, clock, alice, bob, bob_out, token


async def test_a_dropped_web_page_is_held_then_taken_over_with_its_token(tmp_path):
    lobby, clock, alice, bob, bob_out, token = await playing_web_alice(tmp_path)
    running = lobby.match_table.match_of(alice)
    await lobby.disconnected(alice)  # the WebSocket dropped without `bye`
    assert lobby.attendance.users.is_online(alice) and isinstance(alice.connection, AwayConnection)
    assert lobby.match_table.match_of(alice) is running and lobby.held.is_held(alice)
    assert bob_out.lines() == []  # nothing to tell bob yet
    clock.advance(HOLD - 1)

    page, page_out = await web_page(lobby)
    await page.incoming.handle_line(f"resume {token}")
    assert page.stage is Stage.ONLINE and lobby.attendance.users.online["alice"] is page
    assert lobby.match_table.match_of(page) is running and alice.stage is Stage.CLOSED
    lines, typed = split(page_out)
    assert any(line.startswith("board:") for line in lines)
    types = [m["type"] for m in typed]
    assert types.count("board") == 1
    # Who the page is, and the match it is in, before its board: a reloaded page knew neither.
    assert typed[0]["type"] == "logged_in" and typed[0]["name"] == "alice"
    assert types.index("match_started") < types.index("board")
    assert typed[types.index("match_started")]["resumed"] is True
    [renewed] = [m["token"] for m in typed if m["type"] == "session"]
    assert renewed != token and lobby.gatekeeper.session_tokens.name_for(token) is None
    # bob sees what FIBS shows for a takeover: no logout, no login notice, no saved game.
    told = bob_out.lines()
    assert not any("alice" in line and ("drops" in line or "logs" in line) for line in told)
    clock.advance(HOLD)  # the first hold's end does nothing now
    await lobby.held.quiet()
    assert lobby.attendance.users.online["alice"] is page and lobby.match_table.match_of(page) is running


async def test_a_new_watcher_is_told_whose_page_is_away(tmp_path):
    lobby, _, alice, bob, _, _ = await playing_web_alice(tmp_path)
    await lobby.disconnected(alice)  # held: those watching then were told, not those to come
    carol, carol_out = await logged_in(lobby, "carol", web_events=True)
    away = {"type": "player_connection", "name": "alice", "connected": False}
    for player in ("alice", "bob"):  # either side of the match
        carol_out.take()
        await lobby.dispatch(carol, f"watch {player}")
        _, typed = split(carol_out)
        types = [message["type"] for message in typed]
        assert types.index("board") < types.index("player_connection")
        assert [m for m in typed if m["type"] == "player_connection"] == [away]


async def test_a_held_session_is_logged_out_as_dropped_when_its_time_is_up(tmp_path):
    lobby, clock, alice, bob, bob_out, token = await playing_web_alice(tmp_path)
    await lobby.disconnected(alice)
    clock.advance(HOLD)
    await lobby.held.quiet()
    assert not lobby.attendance.users.is_online(alice) and lobby.match_table.match_of(bob) is None
    assert "alice drops connection. The game was saved." in bob_out.lines()
    page, page_out = await web_page(lobby)
    await page.incoming.handle_line(f"resume {token}")  # too late: as for a page without a token
    assert page.stage is Stage.LOGIN
    assert page_out.take().endswith('{"type":"session","token":null}\r\nlogin: ')


async def test_a_wrong_token_is_answered_like_no_token_and_counted_as_a_failed_login(tmp_path):
    lobby, clock, alice, bob, bob_out, token = await playing_web_alice(tmp_path)
    page, page_out = await web_page(lobby)
    await page.incoming.handle_line("resume " + "A" * 43)
    assert page.stage is Stage.LOGIN
    assert page_out.take() == '{"type":"session","token":null}\r\nlogin: '
    assert lobby.gatekeeper.login_throttle.counts.count((ADDRESSES, page.connection.host)) == 1
    assert lobby.attendance.users.online["alice"] is alice


async def test_bye_revokes_the_token(tmp_path):
    lobby, clock, alice, bob, bob_out, token = await playing_web_alice(tmp_path)
    await lobby.dispatch(alice, "bye")
    await lobby.disconnected(alice)
    assert not lobby.attendance.users.is_online(alice) and len(lobby.held) == 0
    assert lobby.gatekeeper.session_tokens.name_for(token) is None


async def test_a_password_login_elsewhere_revokes_the_token(tmp_path):
    lobby, clock, alice, bob, bob_out, token = await playing_web_alice(tmp_path)
    await lobby.disconnected(alice)
    telnet = lobby.connect(RecordingConnection())
    assert alice.account is not None
    await lobby.log_in(telnet, alice.account)  # the telnet login takes the held session over
    assert lobby.attendance.users.online["alice"] is telnet and len(lobby.held) == 0
    assert lobby.gatekeeper.session_tokens.name_for(token) is None
    await lobby.disconnected(telnet)  # and a telnet session is never held
    assert not lobby.attendance.users.is_online(telnet)


async def test_a_telnet_session_that_drops_is_logged_out_at_once(tmp_path):
    clock = FakeClock()
    lobby = await lobby_on(tmp_path, clock)
    bob, bob_out = await logged_in(lobby, "bob", ready=True)
    carol, _ = await logged_in(lobby, "carol", ready=True)
    await lobby.dispatch(bob, "invite carol 3")
    await lobby.dispatch(carol, "join bob")
    bob_out.take()
    await lobby.disconnected(carol)
    assert not lobby.attendance.users.is_online(carol) and len(lobby.held) == 0
    assert lobby.match_table.match_of(bob) is None
    assert "carol drops connection. The game was saved." in bob_out.lines()


async def test_a_shutdown_logs_held_sessions_out(tmp_path):
    lobby, clock, alice, bob, bob_out, token = await playing_web_alice(tmp_path)
    await lobby.disconnected(alice)
    await lobby.shut_down()
    assert not lobby.attendance.users.online and len(lobby.held) == 0
    assert lobby.gatekeeper.session_tokens.name_for(token) is None
