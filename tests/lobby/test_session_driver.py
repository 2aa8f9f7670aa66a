"""The session driving its login dialogue through the gatekeeper, and dispatching online
lines: a real Lobby over an in-memory account store and a recording connection, no sockets
(as uvicorn tests its protocols with a mock transport)."""
from __future__ import annotations

import asyncio
import logging

import bcrypt
import pytest

from fibs_server.lobby import lobby as lobby_module
from fibs_server.lobby.command_table import CommandTable
from fibs_server.lobby.limits.passwords import PasswordHasher
from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.lobby.lobby import Lobby, LobbyConfig
from fibs_server.lobby.ports.accounts import NOTHING_KEPT, Account, KeptForLogin, NameTaken
from fibs_server.lobby.presence.session import Session, Stage
from fibs_server.protocol import texts
from tests.lobby.recording import RecordingConnection
from tests.waiting import DEADLINE

HOST = "127.0.0.1"
ELSEWHERE = "10.0.0.9"  # where the tests' own accounts were registered from
SORRY = "** Sorry, the server could not do that. It has been logged.\r\n"
NAME_TAKEN = "** Please use another name. '{}' is already used by someone else.\r\n"


class MemoryAccounts:
    """The part of an AccountStore that logging in and registering use, in a dict."""

    def __init__(self) -> None:
        self.accounts: dict[str, Account] = {}  # lower-case name -> account

    async def find_account(self, name: str) -> Account | None:
        return self.accounts.get(name.lower())

    async def create_account(self, account: Account) -> None:
        if account.name.lower() in self.accounts:
            raise NameTaken(account.name)
        self.accounts[account.name.lower()] = account

    async def update_account(self, name: str, **changes: object) -> None:
        for field, value in changes.items():
            setattr(self.accounts[name.lower()], field, value)

    async def kept_for_login(self, name: str) -> KeptForLogin:
        return NOTHING_KEPT


table = CommandTable()


@table.command("ping", aliases=("pong",))
async def ping(session: Session, command) -> None:
    session.out.line("pong " + command.rest if command.rest else "pong")


@table.command("fail")
async def fail(session: Session, command) -> None:
    raise RuntimeError("a bug in a command")


async def make_lobby(**limits: object) -> Lobby:
    accounts = MemoryAccounts()
    # No command table here touches matches or chat records.
    lobby = Lobby(accounts, None, PasswordHasher(rounds=4),
                  LobbyConfig(abuse_limits=AbuseLimits(**limits)), lambda owners: [table],
                  chat_records=None)
    assert await lobby.gatekeeper.register("alice", "secret", ELSEWHERE) is not None
    return lobby


@pytest.fixture
async def lobby():
    lobby = await make_lobby()
    yield lobby
    lobby.gatekeeper.close()


def connect(lobby: Lobby) -> tuple[Session, RecordingConnection]:
    connection = RecordingConnection()
    session = lobby.connect(connection)
    assert connection.take().endswith("login: ")
    return session, connection


async def say(session: Session, connection: RecordingConnection, *lines: str) -> str:
    """What the session answered to `lines`, typed one after the other."""
    for line in lines:
        await session.incoming.handle_line(line)
    return connection.take()


async def logged_in(lobby: Lobby, *lines: str) -> tuple[Session, RecordingConnection]:
    """Logged in as alice by `lines` (default: `connect`), its welcome read."""
    session, connection = connect(lobby)
    await say(session, connection, *(lines or ["connect alice secret"]))
    assert session.stage is Stage.ONLINE
    return session, connection


# --- logging in -------------------------------------------------------------------------------

async def test_a_new_connection_gets_the_banner_then_the_login_prompt(lobby):
    connection = RecordingConnection()
    lobby.connect(connection)
    text = connection.take()
    assert "  One account per person only!\r\n" in text and text.endswith(" UTC )\r\nlogin: ")


async def test_a_telnet_login_hides_the_password_and_ends_at_a_prompt(lobby):
    session, connection = connect(lobby)
    assert await say(session, connection, "alice") == "<echo on>password: "
    answer = await say(session, connection, "secret")
    assert answer.startswith("<echo off>\r\n** User alice authenticated.\r\n")
    assert answer.endswith("+\r\n> ")  # the MOTD's box, then the prompt
    assert session.stage is Stage.ONLINE and lobby.attendance.users.online["alice"] is session
    assert (session.out.clip, session.out.prompts, session.out.client_name) == (False, True, None)


async def test_a_clip_login_gets_the_clip_welcome_and_no_prompt(lobby):
    session, connection = connect(lobby)
    answer = await say(session, connection, "login MacFIBS 1008 alice secret")
    assert answer.startswith("\r\n1 alice ") and answer.endswith("\r\n6\r\n")
    assert (session.out.clip, session.out.prompts, session.out.client_name) == (True, False, "MacFIBS")
    assert "MacFIBS" in session.who.line()


async def test_connect_logs_in_with_sentences_and_no_prompt(lobby):
    session, connection = connect(lobby)
    answer = await say(session, connection, "connect alice secret")
    assert answer.startswith("** User alice authenticated.\r\n") and answer.endswith("+\r\n")
    assert (session.out.clip, session.out.prompts) == (False, False)


async def test_a_wrong_password_or_name_answers_login_again(lobby):
    session, connection = connect(lobby)
    assert await say(session, connection, "alice", "wrong") == "<echo on>password: " \
        "<echo off>\r\nlogin: "
    assert await say(session, connection, "Alice", "secret") == "<echo on>password: " \
        "<echo off>\r\nlogin: "  # names are case-sensitive at login
    assert await say(session, connection, "login MacFIBS 1008 nobody secret") == "\r\nlogin: "
    assert await say(session, connection, "connect alice wrong") == "login: "
    assert session.stage is Stage.LOGIN and not session.out.clip and not lobby.attendance.users.online


async def test_bye_at_login_closes_the_connection(lobby):
    session, connection = connect(lobby)
    assert await say(session, connection, "bye", "alice") == "<closed>"
    assert session.stage is Stage.CLOSED


async def test_a_line_too_long_at_the_password_restores_echo_and_prompts_to_log_in(lobby):
    session, connection = connect(lobby)
    await say(session, connection, "alice")
    session.incoming.line_too_long()
    assert connection.take() == "<echo off>\r\n** Your line was too long and has been ignored." \
        "\r\nlogin: "


# --- registering ------------------------------------------------------------------------------

async def test_a_registration_creates_the_account_and_logs_it_in(lobby):
    session, connection = connect(lobby)
    assert (await say(session, connection, "guest")).endswith("ONE USERNAME PER PERSON ONLY!!!"
                                                               "\r\n> ")
    assert await say(session, connection, "name bob") == (
        "Your name will be bob\r\n"
        "Type in no password and hit Enter/Return if you want to change it now.\r\n"
        "<echo on>Please give your password: ")
    assert await say(session, connection, "s3cret") == "\r\nPlease retype your password: "
    answer = await say(session, connection, "s3cret")
    assert answer.startswith("\r\n<echo off>You are registered.\r\n"
                             "Type 'help beginner' to get started.\r\n"
                             "** User bob authenticated.\r\n")
    account = lobby.gatekeeper.accounts.accounts["bob"]
    assert bcrypt.checkpw(b"s3cret", account.password_hash) and account.last_login_host == HOST
    assert lobby.attendance.users.online["bob"] is session


@pytest.mark.parametrize("name", ["Alice", "guest", "PING", "pong"])
async def test_taken_and_reserved_names_are_refused(lobby, name):
    session, connection = connect(lobby)
    await say(session, connection, "guest")
    assert await say(session, connection, f"name {name}") == NAME_TAKEN.format(name) + "> "


async def test_too_many_registrations_from_one_address():
    lobby = await make_lobby(registrations_per_hour=1)
    try:
        session, connection = connect(lobby)
        await say(session, connection, "guest", "name bob", "secret", "secret")
        assert lobby.attendance.users.online["bob"] is session
        session, connection = connect(lobby)
        await say(session, connection, "guest")
        assert await say(session, connection, "name carol") == (
            texts.TOO_MANY_REGISTRATIONS + "\r\n> ")
    finally:
        lobby.gatekeeper.close()


async def test_a_name_taken_while_the_passwords_were_typed(lobby):
    session, connection = connect(lobby)
    await say(session, connection, "guest", "name carol", "secret")
    assert await lobby.gatekeeper.register("Carol", "other", ELSEWHERE) is not None
    assert await say(session, connection, "secret") == "\r\n<echo off>" \
        + NAME_TAKEN.format("carol") + "> "
    assert session.stage is Stage.GUEST


# --- failures and hang-ups --------------------------------------------------------------------

async def test_a_store_failing_at_login_lets_the_user_go(lobby, caplog):
    async def broken(name: str) -> Account | None:
        raise RuntimeError("database is locked")
    lobby.gatekeeper.accounts.find_account = broken
    session, connection = connect(lobby)
    assert await say(session, connection, "connect alice secret") == \
        f"{texts.LOGIN_FAILED}\r\n<closed>"
    assert session.stage is Stage.CLOSED and session not in lobby.attendance.users.connections
    assert "login or registration on a connection from 127.0.0.1 failed" in caplog.text


async def test_a_hang_up_during_the_password_check_ends_the_dialogue_quietly(lobby):
    release = asyncio.Event()
    find_account = lobby.gatekeeper.accounts.find_account

    async def slow(name: str) -> Account | None:
        await release.wait()
        return await find_account(name)
    lobby.gatekeeper.accounts.find_account = slow
    checked = []

    async def check(*args: object, **options: object) -> bool:
        checked.append(args)
        return False
    lobby.gatekeeper.hasher.check = check
    session, connection = connect(lobby)
    checking = asyncio.create_task(session.incoming.handle_line("connect alice secret"))
    await asyncio.sleep(0)
    await lobby.disconnected(session)
    release.set()
    await checking
    assert connection.take() == "<closed>"
    assert not lobby.attendance.users.online and not checked  # bcrypt's time goes to those still there


async def test_a_hang_up_during_registration_keeps_the_account_but_logs_no_one_in(lobby):
    storing, release = asyncio.Event(), asyncio.Event()
    create_account = lobby.gatekeeper.accounts.create_account

    async def slow(account: Account) -> None:
        storing.set()
        await release.wait()
        await create_account(account)
    lobby.gatekeeper.accounts.create_account = slow
    session, connection = connect(lobby)
    await say(session, connection, "guest", "name bob", "secret")
    registering = asyncio.create_task(session.incoming.handle_line("secret"))
    await asyncio.wait_for(storing.wait(), DEADLINE)  # the hash is made (in a thread); now stored
    await lobby.disconnected(session)
    release.set()
    await registering
    assert connection.take() == "\r\n<echo off><closed>"
    assert "bob" in lobby.gatekeeper.accounts.accounts and not lobby.attendance.users.online


# --- online: dispatch -------------------------------------------------------------------------

async def test_a_command_reaches_its_handler_and_telnet_users_get_a_prompt(lobby):
    session, connection = await logged_in(lobby, "alice", "secret")
    assert await say(session, connection, "ping  hello ") == "pong hello\r\n> "
    assert await say(session, connection, "pi") == "pong\r\n> "  # a unique prefix


async def test_clip_clients_get_no_prompt(lobby):
    session, connection = await logged_in(lobby, "login MacFIBS 1008 alice secret")
    assert await say(session, connection, "ping") == "pong\r\n"


async def test_an_unknown_command_is_named_back(lobby):
    session, connection = await logged_in(lobby)
    assert await say(session, connection, "frobnicate now") == \
        "** Unknown command: 'frobnicate now'\r\n"


async def test_double_bang_repeats_the_last_command(lobby):
    session, connection = await logged_in(lobby)
    assert await say(session, connection, "!!") == "** No previous command.\r\n"
    await say(session, connection, "ping again")
    assert await say(session, connection, "!!") == "pong again\r\n"


async def test_a_failing_handler_is_logged_and_answered_and_the_user_stays(lobby, caplog):
    caplog.set_level(logging.ERROR)
    session, connection = await logged_in(lobby)
    assert await say(session, connection, "fail") == SORRY
    assert [r.getMessage() for r in caplog.records] == ["command fail of alice failed"]
    assert session.stage is Stage.ONLINE and lobby.attendance.users.online["alice"] is session
    assert await say(session, connection, "ping") == "pong\r\n"


async def test_a_line_too_long_online_is_answered_with_a_prompt_for_telnet_users(lobby):
    session, connection = await logged_in(lobby, "alice", "secret")
    session.incoming.line_too_long()
    assert connection.take() == "** Your line was too long and has been ignored.\r\n> "


async def test_visitors_drawing_the_same_name_at_once_get_different_ones(monkeypatch):
    """The name is claimed with no await between the check and the claim: two visitors whose
    first draws are the same name (checked in the store at once) never share it."""
    lobby = await make_lobby()
    try:
        draws = iter("qhzmt" * 2 + "abcde" * 40)
        monkeypatch.setattr(lobby_module.secrets, "choice", lambda letters: next(draws))
        find_account = lobby.accounts.find_account

        async def answered_after_the_other_asked(name: str) -> Account | None:
            await asyncio.sleep(0)  # as a store does: the other visitor draws meanwhile
            return await find_account(name)
        monkeypatch.setattr(lobby.accounts, "find_account", answered_after_the_other_asked)
        visitors = await asyncio.gather(*(lobby.new_visitor(f"10.0.0.{n}") for n in range(2)))
        names = {visitor.name for visitor in visitors if isinstance(visitor, Account)}
        assert names == {"guest_qhzmt", "guest_abcde"}
    finally:
        lobby.gatekeeper.close()
