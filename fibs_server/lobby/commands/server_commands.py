"""Commands about the server and who is on it (version, about, stat, average, last,
where, names, hostnames, commands) and the screen commands (cls, save, panic)."""
from __future__ import annotations

import datetime
import importlib.metadata
from typing import TYPE_CHECKING

from fibs_server.lobby.command_table import CommandTable
from fibs_server.lobby.commands.common import aware_time
from fibs_server.lobby.presence.session import Session
from fibs_server.protocol import info, texts
from fibs_server.protocol.commands import Command
from fibs_server.protocol.wording import server_texts

if TYPE_CHECKING:  # types only: the owners are given to the factory
    from fibs_server.lobby.dispatcher import Dispatcher
    from fibs_server.lobby.play.match_table import MatchTable
    from fibs_server.lobby.presence.attendance import Attendance


def command_table(attendance: Attendance, match_table: MatchTable, dispatcher: Dispatcher,
                  started_at: datetime.datetime) -> CommandTable:
    """The server's commands, about who is online (`attendance`), the matches running and
    the commands declared (`dispatcher`), since the server started (`started_at`)."""
    table = CommandTable()

    @table.command("version")
    async def version(session: Session, command: Command) -> None:
        session.out.line(server_texts.version_line(importlib.metadata.version("fibs_server")))

    @table.command("about")
    async def about(session: Session, command: Command) -> None:
        session.out.lines(server_texts.ABOUT)

    @table.command("stat")
    async def stat(session: Session, command: Command) -> None:
        session.out.lines(server_texts.stat_lines(
            len(attendance.users.online), attendance.users.most_online, len(match_table.running_games()), started_at,
            session.prefs.setting("timezone")))

    @table.command("average")
    async def average(session: Session, command: Command) -> None:
        session.out.line(server_texts.NO_AVERAGE)

    @table.command("last")
    async def last(session: Session, command: Command) -> None:
        # No name completion for `last` (docs/PROTOCOL.md): the whole name, in any case.
        name = command.args[0] if command.args else session.name
        online, account = await attendance.users.user_named(name)
        if account is None:
            session.out.line(info.no_information(name))
            return
        session.out.lines(server_texts.last_lines(
            account.name, aware_time(account.last_login_at), account.last_login_host,
            aware_time(account.last_logout_at), online is not None,
            session.prefs.setting("timezone")))

    @table.command("where")
    async def where(session: Session, command: Command) -> None:
        if not command.args:
            session.out.line(server_texts.WHERE_WHOM)
            return
        found = attendance.users.find_online(command.args[0])
        session.out.line(texts.no_one_called(command.args[0]) if found is None else
                         server_texts.where_line(found.name, found.connection.host))

    @table.command("names")
    async def names(session: Session, command: Command) -> None:
        session.out.lines(server_texts.in_columns([s.name for s in attendance.users.sessions_online()]))

    @table.command("hostnames")
    async def hostnames(session: Session, command: Command) -> None:
        session.out.lines(server_texts.hostnames_table(
            [(s.name, s.connection.host) for s in attendance.users.sessions_online()]))

    @table.command("commands")
    async def commands_command(session: Session, command: Command) -> None:
        declared = dispatcher.commands
        session.out.lines(server_texts.in_columns(sorted(
            name for name in dispatcher.command_words
            if session.out.sees_extensions or not declared[name].facts.extension)))

    @table.command("cls")
    @table.command("clear")
    async def clear_screen(session: Session, command: Command) -> None:
        # No terminal codes ever leave the server (net.limits), so the screen is scrolled clean.
        height = int(session.prefs.setting("pagelength")) or server_texts.SCREEN_HEIGHT
        session.out.lines([""] * height)

    @table.command("save")
    async def save(session: Session, command: Command) -> None:
        session.out.line(server_texts.NOTHING_TO_SAVE)

    @table.command("panic")
    async def panic(session: Session, command: Command) -> None:
        session.out.line(server_texts.PANIC)

    return table
