"""Moderation for administrator accounts (`fibs-server admin grant <name>` makes one): kick,
ban/unban, mute/unmute, shutdown, erase and `motd set`. Every action is logged in the store
with the administrator's name. To everyone else these commands do not exist (lobby.dispatch).
"""
from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from fibs_server.lobby.command_table import CommandTable
from fibs_server.lobby.commands.common import send_motd
from fibs_server.lobby.ports.accounts import Account
from fibs_server.lobby.ports.chat_records import Sanction, SanctionKind
from fibs_server.lobby.presence.session import Session
from fibs_server.protocol import chat, texts
from fibs_server.protocol.commands import Command
from fibs_server.protocol.texts import plural
from fibs_server.protocol.wording import admin_texts, server_texts

if TYPE_CHECKING:  # types only: the owners are given to the factory
    from fibs_server.lobby.countdown import ShutdownCountdown
    from fibs_server.lobby.ports.chat_records import ChatRecords
    from fibs_server.lobby.presence.attendance import Attendance
    from fibs_server.lobby.presence.chat_state import ChatState


DURATION = re.compile(r"^(\d+)([mhdw])$")
UNIT_SECONDS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


# New logins are refused in the last minutes of a shutdown countdown.
SHUTDOWN_LOGIN_CUTOFF_MINUTES = 2


def command_table(attendance: Attendance, chat_state: ChatState, chat_records: ChatRecords,
                  countdown: ShutdownCountdown, motd: Callable[[], tuple[str, ...]],
                  set_motd: Callable[[str, str], Awaitable[None]]) -> CommandTable:
    """The administrators' commands, on who is online (`attendance`) and muted
    (`chat_state`), the sanctions and the moderation log (`chat_records`), the shutdown's
    `countdown` and the lobby's message of the day (`motd`, `set_motd`)."""
    table = CommandTable()

    async def _account(session: Session, command: Command,
                       usage: str | None = None) -> tuple[Account, Session | None] | None:
        """The account the command names (exactly, no completion) and its session if online;
        None after telling the administrator what is wrong (`usage`: for no name; by default
        the usage of a command that takes only a name)."""
        if not command.args:
            session.out.line(usage or admin_texts.name_usage(command.name))
            return None
        online, account = await attendance.users.user_named(command.args[0])
        if account is None:
            session.out.line(chat.dont_know_user(command.args[0]))
            return None
        if account.name.lower() == session.name.lower():
            session.out.line(admin_texts.NOT_YOURSELF)
            return None
        return account, online

    # --- kick, ban, mute, erase ------------------------------------------------------------------

    @table.admin_command("kick")
    async def kick(session: Session, command: Command) -> None:
        found = await _account(session, command)
        if found is None:
            return
        account, online = found
        elsewhere = attendance.users.directory.get(account.name) if online is None else None
        if online is None and elsewhere is None:
            session.out.line(texts.no_one_called(account.name))
            return
        await chat_records.log_moderation(session.name, "kick", account.name, "")
        if online is not None:
            await attendance.messenger.throw_out(online, admin_texts.KICKED)
        else:
            attendance.messenger.moderate(account.name, "throw_out", admin_texts.KICKED)
        session.out.line(admin_texts.was_kicked(account.name))

    @table.admin_command("ban")
    async def ban(session: Session, command: Command) -> None:
        usage = admin_texts.BAN_USAGE
        duration = DURATION.match(command.args[1]) if len(command.args) == 2 else None
        if len(command.args) > 2 or (len(command.args) == 2 and duration is None):
            session.out.line(usage)
            return
        found = await _account(session, command, usage)
        if found is None:
            return
        account, online = found
        elsewhere = attendance.users.directory.get(account.name) if online is None else None
        address = (online.connection.host if online else elsewhere.info.host if elsewhere
                   else account.last_login_host)
        until = (int(time.time()) + int(duration[1]) * UNIT_SECONDS[duration[2]]
                 if duration else None)
        await chat_records.add_sanction(Sanction("ban", account.name, address, until,
                                                       session.name))
        if online is not None:
            await attendance.messenger.throw_out(online, admin_texts.banned(until))
        elif elsewhere is not None:
            attendance.messenger.moderate(account.name, "throw_out", admin_texts.banned(until))
        session.out.line(admin_texts.ban_reply(account.name, address, until))

    LIFTED: dict[str, SanctionKind] = {"unban": "ban", "unmute": "mute"}  # what each lifts

    @table.admin_command("unban")
    @table.admin_command("unmute")
    async def lift(session: Session, command: Command) -> None:
        kind = LIFTED[command.name]
        if not command.args:
            session.out.line(admin_texts.name_usage(command.name))
            return
        lifted = await chat_records.lift_sanctions(kind, command.args[0], session.name)
        online = attendance.users.online.get(command.args[0].lower())
        if kind == "mute" and online is not None:
            chat_state.of(online.name).muted = False
        elif kind == "mute":
            attendance.messenger.moderate(command.args[0], "unmute")
        session.out.line(admin_texts.lifted_reply(command.args[0], kind, lifted > 0))

    @table.admin_command("mute")
    async def mute(session: Session, command: Command) -> None:
        found = await _account(session, command)
        if found is None:
            return
        account, online = found
        await chat_records.add_sanction(Sanction("mute", account.name, None, None,
                                                       session.name))
        if online is not None:
            chat_state.of(online.name).muted = True
        else:
            attendance.messenger.moderate(account.name, "mute")
        session.out.line(admin_texts.muted(account.name))

    @table.admin_command("erase")
    async def erase(session: Session, command: Command) -> None:
        found = await _account(session, command)
        if found is None:
            return
        account, online = found
        if online is not None:
            # Out first: logging out stores the running match and the logout time.
            await attendance.messenger.throw_out(online, admin_texts.ERASED)
        elif attendance.users.directory.get(account.name) is not None:
            attendance.messenger.moderate(account.name, "throw_out", admin_texts.ERASED)
        await chat_records.erase_account(account.name, session.name)
        session.out.line(admin_texts.erased(account.name))

    # --- motd ------------------------------------------------------------------------------------

    @table.admin_command("motd")
    async def motd_command(session: Session, command: Command) -> None:
        if command.args[:1] != ["set"]:
            send_motd(session, motd())
            return
        text = command.rest[len("set"):].strip()
        if not text:
            session.out.line(admin_texts.MOTD_SET_USAGE)
            return
        await set_motd(text, session.name)
        session.out.line(admin_texts.MOTD_WAS_SET)

    # --- shutdown --------------------------------------------------------------------------------

    @table.admin_command("shutdown")
    async def shutdown(session: Session, command: Command) -> None:
        word = command.args[0].lower() if len(command.args) == 1 else ""
        if word == "cancel":
            if not countdown.under_way:
                session.out.line(server_texts.NO_SHUTDOWN_UNDER_WAY)
                return
            countdown.cancel()
            await chat_records.log_moderation(session.name, "shutdown", "-", "cancelled")
            attendance.messenger.announce(server_texts.SHUTDOWN_CANCELLED)
            return
        if not word.isdigit():
            session.out.line(server_texts.SHUTDOWN_USAGE)
            return
        if countdown.started:
            session.out.line(server_texts.SHUTDOWN_ALREADY_UNDER_WAY)
            return
        minutes = int(word)
        await chat_records.log_moderation(session.name, "shutdown", "-",
                                                f"in {plural(minutes, 'minute')}")
        countdown.start(minutes)

    # --- who may log in --------------------------------------------------------------------------

    @table.check_login
    async def refuse_banned_and_late(session: Session, account: Account) -> str | None:
        """Administrators always get in (no one can lock them out); others not while banned (by
        name or by address), nor in the last minutes before a shutdown."""
        if account.is_admin:
            return None
        if countdown.ends_within(SHUTDOWN_LOGIN_CUTOFF_MINUTES):
            return server_texts.SHUTTING_DOWN_TRY_LATER
        ban = await chat_records.active_sanction("ban", account.name, session.connection.host)
        return None if ban is None else admin_texts.banned(ban.until)

    return table
