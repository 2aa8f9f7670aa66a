"""The one path of every change to a running match: apply → follow-ups → store → tell.

An action runs under the match's lock, on the match its player still plays once the lock is
held: it is applied to the engine (and may change the server's own facts of the match, such
as a turn timer's expiries), the server adds what it does by itself (rolls for a player who
cannot or will not double, forced and greedy moves), the new state is written to the store,
and only then is anyone told, so that nothing acknowledged can be lost. An action never
tells anyone itself: it returns what happened (`Change`). If storing fails, everything the
store would have written goes back to the snapshot taken before the action
(`Keeping.snapshot`), nobody is told of it, and the clock times the decision again.
If it failed because another node has claimed the match since (StaleMatchOwner: its players
resumed it there), the match then stops running here: its players are told it goes on
elsewhere.

Match starts, resumes, timer expiries and takeovers, bot decisions, `undo`, `leave`, logouts,
shutdowns, grace-period and abandonment forfeits take this path; `part` is the one way a
running match stops running while it stays saved.
"""
from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Iterable, Sequence
from typing import Any, Protocol, TypeAlias

from fibs_server.bots.chances import SETTLEMENT_PLIES
from fibs_server.lobby.clock import Clock
from fibs_server.lobby.nodes.bus import Letter, notice
from fibs_server.lobby.play.match_table import MatchTable
from fibs_server.lobby.play.running_match import (
    Invitation,
    MatchTimer,
    RunningMatch,
    Snapshot,
    automatic_play,
    clocked_state,
    new_match,
)
from fibs_server.lobby.ports.accounts import PER_GAME_TOGGLES, Account
from fibs_server.lobby.ports.match_records import (
    MatchDice,
    MatchRecord,
    MatchStore,
    RatingUpdate,
    StaleMatchOwner,
)
from fibs_server.lobby.presence.session import Session, Stay
from fibs_server.protocol import info, texts
from fibs_server.protocol.match_rules import MatchTerms
from fibs_server.protocol.refusals import refusal_text
from fibs_server.protocol.views import match_views, web_events
from fibs_server.protocol.views.board import render_board
from fibs_server.protocol.views.match_views import ROLL_OR_DOUBLE, WATCHERS, Say, Script, ShowBoard
from fibs_server.protocol.wording import (
    clock_texts,
    fair_texts,
    game_texts,
    match_texts,
    server_texts,
)
from fibs_server.protocol.wording.clock_texts import ClockReading
from fibs_server.rules import events as ev
from fibs_server.rules.board.notation import format_play
from fibs_server.rules.clocks.time_bank import TimeBank
from fibs_server.rules.dice import (
    Dice,
    SecureDice,
    VerifiableDice,
    salts_from_lists,
    salts_to_lists,
)
from fibs_server.rules.dice_stats import RollTally
from fibs_server.rules.match import IllegalAction, Match, Moment, Phase
from fibs_server.rules.ratings import PlayerRating, RatingCalculation, rate_match, rate_settled

log = logging.getLogger(__name__)

STORE_RETRY_SECONDS = 2.0  # after a refused store, how often the match's state is offered again


@dataclasses.dataclass
class Change:
    """What an action did: the engine's events, and lines the server says first (the turn
    timer's "time is up"), told with the events once they are stored."""
    events: list[ev.Event]
    first: list[Say] = dataclasses.field(default_factory=list)


# An action on (match, player): what it did, or None if it did nothing at all. It may change
# the running match's own facts (its snapshot covers them), but tells nobody anything.
Action = Callable[[Match, int], "list[ev.Event] | Change | None"]
# An action's events, each with the moment right after it (None: no board for it), and the
# lines for one player the server sends in between.
ToldItem: TypeAlias = "tuple[ev.Event, Moment | None] | Say"
Told = list[ToldItem]


def told(match: Match, events: list[ev.Event]) -> Told:
    """The events of the match's last action, each with the moment right after it."""
    return list(zip(events, match.moments, strict=True))


def follow_ups(running: RunningMatch, events: Told) -> Told:
    """`events` of an action, followed by what the server does by itself: roll for a player
    who cannot or will not double, play forced or greedy moves; plus the prompts FIBS sends
    in between."""
    match = running.match
    items = list(events)
    if any(isinstance(item, tuple) and isinstance(item[0], ev.GameStarted) for item in events):
        # Every new game, the first of a match too: per-game toggles set before it lapse
        # (FIBS; MatchDog keeps `double` off between matches and answers every roll prompt).
        for player in running.players():
            assert player.account is not None
            player.account.toggles.update(PER_GAME_TOGGLES)
    while not match.is_over and match.resignation is None:
        session = running.sessions[match.turn]
        if session is None:
            break
        if match.phase is Phase.ROLL_OR_DOUBLE:
            if not session.prefs.toggle("double"):
                items += told(match, match.roll(match.turn))
                continue
            items.append(match_views.say(match.turn, ROLL_OR_DOUBLE))
        elif match.phase is Phase.MOVE:
            last = items[-1] if items else None
            rolled_now = (last if isinstance(last, tuple) and isinstance(last[0], ev.Rolled)
                          and last[0].player == match.turn else None)
            automatic = automatic_play(match, session)
            if automatic is not None:
                if rolled_now is not None:
                    # A board is a question to a bot: no `moreboards` board asks for a move
                    # the server makes itself at once.
                    items[-1] = (rolled_now[0], None)
                reason, play = automatic
                text = format_play(play, match.colour(match.turn))
                # The mover is told what the server played for them (the opponent gets the
                # usual `<name> moves ... .`).
                played_for_them = (match_texts.only_possible_move(text) if reason == "only"
                                   else match_texts.bearing_off(text))
                items.append(match_views.say(match.turn, played_for_them))
                items += told(match, match.move(match.turn, play))
                continue
            if rolled_now is not None:
                items.append(match_views.say(match.turn,
                                             match_views.please_move(match.pieces_to_move)))
        break
    return items


# --- tell ------------------------------------------------------------------------------------------

def clock_reading(running: RunningMatch) -> ClockReading | None:
    return running.timer.reading() if running.timer is not None else None


def send_fibs_board(session: Session, running: RunningMatch, moment: Moment, index: int,
                    as_you: bool, style: int | None = None) -> None:
    view = match_views.board_view(running.match, running.names, moment, index, as_you)
    reading = clock_reading(running)
    clock = None if reading is None else clock_texts.clock_line(reading, running.names)
    session.out.lines(render_board(view, style or int(session.prefs.setting("boardstyle")), clock))


def board_to(session: Session, running: RunningMatch, moment: Moment, index: int, as_you: bool,
             style: int | None = None) -> None:
    """The board of `moment` as player `index` sees it, in `style` or the session's
    `boardstyle`; and as a typed message to a page that asked for them."""
    send_fibs_board(session, running, moment, index, as_you, style)
    if session.out.wants_events:
        session.out.event(web_events.board(running.match, running.names, moment, index, as_you,
                                           web_events.legal_plays(moment),
                                           clock_reading(running)))


def remind(running: RunningMatch, players: Iterable[int]) -> None:
    """Tell those of `players` who must act on a match just loaded or taken over what is
    expected of them."""
    for index, text in match_views.reminders(running.match, running.names):
        session = running.sessions[index]
        if session is not None and index in players:
            session.out.line(text)


def tell_match_started(running: RunningMatch, resumed: bool,
                       players: Iterable[int] = (0, 1)) -> None:
    """`players`' pages: the match they play now, before its first board."""
    dice = running.match.dice_source
    verifiable = dice if isinstance(dice, VerifiableDice) else None
    for index in players:
        session = running.sessions[index]
        if session is not None and session.out.wants_events:
            session.out.event(web_events.match_started(
                running.opponent_name(index), running.match.length, resumed,
                rated=running.keeping.unrated is None, terms=running.terms,
                commitment=None if verifiable is None else verifiable.commitment,
                salted=verifiable is not None and verifiable.salts[index] is not None))


def dice_record(dice: Dice, state: dict, tally: RollTally) -> MatchDice:
    """The match's dice as stored with its `state`, its rolls counted by `tally`."""
    if not isinstance(dice, VerifiableDice):
        return MatchDice(None, dice.drawn, tally.of(state["history"]))
    return MatchDice(dice.seed.hex(), dice.drawn, tally.of(state["history"]),
                     salts_to_lists(dice.salts))


def show_taken_over_match(running: RunningMatch, session: Session) -> None:
    """The match a new login took over: its board, and what the player must do."""
    index = running.index_of(session)
    tell_match_started(running, resumed=True, players=(index,))
    prompt(running, index)


def prompt(running: RunningMatch, index: int) -> None:
    """Player `index` is shown the board as it stands, and asked what is due from them."""
    session = running.sessions[index]
    if session is None:
        return
    match = running.match
    board_to(session, running, match.moment(), index, as_you=True)
    if match.phase is Phase.ROLL_OR_DOUBLE and match.turn == index \
            and match.resignation is None:
        session.out.line(ROLL_OR_DOUBLE)
    remind(running, (index,))


def players_to_act(running: RunningMatch) -> set[int]:
    """The players a decision is due from: the one on turn, or each still to join the next
    game."""
    match = running.match
    due = {index for index, _ in match_views.reminders(match, running.names)}
    if match.phase is Phase.ROLL_OR_DOUBLE and match.resignation is None:
        due.add(match.turn)
    return due


class People(Protocol):
    """What the match's life needs of who is online (lobby/presence/users.py's `Users`,
    Attendance's `users`)."""
    online: dict[str, Session]  # lower-case name -> session

    def is_online(self, session: Session) -> bool: ...

    def stay_of(self, name: str) -> Stay | None: ...

    def is_visitor(self, session: Session) -> bool: ...

    async def user_named(self, name: str, complete: bool = False
                         ) -> tuple[Session | None, Account | None]: ...


class Tidings(Protocol):
    """What the match's life tells users (lobby/presence/messenger.py's `Messenger`,
    Attendance's `messenger`)."""

    def tell(self, names: Collection[str], letter: Letter) -> None: ...

    def report(self, text: str, exclude: Iterable[str] = ()) -> None: ...


class MatchSettings(Protocol):
    """The server's settings of every match (lobby.LobbyConfig's, where they are explained;
    read when used: a test changes them on a running lobby)."""
    @property
    def new_dice(self) -> Callable[[], Dice]: ...

    @property
    def choose_first_x(self) -> Callable[[], int]: ...

    @property
    def takeover_seconds(self) -> int | None: ...

    @property
    def wall_clock(self) -> Callable[[], float]: ...

    @property
    def abandon_after(self) -> float: ...

    @property
    def forfeit_abandoned(self) -> bool: ...

    @property
    def settle_by_chances(self) -> bool: ...

    @property
    def clock(self) -> Clock: ...


# Player 0's chance of winning the match stored as this state, had it been played on (None: the
# engine has none for it); raises when it has no answer now (`BotPool.chances`).
MatchChances = Callable[[dict[str, Any]], Awaitable[float | None]]


async def no_chances(state: dict[str, Any]) -> float | None:
    """No engine: no match has chances to be settled by."""
    return None


# The clock of a new or resumed match, None if untimed (lobby/play/turn_clock.py's).
MatchTimers = Callable[[RunningMatch], "MatchTimer | None"]


def untimed(running: RunningMatch) -> MatchTimer | None:
    """No clock: every match is played untimed."""
    return None


class Matches:
    """Every running match's life, the one owner of the match table and the match store: a
    match starts, resumes, takes actions (apply → follow-ups → store → tell), and parts or
    finishes here. Its collaborators come in its constructor: `people` (who is online),
    `tidings` (what users are told, the reports to everyone included), `clocks` (makes the clock of each match, given this owner),
    `finished` (told the id of each stored match that finished: the analysis queue; the
    store queued the match already, in the transaction that finished it), `freed` (told
    the names of the players of each match that finished: a saved timed match of theirs may
    resume now) and `chances` (the engine's winning chances of a stored match, which an
    abandoned rated match is settled by). The stored matches not running here are its facet
    `saved` (SavedMatches)."""

    def __init__(self, table: MatchTable, store: MatchStore, people: People, tidings: Tidings,
                 settings: MatchSettings, *,
                 clocks: Callable[[Matches], MatchTimers] = lambda matches: untimed,
                 finished: Callable[[int], None] = lambda match_id: None,
                 freed: Callable[[tuple[str, str]], None] = lambda names: None,
                 chances: MatchChances = no_chances) -> None:
        self.table = table
        self.store = store
        self.people = people
        self.tidings = tidings
        self.settings = settings
        self.finished = finished
        self.freed = freed
        self.chances = chances
        self.timer_for = clocks(self)
        self.saved = SavedMatches(self)
        # The matches whose last action the store refused, until it takes their state again
        # (`prompt_once_stored`), and the tries at it under way.
        self.unstored: set[RunningMatch] = set()
        self._tries: set[asyncio.Task] = set()

    @contextlib.asynccontextmanager
    async def playing(self, session: Session) -> AsyncIterator[RunningMatch | None]:
        """The session's running match, its lock held; None if it plays none, or if the match
        stopped running (left, ended) while the lock was being waited for."""
        running = self.table.match_of(session)
        if running is None:
            yield None
            return
        async with running.keeping.lock:
            yield running if self.table.match_of(session) is running else None

    async def act(self, session: Session, action: Action, *, by_server: bool = False
                  ) -> bool:
        """A player's action on their running match (`by_server`: one the server takes for them:
        they are not told of a refusal or of a failed store). False if it was refused (the
        player is told why), True otherwise."""
        async with self.playing(session) as running:
            if running is None:
                if not by_server:
                    session.out.line(game_texts.NOT_PLAYING)
                return False
            player = running.index_of(session)
            before = running.keeping.snapshot()
            try:
                result = action(running.match, player)
            except IllegalAction as refused:
                # an action that failed halfway leaves nothing behind
                running.keeping.restore(before)
                if running.timer is not None:
                    running.timer.changed()
                if not by_server:
                    session.out.line(refusal_text(refused, running.opponent_name(player)))
                return False
            if result is None:
                return True
            change = result if isinstance(result, Change) else Change(result)
            # Against a bot, where the player may take this back: the dice drawn so far too.
            if running.undo_points is not None and not session.is_bot:
                running.undo_points.append((before.state, before.drawn))
            await self.settle(running, [*change.first, *told(running.match, change.events)],
                              None if by_server else session, before)
            return True

    async def settle(self, running: RunningMatch, events: Told, actor: Session | None,
                     before: Snapshot, told_if_undone: Sequence[ToldItem] = (), *,
                     abandoned: bool = False
                     ) -> bool:
        """After `events`: the server's follow-ups, then store, then tell. If storing fails, the
        match goes back to `before` (its stored state, in which `told_if_undone` happened) and
        `actor` (None: nobody) is told to try again. `abandoned`: a forfeit of a match its
        leaver abandoned. Returns whether it was stored."""
        told_now = follow_ups(running, events)
        stored, rating = await self.commit(running, before, actor, abandoned=abandoned)
        if not stored:
            told_now = list(told_if_undone)
        self.tell(running, match_views.narration(running.match, running.names, told_now, rating))
        self.post(running, lambda sides: web_events.narration(
            running.match, running.names, told_now, rating, clock_reading(running), sides,
            running.match_id if running.keeping.stored else None))
        if running.match.is_over:
            self.finish(running)
        return stored

    async def commit(self, running: RunningMatch, before: Snapshot, actor: Session | None,
                     *, ended: bool = False, abandoned: bool = False
                     ) -> tuple[bool, RatingCalculation | None]:
        """Store the match as it is now (see `store`); if that fails, put back all of `before`
        and tell `actor` (None: nobody) to try again. Then the clock times what is due, a
        countdown that fired included. Returns (stored, the rating calculation of a match that
        ended rated here)."""
        if running.timer is not None:
            running.timer.charge()  # stored with the match; undone with it if the store fails
        try:
            rating = await self.store_state(running, ended, abandoned)
            stored = True
            self.unstored.discard(running)
        except Exception as error:
            elsewhere = isinstance(error, StaleMatchOwner)
            if elsewhere:
                log.warning("match %s is another node's now; the action is undone and the match "
                            "stops here: %s", running.match_id, error)
            else:
                log.exception("storing match %s failed; the action is undone", running.match_id)
            running.keeping.restore(before)
            if actor is not None:
                actor.out.line(texts.NOT_STORED)
            if elsewhere:
                await self.owned_elsewhere(running)  # no clock: it runs here no more
                return False, None
            self.prompt_once_stored(running)
            stored, rating = False, None
        if running.timer is not None:
            running.timer.changed()  # before the boards are drawn: they show the clock
        return stored, rating

    def prompt_once_stored(self, running: RunningMatch) -> None:
        """The store refused the match's last action (undone, and its actor told to try
        again): every STORE_RETRY_SECONDS its state as it stands is stored again, and once the
        store takes it, the players a decision is due from are asked for it again (the board
        and the prompt), so that a client that waits rather than resends goes on. Unless a
        later action of the match was stored meanwhile (its players were told of it)."""
        if running in self.unstored:
            return
        self.unstored.add(running)
        self._try_storing_later(running)

    def _try_storing_later(self, running: RunningMatch) -> None:
        clock = self.settings.clock

        def start() -> None:
            task = asyncio.ensure_future(self._try_storing(running))
            self._tries.add(task)
            task.add_done_callback(self._tries.discard)
        clock.call_at(clock.time() + STORE_RETRY_SECONDS, start)

    async def _try_storing(self, running: RunningMatch) -> None:
        async with running.keeping.lock:
            if running not in self.unstored:
                return  # an action was stored meanwhile
            if running not in self.table.running_matches():
                self.unstored.discard(running)
                return
            try:
                await self.store_state(running)
            except StaleMatchOwner:
                self.unstored.discard(running)
                await self.owned_elsewhere(running)
                return
            except Exception:
                log.warning("match %s: the store still refuses its state; trying again in %g s",
                            running.match_id, STORE_RETRY_SECONDS)
                self._try_storing_later(running)
                return
            self.unstored.discard(running)
            for index in sorted(players_to_act(running)):
                prompt(running, index)

    async def quiet(self) -> None:
        """Until every try at storing a refused match's state that has begun is done (what a
        test waits for after moving a fake clock on)."""
        while self._tries:
            await asyncio.gather(*self._tries, return_exceptions=True)

    async def owned_elsewhere(self, running: RunningMatch) -> None:
        """Another node claimed the match (its players resumed it there): it stops running here,
        its clock with it, as it was last stored by this node; its players here are told that it
        goes on elsewhere."""
        self.table.forget(running)
        for index, session in enumerate(running.sessions):
            if session is not None:
                session.out.line(texts.match_goes_on_elsewhere(running.opponent_name(index)))
        await self.saved.send_to(running.players())

    # --- store ------------------------------------------------------------------------------------

    async def store_state(self, running: RunningMatch, ended: bool = False,
                          abandoned: bool = False) -> RatingCalculation | None:
        """Write the match's state. A finished match goes with its rating changes in the same
        transaction, and the rating calculation is returned; `ended`: an unlimited match that
        ends unrated (`leave` between games); `abandoned`: one forfeited by the player who left
        it (docs/FAIRNESS.md)."""
        match = running.match
        if not running.keeping.stored:
            return None
        state = match.to_dict()
        if running.keeping.unrated is not None:
            state["unrated"] = running.keeping.unrated
        state.update(running.keeping.clock_state())
        dice = dice_record(match.dice_source, state, running.keeping.roll_tally)
        epoch = running.keeping.owner_epoch
        if ended:
            await self.store.finish_match(running.match_id, state, None, [], dice, epoch=epoch)
            return None
        if not match.is_over:
            await self.store.save_match_state(running.match_id, state, dice, epoch=epoch)
            return None
        winner = match.winner
        assert winner is not None
        if running.keeping.unrated is not None:
            await self.store.finish_match(running.match_id, state, running.names[winner], [],
                                          dice, abandoned, epoch=epoch)
            return None
        found = [(await self.people.user_named(name))[1] for name in running.names]
        accounts = [account for account in found if account is not None]
        assert match.length is not None and len(accounts) == 2
        calculation = rate_match(PlayerRating(accounts[winner].rating, accounts[winner].experience),
                                 PlayerRating(accounts[1 - winner].rating,
                                              accounts[1 - winner].experience), match.length)
        updates = [RatingUpdate(running.names[winner], calculation.winner_after.rating,
                                calculation.winner_after.experience),
                   RatingUpdate(running.names[1 - winner], calculation.loser_after.rating,
                                calculation.loser_after.experience)]
        # The archive keeps each player's rating before and after (`history`).
        before = {a.name: a.rating for a in accounts}
        state["ratings"] = {u.name: [before[u.name], u.rating] for u in updates}
        await self.store.finish_match(running.match_id, state, running.names[winner], updates,
                                      dice, abandoned, epoch=epoch)
        for account, update in zip((accounts[winner], accounts[1 - winner]), updates):
            account.rating, account.experience = update.rating, update.experience
        return calculation

    # --- tell -------------------------------------------------------------------------------------

    def recipients(self, running: RunningMatch, to: int | None, watching: int | None
                   ) -> list[tuple[Session, int]]:
        """(session, the player whose side it sees) for player `to`, or for the watchers
        (WATCHERS) of player `watching` (None: of either)."""
        if to is WATCHERS:
            return [(watcher, index) for index, player in enumerate(running.sessions)
                    if player is not None and watching in (None, index)
                    for watcher in self.table.watchers.of(player)]
        player = running.sessions[to]
        return [(player, to)] if player is not None else []

    def tell(self, running: RunningMatch, script: Script) -> None:
        """Route each line and board of `script` to its recipients, by their toggles."""
        for item in script:
            watched = item.watching if isinstance(item, Say) else None  # boards: either
            for session, index in self.recipients(running, item.to, watched):
                if item.only_with is not None and not session.prefs.toggle(item.only_with):
                    continue
                if isinstance(item, ShowBoard):
                    send_fibs_board(session, running, item.moment, index,
                                    as_you=item.to is not WATCHERS)
                elif item.unless is None or not session.prefs.toggle(item.unless):
                    session.out.lines(item.lines)

    def post(self, running: RunningMatch,
             posts: Callable[[Sequence[web_events.Side]], list[web_events.Post]]) -> None:
        """Route the typed messages `posts(sides)` makes to the sessions that asked for them;
        made only for the viewer sides where someone did (a board costs a legal-play
        generation)."""
        sides = [(to, viewer) for to, viewer in web_events.ALL_SIDES
                 if any(session.out.wants_events
                        for session, _ in self.recipients(running, to, viewer))]
        if not sides:
            return
        for item in posts(sides):
            for session, _ in self.recipients(running, item.to, item.watching):
                session.out.event(item.message)

    def finish(self, running: RunningMatch) -> None:
        """The match runs no more; a finished match is reported to everyone who wants reports."""
        match = running.match
        self.table.forget(running)
        if running.keeping.stored:
            self.finished(running.match_id)
        self.freed(running.names)
        winner = match.winner
        if winner is not None and match.length is not None:
            self.tidings.report(match_texts.match_report_line(
                running.names[winner], running.names[1 - winner], match.length,
                match.score[winner], match.score[1 - winner]), exclude=running.names)

    # --- starting, resuming, leaving --------------------------------------------------------------

    def left_meanwhile(self, inviter: Session, joiner: Session) -> bool:
        """Whether a player went away while their match was being set up: then it stays stored
        as saved, as if they had dropped right after the start, and the other one is told so."""
        for player, other in ((inviter, joiner), (joiner, inviter)):
            if not self.people.is_online(player):
                other.out.line(texts.game_saved_after(player.name, texts.Departure.DROPPED))
                return True
        return False

    async def play_invitation(self, invitation: Invitation, inviter: Session,
                              joiner: Session) -> None:
        """`inviter`'s invitation accepted (`join`, or `sit` at a table): its match starts, or
        resumes."""
        # Both are taken from here on (before the first await): a second `join` at the same
        # moment must not put either of them in a second match. A bot plays any number.
        people = [s.name for s in (inviter, joiner) if not s.is_bot]
        with self.table.starting(people) as claimed:
            if not claimed:
                joiner.out.line(game_texts.already_playing(inviter.name))
            elif invitation.resume:
                await self.resume_match(inviter, joiner)
            else:
                await self.start_match(
                    inviter, joiner, invitation.length, terms=invitation.terms,
                    unrated=None if invitation.terms.rated else "asked",
                    keep_saved=invitation.arranged)

    async def start_match(self, inviter: Session, joiner: Session,
                          length: int | None, unrated: str | None = None,
                          terms: MatchTerms = MatchTerms(), keep_saved: bool = False) -> None:
        """A new match played by `terms`; `unrated`: why it is not rated (a visitor's is not
        stored either). `keep_saved`: a match the server arranged (a tournament's pairing),
        which never replaces the pair's saved match nor waits for it: that one stays saved
        beside it, to be resumed after it."""
        stored = unrated != "visitor"
        if stored and not keep_saved and await self.saved_match_in_the_way(inviter, joiner):
            return
        match = new_match(length, self.settings.new_dice(), inviter, joiner,
                          self.settings.choose_first_x(), terms.rules, terms.crawford)
        events = told(match, match.start())
        state = match.to_dict()
        # Replaces the pair's saved match, if any (both agreed: `saved_match_in_the_way`).
        match_id = (await self.store.create_match(inviter.name, joiner.name, length, state,
                                                  dice_record(match.dice_source, state,
                                                              RollTally()),
                                                  replace=not keep_saved)
                    if stored else 0)
        if self.left_meanwhile(inviter, joiner):
            return
        running = RunningMatch(match_id, match, (inviter.name, joiner.name), (inviter, joiner))
        running.keeping.unrated, running.keeping.stored = unrated, stored
        running.timing.turn_seconds = terms.turn_seconds
        if terms.bank is not None and length is not None:  # (refused for unlimited matches)
            running.timing.bank = TimeBank.start(terms.bank, length)
        # The server's `--takeover-seconds` for every match whose invitation names none.
        running.timing.takeover_seconds = terms.takeover_seconds or self.settings.takeover_seconds
        running.timer = self.timer_for(running)
        running.allow_undo()
        joiner.out.line(game_texts.you_are_now_playing(inviter.name, length))
        inviter.out.line(game_texts.has_joined_you(joiner.name, length))
        if isinstance(match.dice_source, VerifiableDice):
            # Before anyone sees a die: the dice of the opening roll are drawn, not told yet.
            for session in (joiner, inviter):
                if session.out.sees_extensions:  # the others: `fairdice` during the match
                    session.out.line(fair_texts.commitment_line(match.dice_source.commitment))
        self.tidings.report(game_texts.match_starts(inviter.name, joiner.name, length),
                            exclude=(inviter.name, joiner.name))
        self.table.begin(running)
        tell_match_started(running, resumed=False)
        async with running.keeping.lock:
            # The start itself is stored already: told even if the follow-ups cannot be.
            await self.settle(running, events, inviter, running.keeping.snapshot(),
                              told_if_undone=events)
        if stored:  # it replaced the pair's saved match, if they had one
            await self.saved.send_to(running.players())

    async def saved_match_in_the_way(self, inviter: Session, joiner: Session) -> bool:
        """Whether the pair has a saved match that a new one must not replace: one against a bot
        (which would agree to anything, so a player could escape a lost match), or a timed one
        that somebody left (its grace period decides it). Such a match is resumed first; the
        players are told so. A joined invitation between two people replaces their saved match,
        as on FIBS: the invitation warned them."""
        record = await self.store.running_match(inviter.name, joiner.name)
        if record is None:
            return False
        left_timed = (record.left_by is not None and record.length is not None
                      and clocked_state(record.state))
        if not (inviter.is_bot or joiner.is_bot or left_timed):
            return False
        for session, other in ((inviter, joiner), (joiner, inviter)):
            if not session.is_bot:
                session.out.line(game_texts.saved_match_first(other.name))
        return True

    async def resume_match(self, inviter: Session, joiner: Session) -> None:
        record = await self.store.running_match(inviter.name, joiner.name)
        if record is None:
            joiner.out.line(game_texts.no_saved_match(inviter.name))
            return
        if self.left_meanwhile(inviter, joiner):
            return
        try:
            epoch, claimed = await self.claim(record.match_id)
            if claimed is not None:
                await self.store.mark_left(record.match_id, None, epoch=epoch)  # both are back
        except Exception:
            log.exception("storing the resume of match %s failed", record.match_id)
            joiner.out.line(texts.NOT_STORED)
            return
        if claimed is None:  # finished elsewhere meanwhile
            joiner.out.line(game_texts.no_saved_match(inviter.name))
            return
        sessions = {inviter.name.lower(): inviter, joiner.name.lower(): joiner}
        running = RunningMatch.from_record(claimed, self.resumed_dice(claimed),
                                           (sessions[claimed.player_a.lower()],
                                            sessions[claimed.player_b.lower()]), epoch)
        running.timer = self.timer_for(running)
        joiner.out.line(game_texts.match_loaded_for_joiner(inviter.name))
        inviter.out.line(game_texts.match_loaded_for_inviter(joiner.name))
        self.tidings.report(game_texts.match_resumes(inviter.name, joiner.name,
                                                     running.match.length),
                            exclude=(inviter.name, joiner.name))
        self.table.begin(running)
        tell_match_started(running, resumed=True)
        if running.timer is not None:
            running.timer.changed()  # the boards below show the clock
        moment = running.match.moment()
        for index, session in enumerate(running.players()):  # both: index is the player's
            session.out.lines(match_views.resume_header(running.match, running.names))
            board_to(session, running, moment, index, as_you=True)
        async with running.keeping.lock:
            await self.settle(running, [], inviter, running.keeping.snapshot())
            remind(running, (0, 1))
        await self.saved.send_to(running.players())

    async def claim(self, match_id: int) -> tuple[int, MatchRecord | None]:
        """This node owns the stored match from now on: the owner epoch it holds, and the match
        as stored after the claim (None: it is not running any more, finished elsewhere)."""
        try:
            epoch = await self.store.claim_match(match_id)
        except LookupError:
            return 0, None
        record = await self.store.match_by_id(match_id)
        return epoch, None if record is None or record.finished else record

    def resumed_dice(self, record: MatchRecord) -> Dice:
        """A saved match's dice go on where they were: the same seed, past the pairs drawn. A
        match stored without a seed (before dice were verifiable, or by a test) gets new dice, but
        never a seed: its earlier rolls were not drawn from one."""
        if record.dice is not None and record.dice.seed is not None:
            return VerifiableDice(bytes.fromhex(record.dice.seed), record.dice.drawn,
                                  salts_from_lists(record.dice.salts))
        dice = self.settings.new_dice()
        return SecureDice() if isinstance(dice, VerifiableDice) else dice

    async def undo(self, session: Session) -> None:
        """Against a bot: take back the player's last decision and the bot's turns after it. The
        dice are rewound too, so the same dice come again. The match is unrated from then on."""
        async with self.playing(session) as running:
            if running is None:
                session.out.line(game_texts.NOT_PLAYING)
                return
            if running.undo_points is None:
                session.out.line(texts.UNDO_ONLY_AGAINST_BOTS)
                return
            if not running.undo_points:
                session.out.line(texts.NOTHING_TO_UNDO)
                return
            before = running.keeping.snapshot()
            running.rewind(running.undo_points.pop())
            running.keeping.unrated = running.keeping.unrated or "undo"
            stored, _ = await self.commit(running, before, session)
            if not stored:
                return
            index = running.index_of(session)
            session.out.line(texts.UNDONE)
            board_to(session, running, running.match.moment(), index, as_you=True)
            if running.match.phase is Phase.ROLL_OR_DOUBLE and running.match.turn == index:
                session.out.line(ROLL_OR_DOUBLE)
            remind(running, (index,))

    # --- parting: the match stops running here and stays saved ------------------------------------

    async def part(self, running: RunningMatch, leaver: int | None, script: Script) -> None:
        """With the match's lock held: the match stops running and stays saved as stored. Who
        left (`leaver`; None: the server stops) is stored first; then `script` is told, with
        what the clock says of the grace period of a timed match, and the match is forgotten."""
        if leaver is not None and running.keeping.stored:
            try:
                await self.store.mark_left(running.match_id, running.names[leaver],
                                           epoch=running.keeping.owner_epoch)
            except StaleMatchOwner:
                pass  # another node runs it now, and marks who leaves it there
            except Exception:
                # The match itself is stored as it stands: saved all the same, and timed by its
                # grace period; only the mark of who left it (abandonment counts) is missing.
                log.exception("storing that %s left match %s failed", running.names[leaver],
                              running.match_id)
        posts: list[web_events.Post] = []
        if leaver is not None and running.timer is not None:
            grace, countdown = running.timer.left(leaver)
            script = [*script, *grace]
            if countdown is not None:
                # Both pages (the leaver's if still online) and the watchers' show who must
                # come back by when.
                posts = [web_events.Post(to, countdown, watching) for to, watching in
                         ((0, None), (1, None), (WATCHERS, 1 - leaver))
                         if to is WATCHERS or (player := running.sessions[to]) is not None
                         and self.people.is_online(player)]
        self.tell(running, script)
        self.post(running, lambda sides: posts)
        self.table.forget(running)
        if running.keeping.stored and leaver is not None:  # (a server that stops tells no one)
            await self.saved.send_to(running.players())

    def told_of_parting(self, running: RunningMatch, players: Iterable[int]) -> list[Session]:
        """`players`' sessions and the watchers of both players: who hears of a parting."""
        told = [s for index, s in enumerate(running.sessions) if s is not None and index in players]
        for session in running.players():
            told += self.table.watchers.of(session)
        return told

    async def leave(self, session: Session) -> None:
        async with self.playing(session) as running:
            if running is None:
                session.out.line(game_texts.NO_ONE_TO_LEAVE)
                return
            player = running.index_of(session)
            match = running.match
            if match.length is None and match.phase is Phase.BETWEEN_GAMES:
                # Unlimited matches are never won: leaving between games ends them, unrated.
                stored, _ = await self.commit(running, running.keeping.snapshot(), session,
                                              ended=True)
                if not stored:
                    return
                self.tell(running, [
                    match_views.say(player, game_texts.YOU_ENDED_THE_UNLIMITED_MATCH),
                    match_views.say(1 - player,
                                    game_texts.ended_the_unlimited_match(session.name))])
                self.finish(running)
                return
            await self.part(running, player, [
                match_views.say(player, game_texts.YOU_LEFT_THE_GAME),
                match_views.say(1 - player, game_texts.left_the_game(session.name)),
                match_views.say(WATCHERS, game_texts.left_the_game_with(
                    session.name, running.opponent_name(player)))])

    async def log_out(self, session: Session, departure: texts.Departure) -> list[Session]:
        """A player logged out or dropped: their match is saved; the opponent and the watchers
        are told (and returned: they know of the logout already)."""
        async with self.playing(session) as running:
            if running is None:
                return []
            player = running.index_of(session)
            told = self.told_of_parting(running, (1 - player,))
            saved = texts.game_saved_after(session.name, departure)
            await self.part(running, player,
                            [match_views.say(1 - player, saved), match_views.say(WATCHERS, saved)])
            return told

    async def shut_down(self) -> list[Session]:
        """The server stops: every running match stays saved as stored (each accepted action is
        stored already); its players and watchers are told so (and returned)."""
        told: list[Session] = []
        for running in self.table.running_matches():
            async with running.keeping.lock:
                if not any(self.table.match_of(s) is running for s in running.players()):
                    continue  # it ended or was parted while the lock was being waited for
                told += self.told_of_parting(running, (0, 1))
                line = server_texts.SHUTTING_DOWN_GAME_SAVED
                await self.part(running, None, [match_views.say(0, line),
                                                match_views.say(1, line),
                                                match_views.say(WATCHERS, line)])
        return told


class SavedMatches:
    """The stored matches not running here, a facet of `Matches`: which a user has saved
    (`of`, `send_to` their pages), whether the match between two
    is live here (`is_live`, `live_match_id`), one lost from its stored state
    (`forfeit_saved`), the abandoned ones closed (`close_abandoned`) and one whose grace
    period ended that waits for both (`waits_for_both`)."""

    def __init__(self, matches: Matches) -> None:
        self.matches = matches

    async def of(self, session: Session) -> list[info.SavedMatch]:
        """The user's saved matches (stored, unfinished, not being played now), from their side."""
        rows = []
        for record in await self.matches.store.running_matches(session.name):
            if self.is_live(record.player_a, record.player_b):
                continue
            mine = 0 if record.player_a.lower() == session.name.lower() else 1
            opponent = (record.player_a, record.player_b)[1 - mine]
            score = record.state["score"]
            online = self.matches.people.online.get(opponent.lower())
            rows.append(info.SavedMatch(opponent, online is not None,
                                        online is not None and online.prefs.toggle("ready"),
                                        record.length, score[mine], score[1 - mine]))
        return rows

    def is_live(self, name_a: str, name_b: str) -> bool:
        """Whether the stored match between the two is being played right now (not saved)."""
        return self.live_match_id(name_a, name_b) is not None

    def live_match_id(self, name_a: str, name_b: str) -> int | None:
        """The id of the match the two are playing right now here, if they are."""
        player = self.matches.people.online.get(name_a.lower())
        pair = {name_a.lower(), name_b.lower()}
        if player is not None and player.is_bot:
            # A bot's session in `who` plays nothing: each of its matches has its own.
            return next((running.match_id for running in self.matches.table.bot_matches.values()
                         if {name.lower() for name in running.names} == pair), None)
        running = self.matches.table.match_of(player) if player else None
        if running is None or name_b.lower() not in (n.lower() for n in running.names):
            return None
        return running.match_id

    async def send_to(self, sessions: Iterable[Session]) -> None:
        """Their saved matches now, to those of `sessions` online whose page asked for messages."""
        for session in sessions:
            people = self.matches.people
            if (session.out.wants_events and people.is_online(session)
                    and not people.is_visitor(session)):
                session.out.event(web_events.saved_matches(await self.of(session)))

    async def forfeit_saved(self, match_id: int, names: tuple[str, str], leaver: int,
                            first: list[Say] | None, *, abandoned: bool = False) -> bool | None:
        """The saved match `match_id` between `names` is lost by `leaver`, from its stored
        state, scored, rated and reported like any won match. `first`: what its players who are
        online are told before the forfeit (None: nobody is told; it was abandoned long ago).
        Returns True if it was forfeited, False if it is no longer saved (finished, resumed or
        replaced), None if that cannot be done now: a match of its players is being set up, or
        the store failed (try again later)."""
        matches = self.matches
        online = [matches.people.online.get(name.lower()) for name in names]
        with matches.table.starting(self._people_of(names)) as claimed:
            if not claimed:
                return None
            record = await matches.store.match_by_id(match_id)  # (a pairing's may be newer)
            if (record is None or record.finished or any(
                    running.match_id == match_id for running in matches.table.running_matches())):
                return False
            try:
                epoch, owned = await matches.claim(match_id)
            except Exception:
                log.exception("claiming match %s to forfeit it failed", match_id)
                return None
            if owned is None:
                return False
            sessions = (online[0], online[1]) if first is not None else (None, None)
            running = RunningMatch.from_record(owned, matches.resumed_dice(owned), sessions, epoch)
            async with running.keeping.lock:
                before = running.keeping.snapshot()
                events = told(running.match, running.match.forfeit(leaver))
                stored = await matches.settle(running, [*(first or []), *events], None, before,
                                              abandoned=abandoned)
        if stored:
            await self.send_to([session for session in online if session is not None])
        return True if stored else None

    async def close_abandoned(self) -> int:
        """Close the saved matches nobody has played for `LobbyConfig.abandon_after` seconds: the
        player who left them has abandoned them. With `LobbyConfig.forfeit_abandoned` the one who
        stayed wins a match of some length, rated; with `settle_by_chances` too, a rated match
        the engine has chances for is settled by them (`settle_abandoned`). Returns how many
        were closed."""
        settings, store = self.matches.settings, self.matches.store
        before = int(settings.wall_clock() - settings.abandon_after)
        playing = {running.match_id for running in self.matches.table.running_matches()}
        closed = 0
        for record in await store.idle_matches(before):
            if record.match_id in playing:
                continue
            names = (record.player_a, record.player_b)
            if settings.forfeit_abandoned and record.left_by in names and record.length:
                leaver = names.index(record.left_by)
                if settings.settle_by_chances and record.state.get("unrated") is None:
                    try:
                        chance = await self.matches.chances(record.state)
                    except Exception as error:
                        log.warning("no winning chances for abandoned match %s (%s); asking "
                                    "again at the next sweep", record.match_id, error)
                        continue
                    if chance is not None:
                        closed += await self.settle_abandoned(record, leaver, chance) is True
                        continue
                # Nobody plays it now to be told of it.
                closed += await self.forfeit_saved(
                    record.match_id, names, leaver, None, abandoned=True) is True
            else:
                try:  # only if no node has claimed it since it was read
                    await store.finish_match(record.match_id, record.state, None, [],
                                             abandoned=True, epoch=record.owner_epoch)
                except StaleMatchOwner:
                    continue  # resumed meanwhile, on another node
                closed += 1
        return closed

    async def settle_abandoned(self, record: MatchRecord, leaver: int, chance: float
                               ) -> bool | None:
        """The abandoned rated match `record` settled where it stands by its players' winning
        chances (`chance`: player 0's, from `record`'s state): finished without a winner, each
        player rated with their chance as their share of the match (`rate_settled`), and what
        settled it stored with it, under the state's `settled` (docs/FAIRNESS.md, "Abandoned
        matches"). Nobody is told: it was abandoned long ago. Returns True if it was settled,
        False if it changed since `record` was read (resumed, played on, finished), None if
        that cannot be done now (a match of its players is being set up, the store failed)."""
        names = (record.player_a, record.player_b)
        with self.matches.table.starting(self._people_of(names)) as claimed:
            if not claimed:
                return None
            try:
                stored = await self.matches.store.match_by_id(record.match_id)
                if not self._unchanged(record, stored):
                    return False
                epoch, owned = await self.matches.claim(record.match_id)
                if not self._unchanged(record, owned):
                    return False
                found = [(await self.matches.people.user_named(name))[1] for name in names]
                accounts = [account for account in found if account is not None]
                assert record.length is not None and len(accounts) == 2
                settled = rate_settled(PlayerRating(accounts[0].rating, accounts[0].experience),
                                       PlayerRating(accounts[1].rating, accounts[1].experience),
                                       record.length, chance)
                updates = [RatingUpdate(name, after.rating, after.experience)
                           for name, after in zip(names, settled.after)]
                state = {**record.state,
                         "ratings": {account.name: [account.rating, update.rating]
                                     for account, update in zip(accounts, updates)},
                         "settled": {"by": "winning chances", "left_by": names[leaver],
                                     "chances": list(settled.shares),
                                     "expected": list(settled.expectations),
                                     "engine": f"bgsage, {SETTLEMENT_PLIES}-ply, cubeful"}}
                await self.matches.store.finish_match(record.match_id, state, None, updates,
                                                      abandoned=True, epoch=epoch)
            except StaleMatchOwner:
                return False  # claimed by another node since
            except Exception:
                log.exception("settling abandoned match %s failed", record.match_id)
                return None
        for account, update in zip(accounts, updates):
            account.rating, account.experience = update.rating, update.experience
        self.matches.finished(record.match_id)
        self.matches.freed(names)
        return True

    @staticmethod
    def _unchanged(record: MatchRecord, now: MatchRecord | None) -> bool:
        """Whether the saved match `record` is still as it was read, unfinished."""
        return (now is not None and not now.finished and now.state == record.state
                and now.left_by == record.left_by)

    def _people_of(self, names: tuple[str, str]) -> list[str]:
        """Of a match's players, those whose matches are set up one at a time (a bot online
        plays any number)."""
        online = [self.matches.people.online.get(name.lower()) for name in names]
        return [name for name, session in zip(names, online)
                if session is None or not session.is_bot]

    def waits_for_both(self, names: tuple[str, str], leaver: int) -> None:
        """A timed match's grace period ended without a forfeit: it waits, saved, for both
        (to resume when both are online and free); its players are told so, wherever they
        are (the classic sessions see nothing new)."""
        for index, name in enumerate(names):
            self.matches.tidings.tell([name], notice(
                [clock_texts.waits_for_both(names[1 - index])],
                web_events.comeback_countdown(names[leaver], names[1 - leaver], None),
                audience="extensions"))
