"""A typed line to its command: the registry of every command table's declarations and hooks,
resolution of FIBS's short forms, `!!`, the visitor rule, forwarding to the node that hosts the
user's match, the heavy reads' pacing, and the guard that keeps one failing handler from ending
anyone's session."""
from __future__ import annotations

import logging
import math
from collections.abc import Callable
from typing import Protocol

from fibs_server.lobby.command_table import (
    CommandTable,
    Declared,
    Hook,
    LoginCheck,
    LogoutHook,
    ShutdownHook,
)
from fibs_server.lobby.limits.read_limits import HeavyReadLimits
from fibs_server.lobby.presence.session import Session
from fibs_server.protocol import commands, texts

log = logging.getLogger(__name__)


class MatchesElsewhere(Protocol):
    """Where the lines of a user whose match runs on another node go (lobby/play/seats.py's
    `Seats`, above this module)."""

    def forward(self, session: Session, line: str, quiet: bool = False, heard: int = -1
                ) -> None: ...


class Dispatcher:
    """Every command as declared where it is registered (command_table.py), merged from the
    tables added, and the hooks they bring; `dispatch` runs a typed line."""

    def __init__(self, reserve: Callable[[list[str]], None],
                 is_visitor: Callable[[Session], bool], heavy_reads: HeavyReadLimits,
                 seats: Callable[[], MatchesElsewhere]) -> None:
        self._reserve = reserve  # names no one may register: every command's
        self._is_visitor = is_visitor
        self.heavy_reads = heavy_reads
        self._seats = seats  # made after this, with it: asked for when used
        self.commands: dict[str, Declared] = {}
        self.admin_commands: dict[str, Declared] = {}
        self.login_hooks: list[Hook] = []
        self.login_checks: list[LoginCheck] = []
        self.logout_hooks: list[LogoutHook] = []
        self.shutdown_hooks: list[ShutdownHook] = []
        self.resync_hooks: list[Hook] = []
        self.command_words = commands.CommandWords()

    def add_commands(self, table: CommandTable) -> None:
        self.commands.update(table.commands)
        self.admin_commands.update(table.admin_commands)
        self.login_checks += table.login_checks
        self.login_hooks += table.login_hooks
        self.logout_hooks += table.logout_hooks
        self.shutdown_hooks += table.shutdown_hooks
        self.resync_hooks += table.resync_hooks
        self.command_words = commands.CommandWords(
            declared.facts for declared in self.commands.values())
        self._reserve([*table.commands, *table.admin_commands, *(
            alias for declared in table.commands.values() for alias in declared.facts.aliases)])

    async def dispatch(self, session: Session, line: str) -> None:
        line = line.strip()
        if not line:
            return
        if line == "!!":
            if session.incoming.last_command is None:
                session.out.line(commands.NO_PREVIOUS_COMMAND)
                return
            line = session.incoming.last_command
        word, rest = commands.split_line(line)
        admin = self.admin_commands.get(word.lower())
        if admin is not None and session.account is not None and session.account.is_admin:
            declared, command = admin, commands.Command(word.lower(), word, rest.split(), rest)
        else:
            try:
                command = commands.resolve(line, self.command_words)
            except commands.UnknownCommand:
                session.out.line(commands.unknown_command(line))
                return
            declared = self.commands[command.name]
            facts = declared.facts
            if facts.repeatable:
                session.incoming.last_command = line
            if not facts.visitors and self._is_visitor(session):
                session.out.line(texts.NOT_FOR_VISITORS)
                return
            if session.place.seated_elsewhere is not None and facts.at_host(command):
                self._seats().forward(session, line)  # their match runs on another node
                return
            if (heavy := facts.paced(command)) is not None:
                wait = self.heavy_reads.by_user.wait_before(session.name)
                if wait:
                    session.out.line(heavy.too_often(math.ceil(wait)))
                    return
        try:
            await declared.handler(session, command)
            if session.place.seated_elsewhere is not None \
                    and declared.facts.forwarded is commands.Forwarding.COPIED:
                self._seats().forward(session, line, quiet=True)
        except Exception:
            # A bug in one command must not end this user's session or anyone else's.
            # The name only: arguments can be a password (`password old:new:new`) or chat.
            log.exception("command %s of %s failed", command.name, session.name)
            session.out.line(texts.COMMAND_FAILED)
