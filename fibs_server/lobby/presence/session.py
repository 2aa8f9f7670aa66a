"""One connected user: drives the login dialogue, then dispatches commands.

The dialogue itself is pure (protocol/login_dialogue.py); the session carries out its actions
through a `Connection` that the net layer implements and the lobby's gatekeeper. It never
touches sockets, which keeps it testable without a network.
"""
from __future__ import annotations

import dataclasses
import datetime
import logging
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from fibs_server.lobby.metrics import COMMAND_SECONDS
from fibs_server.lobby.ports.accounts import EVERYTHING_KEPT, Account, KeptForLogin
from fibs_server.lobby.presence.notices import Chunk
from fibs_server.protocol import clip, texts
from fibs_server.protocol.login_dialogue import (
    TELNET,
    WEB_PAGE,
    Action,
    Authenticate,
    CheckName,
    CheckRegistrationLimit,
    Client,
    Close,
    LogIn,
    LoginDialogue,
    PlayAsVisitor,
    Register,
    Resume,
    SendLines,
    SendPrompt,
    SetEcho,
    Stage,
    Step,
)
from fibs_server.protocol.views import layout, web_events

if TYPE_CHECKING:  # a type only: the lobby's, given to every session
    from fibs_server.lobby.limits.gatekeeper import Gatekeeper

log = logging.getLogger(__name__)


class WatchersOfPlayers(Protocol):
    """Who watches whom (lobby.match_table.Watchers)."""

    def set_watching(self, session: Session, player: Session | None) -> None: ...


class PlayersAndWatchers(Protocol):
    """What a session needs of who plays and watches whom (lobby.match_table.MatchTable,
    which imports this module)."""

    @property
    def watchers(self) -> WatchersOfPlayers: ...

    def opponent_name_of(self, session: Session) -> str | None: ...


@dataclasses.dataclass(frozen=True)
class SessionOwners:
    """What every session is given (made once by the lobby, lobby.Lobby, which imports this
    module): the owners it reads, and one callable for each of the lobby's doings its login
    dialogue and its lines ask for."""
    match_table: PlayersAndWatchers
    gatekeeper: Gatekeeper
    # The lobby's clock's time, what `last_active` is timed on as the idle timeout reads it
    # (read when used: a test gives a lobby it made a fake clock).
    time: Callable[[], float]
    now: Callable[[], datetime.datetime]
    disconnected: Callable[[Session], Awaitable[None]]
    dispatch: Callable[[Session, str], Awaitable[None]]
    log_in: Callable[[Session, Account], Awaitable[None]]
    resume: Callable[[Session, str], Awaitable[bool]]
    new_visitor: Callable[[str], Awaitable[Account | str]]
    release_visitor: Callable[[Account], None]


class Connection(Protocol):
    """What the net layer gives a session."""
    host: str

    def send(self, text: str, broadcast: bool = False) -> None:
        """Queue text (already with CR LF line ends) for the peer. `broadcast`: text that
        everyone gets at once, which may wait a little to share writes (net.telnet)."""

    def send_wire(self, data: bytes, broadcast: bool = False) -> None:
        """Queue text already as it goes on the wire (`wire_bytes`), in order with `send`'s:
        the who-list a login gets, encoded once for all logins (WhoList.wire); notices and
        broadcasts encoded once for everyone they go to (`broadcast` as for `send`)."""

    def set_echo(self, server_echoes: bool) -> None:
        """Telnet `IAC WILL ECHO` (the peer stops echoing, for passwords) or `IAC WONT ECHO`."""

    def close(self) -> None:
        """Flush what is queued and close."""


class OwedNotices(Protocol):
    """The login and logout notices told to everyone online (lobby/presence/fan_out.py)."""
    @property
    def last(self) -> int: ...

    def catch_up(self, session: Session) -> None: ...


@dataclasses.dataclass
class SeatElsewhere:
    """A user at a match that runs on another node, `host` (lobby/play/seats.py): whom they play
    there, or whom they watch there (both None: their join or watch is on its way)."""
    host: str
    opponent: str | None = None
    watching: str | None = None

    @property
    def playing(self) -> bool:
        """Playing there, or on the way to (a watcher is not)."""
        return self.watching is None


def wire_text(lines: list[str] | tuple[str, ...]) -> str:
    return "".join(f"{line}\r\n" for line in lines)


# Everything but CR, LF and the bell: no terminal escape sequence or telnet IAC reaches a
# peer, whatever text a bug or an old database row slips into a line.
_UNSENDABLE = re.compile(r"[^\x07\r\n\x20-\x7e]")


# The control bytes `wire_bytes` drops from ASCII text (all but BEL, LF and CR; DEL too).
_ASCII_CONTROLS = bytes(b for b in range(128) if (b < 32 or b == 127) and b not in b"\x07\n\r")


def wire_bytes(text: str) -> bytes:
    """Text as FIBS sends it: 7-bit printable ASCII, other characters become `?`, control
    characters are dropped."""
    try:
        # The usual case, in two passes of C: a who-list at 10,000 online is ~900 KB, and a
        # regular expression over it took a tenth of the event loop during a login burst.
        return text.encode("ascii").translate(None, _ASCII_CONTROLS)
    except UnicodeEncodeError:
        return _UNSENDABLE.sub(_replacement, text).encode("ascii")


def _replacement(unsendable: re.Match) -> str:
    return "" if unsendable.group() < "\x80" else "?"


class Output:
    """What goes out to the user's program, and how that program takes it: FIBS's lines
    (laid out and paged for a telnet user), prompts, and typed messages for a page that asked
    for them. Its attributes are plain, as they are read for every line sent to every user."""

    def __init__(self, session: Session) -> None:
        self._session = session
        # Whether the session is closed, read off the dialogue itself for every line sent.
        self._dialogue = session.incoming.dialogue
        # How the user's program talks, as the dialogue decided (set at `LogIn`).
        self.clip = False  # numbered CLIP lines instead of sentences
        self.prompts = True  # `> ` after each reply (telnet users only)
        self.client_name: str | None = None
        # Where the typed messages go (docs/WEB-PROTOCOL.md), for a web page that asked for
        # them; None for everyone else, who gets FIBS's lines only.
        # (line, broadcast), as `Connection.send` takes text.
        self.event_sink: Callable[[str, bool], None] | None = None
        # Online: the logins' and logouts' notices, and the number of the last one this user
        # had (what else is sent to them sends those they are owed first, in order).
        self.notices: OwedNotices | None = None
        self.notices_seen = 0
        self._more: list[str] = []  # lines waiting behind a `-- more --` prompt

    @property
    def sees_extensions(self) -> bool:
        """Whether this session gets the server's own lines unasked in FIBS's flows (the dice
        commitment at a match's start, the saved-match counts in `whois`): the web page, which
        shows them. A telnet or CLIP session sees exactly FIBS's lines there, and gets those
        facts when it asks (`fairdice`, `history`): docs/PROTOCOL.md, "Classic sessions"."""
        return self._dialogue.transport_client is WEB_PAGE

    @property
    def wants_events(self) -> bool:
        return self.event_sink is not None

    def line(self, line: str) -> None:
        self.lines([line])

    def lines(self, lines: list[str] | tuple[str, ...]) -> None:
        if self.event_sink is None:
            self._lines(lines)
            return
        # A page that asked for typed messages gets each refusal's message right after its line.
        start = 0
        for index, line in enumerate(lines):
            message = web_events.refusal_of(line)
            if message is not None:
                self._lines(lines[start:index + 1])
                self.event(message)
                start = index + 1
        self._lines(lines[start:])

    def _catch_up(self) -> None:
        """Notices of logins and logouts this user is owed go before anything sent after
        them."""
        notices = self.notices
        if notices is not None and notices.last > self.notices_seen:
            notices.catch_up(self._session)

    def owed(self, chunks: Sequence[Chunk]) -> None:
        """Notices of logins and logouts, in order: lines, or typed messages for a page that
        asked for them (lobby/presence/notices.py)."""
        session = self._session
        if self._dialogue.stage is Stage.CLOSED:
            return
        for chunk in chunks:
            if chunk.event_line is None:
                session.connection.send_wire(chunk.wire, broadcast=True)
            elif self.event_sink is not None:
                self.event_sink(chunk.event_line, True)

    def _lines(self, lines: list[str] | tuple[str, ...]) -> None:
        session = self._session
        if not lines or self._dialogue.stage is Stage.CLOSED:
            return
        self._catch_up()
        if self.clip or session.account is None:
            session.connection.send(wire_text(lines))
            return
        # A telnet user: lines broken at `linelength` unless the terminal wraps, and long
        # replies in pages of `pagelength` (what comes while a page waits queues behind it).
        width = int(session.prefs.setting("linelength"))
        if width and not session.prefs.toggle("wrap"):
            lines = layout.wrapped(lines, width)
        page_length = int(session.prefs.setting("pagelength"))
        if self._more or (page_length and len(lines) > page_length):
            self._more += lines
            if len(self._more) == len(lines):
                self.next_page()
            return
        session.connection.send(wire_text(lines))

    @property
    def paging(self) -> bool:
        """Whether a page waits at a `-- more --` prompt for the user's empty line."""
        return bool(self._more)

    def next_page(self) -> None:
        self._catch_up()
        page, self._more = layout.first_page(self._more,
                                             int(self._session.prefs.setting("pagelength")))
        self._session.connection.send(wire_text(page))
        if self._more:
            self._session.connection.send(layout.MORE_PROMPT)
        elif self.prompts:
            self.prompt()

    def stop_paging(self) -> None:
        self._more = []

    def broadcast(self, wire: bytes) -> None:
        """Lines that many users get at once, formatted and encoded once for them all
        (`wire_bytes(wire_text(lines))`)."""
        if self._dialogue.stage is not Stage.CLOSED:
            self._catch_up()
            self._session.connection.send_wire(wire, broadcast=True)

    def event(self, message: web_events.Message) -> None:
        """A typed message, in order with the lines, to a page that asked for them."""
        if self.event_sink is not None and self._dialogue.stage is not Stage.CLOSED:
            self._catch_up()
            self.event_sink(web_events.encode(message), False)

    def event_lines(self, text: str) -> None:
        """Typed messages already encoded, each CR LF ended (WhoList.presence_text)."""
        if (text and self.event_sink is not None
                and self._dialogue.stage is not Stage.CLOSED):
            self._catch_up()
            self.event_sink(text.removesuffix("\r\n"), False)

    def event_broadcast(self, line: str) -> None:
        """A typed message that many users get at once, encoded once for them all."""
        if self.event_sink is not None and self._dialogue.stage is not Stage.CLOSED:
            self._catch_up()
            self.event_sink(line, True)

    def prompt(self, prompt: str = texts.PROMPT) -> None:
        if self._dialogue.stage is not Stage.CLOSED:
            self._catch_up()
            if self.event_sink is not None:
                # A login dialogue's prompt may refuse the answer: its message comes first,
                # on a line of its own, as the prompt waits on its line for the answer.
                message = web_events.refusal_of(prompt)
                if message is not None:
                    self.event(message)
            self._session.connection.send(prompt)


class Prefs:
    """The user's own choices: the toggles and settings their account keeps, and the away
    message they left."""

    def __init__(self, session: Session) -> None:
        self._session = session
        self.away_message: str | None = None

    def toggle(self, name: str) -> bool:
        account = self._session.account
        assert account is not None
        return account.toggles[name]

    def setting(self, name: str) -> str:
        account = self._session.account
        assert account is not None
        return account.settings[name]


@dataclasses.dataclass
class Place:
    """Where the user is: whom they watch here, their match or watch on another node, and the
    tournament their page follows."""
    watching: Session | None = None  # set by the lobby's MatchTable (set_watching)
    seated_elsewhere: SeatElsewhere | None = None  # set by lobby/play/seats.py
    # A page's tournament: the one it last showed, created, joined or left, whose every
    # change it is sent (lobby/services/tournament_news.py).
    followed_tournament: int | None = None

    @property
    def watching_name(self) -> str | None:
        if self.watching is not None:
            return self.watching.name
        return self.seated_elsewhere.watching if self.seated_elsewhere else None


class Who:
    """The user as the who-list shows them: their CLIP 5 line and its fields, their login
    time and how long they have been idle."""

    def __init__(self, session: Session) -> None:
        self._session = session
        self.login_time = 0
        # On the lobby's clock, as the idle timeout that reads it (tests move a fake one).
        self.last_active = session.given.time()
        # line's cache: the fields it was formatted from, and its text around the idle time.
        self._fields: tuple[object, ...] = ()
        self._around_idle = ("", "")

    def line(self) -> str:
        """This user's CLIP 5 line. A login's who-list holds one per online user, so formatting
        every field each time made logins cost O(online) formatting; the text around the idle
        time is kept and re-formatted only when a field it shows has changed. Comparing the
        fields, rather than invalidating at each place that changes one, cannot go stale; name,
        login time and host are fixed for the session."""
        session = self._session
        account = session.account
        assert account is not None
        fields = (session.given.match_table.opponent_name_of(session),
                  session.place.watching_name,
                  account.toggles["ready"], session.prefs.away_message is not None,
                  account.rating, account.experience, session.out.client_name, account.email)
        if fields != self._fields:
            self._fields = fields
            self._around_idle = clip.who_info_around_idle(self.info())
        before_idle, after_idle = self._around_idle
        return clip.who_info_with_idle(before_idle, self.idle_seconds(), after_idle)

    def idle_seconds(self) -> int:
        return int(self._session.given.time() - self.last_active)

    def info(self) -> clip.WhoInfo:
        session = self._session
        account = session.account
        assert account is not None
        return clip.WhoInfo(
            name=account.name,
            opponent=session.given.match_table.opponent_name_of(session),
            watching=session.place.watching_name,
            ready=account.toggles["ready"],
            away=session.prefs.away_message is not None,
            rating=account.rating,
            experience=account.experience,
            idle_seconds=self.idle_seconds(),
            login_time=self.login_time,
            host=session.connection.host,
            client=session.out.client_name,
            email=account.email,
        )


class Session:
    """The connection's face to the lobby. Besides who the user is (`account`, `name`), it has
    five facets others read: the lines the user's program sends, the login dialogue they drive
    and the commands (`incoming`), what goes out to the user's program (`out`), the user's own
    choices (`prefs`), where they are (`place`), and how the who-list shows them (`who`)."""

    def __init__(self, given: SessionOwners, connection: Connection,
                 transport_client: Client = TELNET) -> None:
        self.given = given
        self.connection = connection
        self.account: Account | None = None
        # A built-in bot's: played by the server (lobby/services/bot_players.py).
        self.is_bot = False
        self.waved = False
        # What the store may keep for this user that the login's hooks read (read once at the
        # login: a kind it has none of is not asked for).
        self.kept: KeptForLogin = EVERYTHING_KEPT
        self.incoming = Incoming(self, transport_client)
        self.out = Output(self)
        self.prefs = Prefs(self)
        self.place = Place()
        self.who = Who(self)

    @property
    def stage(self) -> Stage:
        # Sending reads the dialogue's stage itself: it runs for every line to every user.
        return self.incoming.dialogue.stage

    @stage.setter
    def stage(self, stage: Stage) -> None:
        """Lobby.log_in sets ONLINE when it lets the user in."""
        assert stage is Stage.ONLINE
        self.incoming.dialogue.logged_in()

    @property
    def name(self) -> str:
        return self.account.name if self.account else ""

    def close(self) -> None:
        if self.stage is not Stage.CLOSED:
            # quietly: a replaced or kicked session must not stay listed
            self.given.match_table.watchers.set_watching(self, None)
            self.incoming.dialogue.closed()
            self.connection.close()



class Incoming:
    """The lines the user's program sends: the login dialogue they drive (its actions carried
    out through the connection and the gatekeeper), then, online, the commands they dispatch
    (a `-- more --` prompt answered first), and the last of them, which `!!` repeats."""

    def __init__(self, session: Session, transport_client: Client) -> None:
        self.session = session
        self.dialogue: LoginDialogue[Account] = LoginDialogue(
            transport_client, session.given.gatekeeper.limits.repeated_refused_answers)
        self.last_command: str | None = None

    def start(self) -> None:
        session = self.session
        for action in self.dialogue.start(session.given.now()):
            self._show(action)

    async def handle_line(self, line: str) -> None:
        session = self.session
        session.who.last_active = session.given.time()
        if session.stage is Stage.ONLINE:
            received = time.monotonic()
            await self._online(line)  # dispatch answers a failed command itself
            COMMAND_SECONDS.observe(time.monotonic() - received)
            return
        try:
            await self._carry_out(self.dialogue.receive(line))
        except Exception:
            # A store that fails during a login or registration (a locked database, say):
            # the user is told and let go, never left half logged in.
            log.exception("login or registration on a connection from %s failed",
                          session.connection.host)
            session.out.line(texts.LOGIN_FAILED)
            try:
                await session.given.disconnected(session)  # logs out, if it got that far
            except Exception:
                log.exception("and so did the logout that followed")
                session.close()

    def line_too_long(self) -> None:
        for action in self.dialogue.line_too_long():
            self._show(action)

    async def _online(self, line: str) -> None:
        session = self.session
        if session.out.paging:
            if not line.strip():
                session.out.next_page()
                return
            session.out.stop_paging()  # any command stops the pager
        await session.given.dispatch(session, line)
        if session.out.prompts and session.stage is Stage.ONLINE and not session.out.paging:
            session.out.prompt()

    # --- the login dialogue's actions --------------------------------------------------------

    async def _carry_out(self, actions: list[Action]) -> None:
        """Output at once; a step awaited, then the dialogue's answer to its result."""
        for action in actions:
            if isinstance(action, Step):
                await self._carry_out(await self._take_step(action))
            else:
                self._show(action)

    def _show(self, action: Action) -> None:
        session = self.session
        match action:
            case SendPrompt(text):
                session.out.prompt(text)
            case SendLines(lines):
                session.out.lines(lines)
            case SetEcho(server_echoes):
                session.connection.set_echo(server_echoes)
            case Close():
                session.close()
            case _:
                raise ValueError(f"{action!r} is no output")

    async def _take_step(self, step: Step) -> list[Action]:
        """Carry out a step through the gatekeeper or the lobby; the dialogue's answer."""
        session = self.session
        gatekeeper, host = session.given.gatekeeper, session.connection.host
        match step:
            case Authenticate(name, password):
                account = await gatekeeper.authenticate(
                    name, password, host, hung_up=lambda: session.stage is Stage.CLOSED)
                return self.dialogue.authenticated(account)
            case CheckRegistrationLimit():
                return self.dialogue.registration_limit_checked(
                    await gatekeeper.allows_registration(host))
            case CheckName(name):
                return self.dialogue.name_checked(await gatekeeper.name_is_free(name))
            case Register(name, password):
                return self.dialogue.registered(await gatekeeper.register(name, password, host))
            case LogIn(account, client):
                self._talk_as(client)
                await session.given.log_in(session, account)
                return []
            case Resume(token, client):
                self._talk_as(client)
                return self.dialogue.resumed(await session.given.resume(session, token))
            case PlayAsVisitor(command, client):
                visitor = await session.given.new_visitor(host)
                if isinstance(visitor, str):  # visitors enough: a refusal
                    session.out.line(visitor)
                    session.close()
                    return []
                self._talk_as(client)
                try:
                    await session.given.log_in(session, visitor)
                finally:
                    # Refused (banned, shutting down), gone or cancelled meanwhile: its name
                    # is free again. Once online, the logout frees it.
                    if session.stage is not Stage.ONLINE:
                        session.given.release_visitor(visitor)
                if session.stage is Stage.ONLINE:
                    await self._online(command)
                return []
            case _:
                raise ValueError(f"{step!r} is no step")

    def _talk_as(self, client: Client) -> None:
        out = self.session.out
        out.clip, out.prompts, out.client_name = client.clip, client.prompts, client.name


# A user's stay online (`Users.stay_of`): their session here, or (node, login time) of
# their login on another node.
Stay = Session | tuple[str, int]
