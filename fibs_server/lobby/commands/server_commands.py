"""Commands about the server and who is on it (version, about, stat, average, last,
where, names, hostnames, commands) and the screen commands (cls, save, panic)."""
from __future__ import annotations

import importlib.metadata
from typing import TYPE_CHECKING

from fibs_server.lobby.command_table import CommandTable
from fibs_server.lobby.commands.common import aware_time
from fibs_server.lobby.presence.session import Session
from fibs_server.protocol import info, texts
from fibs_server.protocol.commands import Command
from fibs_server.protocol.wording import server_texts

if TYPE_CHECKING:  # a type only: each handler is given the lobby
    from fibs_server.lobby.lobby import Lobby

table = CommandTable()


@table.command("version")
async def version(lobby: Lobby, session: Session, command: Command) -> None:
    session.send_line(server_texts.version_line(importlib.metadata.version("fibs_server")))


@table.command("about")
async def about(lobby: Lobby, session: Session, command: Command) -> None:
    session.send_lines(server_texts.ABOUT)


@table.command("stat")
async def stat(lobby: Lobby, session: Session, command: Command) -> None:
    session.send_lines(server_texts.stat_lines(
        len(lobby.attendance.online), lobby.attendance.most_online, len(lobby.match_table.running_games()), lobby.started_at,
        session.setting("timezone")))


@table.command("average")
async def average(lobby: Lobby, session: Session, command: Command) -> None:
    session.send_line(server_texts.NO_AVERAGE)


@table.command("last")
async def last(lobby: Lobby, session: Session, command: Command) -> None:
    # No name completion for `last` (docs/PROTOCOL.md): the whole name, in any case.
    name = command.args[0] if command.args else session.name
    online, account = await lobby.attendance.user_named(name)
    if account is None:
        session.send_line(info.no_information(name))
        return
    session.send_lines(server_texts.last_lines(
        account.name, aware_time(account.last_login_at), account.last_login_host,
        aware_time(account.last_logout_at), online is not None, session.setting("timezone")))


@table.command("where")
async def where(lobby: Lobby, session: Session, command: Command) -> None:
    if not command.args:
        session.send_line(server_texts.WHERE_WHOM)
        return
    found = lobby.attendance.find_online(command.args[0])
    session.send_line(texts.no_one_called(command.args[0]) if found is None else
                      server_texts.where_line(found.name, found.connection.host))


@table.command("names")
async def names(lobby: Lobby, session: Session, command: Command) -> None:
    session.send_lines(server_texts.in_columns([s.name for s in lobby.attendance.sessions_online()]))


@table.command("hostnames")
async def hostnames(lobby: Lobby, session: Session, command: Command) -> None:
    session.send_lines(server_texts.hostnames_table(
        [(s.name, s.connection.host) for s in lobby.attendance.sessions_online()]))


@table.command("commands")
async def commands_command(lobby: Lobby, session: Session, command: Command) -> None:
    declared = lobby.dispatcher.commands
    session.send_lines(server_texts.in_columns(sorted(
        name for name in lobby.dispatcher.command_words
        if session.sees_extensions or not declared[name].facts.extension)))


@table.command("cls")
@table.command("clear")
async def clear_screen(lobby: Lobby, session: Session, command: Command) -> None:
    # No terminal codes ever leave the server (net.limits), so the screen is scrolled clean.
    height = int(session.setting("pagelength")) or server_texts.SCREEN_HEIGHT
    session.send_lines([""] * height)


@table.command("save")
async def save(lobby: Lobby, session: Session, command: Command) -> None:
    session.send_line(server_texts.NOTHING_TO_SAVE)


@table.command("panic")
async def panic(lobby: Lobby, session: Session, command: Command) -> None:
    session.send_line(server_texts.PANIC)
