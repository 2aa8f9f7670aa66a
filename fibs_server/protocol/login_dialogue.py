"""The login and registration dialogue as a pure state machine: lines in, actions out.

Like net/telnet_codec.py (and h11's connection states) it does no I/O and awaits nothing. The
session (lobby/presence/session.py) carries out the actions: output through its connection, and the
steps that need the server (a password check, the registration limit, a name lookup, a new
account, letting the user in) through the lobby's gatekeeper, feeding each result back in
(`authenticated`, `registration_limit_checked`, `name_checked`, `registered`), which answers
with the next actions. A result that comes after the connection closed is dropped.
"""
from __future__ import annotations

import dataclasses
import datetime
import enum
from typing import Generic, TypeVar, Union

from fibs_server.protocol import texts

# The lobby's account: passed from a result to `LogIn`, never looked into.
AccountT = TypeVar("AccountT")


class Stage(enum.Enum):
    LOGIN = "login"
    PASSWORD = "password"
    GUEST = "guest"
    NEW_PASSWORD = "new password"
    RETYPE_PASSWORD = "retype password"
    ONLINE = "online"
    CLOSED = "closed"


@dataclasses.dataclass(frozen=True)
class Client:
    """How the user's program talks, as its way of logging in showed."""
    clip: bool = False  # numbered CLIP lines instead of sentences: `login <client> 1008 ...`
    prompts: bool = True  # `> ` after each reply: telnet users only
    name: str | None = None  # the CLIP client's name, shown in who-lists


TELNET = Client()
# The browser page (fibs_server/web): a CLIP client from its first line, whichever way it logs
# in, registers or plays as a visitor, since it reads numbered lines and `board:` lines only.
WEB_PAGE = Client(clip=True, prompts=False, name="web")
# The client name the server's own bots give (lobby/services/bot_players.py): who is a bot, on any node.
BOT_CLIENT = "fibs_server-bot"


class NotChecked(enum.Enum):
    """`authenticated`'s answer when the password could not be checked now (too many checks
    wait): the user is asked to log in again, never told the password is wrong."""
    BUSY = "busy"


class RegistrationRefused(enum.Enum):
    TOO_MANY_REGISTRATIONS = "too many registrations"  # from this address within an hour
    NAME_TAKEN = "name taken"  # by someone else while this user typed the passwords


# --- actions ---------------------------------------------------------------------------------

class Output:
    """An action on the connection only."""


class Step:
    """An action that needs the server; its result is fed back in. Passwords are left out of
    the reprs: a step that fails is logged with its traceback."""


@dataclasses.dataclass(frozen=True)
class SendLines(Output):
    lines: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class SendPrompt(Output):
    text: str


@dataclasses.dataclass(frozen=True)
class SetEcho(Output):
    server_echoes: bool  # True: the peer stops echoing, for a password


@dataclasses.dataclass(frozen=True)
class Close(Output):
    pass


@dataclasses.dataclass(frozen=True)
class Authenticate(Step):
    """Result: `authenticated(account, None for a wrong name or password, or NotChecked)`."""
    name: str
    password: str = dataclasses.field(repr=False)


@dataclasses.dataclass(frozen=True)
class CheckRegistrationLimit(Step):
    """Result: `registration_limit_checked(allowed)`."""


@dataclasses.dataclass(frozen=True)
class CheckName(Step):
    """Result: `name_checked(free)`: False when the name is reserved or has an account."""
    name: str


@dataclasses.dataclass(frozen=True)
class Register(Step):
    """Result: `registered(account or RegistrationRefused)`."""
    name: str
    password: str = dataclasses.field(repr=False)


@dataclasses.dataclass(frozen=True)
class PlayAsVisitor(Step):
    """`bot ...` before logging in: let the user in as a visitor without an account, then run
    `command` (the `bot` command) as their first. Result: none (the user is online)."""
    command: str
    client: Client = TELNET


@dataclasses.dataclass(frozen=True)
class Resume(Step):
    """A web page presents its session token (`resume <token>`, the page's only): take the
    user's session over, held since its page went away or still connected. Result:
    `resumed(done)`."""
    token: str = dataclasses.field(repr=False)
    client: Client


@dataclasses.dataclass(frozen=True)
class LogIn(Step, Generic[AccountT]):
    """Let the user in: the lobby then marks the session online (`logged_in`), or refuses
    and closes the connection."""
    account: AccountT
    client: Client


Action = Union[Output, Step]

# Ends the line of a password for the peer, which did not echo its line end either.
LINE_END = SendLines(("",))
# The answers that never change, made once: a flood of empty lines gets one each.
_LOGIN_PROMPT = SendPrompt(texts.LOGIN_PROMPT)
_PROMPT = SendPrompt(texts.PROMPT)
_GUEST_WELCOME = [SendLines(texts.GUEST_WELCOME), _PROMPT]
_LINE_TOO_LONG = SendLines((texts.LINE_TOO_LONG,))


class LoginDialogue(Generic[AccountT]):
    def __init__(self, transport_client: Client = TELNET, repeated_refusals: int = 5) -> None:
        """`transport_client`: what a connection is before its way of logging in says more
        (TELNET on the telnet port, WEB_PAGE on the WebSocket). `repeated_refusals`: the same
        answer refused this many times in a row closes the connection (a program that
        re-sends it would otherwise be answered for ever)."""
        self.stage = Stage.LOGIN
        self.transport_client = transport_client
        self.client = transport_client  # decided by the way of logging in; kept once online
        self._name = ""  # the name being logged in to or registered
        self._new_password = ""  # typed once, waiting to be retyped
        self.repeated_refusals = repeated_refusals
        self._answer: tuple[Stage, str] = (Stage.LOGIN, "")  # the latest line, at its stage
        self._refused: tuple[Stage, str] | None = None  # the answer refused in a row, so far
        self._refusals = 0  # how many times

    def start(self, now: datetime.datetime) -> list[Action]:
        return [SendLines(tuple(texts.banner(now))), _LOGIN_PROMPT]

    # --- events from outside ---------------------------------------------------------------

    def receive(self, line: str) -> list[Action]:
        """A line typed before the user is online; lines after closing are ignored."""
        if self.stage is Stage.ONLINE:
            raise ValueError("an online user's lines are commands, not the dialogue's")
        self._answer = (self.stage, line.strip())
        if self._answer != self._refused:  # another answer breaks the run
            self._refused, self._refusals = None, 0
        answer = self._ANSWERS.get(self.stage)
        return answer(self, line) if answer is not None else []

    def line_too_long(self) -> list[Action]:
        """The net layer discarded a line that was too long (in any stage)."""
        if self.stage is Stage.CLOSED:
            return []
        actions: list[Action] = []
        if self.stage in (Stage.PASSWORD, Stage.NEW_PASSWORD, Stage.RETYPE_PASSWORD):
            # The peer stopped echoing for the password: turn its echo back on, start over.
            actions += [SetEcho(False), LINE_END]
            self.stage = Stage.LOGIN if self.stage is Stage.PASSWORD else Stage.GUEST
            self._new_password = ""
        actions.append(_LINE_TOO_LONG)
        if self.stage is Stage.LOGIN:
            actions.append(_LOGIN_PROMPT)
        elif self.stage is Stage.GUEST or (self.stage is Stage.ONLINE and self.client.prompts):
            actions.append(_PROMPT)
        return actions

    def logged_in(self) -> None:
        """The lobby let the user in: from now on lines are commands."""
        self.stage = Stage.ONLINE

    def closed(self) -> None:
        """The connection closed, from either side."""
        self.stage = Stage.CLOSED

    # --- results of the steps ----------------------------------------------------------------

    def authenticated(self, account: AccountT | NotChecked | None) -> list[Action]:
        if self.stage is Stage.CLOSED:
            return []
        if account is None or account is NotChecked.BUSY:
            prompt = texts.wrong_login_prompt(self.client.clip)
            self.stage, self.client = Stage.LOGIN, self.transport_client
            busy = [SendLines((texts.PASSWORD_CHECKS_BUSY,))] if account is not None else []
            return [*busy, SendPrompt(prompt)]
        return [LogIn(account, self.client)]

    def resumed(self, done: bool) -> list[Action]:
        """The lobby let the page back in (nothing more to say), or refused its token: the
        login prompt, as for a page that presented none."""
        if self.stage is Stage.CLOSED or done:
            return []
        return [_LOGIN_PROMPT]

    def registration_limit_checked(self, allowed: bool) -> list[Action]:
        if self.stage is Stage.CLOSED:
            return []
        if not allowed:
            return self._refusal(self._guest_error(texts.TOO_MANY_REGISTRATIONS))
        error = texts.name_error(self._name)
        return (self._refusal(self._guest_error(error)) if error is not None
                else [CheckName(self._name)])

    def name_checked(self, free: bool) -> list[Action]:
        if self.stage is Stage.CLOSED:
            return []
        if not free:
            return self._refusal(self._guest_error(texts.name_taken(self._name)))
        self.stage = Stage.NEW_PASSWORD
        return [SendLines(tuple(texts.name_accepted(self._name))), SetEcho(True),
                SendPrompt(texts.NEW_PASSWORD_PROMPT)]

    def registered(self, outcome: AccountT | RegistrationRefused) -> list[Action]:
        if self.stage is Stage.CLOSED:
            return []
        if outcome is RegistrationRefused.TOO_MANY_REGISTRATIONS:
            self.stage = Stage.GUEST
            return self._guest_error(texts.TOO_MANY_REGISTRATIONS)
        if outcome is RegistrationRefused.NAME_TAKEN:
            self.stage = Stage.GUEST
            return self._guest_error(texts.name_taken(self._name))
        return [SendLines(texts.REGISTERED), LogIn(outcome, self.client)]

    # --- the stages ----------------------------------------------------------------------------

    def _at_login(self, line: str) -> list[Action]:
        words = line.split()
        if not words:
            return [_LOGIN_PROMPT]
        if words[0] == "login" and len(words) >= 5:
            # CLIP: login <client> <clip version> <name> <password>
            self.client = Client(clip=True, prompts=False, name=words[1])
            return [Authenticate(words[3], words[4])]
        if words[0] == "connect" and len(words) >= 3:
            self.client = Client(prompts=False)
            return [Authenticate(words[1], words[2])]
        if words[0] == "guest" and len(words) == 1:
            self.stage = Stage.GUEST
            return self._guest_welcome()
        if words[0] in ("bye", "quit", "exit"):
            return [Close()]
        if words[0] == "bot":
            return [PlayAsVisitor(line.strip(), self.client)]
        if words[0] == "resume" and len(words) == 2 and self.transport_client is WEB_PAGE:
            return [Resume(words[1], self.client)]
        self._name = words[0]
        self.stage = Stage.PASSWORD
        return [SetEcho(True), SendPrompt(texts.PASSWORD_PROMPT)]

    def _at_password(self, line: str) -> list[Action]:
        return [SetEcho(False), LINE_END, Authenticate(self._name, line.strip())]

    def _as_guest(self, line: str) -> list[Action]:
        word, _, rest = line.strip().partition(" ")
        if word == "bye":
            return [Close()]
        if word == "bot":
            return [PlayAsVisitor(line.strip(), self.client)]
        if word != "name":
            return self._refusal(self._guest_welcome())
        self._name = rest.strip()
        return [CheckRegistrationLimit()]

    def _at_new_password(self, line: str) -> list[Action]:
        password = line.strip()
        if not password:
            self.stage = Stage.GUEST
            return [LINE_END, SetEcho(False), SendLines((texts.NO_PASSWORD_GIVEN,)),
                    _PROMPT]
        error = texts.password_error(password)
        if error is not None:
            return self._refusal([LINE_END, SendLines((error,)),
                                  SendPrompt(texts.NEW_PASSWORD_PROMPT)])
        self._new_password = password
        self.stage = Stage.RETYPE_PASSWORD
        return [LINE_END, SendPrompt(texts.RETYPE_PASSWORD_PROMPT)]

    def _at_retype_password(self, line: str) -> list[Action]:
        if line.strip() != self._new_password:
            self.stage = Stage.NEW_PASSWORD
            return [LINE_END, SendPrompt(texts.PASSWORDS_DIFFER_PROMPT)]
        password, self._new_password = self._new_password, ""
        return [LINE_END, SetEcho(False), Register(self._name, password)]

    def _refusal(self, actions: list[Action]) -> list[Action]:
        """The latest line was refused: `actions` (which ask again), or, when the same
        answer has been refused `repeated_refusals` times in a row, a goodbye. An empty line
        is no answer (it gets the prompt again)."""
        if not self._answer[1]:
            return actions
        if self._answer == self._refused:
            self._refusals += 1
        else:
            self._refused, self._refusals = self._answer, 1
        if self._refusals < self.repeated_refusals:
            return actions
        goodbye: list[Action] = [SendLines((texts.same_answer_refused(self._refusals),)),
                                 Close()]
        return [LINE_END, *goodbye] if self.stage is Stage.NEW_PASSWORD else goodbye

    @staticmethod
    def _guest_welcome() -> list[Action]:
        return list(_GUEST_WELCOME)

    @staticmethod
    def _guest_error(error: str) -> list[Action]:
        return [SendLines((error,)), _PROMPT]

    _ANSWERS = {Stage.LOGIN: _at_login, Stage.PASSWORD: _at_password, Stage.GUEST: _as_guest,
                Stage.NEW_PASSWORD: _at_new_password, Stage.RETYPE_PASSWORD: _at_retype_password}
