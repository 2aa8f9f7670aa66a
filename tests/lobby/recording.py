"""A lobby without sockets: sessions write to recording connections, the store is SQLite."""
from __future__ import annotations

from fibs_server import command_tables
from fibs_server.lobby.command_table import CommandTable
from fibs_server.lobby.limits.passwords import PasswordHasher
from fibs_server.lobby.lobby import Lobby, LobbyConfig, Owners
from fibs_server.lobby.ports.accounts import Account
from fibs_server.lobby.presence.session import Session
from fibs_server.rules.dice import ScriptedDice
from fibs_server.store import SqlStore
from fibs_server.store.migrate import upgrade_database_async


class RecordingConnection:
    """A Connection that records what the session did with it, in order: the text sent, and
    `<echo on>`, `<echo off>`, `<closed>` between (where they fall matters on the wire)."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self.events: list[str] = []
        self.closed = False

    def send(self, text: str, broadcast: bool = False) -> None:
        self.events.append(text)

    def send_wire(self, data: bytes, broadcast: bool = False) -> None:
        self.events.append(data.decode("ascii"))

    def set_echo(self, server_echoes: bool) -> None:
        self.events.append("<echo on>" if server_echoes else "<echo off>")

    def close(self) -> None:
        self.closed = True
        self.events.append("<closed>")

    def take(self) -> str:
        """Everything recorded since the last take."""
        text = "".join(self.events)
        self.events.clear()
        return text

    def lines(self) -> list[str]:
        """The complete lines sent since the last take."""
        return self.take().split("\r\n")[:-1]


def user_and_game(owners: Owners) -> list[CommandTable]:
    return [command_tables.user(owners), command_tables.game(owners)]


async def recording_lobby(tmp_path, *dice: tuple[int, int], analysed: bool = False,
                          **lobby_options) -> tuple[Lobby, SqlStore]:
    """A lobby on a fresh SQLite store whose matches roll `dice` (one script for all), with
    the users' and the match commands; `analysed`: the store's analyses are read (`history`);
    `lobby_options`: the Lobby's keyword arguments (its collaborators)."""
    url = f"sqlite:///{tmp_path / 'lobby.db'}"
    await upgrade_database_async(url)
    store = await SqlStore.open(url)
    script = ScriptedDice(dice)
    lobby = Lobby(store, store, PasswordHasher(rounds=4),
                  LobbyConfig(new_dice=lambda: script, choose_first_x=lambda: 1),
                  user_and_game, chat_records=store, analyses=store if analysed else None,
                  **lobby_options)
    return lobby, store


async def logged_in(lobby: Lobby, name: str, *, web_events: bool = False,
                    **toggles: bool) -> tuple[Session, RecordingConnection]:
    """A telnet user `name` (boardstyle 3, no prompts) with `toggles` set, logged in;
    `web_events`: a CLIP client that asked for the typed messages too, recorded in order with
    its lines (as a web page's `EventsConnection` sends them)."""
    account = Account(name=name, password_hash=b"-")
    account.settings["boardstyle"] = "3"
    await lobby.accounts.create_account(account)
    connection = RecordingConnection()
    session = lobby.connect(connection)
    session.out.prompts = False
    if web_events:
        session.out.clip = True
        session.out.event_sink = lambda line, broadcast: connection.send(line + "\r\n", broadcast)
    await lobby.log_in(session, account)
    account.toggles.update(toggles)
    connection.lines()
    return session, connection
