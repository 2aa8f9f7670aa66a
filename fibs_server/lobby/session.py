"""One connected user: the login and registration dialogue, then command dispatch.

The session never touches sockets: it writes through a `Connection` that the net layer
implements, which keeps the whole dialogue testable without a network.
"""
from __future__ import annotations

import collections
import enum
import logging
import time
from typing import TYPE_CHECKING, Protocol

from fibs_server.lobby.accounts import Account, NameTaken
from fibs_server.lobby.login_gate import check_login
from fibs_server.lobby.registration import is_reserved_name
from fibs_server.protocol import clip, layout, texts

if TYPE_CHECKING:
    from fibs_server.lobby.lobby import Lobby

log = logging.getLogger(__name__)


class Connection(Protocol):
    """What the net layer gives a session."""
    host: str

    def send(self, text: str, broadcast: bool = False) -> None:
        """Queue text (already with CR LF line ends) for the peer. `broadcast`: text that
        everyone gets at once, which may wait a little to share writes (net.telnet)."""

    def set_echo(self, server_echoes: bool) -> None:
        """Telnet `IAC WILL ECHO` (the peer stops echoing, for passwords) or `IAC WONT ECHO`."""

    def close(self) -> None:
        """Flush what is queued and close."""


def wire_text(lines: list[str] | tuple[str, ...]) -> str:
    return "".join(f"{line}\r\n" for line in lines)


class Stage(enum.Enum):
    LOGIN = "login"
    PASSWORD = "password"
    GUEST = "guest"
    NEW_PASSWORD = "new password"
    RETYPE_PASSWORD = "retype password"
    ONLINE = "online"
    CLOSED = "closed"


class Session:
    def __init__(self, lobby: Lobby, connection: Connection) -> None:
        self.lobby = lobby
        self.connection = connection
        self.stage = Stage.LOGIN
        self.account: Account | None = None
        self.clip = False  # numbered CLIP lines instead of sentences
        self.prompts = True  # `> ` after each reply (telnet users only)
        self.client_name: str | None = None
        self.is_bot = False  # a built-in bot's: played by the server (lobby/bot_players.py)
        self.login_time = 0
        self.last_active = time.monotonic()
        self.away_message: str | None = None
        self.last_command: str | None = None
        self.watching: Session | None = None  # set by the lobby's MatchTable (set_watching)
        self.waved = False
        # Talking (lobby/chat_commands.py): lower-case names this user gags and blinds (kept in
        # the store too), the users they wait for, an admin's mute, their recent shout times.
        self.gagged: set[str] = set()
        self.blinded: set[str] = set()
        self.waiting_for: set[str] = set()
        self.muted = False
        self.shout_times: collections.deque[float] = collections.deque()
        self._login_name = ""
        self._more: list[str] = []  # lines waiting behind a `-- more --` prompt
        self._new_password = ""
        # who_line's cache: the fields it was formatted from, and its text around the idle time.
        self._who_fields: tuple[object, ...] = ()
        self._who_around_idle = ("", "")

    # --- output ----------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.account.name if self.account else ""

    def send_lines(self, lines: list[str] | tuple[str, ...]) -> None:
        if not lines or self.stage is Stage.CLOSED:
            return
        if self.clip or self.account is None:
            self.connection.send(wire_text(lines))
            return
        # A telnet user: lines broken at `linelength` unless the terminal wraps, and long
        # replies in pages of `pagelength` (what comes while a page waits queues behind it).
        width = int(self.setting("linelength"))
        if width and not self.toggle("wrap"):
            lines = layout.wrapped(lines, width)
        page_length = int(self.setting("pagelength"))
        if self._more or (page_length and len(lines) > page_length):
            self._more += lines
            if len(self._more) == len(lines):
                self._next_page()
            return
        self.connection.send(wire_text(lines))

    def _next_page(self) -> None:
        page, self._more = layout.first_page(self._more, int(self.setting("pagelength")))
        self.connection.send(wire_text(page))
        if self._more:
            self.connection.send(layout.MORE_PROMPT)
        elif self.prompts:
            self.send_prompt()

    def send_broadcast(self, text: str) -> None:
        """Text that many users get at once, formatted once (`wire_text`) for them all."""
        if self.stage is not Stage.CLOSED:
            self.connection.send(text, broadcast=True)

    def send_line(self, line: str) -> None:
        self.send_lines([line])

    def send_prompt(self, prompt: str = texts.PROMPT) -> None:
        if self.stage is not Stage.CLOSED:
            self.connection.send(prompt)

    def toggle(self, name: str) -> bool:
        assert self.account is not None
        return self.account.toggles[name]

    def setting(self, name: str) -> str:
        assert self.account is not None
        return self.account.settings[name]

    def close(self) -> None:
        if self.stage is not Stage.CLOSED:
            # quietly: a replaced or kicked session must not stay listed
            self.lobby.match_table.set_watching(self, None)
            self.stage = Stage.CLOSED
            self.connection.close()

    # --- input -----------------------------------------------------------------------------

    def start(self) -> None:
        self.send_lines(texts.banner(self.lobby.now()))
        self.send_prompt(texts.LOGIN_PROMPT)

    async def handle_line(self, line: str) -> None:
        self.last_active = time.monotonic()
        handler = {
            Stage.LOGIN: self._at_login,
            Stage.PASSWORD: self._at_password,
            Stage.GUEST: self._as_guest,
            Stage.NEW_PASSWORD: self._at_new_password,
            Stage.RETYPE_PASSWORD: self._at_retype_password,
            Stage.ONLINE: self._online,
        }.get(self.stage)
        if handler is None:
            return
        if handler == self._online:
            await handler(line)  # dispatch answers a failed command itself
            return
        try:
            await handler(line)
        except Exception:
            # A store that fails during a login or registration (a locked database, say):
            # the user is told and let go, never left half logged in.
            log.exception("login or registration on a connection from %s failed",
                          self.connection.host)
            self.send_line(texts.LOGIN_FAILED)
            try:
                await self.lobby.disconnected(self)  # logs out, if it got that far
            except Exception:
                log.exception("and so did the logout that followed")
                self.close()

    def line_too_long(self) -> None:
        if self.stage in (Stage.PASSWORD, Stage.NEW_PASSWORD, Stage.RETYPE_PASSWORD):
            # The peer stopped echoing for the password: turn its echo back on, start over.
            self.connection.set_echo(False)
            self.connection.send("\r\n")
            self.stage = Stage.LOGIN if self.stage is Stage.PASSWORD else Stage.GUEST
        self.send_line(texts.LINE_TOO_LONG)
        if self.stage is Stage.LOGIN:
            self.send_prompt(texts.LOGIN_PROMPT)
        elif self.stage is Stage.GUEST or (self.stage is Stage.ONLINE and self.prompts):
            self.send_prompt()

    async def _online(self, line: str) -> None:
        if self._more:
            if not line.strip():
                self._next_page()
                return
            self._more = []  # any command stops the pager
        await self.lobby.dispatch(self, line)
        if self.prompts and self.stage is Stage.ONLINE and not self._more:
            self.send_prompt()

    # --- login -----------------------------------------------------------------------------

    async def _at_login(self, line: str) -> None:
        words = line.split()
        if not words:
            self.send_prompt(texts.LOGIN_PROMPT)
            return
        if words[0] == "login" and len(words) >= 5:
            # CLIP: login <client> <clip version> <name> <password>
            self.clip, self.prompts, self.client_name = True, False, words[1]
            await self._authenticate(words[3], words[4])
        elif words[0] == "connect" and len(words) >= 3:
            self.prompts = False
            await self._authenticate(words[1], words[2])
        elif words[0] == "guest" and len(words) == 1:
            self.stage = Stage.GUEST
            self._show_guest_welcome()
        elif words[0] in ("bye", "quit", "exit"):
            self.close()
        else:
            self._login_name = words[0]
            self.stage = Stage.PASSWORD
            self.connection.set_echo(True)
            self.send_prompt(texts.PASSWORD_PROMPT)

    async def _at_password(self, line: str) -> None:
        self.connection.set_echo(False)
        # The peer did not echo the password's line end either.
        self.connection.send("\r\n")
        await self._authenticate(self._login_name, line.strip())

    async def _authenticate(self, name: str, password: str) -> None:
        account = await check_login(self.lobby, name, password, self.connection.host,
                                    hung_up=lambda: self.stage is Stage.CLOSED)
        if self.stage is Stage.CLOSED:
            return
        if account is None:
            # A CLIP client's line was not echoed: start the prompt on a line of its own.
            prompt = ("\r\n" if self.clip else "") + texts.LOGIN_PROMPT
            self.stage = Stage.LOGIN
            self.clip, self.prompts, self.client_name = False, True, None
            self.send_prompt(prompt)
            return
        await self.lobby.log_in(self, account)

    # --- registration ------------------------------------------------------------------------

    def _show_guest_welcome(self) -> None:
        self.send_lines(texts.GUEST_WELCOME)
        self.send_prompt()

    async def _as_guest(self, line: str) -> None:
        word, _, rest = line.strip().partition(" ")
        if word == "bye":
            self.close()
            return
        if word != "name":
            self._show_guest_welcome()
            return
        if not self.lobby.registrations.allows(self.connection.host):
            self.send_line(texts.TOO_MANY_REGISTRATIONS)
            self.send_prompt()
            return
        wanted = rest.strip()
        error = texts.name_error(wanted)
        if error is None and (is_reserved_name(self.lobby, wanted)
                              or await self.lobby.accounts.find_account(wanted) is not None):
            error = texts.name_taken(wanted)
        if error is not None:
            self.send_line(error)
            self.send_prompt()
            return
        self._login_name = wanted
        self.send_lines(texts.name_accepted(wanted))
        self._ask_new_password()

    def _ask_new_password(self) -> None:
        self.stage = Stage.NEW_PASSWORD
        self.connection.set_echo(True)
        self.send_prompt(texts.NEW_PASSWORD_PROMPT)

    async def _at_new_password(self, line: str) -> None:
        password = line.strip()
        self.connection.send("\r\n")
        if not password:
            self.connection.set_echo(False)
            self.stage = Stage.GUEST
            self.send_line(texts.NO_PASSWORD_GIVEN)
            self.send_prompt()
            return
        error = texts.password_error(password)
        if error is not None:
            self.send_line(error)
            self.send_prompt(texts.NEW_PASSWORD_PROMPT)
            return
        self._new_password = password
        self.stage = Stage.RETYPE_PASSWORD
        self.send_prompt(texts.RETYPE_PASSWORD_PROMPT)

    async def _at_retype_password(self, line: str) -> None:
        self.connection.send("\r\n")
        if line.strip() != self._new_password:
            self.stage = Stage.NEW_PASSWORD
            self.send_prompt(texts.PASSWORDS_DIFFER_PROMPT)
            return
        self.connection.set_echo(False)
        password, self._new_password = self._new_password, ""
        # Counted here, with no await since the check: parallel dialogues all passed `name`.
        if not self.lobby.registrations.take(self.connection.host):
            self.stage = Stage.GUEST
            self.send_line(texts.TOO_MANY_REGISTRATIONS)
            self.send_prompt()
            return
        try:
            account = await self.lobby.register(self._login_name, password, self.connection.host)
        except NameTaken:
            # Someone took the name while this user was typing passwords.
            self.stage = Stage.GUEST
            self.send_line(texts.name_taken(self._login_name))
            self.send_prompt()
            return
        if self.stage is Stage.CLOSED:
            return
        self.send_lines(texts.REGISTERED)
        await self.lobby.log_in(self, account)

    # --- views -------------------------------------------------------------------------------

    def who_line(self) -> str:
        """This user's CLIP 5 line. A login's who-list holds one per online user, so formatting
        every field each time made logins cost O(online) formatting; the text around the idle
        time is kept and re-formatted only when a field it shows has changed. Comparing the
        fields, rather than invalidating at each place that changes one, cannot go stale; name,
        login time and host are fixed for the session."""
        assert self.account is not None
        fields = (self.lobby.match_table.opponent_name_of(self),
                  self.watching and self.watching.name,
                  self.account.toggles["ready"], self.away_message is not None,
                  self.account.rating, self.account.experience, self.client_name,
                  self.account.email)
        if fields != self._who_fields:
            self._who_fields = fields
            self._who_around_idle = clip.who_info_around_idle(self.who_info())
        before_idle, after_idle = self._who_around_idle
        return clip.who_info_with_idle(before_idle, self.idle_seconds(), after_idle)

    def idle_seconds(self) -> int:
        return int(time.monotonic() - self.last_active)

    def who_info(self) -> clip.WhoInfo:
        assert self.account is not None
        opponent = self.lobby.match_table.opponent_name_of(self)
        return clip.WhoInfo(
            name=self.account.name,
            opponent=opponent,
            watching=self.watching.name if self.watching else None,
            ready=self.account.toggles["ready"],
            away=self.away_message is not None,
            rating=self.account.rating,
            experience=self.account.experience,
            idle_seconds=self.idle_seconds(),
            login_time=self.login_time,
            host=self.connection.host,
            client=self.client_name,
            email=self.account.email,
        )
