"""Who is online, logging in and out, broadcasts, and routing commands to their handlers."""
from __future__ import annotations

import asyncio
import dataclasses
import datetime
import logging
import secrets
import string
import time
import weakref
from collections.abc import Awaitable, Callable, Collection, Coroutine, Iterable
from typing import Any

from fibs_server.lobby.clock import Clock, LoopClock
from fibs_server.lobby.command_table import (
    CommandTable,
)
from fibs_server.lobby.countdown import ShutdownCountdown
from fibs_server.lobby.dispatcher import Dispatcher
from fibs_server.lobby.limits.gatekeeper import Gatekeeper
from fibs_server.lobby.limits.passwords import PasswordHasher
from fibs_server.lobby.limits.read_limits import HeavyReadLimits, KeyedRateLimit
from fibs_server.lobby.limits.shared_counts import SharedCounts
from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.lobby.limits.who_pacing import WhoPacing
from fibs_server.lobby.nodes.bus import (
    ArrangedLetter,
    Bus,
    Deliver,
    Letter,
    LocalBus,
    SeatLetter,
    SeekLetter,
    notice,
)
from fibs_server.lobby.nodes.directory import NodeTimes
from fibs_server.lobby.play.arranged_matches import Arranging
from fibs_server.lobby.play.match_play import (
    MatchChances,
    Matches,
    MatchTimers,
    no_chances,
    untimed,
)
from fibs_server.lobby.play.match_table import MatchTable
from fibs_server.lobby.play.running_match import Invitation, RunningMatch
from fibs_server.lobby.play.seats import Seats, SeatSession
from fibs_server.lobby.play.tables import CodeGuesses
from fibs_server.lobby.ports.accounts import (
    PER_GAME_TOGGLES,
    Account,
    AccountStore,
    AccountsWithVisitors,
)
from fibs_server.lobby.ports.analysis_records import AnalysisRecords
from fibs_server.lobby.ports.chat_records import ChatRecords
from fibs_server.lobby.ports.match_records import MatchStore
from fibs_server.lobby.presence.attendance import Attendance
from fibs_server.lobby.presence.chat_state import ChatState
from fibs_server.lobby.presence.reconnect import DEFAULT_RECONNECT_SECONDS, HeldSessions
from fibs_server.lobby.presence.session import (
    Connection,
    Session,
    SessionOwners,
    Stage,
    wire_text,
)
from fibs_server.lobby.services.quick_play import QuickPlay, QuickPlayConfig
from fibs_server.lobby.services.tutor import Judge, Tutor
from fibs_server.protocol import clip, texts
from fibs_server.protocol.login_dialogue import TELNET, Client
from fibs_server.protocol.texts import Departure
from fibs_server.protocol.views import web_events
from fibs_server.protocol.wording import game_texts, server_texts
from fibs_server.rules.dice import Dice, VerifiableDice

log = logging.getLogger(__name__)

VISITOR_NAME_DRAWS = 20  # random names tried for a visitor before it is refused

@dataclasses.dataclass
class LobbyConfig:
    motd: tuple[str, ...] = texts.DEFAULT_MOTD
    idle_timeout: float = 3600.0  # seconds without input before `Connection timed out.`
    abuse_limits: AbuseLimits = AbuseLimits()  # login delays, registrations per address
    # A dice source for each match (tests script it): verifiable from a fresh secret seed.
    new_dice: Callable[[], Dice] = VerifiableDice.fresh
    choose_first_x: Callable[[], int] = lambda: secrets.randbelow(2)  # X in game 1: 0 or 1
    shout_limit: int = 5  # shouts a user may send within `shout_window` seconds
    shout_window: float = 60.0
    shout_clock: Callable[[], float] = time.monotonic  # what shouts are timed on (tests: fake)
    shutdown_minute: float = 60.0  # seconds in a minute of `shutdown`'s countdown (tests: less)
    clock: Clock = dataclasses.field(default_factory=LoopClock)  # timed matches' (tests: fake)
    # A timed match left or dropped is lost unless resumed within this many seconds.
    grace_seconds: int = 60
    # A bot takes a decision over after this many seconds in every match whose invitation
    # names no `takeover` (None: only where it does).
    takeover_seconds: int | None = None
    # Unix seconds, to compare with the times the store writes (matches left too long).
    wall_clock: Callable[[], float] = time.time
    # A saved match nobody plays for this long is closed as abandoned by whoever left it,
    # and with `forfeit_abandoned` won by the other (rated), if it has a length; with
    # `settle_by_chances` as well, a rated one is settled by both players' winning chances
    # instead, where the engine has them (docs/FAIRNESS.md, "Abandoned matches").
    abandon_after: float = 14 * 24 * 3600.0
    forfeit_abandoned: bool = False
    settle_by_chances: bool = False
    # A web page's session is held this long after its WebSocket dropped without `bye`, for
    # the page to come back to (lobby/presence/reconnect.py); 0: logged out at once, as telnet's.
    reconnect_seconds: float = DEFAULT_RECONNECT_SECONDS
    # This node's name on a bus between nodes (docs/NODES.md); one node needs none.
    node_id: str = "main"
    # How the nodes keep in touch: heartbeats, and how long a silence or an outage lasts
    # before it counts (lobby/nodes/directory.py; tests: shorter).
    node_times: NodeTimes = NodeTimes()
    # The abuse limits' counts across nodes (net/redis_counts.py); None: this node's own.
    shared_counts: SharedCounts | None = None
    # Quick play's widening, bot offer and seek rate (lobby/services/quick_play.py).
    quick_play: QuickPlayConfig = QuickPlayConfig()


@dataclasses.dataclass(frozen=True)
class StoreOwners:
    """The lobby's stores of matches, chat and analyses (Owners' `stores`)."""
    match_store: MatchStore
    chat_records: ChatRecords
    analyses: AnalysisRecords | None


@dataclasses.dataclass(frozen=True)
class PlayOwners:
    """The owners of the matches' wing (Owners' `play`)."""
    match_table: MatchTable
    matches: Matches
    seats: Seats
    arranging: Arranging  # what arranging a match uses (lobby/play/arranged_matches.py)
    code_guesses: CodeGuesses
    quick_play: QuickPlay
    tutor: Tutor


@dataclasses.dataclass(frozen=True)
class LobbyDoings:
    """The lobby's own doings a command asks for, one callable each (Owners' `doings`)."""
    now: Callable[[], datetime.datetime]
    log_out: Callable[[Session, Departure], Awaitable[None]]
    motd: Callable[[], tuple[str, ...]]
    set_motd: Callable[[str, str], Awaitable[None]]
    tell_whose_page_is_away: Callable[[Session, RunningMatch | None], None]
    resume_waiting: Callable[[str], Awaitable[None]]


@dataclasses.dataclass(frozen=True)
class Owners:
    """What the lobby makes, that the command tables are made from (`Lobby`'s `tables`):
    each command module's factory is given the few of these it uses
    (fibs_server/command_tables.py). The wiring's record, read only where the parts are wired
    together (there, and the app, which makes the services and its figures from it), grouped
    by wing: the stores (`stores`), the matches' owners (`play`) and the lobby's own doings a
    command asks for (`doings`), the rest at the top (the tournaments' `Hall` reads three of
    them)."""
    config: LobbyConfig
    accounts: AccountsWithVisitors
    gatekeeper: Gatekeeper
    dispatcher: Dispatcher
    attendance: Attendance
    chat_state: ChatState
    sessions: SessionOwners  # what every session is given
    countdown: ShutdownCountdown
    # lower-case name of a built-in bot -> its measured error rate and gnubg's words
    bot_strengths: dict[str, tuple[float, float, str]]
    started_at: datetime.datetime
    stores: StoreOwners
    play: PlayOwners
    doings: LobbyDoings


async def _arrange_nothing(given: Arranging, invitation: Invitation) -> None:
    """A lobby given no way to start a pair's match (a test's) starts none."""


async def _nothing(given: Arranging, name: str) -> None:
    """A lobby without its arrangements resumes nothing by itself."""


async def _never_paired(name: str, since: int) -> bool:
    """A lobby without tournaments pairs nobody."""
    return False


class Lobby:
    def __init__(self, accounts: AccountStore, matches: MatchStore, hasher: PasswordHasher,
                 config: LobbyConfig, tables: Callable[[Owners], Iterable[CommandTable]], *,
                 chat_records: ChatRecords,
                 match_clocks: Callable[[Matches], MatchTimers] = lambda matches: untimed,
                 match_finished: Callable[[int], None] = lambda match_id: None,
                 analyses: AnalysisRecords | None = None,
                 arranged: Callable[[Arranging, ArrangedLetter], None] = lambda given, letter: None,
                 arrange: Callable[[Arranging, Invitation], Coroutine[Any, Any, object]] = _arrange_nothing,
                 resume_waiting: Callable[[Arranging, str], Coroutine[Any, Any, None]] = _nothing,
                 paired_after: Callable[[str, int], Awaitable[bool]] = _never_paired,
                 bus: Callable[[Deliver], Bus] = LocalBus,
                 tutor_judge: Judge | None = None,
                 match_chances: MatchChances = no_chances,
                 bots_here: Callable[[], bool] = lambda: False,
                 ) -> None:
        self.accounts = AccountsWithVisitors(accounts)
        # Visitors never log in with a password: the gatekeeper sees the stored accounts only.
        self.gatekeeper = Gatekeeper(accounts, hasher, config.abuse_limits, config.clock.time,
                                     config.shared_counts)
        self.held = HeldSessions(config.clock, config.reconnect_seconds,
                                 self.gatekeeper.session_tokens)
        self.match_store = matches
        self.chat_records = chat_records
        self.config = config
        self.heavy_reads = HeavyReadLimits(config.abuse_limits)
        # Who is online, here and on the other nodes, and the ways to tell them things;
        # made with what delivers the letters the bus brings here (`bus`: this node's own,
        # or one between nodes, net/redis_bus.py).
        # Each user's gags, blinds, `waitfor`s, mute and shouts (lobby/presence/chat_state.py).
        self.chat_state = ChatState()
        self.attendance = Attendance(config, bus(self.deliver), self.accounts,
                                     WhoPacing(config.abuse_limits.who_broadcast_burst,
                                               config.abuse_limits.who_broadcasts_per_second),
                                     lambda: self.seats, self.log_out, self.chat_state)
        # Every command as declared where it is registered (command_table.py), and what runs
        # a typed line; the tables are added once the owners they are made from are made.
        self.dispatcher = Dispatcher(self.gatekeeper.reserve, self.attendance.users.is_visitor,
                                     self.heavy_reads, lambda: self.seats)
        # lower-case name -> the lock its logins take turns on (gone when nobody holds it)
        self._login_locks: weakref.WeakValueDictionary[str, asyncio.Lock] = \
            weakref.WeakValueDictionary()
        self.started_at = self.now()  # for `stat`
        self.match_table = MatchTable(changed=self._who_changed,
                                      withdrawn=self._invitation_withdrawn, tell=self.attendance.messenger.tell,
                                      watching_changed=lambda session: self.seats.watching_changed(session))
        # What every session is given: the owners it reads and the lobby's doings it asks for.
        self.session_owners = SessionOwners(
            match_table=self.match_table, gatekeeper=self.gatekeeper,
            time=lambda: self.config.clock.time(), now=self.now,
            disconnected=self.disconnected, dispatch=self.dispatcher.dispatch,
            log_in=self.log_in, resume=self.resume, new_visitor=self.new_visitor,
            release_visitor=self.release_visitor)
        # Players at matches across nodes (lobby/play/seats.py); the owners made before them
        # (Attendance, Dispatcher, MatchTable) ask for them when used.
        self.seats = Seats(self.attendance, self.dispatcher, self.match_table, self.accounts,
                           self.session_owners, config, self.playing_elsewhere)
        self.code_guesses = CodeGuesses(config.abuse_limits.wrong_table_codes_per_account,
                                        config.abuse_limits.wrong_table_codes_per_address,
                                        config.clock.time)
        # Every running match's life (lobby/play/match_play.py); `match_clocks` makes the clock
        # of each (a lobby without them plays every match untimed).
        # `match_chances`: the engine's winning chances an abandoned rated match is settled by
        # (BotPool.chances; `no_chances` without an engine).
        self.matches = Matches(self.match_table, matches, self.attendance.users,
                               self.attendance.messenger, config, clocks=match_clocks,
                               finished=match_finished, freed=self._players_freed,
                               chances=match_chances)
        # Whether a tournament's round begun after a time pairs the user in a pairing not
        # decided yet (`TournamentRecords.paired_after`): their older saved matches wait.
        # What the arrangements below are given (lobby/play/arranged_matches.py).
        self.arranging = Arranging(self.attendance, self.match_table, self.matches, matches,
                                   self.seats, config, paired_after)
        # What carries out a match arranged by another node (`arranged_matches.receive`,
        # given by the app: it starts matches with `arranging`).
        self._arranged = arranged
        # Quick play's seeks, every node's, and their pairing while this node holds its lease;
        # a pair's match is started by `arrange` (`arranged_matches.arrange`, given by the
        # app: it starts matches through this lobby; without it, pairs start nothing); the bot
        # is offered where `bot` plays one now (`bots_here`, given by the app: the bots are
        # online on this node).
        self.quick_play = QuickPlay(
            self.attendance, self.match_table.busy, config.clock, config.node_id,
            config.quick_play, arrange=lambda invitation: arrange(self.arranging, invitation),
            bots_offered=bots_here)
        # What resumes a user's saved timed match that waits for both, when a match of theirs
        # ended (`arranged_matches.resume_waiting_matches`, given by the app).
        self._resume_waiting = resume_waiting
        # The stored match analyses (`history` marks the analysed matches).
        self.analyses = analyses
        # The players' tutors, judging in the bots' worker (`tutor_judge`: BotPool.judge;
        # None: no tutor, the server has no engine).
        self.tutor = Tutor(tutor_judge, KeyedRateLimit(
            config.abuse_limits.tutor_burst, config.abuse_limits.tutor_per_second,
            config.clock.time))
        # lower-case name of a built-in bot -> its measured error rate and gnubg's words
        # (`whois`), set by the bots as they log in.
        self.bot_strengths: dict[str, tuple[float, float, str]] = {}
        self.closing = False  # shut_down has begun
        # What `app.serve` waits for besides the signals, and an administrator's `shutdown`,
        # which sets it at its end.
        self.stop_requested = asyncio.Event()
        self.countdown = ShutdownCountdown(config.shutdown_minute, self.attendance.messenger.announce,
                                           self.stop_requested)
        # The message of the day: the configured one until an administrator sets one.
        self.motd = config.motd
        # What the command tables are made from, and the tables (`tables`: the app's
        # `command_tables.lobby_tables`, or a test's few).
        self.owners = Owners(
            config=config, accounts=self.accounts, gatekeeper=self.gatekeeper,
            dispatcher=self.dispatcher, attendance=self.attendance, chat_state=self.chat_state,
            sessions=self.session_owners, countdown=self.countdown,
            bot_strengths=self.bot_strengths, started_at=self.started_at,
            stores=StoreOwners(matches, chat_records, analyses),
            play=PlayOwners(self.match_table, self.matches, self.seats, self.arranging,
                            self.code_guesses, self.quick_play, self.tutor),
            doings=LobbyDoings(self.now, self.log_out, lambda: self.motd, self.set_motd,
                               self.tell_whose_page_is_away,
                               lambda name: resume_waiting(self.arranging, name)))
        for table in tables(self.owners):
            self.dispatcher.add_commands(table)

    def _players_freed(self, names: tuple[str, str]) -> None:
        """A match of theirs ended: a saved timed match of either that waits for both resumes
        now if its other player is online and free (`resume_waiting`)."""
        if self.closing:
            return
        for name in names:
            self.attendance.start_job(self._resume_waiting(self.arranging, name))

    async def restore_motd(self) -> None:
        """At start: the message of the day an administrator set, if any."""
        stored = await self.chat_records.stored_motd()
        if stored is not None:
            self.motd = stored

    async def set_motd(self, text: str, by: str) -> None:
        """An administrator's message of the day, from now on and after a restart."""
        self.motd = (text,)
        await self.chat_records.set_motd(self.motd, by)

    @staticmethod
    def now() -> datetime.datetime:
        return datetime.datetime.now(datetime.timezone.utc)

    # --- connections -------------------------------------------------------------------------

    def connect(self, connection: Connection, transport_client: Client = TELNET) -> Session:
        """A new connection's session; `transport_client`: see LoginDialogue."""
        session = Session(self.session_owners, connection, transport_client)
        self.attendance.users.connections.add(session)
        session.incoming.start()
        return session

    async def disconnected(self, session: Session) -> None:
        """The peer went away (or the connection was closed by us). A web page's session
        waits for its page a while (`held`), then comes here again."""
        if not self.closing and self.attendance.users.is_online(session) and self.held.hold(
                session, self.disconnected):
            self._tell_connection(session, connected=False)
            return
        self.attendance.users.connections.discard(session)
        if self.attendance.users.is_online(session):
            await self.log_out(session, Departure.DROPPED)
        session.close()

    async def time_out_idle(self) -> None:
        limit = self.config.clock.time() - self.config.idle_timeout
        for session in [s for s in self.attendance.users.connections if s.who.last_active < limit]:
            session.out.line(texts.CONNECTION_TIMED_OUT)
            self.attendance.users.connections.discard(session)
            if self.attendance.users.is_online(session):
                await self.log_out(session, Departure.TIMED_OUT)
            session.close()

    async def run_idle_timeouts(self) -> None:
        clock = self.config.clock
        period = max(0.05, min(60.0, self.config.idle_timeout / 4))
        while True:
            due = asyncio.Event()
            clock.call_at(clock.time() + period, due.set)
            await due.wait()
            await self.time_out_idle()

    # --- accounts ----------------------------------------------------------------------------

    async def new_visitor(self, host: str) -> Account | str:
        """The account of a visitor from `host` who plays a bot without registering
        (`guest_qhzmt`: no registered name starts with `guest_`), until `release_visitor`;
        or the refusal to send when there are visitors enough, from `host` or in all, or no
        free name turned up in VISITOR_NAME_DRAWS draws (with the cap on visitors far below
        the 26^5 names, a draw is almost never taken: the bound only rules out a spin)."""
        for _ in range(VISITOR_NAME_DRAWS):
            refusal = self._visitor_refusal(host)
            if refusal is not None:
                return refusal
            name = texts.VISITOR_PREFIX + "".join(secrets.choice(string.ascii_lowercase)
                                                  for _ in range(texts.VISITOR_LETTERS))
            # The store has no such name unless registered before the prefix was reserved.
            if (await self.accounts.find_account(name) is None
                    # Others may have come in meanwhile, with this name even.
                    and name not in self.accounts.visitors and self._visitor_refusal(host) is None):
                account = Account(name=name, password_hash=b"", created_at=int(time.time()))
                self.accounts.add_visitor(account, host)
                return account
        return texts.NO_VISITOR_NAME_FREE

    def _visitor_refusal(self, host: str) -> str | None:
        limits = self.config.abuse_limits
        if len(self.accounts.visitors) >= limits.max_visitors:
            return texts.TOO_MANY_VISITORS
        if self.accounts.visitors_from(host) >= limits.visitors_per_address:
            return texts.TOO_MANY_VISITORS_FROM_ADDRESS
        return None

    def release_visitor(self, account: Account) -> None:
        """A visitor's name is free again: logged out, or never let in."""
        self.accounts.remove_visitor(account)

    def _login_lock(self, name: str) -> asyncio.Lock:
        # One login of a name at a time: a second one waits until the first has finished
        # (its stored messages shown), then takes its place.
        return self._login_locks.setdefault(name.lower(), asyncio.Lock())

    async def log_in(self, session: Session, account: Account) -> None:
        async with self._login_lock(account.name):
            await self._log_in(session, account)

    async def resume(self, session: Session, token: str) -> bool:
        """A web page presents its session token: it takes its user's session over (held, or
        still connected: a page may notice a lost network before the server does) as a new
        login of the user does. False, and the page told so, for a wrong or expired token."""
        tokens = self.gatekeeper.session_tokens
        name = await self.gatekeeper.session_token_owner(
            token, session.connection.host, hung_up=lambda: session.stage is Stage.CLOSED)
        if name is not None:
            async with self._login_lock(name):
                previous = self.attendance.users.online.get(name)
                # Another login may have taken the session over while this one waited.
                if previous is not None and previous.account is not None \
                        and tokens.name_for(token) == name:
                    await self._log_in(session, previous.account)
                    return session.stage is Stage.ONLINE
        session.out.event(web_events.session(None))
        return False

    async def _log_in(self, session: Session, account: Account) -> None:
        if session.out.clip:
            # The CLIP login line was not echoed: what follows must not share a line
            # with `login: `.
            session.connection.send("\r\n")
        for check in self.dispatcher.login_checks:
            refusal = await check(session, account)
            if refusal is not None:
                session.out.line(refusal)
                session.close()
                return
        previous = self.attendance.users.online.get(account.name.lower())
        came_back = previous is not None and self.held.is_held(previous)  # its page was away
        if previous is not None:
            session.out.line(texts.ALREADY_LOGGED_IN)
            previous.out.line(texts.logged_in_again(session.connection.host))
            self.attendance.users.connections.discard(previous)
            self.attendance.went_offline(account.name)
            self.match_table.invitations.withdraw(account.name)
            self.match_table.take_over(previous, session)
            # a match on another node
            session.place.seated_elsewhere = previous.place.seated_elsewhere
            self.held.release(previous)
            self.gatekeeper.session_tokens.revoke(account.name)  # the new login's only
            previous.close()
        elif (seat := self.seats.seat_of(account.name)) is not None:
            # They played here from another node (gone, or about to hear of this login and
            # let them go): the match is this session's now, as in a re-login here.
            self.match_table.take_over(seat, session)
            self.seats.release(seat)
        last_login, last_host = account.last_login_at, account.last_login_host
        now = int(time.time())
        account.last_login_at, account.last_login_host = now, session.connection.host
        account.toggles.update(PER_GAME_TOGGLES)
        session.account = account  # a match taken over may tell the session things already
        await self.accounts.update_account(account.name, last_login_at=now,
                                           last_login_host=session.connection.host)
        # From here to the welcome, no await: once online, the user gets others' notices and
        # who-lines, and a CLIP client must see its welcome (`1`) before any of them.
        session.who.login_time, session.stage = now, Stage.ONLINE
        playing_elsewhere = self.attendance.users.directory.get(account.name) if previous is None else None
        who_line = session.who.line()
        self.chat_state.forget(account.name)  # a login's chat starts afresh, as its session
        self.attendance.came_online(session, account.name, who_line)
        if session.out.clip:
            self._send_clip_welcome(session, last_login or now, last_host or session.connection.host)
            if session.out.wants_events:
                session.out.event(web_events.logged_in(
                    account.name, self.attendance.users.is_visitor(session), account.rating,
                    account.experience))
                session.out.event_lines(self.attendance.users.who_list.presence_text())
                # To come back with after a reload or a lost network (lobby/presence/reconnect.py).
                session.out.event(web_events.session(
                    self.gatekeeper.session_tokens.issue(account.name)))
        else:
            session.out.line(texts.authenticated(account.name))
            if last_login:
                session.out.line(texts.last_login(
                    datetime.datetime.fromtimestamp(last_login, datetime.timezone.utc),
                    last_host, account.settings["timezone"]))
            session.out.lines(self.motd)
            if session.out.prompts:
                session.out.prompt()
        arrival = texts.logs_in(account.name) if previous is None else None
        if playing_elsewhere is not None and playing_elsewhere.info.opponent is not None:
            # Before the presence that logs them out there: their match is theirs from here.
            self.seats.take_over_elsewhere(session, playing_elsewhere)
        self.attendance.messenger.tell_node(self.attendance.presence_of(session, arrival))
        await self.attendance.messenger.tell_everyone_else(
            account.name, arrival, clip.LOGIN, who_block=wire_text(clip.who_block([who_line])),
            event=web_events.presence(session.who.info()))
        if came_back:
            self._tell_connection(session, connected=True)
        # Read once they are online: a message sent them from now on is delivered, not kept.
        session.kept = await self.accounts.kept_for_login(account.name)
        for hook in self.dispatcher.login_hooks:
            await hook(session)
        self.tell_whose_page_is_away(session, self.match_table.match_of(session))

    def tell_whose_page_is_away(self, viewer: Session, running: RunningMatch | None) -> None:
        """`viewer`, just shown `running` (a player back in it after a login hook showed it,
        or a new watcher after its board): whose page in it is away now, held here (told to
        the others when it went away, before `viewer` saw the match)."""
        for player in running.sessions if running is not None else ():
            if player is not None and player is not viewer and self.held.is_held(player):
                viewer.out.event(web_events.player_connection(player.name, False))

    def _tell_connection(self, session: Session, connected: bool) -> None:
        """The pages of `session`'s opponent and of the watchers of their match: its page lost
        its connection (held for it to come back), or came back."""
        running = self.match_table.match_of(session)
        opponent = self.match_table.opponent_name_of(session)
        if opponent is None:
            return
        players = [] if running is None else [player for player in running.sessions if player]
        watchers = [watcher.name for player in players
                    for watcher in self.match_table.watchers.of(player)]
        self.attendance.messenger.tell([opponent, *watchers], notice(
            [], web_events.player_connection(session.name, connected)))

    def _send_clip_welcome(self, session: Session, last_login: int, last_host: str) -> None:
        account = session.account
        assert account is not None
        session.out.lines([
            clip.welcome(account.name, last_login, last_host),
            self.own_info(session),
            *clip.motd_block(self.motd),
            "",
        ])
        session.connection.send_wire(self.attendance.users.who_list.wire())
        session.connection.send(wire_text(clip.who_block([])))

    @staticmethod
    def own_info(session: Session) -> str:
        account = session.account
        assert account is not None
        return clip.own_info(account.name, account.toggles,
                             away=session.prefs.away_message is not None,
                             experience=account.experience, rating=account.rating,
                             redoubles=account.settings["redoubles"],
                             timezone=account.settings["timezone"])

    async def log_out(self, session: Session, departure: Departure) -> None:
        name = session.name
        if self.attendance.users.online.get(name.lower()) is not session:
            return
        # Before any await: a second logout of the same session (a drop during shutdown)
        # must find it gone.
        self.attendance.went_offline(name)
        self.seats.forget_user(name)
        self.chat_state.forget(name)
        self.gatekeeper.session_tokens.revoke(name)
        self.held.release(session)
        table = self.match_table
        table.invitations.withdraw(name)
        table.open_tables.close(name)  # its creator left before anyone sat
        told: set[Session] = set()  # who heard of the logout already, in other words
        for hook in self.dispatcher.logout_hooks:  # the running match is parted (Matches.part)
            told.update(await hook(session, departure))
        table.watchers.stop_watching(session)
        for watcher in table.watchers.of(session):
            table.watchers.set_watching(watcher, None)
            self.attendance.messenger.tell([watcher.name], notice([game_texts.no_longer_watching(name)],
                                                       web_events.watch_ended(name)))
            told.add(watcher)
        assert session.account is not None
        session.account.last_logout_at = int(time.time())
        if not self.closing:
            departed = texts.departed(name, departure)
            self.attendance.messenger.tell_node(self.attendance.absence_of(name, departed))
            await self.attendance.messenger.tell_everyone_else(name, departed, clip.LOGOUT, told=told,
                                                     event=web_events.gone(name))
        try:
            await self.accounts.update_account(name,
                                               last_logout_at=session.account.last_logout_at)
        except Exception:
            # The user is gone all the same; only the time of the logout is not kept.
            log.exception("storing %s's logout failed", name)
        self.release_visitor(session.account)

    # --- stopping ------------------------------------------------------------------------------

    async def shut_down(self) -> None:
        """The server stops: every running match stays stored as saved (each accepted action
        is already stored), its players and watchers are told so, everyone else is told the
        server is going down, and every connection is closed."""
        told: set[Session] = set()
        for hook in self.dispatcher.shutdown_hooks:  # running matches are parted (Matches.part)
            told.update(await hook())
        for session in self.attendance.users.sessions_online():
            if session not in told:
                session.out.line(server_texts.SHUTTING_DOWN)
        # Everyone goes at once: no one is told of the others' logouts (at 10,000 online that
        # was 10,000 notices each, and the logouts' store updates share commits). The other
        # nodes are told in one letter: nobody is here any more.
        self.closing = True
        self.attendance.leave_all()
        await asyncio.gather(*(self.disconnected(session) for session in list(self.attendance.users.connections)))

    # --- broadcasts --------------------------------------------------------------------------

    def deliver(self, names: Collection[str] | None, letter: Letter) -> None:
        """What the bus brings: the seats', arranged matches' and seeks' letters to their owners,
        everything else to who is online (`Attendance.deliver`)."""
        if isinstance(letter, SeatLetter):
            if letter.to_node == self.config.node_id and letter.node != self.config.node_id:
                self.attendance.heard_from(letter.node)
                self.seats.receive(letter)
            return
        if isinstance(letter, ArrangedLetter):
            if letter.to_node == self.config.node_id and letter.node != self.config.node_id:
                self._arranged(self.arranging, letter)
            return
        if isinstance(letter, SeekLetter):
            self.quick_play.receive(letter)
            return
        self.attendance.deliver(names, letter)

    def _invitation_withdrawn(self, invitation: Invitation) -> None:
        invitee = self.attendance.users.online.get(invitation.invitee.lower())
        # Gagging silenced the invitation itself (game_commands): its end too.
        if invitee is not None \
                and invitation.inviter.lower() not in self.chat_state.gags(invitee.name):
            invitee.out.event(web_events.invitation_withdrawn(invitation.inviter))

    def playing_elsewhere(self, session: Session) -> None:
        """`session`'s match started on another node: as for a match here, they seek no
        other."""
        self.quick_play.playing(session)

    def _who_changed(self, session: Session) -> None:
        if isinstance(session, SeatSession):
            self.seats.changed(session)  # its home tells its who-line
            return
        if self.match_table.match_of(session) is not None:
            self.seats.leave_watch(session)  # a player watches no one, here or elsewhere
            self.quick_play.playing(session)  # nor seeks another match
        if session.is_bot:
            # A bot plays each match through a session of its own: the one in `who` (if
            # here) tells whom it plays now, still ready for more.
            resident = self.attendance.users.online.get(session.name.lower())
            if resident is not None:
                self.attendance.broadcast_who(resident)
        elif session.stage is Stage.ONLINE:
            self.attendance.broadcast_who(session)

    # --- commands ----------------------------------------------------------------------------

    async def dispatch(self, session: Session, line: str) -> None:
        """A line a user typed (`Dispatcher.dispatch`)."""
        await self.dispatcher.dispatch(session, line)
