"""The commands of one module, each registered by decorator with its declaration (what it is
called, and how the lobby treats it: protocol/commands.py `CommandFacts`), and the module's
login hooks and checks. Each module's `command_table` makes its table from the owners it uses
(fibs_server/command_tables.py shows who gets what)."""
from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Collection

from fibs_server.lobby.ports.accounts import Account
from fibs_server.lobby.presence.session import Session
from fibs_server.protocol.commands import Command, CommandFacts, Forwarding, HeavyRead
from fibs_server.protocol.texts import Departure

# Each is a closure over the owners its module's factory was given: a handler is called with
# (session, command), a hook with (session), a login check with (session, account), answering
# None or the text that refuses the login.
Handler = Callable[[Session, Command], Awaitable[None]]
Hook = Callable[[Session], Awaitable[None]]
LoginCheck = Callable[[Session, Account], Awaitable[str | None]]
# A logout hook is called with (session, departure) and a shutdown hook with nothing; each
# answers the sessions it told of it already (they are spared the general notice).
LogoutHook = Callable[[Session, Departure], Awaitable[Collection[Session]]]
ShutdownHook = Callable[[], Awaitable[Collection[Session]]]


@dataclasses.dataclass(frozen=True)
class Declared:
    """A command's declaration and its handler."""
    facts: CommandFacts
    handler: Handler


class CommandTable:
    """The commands of one module, each declared with its handler, and the module's hooks
    that run when a user has logged in (after the welcome), logs out, or the server stops.
    Admin commands exist only for administrators and only under their whole name;
    `login_checks` may refuse a login before the user is let in."""

    def __init__(self) -> None:
        self.commands: dict[str, Declared] = {}  # the users' by name
        self.admin_commands: dict[str, Declared] = {}  # the administrators' by name
        self.login_hooks: list[Hook] = []
        self.login_checks: list[LoginCheck] = []
        self.logout_hooks: list[LogoutHook] = []
        self.shutdown_hooks: list[ShutdownHook] = []
        self.resync_hooks: list[Hook] = []

    def command(self, name: str, *, short_forms: tuple[str, ...] = (),
                aliases: tuple[str, ...] = (), visitors: bool = True,
                forwarded: Forwarding = Forwarding.HOME, repeatable: bool = True,
                pacing: HeavyRead | None = None,
                whole_word_only: bool = False,
                extension: bool = False) -> Callable[[Handler], Handler]:
        """The handler of the user command `name`, declared so (`CommandFacts`); one handler
        may carry several declarations (`board` and `rawboard`)."""
        return self._declare(CommandFacts(name, short_forms, aliases, visitors, forwarded,
                                          repeatable, pacing, whole_word_only=whole_word_only,
                                          extension=extension))

    def admin_command(self, name: str) -> Callable[[Handler], Handler]:
        return self._declare(CommandFacts(name, admin=True))

    def _declare(self, facts: CommandFacts) -> Callable[[Handler], Handler]:
        def register(handler: Handler) -> Handler:
            declared = self.admin_commands if facts.admin else self.commands
            assert facts.name not in declared, f"{facts.name} is declared twice"
            declared[facts.name] = Declared(facts, handler)
            return handler
        return register

    def on_login(self, hook: Hook) -> Hook:
        self.login_hooks.append(hook)
        return hook

    def check_login(self, check: LoginCheck) -> LoginCheck:
        self.login_checks.append(check)
        return check

    def on_logout(self, hook: LogoutHook) -> LogoutHook:
        """Run when a user logs out (or drops), before everyone else is told."""
        self.logout_hooks.append(hook)
        return hook

    def on_resync(self, hook: Hook) -> Hook:
        """A player whose letters between nodes were lost is shown their match again."""
        self.resync_hooks.append(hook)
        return hook

    def on_shutdown(self, hook: ShutdownHook) -> ShutdownHook:
        """Run when the server stops, before everyone else is told."""
        self.shutdown_hooks.append(hook)
        return hook
