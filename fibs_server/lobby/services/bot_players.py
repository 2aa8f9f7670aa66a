"""The built-in bots: accounts the server plays itself, one per level.

Each bot is online like a user (a resident session in `who`, ready, rated) and takes every
invitation it is offered: each match gets a session of its own (`Session.is_bot`), whose
connection hears what the server tells it and then looks at the match to see whether the
bot must act. Its decision is computed off the event loop (`bots.BotPool`) and applied
through `Matches.act` like any player's command, with FIBS's texts for everyone else.
"""
from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import re
import secrets
import time
import weakref
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING

from fibs_server.bots import LEVELS, BotPool, Decision, Level, Situation, situation_for
from fibs_server.bots.analysis import performance_rating, rating_words
from fibs_server.bots.brain import MEASURED_ERROR_RATES
from fibs_server.lobby.metrics import BOT_DECISION_SECONDS
from fibs_server.lobby.play import match_play
from fibs_server.lobby.play.running_match import Invitation, RunningMatch
from fibs_server.lobby.ports.accounts import Account
from fibs_server.lobby.presence.session import Session, SessionOwners, Stage
from fibs_server.protocol import texts
from fibs_server.protocol.login_dialogue import BOT_CLIENT
from fibs_server.protocol.texts import Departure
from fibs_server.rules import events as ev
from fibs_server.rules.match import Match

if TYPE_CHECKING:  # types only: the lobby's owners, given in the constructor
    from fibs_server.lobby.limits.passwords import PasswordHasher
    from fibs_server.lobby.limits.throttle import AbuseLimits
    from fibs_server.lobby.play.match_play import Matches
    from fibs_server.lobby.play.match_table import MatchTable
    from fibs_server.lobby.ports.accounts import AccountStore
    from fibs_server.lobby.presence.attendance import Attendance

log = logging.getLogger(__name__)

BOT_HOST = "localhost"
INVITED = re.compile(r"Type 'join (\S+)' to accept\.")


@dataclasses.dataclass
class BotConfig:
    names: dict[str, str] = dataclasses.field(
        default_factory=lambda: {level: f"bot_{level}" for level in LEVELS})  # level -> name
    think_time: float = 1.0  # seconds before each decision, so that a person can follow
    time_budget: float = 2.0  # seconds a decision may take before the fallback is played
    workers: int | None = None  # decision processes (default: one per core but one)
    cpu_share: float = 1.0  # the most of a core each decision process may use (BotPool)


class BotConnection:
    """What the server sends a bot's session: every reply and notice makes the bot look."""

    host = BOT_HOST

    def __init__(self, heard: Callable[[str], None]) -> None:
        self._heard = heard

    def send(self, text: str, broadcast: bool = False) -> None:
        if not broadcast:  # who-lines, shouts and login notices are nothing to act on
            self._heard(text)

    def send_wire(self, data: bytes, broadcast: bool = False) -> None:
        if not broadcast:
            self._heard(data.decode("ascii"))

    def set_echo(self, server_echoes: bool) -> None:
        pass

    def close(self) -> None:
        pass


class BotRoster:
    """Who the built-in bots are, one a level, and which are online here: their accounts,
    their resident sessions in `who` (`residents`, logged in and out with the `bots` lease),
    the level a player names, and a session of its own for each match a bot plays."""

    def __init__(self, accounts: AccountStore, hasher: PasswordHasher, sessions: SessionOwners,
                 log_out: Callable[[Session, Departure], Awaitable[None]],
                 strengths: dict[str, tuple[float, float, str]], config: BotConfig,
                 heard_by_resident: Callable[[Session, str], None],
                 heard_by_player: Callable[[Session, str], None]) -> None:
        self._accounts = accounts
        self._hasher = hasher  # a bot's account's password, which nobody knows
        self._sessions = sessions  # what each bot session is given, and the lobby's login
        self._log_out = log_out
        # lower-case name of a built-in bot -> its measured error rate and gnubg's words
        # (the lobby's, for `whois`), set as the bots log in
        self._strengths = strengths
        self.config = config
        # What a resident session hears (an invitation), and what a match's session hears.
        self._heard_by_resident = heard_by_resident
        self._heard_by_player = heard_by_player
        self.residents: dict[str, Session] = {}  # level -> the bot's session in `who`
        # Every bot session -> its level; a match's session goes with its match.
        self._levels: weakref.WeakKeyDictionary[Session, Level] = weakref.WeakKeyDictionary()

    async def log_in(self) -> None:
        """Create the bots' accounts if need be (with a password nobody knows) and log in
        those not online here."""
        for level_name, name in self.config.names.items():
            if level_name in self.residents:
                continue
            account = await self._accounts.find_account(name)
            if account is None:
                secret = await self._hasher.hash(secrets.token_urlsafe(24))
                account = Account(name=name, password_hash=secret,
                                  created_at=int(time.time()), last_login_host=BOT_HOST)
                await self._accounts.create_account(account)
            account.toggles.update(ready=True, double=True)
            # A bot's connection reads no board (any text only makes it look at the match):
            # the one-line board is the cheapest to draw for it.
            account.settings["boardstyle"] = "3"
            session = self._new_session(account, LEVELS[level_name], self._heard_by_resident)
            await self._sessions.log_in(session, account)
            self.residents[level_name] = session
            rate = MEASURED_ERROR_RATES.get(level_name)
            if rate is not None:
                self._strengths[name.lower()] = (rate, performance_rating(rate),
                                                          rating_words(rate))

    async def log_out(self) -> None:
        """The bots leave `who` here (another node takes them over); the matches they play
        here go on to their end."""
        while self.residents:
            _, session = self.residents.popitem()
            await self._log_out(session, Departure.LOGGED_OUT)

    def level_named(self, typed: str) -> str | None:
        """The level a player typed (a unique prefix, or the bot's name), or None."""
        for level, name in self.config.names.items():
            if typed.lower() == name.lower():
                return level
        matches = [level for level in self.config.names if level.startswith(typed.lower())]
        return matches[0] if len(matches) == 1 else None

    def player_for(self, resident: Session) -> Session:
        """A session of its own for one more match of the bot."""
        assert resident.account is not None
        session = self._new_session(resident.account, self._levels[resident], None)
        session.stage, session.who.login_time = Stage.ONLINE, resident.who.login_time
        return session

    def _new_session(self, account: Account, level: Level,
                     heard: Callable[[Session, str], None] | None) -> Session:
        session: Session
        connection = BotConnection(lambda text: (heard or self._heard_by_player)(session, text))
        session = Session(self._sessions, connection)
        session.account, session.is_bot, session.out.prompts = account, True, False
        session.out.clip, session.out.client_name = True, BOT_CLIENT
        self._levels[session] = level
        return session

    def level_of(self, session: Session) -> Level:
        return self._levels[session]


class BotPlayers:
    """The built-in bots at play: the matches they take (`match_slot`, `play_each_other`),
    their decisions (`decide`, through the `pool`), and their facet `roster`, who they are
    and which of them are online here."""

    def __init__(self, people: Attendance, table: MatchTable, matches: Matches,
                 accounts: AccountStore, hasher: PasswordHasher, sessions: SessionOwners,
                 log_out: Callable[[Session, Departure], Awaitable[None]],
                 strengths: dict[str, tuple[float, float, str]], limits: AbuseLimits,
                 config: BotConfig, pool: BotPool,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._people = people
        self._table = table
        self._matches = matches
        self._sessions = sessions  # what each bot session is given, and the lobby's dispatch
        self._limits = limits
        self.config = config
        self.pool = pool
        self.clock = clock  # what decisions are timed on (BOT_DECISION_SECONDS)
        self.roster = BotRoster(accounts, hasher, sessions, log_out, strengths, config,
                                self._heard_by_resident, self._heard_by_player)
        self._acting: dict[Session, asyncio.Task] = {}  # a bot session deciding now
        self.refusals: list[Decision] = []  # what the server refused a bot: a bug, and logged
        self._tasks: set[asyncio.Task] = set()
        self._starting: set[Session] = set()  # people whose bot match is being set up

    # --- how many play ---------------------------------------------------------------------------

    @contextlib.contextmanager
    def match_slot(self, player: Session) -> Iterator[str | None]:
        """For as long as the block sets up `player`'s match against a bot, it counts
        against the caps (AbuseLimits `bot_matches_per_address`, `max_bot_matches`): yields
        None, or the refusal to send if the caps are reached (then nothing is counted). A
        running match counts until it ends, however it started (`bot`, `invite`, resumed)."""
        limits = self._limits
        players = self._players()
        host = player.connection.host
        if len(players) >= limits.max_bot_matches:
            yield texts.TOO_MANY_BOT_MATCHES
        elif sum(p.connection.host == host for p in players) >= limits.bot_matches_per_address:
            yield texts.TOO_MANY_BOT_MATCHES_FROM_ADDRESS
        else:
            self._starting.add(player)
            try:
                yield None
            finally:
                self._starting.discard(player)

    def _players(self) -> set[Session]:
        """The people in a match against a bot, or about to be."""
        return self._starting | {session for running in self._table.bot_matches.values()
                                 for session in running.players() if not session.is_bot}

    async def start(self, log_in: bool = True) -> None:
        """Start the pool's workers (they load their networks meanwhile) and, with `log_in`,
        log the bots in (across nodes, the holder of the `bots` lease does: `log_in`)."""
        self._start_task(self.pool.start())
        if log_in:
            await self.roster.log_in()

    # --- invitations -------------------------------------------------------------------------

    def _heard_by_resident(self, resident: Session, text: str) -> None:
        invited = INVITED.search(text)
        if invited is not None:
            self._start_task(self._accept(resident, invited.group(1)))

    async def _accept(self, resident: Session, inviter: str) -> None:
        await asyncio.sleep(self.config.think_time)
        inviting = self._people.users.online.get(inviter.lower())
        if inviting is None:  # gone meanwhile
            return
        with self.match_slot(inviting) as refusal:
            if refusal is not None:
                invitation = self._table.invitations.invitation_from(inviter)
                if invitation is not None and invitation.invitee.lower() == resident.name.lower():
                    self._table.invitations.withdraw(inviter)
                inviting.out.line(refusal)
                return
            await self._sessions.dispatch(self.roster.player_for(resident), f"join {inviter}")

    async def play_each_other(self, invitation: Invitation) -> RunningMatch | None:
        """A match the server arranged between two of the bots (a tournament's pairing),
        started or resumed at once: each side a session of its own, deciding through the
        pool like any bot match, so within the bots' CPU share. None if either bot is not
        online here."""
        roster = self.roster
        residents = {session.name.lower(): session for session in roster.residents.values()}
        first = residents.get(invitation.inviter.lower())
        second = residents.get(invitation.invitee.lower())
        if first is None or second is None:
            return None
        inviter, joiner = roster.player_for(first), roster.player_for(second)
        await self._matches.play_invitation(invitation, inviter, joiner)
        return self._table.match_of(inviter)

    # --- playing -------------------------------------------------------------------------------

    def _heard_by_player(self, session: Session, text: str) -> None:
        if session not in self._acting:
            self._acting[session] = self._start_task(self._play(session))

    async def _play(self, session: Session) -> None:
        """Act for as long as the bot has something to decide in its match."""
        try:
            while True:
                situation = self._situation(session)
                if situation is None:
                    return
                await asyncio.sleep(self.config.think_time)
                situation = self._situation(session)
                if situation is None:
                    return
                decision = await self.decide(situation, self.roster.level_of(session))
                taken = await self._matches.act(session,
                                                     _unless_stale(decision, situation))
                # Not taken because the match ended meanwhile is no refusal.
                if not taken and self._table.match_of(session) is not None:
                    self.refusals.append(decision)
                    log.error("%s's decision was refused: %s", session.name, decision)
        finally:
            del self._acting[session]

    async def decide(self, situation: Situation, level: Level) -> Decision:
        """The pool's decision, timed for /metrics. Here, not in the pool: the metrics are the
        lobby's, and the bots' layer is below it. On the loop's thread, so no lock."""
        asked = self.clock()
        decision = await self.pool.decide(situation, level)
        BOT_DECISION_SECONDS.observe(self.clock() - asked)
        return decision

    def _situation(self, session: Session) -> Situation | None:
        running = self._table.match_of(session)
        if running is None:
            return None
        return situation_for(running.match, running.index_of(session))

    def _start_task(self, work) -> asyncio.Task:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        return task

    def _finished(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a bot failed", exc_info=task.exception())

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.pool.close()


def _unless_stale(decision: Decision, situation: Situation) -> match_play.Action:
    """The decision as an action that does nothing if the match has moved on meanwhile (the
    opponent undid a move, left...): a decision is for the situation it was made in."""
    def act(match: Match, player: int) -> list[ev.Event] | None:
        if situation_for(match, player) != situation:
            return None
        return decision.apply(match, player)
    return act
