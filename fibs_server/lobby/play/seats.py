"""Players at a match that runs on another node.

A match runs on one node, its *host*: the inviter's. The joiner may be at home on another
node, where their connection stays. At the host a `SeatSession` stands in for them, a
session like any other to the match (lobby/play/match_play.py: the one path of every change,
its store and its narration) whose output goes home in `Relayed` letters; at home their
match commands (those declared `Forwarding.HOST`: protocol/commands.py) go to the seat in
`Forwarded` letters, and everything else (who, tell, help)
is answered at home as always. The bus keeps each node's letters in order, so the player
hears the match in the order the host told it, and the host gets the player's commands in
the order they were typed.

The home knows its user is seated elsewhere (`Session.place.seated_elsewhere`: whom they play,
for their who-line) from the host's `Seated` letters. A seat goes when its match stops
running at the host (ended, left, parted), when its player leaves their home (the host
hears their `Absence`: their match is saved, as a logout saves it) and when either node is
heard from no more (docs/NODES.md).
"""
from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import time
from collections import deque
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

from fibs_server.lobby.clock import Alarm, Clock
from fibs_server.lobby.nodes.bus import (
    Absence,
    Forwarded,
    JoinAsked,
    NodeLetter,
    Relayed,
    RelayKind,
    Seated,
    SeatLetter,
    notice,
)
from fibs_server.lobby.nodes.directory import RemoteUser
from fibs_server.lobby.ports.accounts import Account, AccountStore
from fibs_server.lobby.presence.session import (
    Output,
    PlayersAndWatchers,
    SeatElsewhere,
    Session,
    SessionOwners,
    Stage,
)
from fibs_server.protocol import texts
from fibs_server.protocol.login_dialogue import TELNET, WEB_PAGE
from fibs_server.protocol.texts import Departure
from fibs_server.protocol.views import web_events
from fibs_server.protocol.wording import game_texts, match_texts

if TYPE_CHECKING:  # types only: the lobby makes them and gives them to the seats
    from fibs_server.lobby.dispatcher import Dispatcher
    from fibs_server.lobby.play.running_match import RunningMatch
    from fibs_server.lobby.presence.attendance import Attendance

log = logging.getLogger(__name__)

# The lines a home keeps of each user's last ones sent to their seat, to answer itself those the
# seat never served (typed as the match ended there): a handful at most are on their way then.
KEPT_LINES = 16


# A live host answers a takeover at once; one that has not answered in this many seconds is
# taken for gone (killed before it was missed), and its match as saved.
TAKEOVER_ANSWER_SECONDS = 5.0


@dataclasses.dataclass(frozen=True)
class SeatClient:
    """How the seated player's program reads, as their home session knows it, and the
    toggles and settings their match goes by."""
    clip: bool
    client_name: str | None
    host: str
    web_page: bool
    events: bool
    toggles: dict[str, bool]
    settings: dict[str, str]

    @classmethod
    def of(cls, session: Session) -> SeatClient:
        assert session.account is not None
        return cls(session.out.clip, session.out.client_name, session.connection.host,
                   session.out.sees_extensions, session.out.wants_events,
                   dict(session.account.toggles), dict(session.account.settings))


class SeatConnection:
    """The seat's Connection: what is written to it goes home as it is."""

    def __init__(self, host: str, relay: Callable[[RelayKind, tuple[str, ...], bool], None]
                 ) -> None:
        self.host = host
        self.relay = relay

    def send(self, text: str, broadcast: bool = False) -> None:
        self.relay("text", (text,), broadcast)

    def send_wire(self, data: bytes, broadcast: bool = False) -> None:
        self.send(data.decode("ascii"), broadcast)

    def set_echo(self, server_echoes: bool) -> None:
        pass  # the home's connection echoes as it does

    def close(self) -> None:
        pass  # the home's connection stays


class SeatOutput(Output):
    """What a seat sends: its lines go home unformatted (SeatSession)."""

    def __init__(self, seat: Session,
                 relay: Callable[[RelayKind, tuple[str, ...], bool], None]) -> None:
        super().__init__(seat)
        self._relay = relay

    def lines(self, lines: list[str] | tuple[str, ...]) -> None:
        if lines:
            self._relay("lines", tuple(lines), False)


class SeatSession(Session):
    """At the host: a player at home on another node, as their match sees them. Its lines go
    home unformatted, to be laid out there by the player's own session (line length, pages,
    the refusals' typed messages)."""

    def __init__(self, given: SessionOwners, home: str, client: SeatClient,
                 send: Callable[[NodeLetter], None], node_id: str) -> None:
        self.home = home
        self.quiet = False  # answering a copied setting: the home answered it already
        self._send_letter = send
        self._node_id = node_id
        super().__init__(given, SeatConnection(client.host, self._relay),
                         WEB_PAGE if client.web_page else TELNET)
        self.out = SeatOutput(self, self._relay)
        self.out.clip, self.out.prompts, self.out.client_name = (client.clip, False,
                                                                 client.client_name)
        if client.events:
            self.out.event_sink = lambda line, broadcast: self._relay("event", (line,), broadcast)
        self.inbox: asyncio.Queue[Forwarded | None] = asyncio.Queue()
        self.relayed = 0  # letters sent home
        self.told: tuple[str | None, str | None] | None = None  # (plays, watches) as told home
        self.received = 0  # the number of the last line from home
        self.served = 0  # and of the last one served or being served (the later ones wait)
        # A board asked for after a loss: one is waiting to be served, and the number of
        # the last letter of the last one served (a request from before it is answered).
        self.loss_board_waiting = False
        self.loss_board_sent = 0

    def _relay(self, kind: RelayKind, lines: tuple[str, ...], broadcast: bool) -> None:
        if not self.quiet and self.stage is not Stage.CLOSED:
            self.relayed += 1
            self._send_letter(Relayed(self._node_id, self.home, self.name, kind, lines,
                                      broadcast, self.relayed))


class SeatMatches(PlayersAndWatchers, Protocol):
    """What the seats need of who plays whom (lobby.match_table.MatchTable)."""

    def take_over(self, previous: Session, session: Session) -> object | None: ...

    def busy(self, session: Session) -> bool: ...

    def match_of(self, session: Session) -> RunningMatch | None: ...


class SeatSettings(Protocol):
    """This node's name and its clock (lobby.LobbyConfig's; read when used: a test names the
    node of a lobby it made, and gives it a clock)."""
    @property
    def node_id(self) -> str: ...

    @property
    def clock(self) -> Clock: ...


class Seats:
    """This node's seats (as a host) and its users' joins elsewhere (as a home)."""

    def __init__(self, people: Attendance, dispatcher: Dispatcher, table: SeatMatches,
                 accounts: AccountStore, sessions: SessionOwners, settings: SeatSettings,
                 playing_elsewhere: Callable[[Session], None]) -> None:
        self._people = people
        self._dispatcher = dispatcher
        self._table = table
        self._accounts = accounts
        self._sessions = sessions  # what a seat, a session, is given
        self._settings = settings
        # `session`'s match started on another node (its seat there plays it).
        self._playing_elsewhere = playing_elsewhere
        self.here: dict[str, SeatSession] = {}  # lower-case name -> the seat of a player
        # lower-case name -> the lines from home that came while their seat was being made
        # (its account read): served once it is, after the join.
        self.seating: dict[str, list[Forwarded]] = {}
        # At home, by lower-case name: the number of the last letter heard from their seat,
        # and of the last line sent to it.
        self.heard: dict[str, int] = {}
        # At home, by lower-case name: the last lines sent to their seat, by number.
        self.lines_sent: dict[str, deque[tuple[int, str]]] = {}
        self.sent: dict[str, int] = {}
        # lower-case name of a user here -> the host asked for a takeover of their match, or
        # whether it still runs their match (`arrived`), and the alarm if it does not answer
        self.awaiting: dict[str, tuple[str, Alarm]] = {}
        self.unfinished = 0  # joins, lines and partings taken on and not yet carried out

    def idle(self) -> bool:
        """Whether everything the other nodes asked of the seats here is done (for tests)."""
        return self.unfinished == 0

    def _carry_out(self, job: Coroutine[Any, Any, None]) -> None:
        self.unfinished += 1

        async def counted() -> None:
            try:
                await job
            finally:
                self.unfinished -= 1
        self._people.start_job(counted())

    def holds(self, session: Session) -> bool:
        return self.here.get(session.name.lower()) is session

    def receive(self, letter: SeatLetter) -> None:
        """A letter of another node's for this one."""
        if isinstance(letter, JoinAsked) and letter.takeover:
            self._take_over(letter)
        elif isinstance(letter, JoinAsked):
            key = letter.name.lower()
            if key in self.here or key in self._people.users.online or key in self.seating:
                self._refuse(letter, game_texts.TWO_GAMES_AT_ONCE)
            else:
                self.seating[key] = []
                self._carry_out(self._seat(letter))
        elif isinstance(letter, Forwarded):
            self._forwarded(letter)
        elif isinstance(letter, Relayed):
            self._relayed(letter)
        else:
            self._seated(letter)

    # --- at home -------------------------------------------------------------------------------

    def join_elsewhere(self, session: Session, inviter: RemoteUser) -> None:
        """`session` joins the invitation of `inviter`, a user of another node: the match will
        run there. Until the host answers, the user counts as playing."""
        self.leave_watch(session)
        self._ask_host(session, inviter.node, inviter.name)

    def watch_elsewhere(self, session: Session, player: RemoteUser) -> None:
        """`session` watches `player`, a user of another node: a seat there watches for them."""
        self.leave_watch(session)
        self._ask_host(session, player.node, player.name, watch=True)

    def leave_watch(self, session: Session) -> None:
        """Whom `session` watches on another node, it watches no more (it watches someone
        else, or plays)."""
        elsewhere = session.place.seated_elsewhere
        if elsewhere is not None and not elsewhere.playing:
            self.forward(session, "unwatch")
            session.place.seated_elsewhere = None
            self.forget_user(session.name)

    def take_over_elsewhere(self, session: Session, user: RemoteUser) -> None:
        """`session` logged in here while, as `user`, its user plays a match on another
        node: they take the match over from there, as a new login takes a match over. Until
        the host answers they are free (a killed host never answers; a match resumed here
        meanwhile is the one that goes on: the host's copy stores no more)."""
        self._await_answer(session.name, user.node,
                           functools.partial(self._free_opponents_of, session.name, user.node))
        self._ask_host(session, user.node, "", takeover=True)

    def _await_answer(self, name: str, host: str, on_silence: Callable[[], None]) -> None:
        """`host` is asked something about `name`'s match; its `Seated` answers. Without an
        answer in TAKEOVER_ANSWER_SECONDS it is taken for gone (killed before it was
        missed), its match as saved, and `on_silence` is called."""
        def silent() -> None:
            if self.awaiting.get(name.lower(), (None,))[0] == host:
                del self.awaiting[name.lower()]
                on_silence()
        clock = self._settings.clock
        self.awaiting[name.lower()] = (host, clock.call_at(
            clock.time() + TAKEOVER_ANSWER_SECONDS, silent))

    def _free_opponents_of(self, name: str, host: str) -> None:
        """Who plays `name` at `host` from here is free to resume the saved match."""
        for session in list(self._people.users.online.values()):
            seat = session.place.seated_elsewhere
            if seat is not None and seat.host == host and seat.opponent is not None \
                    and seat.opponent.lower() == name.lower():
                self._free(session)

    def _check(self, session: Session, host: str) -> None:
        """Whether `host` still runs `session`'s match: free to resume it if not."""
        if session.name.lower() in self.awaiting:
            return

        def free_if_still_seated() -> None:
            seat = session.place.seated_elsewhere
            if seat is not None and seat.host == host and self._people.users.online.get(
                    session.name.lower()) is session:
                self._free(session)
        self._await_answer(session.name, host, free_if_still_seated)
        self._people.messenger.tell_node(Forwarded(self._settings.node_id, host, session.name, "",
                                                 resync=True))

    def _free(self, session: Session) -> None:
        session.place.seated_elsewhere = None
        self.forget_user(session.name)
        self._people.broadcast_who(session)

    def _ask_host(self, session: Session, host: str, inviter: str, takeover: bool = False,
                  watch: bool = False) -> None:
        if not takeover:
            session.place.seated_elsewhere = SeatElsewhere(host, None, inviter if watch else None)
        self.heard[session.name.lower()] = self.sent[session.name.lower()] = 0  # from 1 again
        self._people.messenger.tell_node(JoinAsked(self._settings.node_id, host, session.name, inviter,
                                                 dataclasses.asdict(SeatClient.of(session)), takeover,
                                                 watch))

    def forward(self, session: Session, line: str, quiet: bool = False, heard: int = -1
                ) -> None:
        seat = session.place.seated_elsewhere
        assert seat is not None
        key = session.name.lower()
        self.sent[key] = number = self.sent.get(key, 0) + 1
        if not quiet and heard < 0:  # the user's own line, not answered here
            self.lines_sent.setdefault(key, deque(maxlen=KEPT_LINES)).append((number, line))
        self._people.messenger.tell_node(Forwarded(self._settings.node_id, seat.host, session.name, line, quiet,
                                                 number=number, heard=heard))

    def forget_user(self, name: str) -> None:
        """A user of this node plays nothing elsewhere any more (or logged out)."""
        for counts in (self.heard, self.sent, self.lines_sent):
            counts.pop(name.lower(), None)
        awaited = self.awaiting.pop(name.lower(), None)
        if awaited is not None:
            awaited[1].cancel()

    def _seated(self, letter: Seated) -> None:
        session = self._people.users.online.get(letter.name.lower())
        awaited = self.awaiting.pop(letter.name.lower(), None)
        if awaited is not None:
            awaited[1].cancel()
        taken_over = awaited is not None and awaited[0] == letter.node
        if session is None:
            return
        if taken_over and session.place.seated_elsewhere is None and letter.opponent is not None \
                and not self._table.busy(session):
            session.place.seated_elsewhere = SeatElsewhere(letter.node)
        elsewhere = session.place.seated_elsewhere
        if elsewhere is None or elsewhere.host != letter.node:
            return
        if letter.opponent is not None or letter.watching is not None:
            session.place.seated_elsewhere = SeatElsewhere(letter.node, letter.opponent,
                                                           letter.watching)
            if letter.opponent is not None:
                self._playing_elsewhere(session)
            key = letter.name.lower()
            heard = self.heard.get(key, 0)
            # Whatever the seat sent before this letter has come, unless it was lost.
            if heard < letter.relayed or self.sent.get(key, 0) > letter.received:
                # A board tells the player what is due now, a lost command included.
                self.forward(session, "board", heard=heard)
            self._people.broadcast_who(session)
        else:
            # Lines the seat never served (it went first): answered here, as on one node.
            unserved = [line for number, line in self.lines_sent.get(letter.name.lower(), ())
                        if number > letter.received]
            self._free(session)
            self._people.start_job(self._rating_refreshed(session))
            if unserved:
                self._carry_out(self._answer_here(session, unserved))

    async def _answer_here(self, session: Session, lines: list[str]) -> None:
        for line in lines:
            if self._people.users.online.get(session.name.lower()) is session:
                await self._dispatcher.dispatch(session, line)

    async def _rating_refreshed(self, session: Session) -> None:
        """The host stored the match's rating changes: the who-line shows them."""
        stored = await self._accounts.find_account(session.name)
        account = session.account
        if stored is not None and account is not None and (
                stored.rating, stored.experience) != (account.rating, account.experience):
            account.rating, account.experience = stored.rating, stored.experience
            if session.stage is Stage.ONLINE:
                self._people.broadcast_who(session)

    def _relayed(self, letter: Relayed) -> None:
        # Whether still seated or not: a match's last words come after its end.
        session = self._people.users.online.get(letter.name.lower())
        if session is None:
            return
        self.heard[letter.name.lower()] = letter.number
        if letter.kind == "lines":
            session.out.lines(letter.lines)
        elif letter.kind == "text":
            session.connection.send("".join(letter.lines), letter.broadcast)
        elif session.out.event_sink is not None and session.stage is not Stage.CLOSED:
            for line in letter.lines:
                session.out.event_sink(line, letter.broadcast)

    # --- at the host ---------------------------------------------------------------------------

    async def _seat(self, letter: JoinAsked) -> None:
        """A player of another node joins an invitation of a user here: a seat for them, which
        joins as they would."""
        key = letter.name.lower()
        try:
            client = SeatClient(**letter.client)
            account = await self._accounts.find_account(letter.name)
        except (TypeError, ValueError):
            log.exception("a join from node %s was not understood", letter.node)
            account = None
        finally:
            typed_meanwhile = self.seating.pop(key)
        if account is None:
            self._refuse(letter, game_texts.cannot_find_player(letter.name))
            return
        if key in self.here or key in self._people.users.online:  # meanwhile
            self._refuse(letter, game_texts.TWO_GAMES_AT_ONCE)
            return
        seat = self._new_seat(letter, client, account)
        command = "watch" if letter.watch else "join"
        self._queue(seat, Forwarded(letter.node, self._settings.node_id, letter.name,
                                    f"{command} {letter.inviter}"))
        for typed in typed_meanwhile:
            self._forwarded(typed)

    def _new_seat(self, letter: JoinAsked, client: SeatClient, account: Account
                  ) -> SeatSession:
        account.toggles.update(client.toggles)
        account.settings.update(client.settings)
        seat = SeatSession(self._sessions, letter.node, client, self._people.messenger.tell_node,
                           self._settings.node_id)
        seat.account, seat.who.login_time = account, int(time.time())
        seat.stage = Stage.ONLINE
        self.here[letter.name.lower()] = seat
        self._people.start_job(self._serve(seat))
        return seat

    def _take_over(self, letter: JoinAsked) -> None:
        """A player here logged in on another node: their match goes on here with a seat for
        them in place of the session they had here (which that login's presence then logs
        out, the match staying with the seat), shown to them where it stands."""
        previous = self._people.users.online.get(letter.name.lower())
        try:
            client = SeatClient(**letter.client)
        except TypeError:
            log.exception("a takeover from node %s was not understood", letter.node)
            previous = None
        if previous is None or previous.account is None or letter.name.lower() in self.here:
            self._people.messenger.tell_node(Seated(self._settings.node_id, letter.node, letter.name, None))
            return
        seat = self._new_seat(letter, client, previous.account)
        if self._table.take_over(previous, seat) is None:  # no match here
            self.release(seat)
            self._people.messenger.tell_node(Seated(self._settings.node_id, letter.node, letter.name, None))
            return
        self._show_match(seat)
        self._tell_seated(seat)

    def _refuse(self, letter: JoinAsked, line: str) -> None:
        self._people.messenger.tell_node(Relayed(self._settings.node_id, letter.node, letter.name, "lines",
                                               (line,)))
        self._people.messenger.tell_node(Seated(self._settings.node_id, letter.node, letter.name, None))

    def _forwarded(self, letter: Forwarded) -> None:
        seat = self.here.get(letter.name.lower())
        if seat is None and letter.name.lower() in self.seating:
            self.seating[letter.name.lower()].append(letter)  # its seat is on its way
            return
        if seat is None or seat.home != letter.node:
            # Its match is over: the home thinks otherwise, and learns it is not (and that
            # this line was not served).
            self._people.messenger.tell_node(Seated(self._settings.node_id, letter.node, letter.name, None,
                                                  received=max(0, letter.number - 1)))
            return
        if letter.resync:
            self._tell_seated(seat)
            return
        seat.received = max(seat.received, letter.number)
        if letter.heard < 0:
            self._queue(seat, letter)
        elif not (seat.loss_board_waiting or seat.loss_board_sent > letter.heard):
            self._show_match(seat, letter)
        # (else a view of the match after what the home heard is on its way already)

    def _show_match(self, seat: SeatSession, asked: Forwarded | None = None) -> None:
        """The seat's match where it stands, shown to its player at home, in turn with the
        seat's lines: after a loss (`asked`, the home's letter), or a takeover."""
        seat.loss_board_waiting = True
        self._queue(seat, asked or Forwarded(seat.home, self._settings.node_id, seat.name, "board",
                                             heard=0))

    def _queue(self, seat: SeatSession, letter: Forwarded) -> None:
        self.unfinished += 1
        seat.inbox.put_nowait(letter)

    async def _serve(self, seat: SeatSession) -> None:
        """The seat's lines, one at a time as a connection's are; the seat goes once it
        plays no match (a refused join, a match over)."""
        while (letter := await seat.inbox.get()) is not None:
            seat.quiet = letter.quiet
            try:
                if letter.heard >= 0:  # letters were lost: the match where it stands
                    for hook in self._dispatcher.resync_hooks:
                        await hook(seat)
                else:
                    seat.served = max(seat.served, letter.number)
                    await seat.incoming.handle_line(letter.line)
            except Exception:
                log.exception("a line of %s's seat failed", seat.name)
            finally:
                seat.quiet = False
                if letter.heard >= 0:
                    seat.loss_board_waiting, seat.loss_board_sent = False, seat.relayed
                self.unfinished -= 1
            self.changed(seat)
        while not seat.inbox.empty():  # what came after the seat went is not served
            if seat.inbox.get_nowait() is not None:
                self.unfinished -= 1

    @staticmethod
    def is_seat(session: Session) -> bool:
        """Whether `session` stands in here for a player at home on another node."""
        return isinstance(session, SeatSession)

    def changed(self, seat: SeatSession) -> None:
        """Whom the seat plays or watches here changed (a match began or stopped running, a
        watch began or ended): its home is told; a seat that does neither goes."""
        in_use = self._in_use(seat)
        if in_use is None:
            self.unseat(seat)
        elif in_use != seat.told:
            self._tell_seated(seat)

    def watching_changed(self, session: Session) -> None:
        if isinstance(session, SeatSession) and self.holds(session):
            self.changed(session)

    def _in_use(self, seat: SeatSession) -> tuple[str | None, str | None] | None:
        """(whom it plays, whom it watches), or None for neither."""
        opponent = self._table.opponent_name_of(seat)
        watching = seat.place.watching.name if seat.place.watching is not None else None
        return None if opponent is None and watching is None else (opponent, watching)

    def _tell_seated(self, seat: SeatSession) -> None:
        """The seat's home is told whom it plays or watches, and how many letters it was sent
        and lines it received."""
        in_use = self._in_use(seat)
        if in_use is not None and self.holds(seat):
            seat.told = in_use
            self._people.messenger.tell_node(Seated(self._settings.node_id, seat.home, seat.name, in_use[0],
                                                  seat.relayed, seat.received, in_use[1]))

    def unseat(self, seat: SeatSession) -> None:
        """The seat goes, and its home is told it plays and watches nothing here."""
        if self.holds(seat):
            self.release(seat)
            # `received`: the lines served (those after it are not: the home answers them).
            self._people.messenger.tell_node(Seated(self._settings.node_id, seat.home, seat.name, None,
                                                  seat.relayed, seat.served))

    async def _part(self, seat: SeatSession, departure: Departure) -> None:
        """The seat's player left their home (or it went): their match is saved, as their
        logout would save it here."""
        for hook in self._dispatcher.logout_hooks:
            await hook(seat, departure)
        self.unseat(seat)

    def resync(self) -> None:
        """The bus (re)connected: letters of a match across nodes may have been lost on the
        way. The host tells each seat's home again whom it plays and how many letters it
        sent and received; each home asks the same of its players' seats. A home that heard
        fewer letters than were sent, or sent more lines than were received, asks for the
        match where it stands (as a new login that takes a match over sees it: the board
        and what is due now), which asks the player (and their program) again for a
        command that was lost."""
        for seat in list(self.here.values()):
            self._tell_seated(seat)
        for session in list(self._people.users.online.values()):
            elsewhere = session.place.seated_elsewhere
            if elsewhere is not None:
                self._people.messenger.tell_node(Forwarded(self._settings.node_id, elsewhere.host,
                                                         session.name, "", resync=True))

    # --- nodes and users that went ---------------------------------------------------------------

    def departed(self, letter: Absence) -> None:
        """A user of another node went (logged out, dropped, or their node is heard from no
        more): their seat here, if any, is parted."""
        seat = self.here.get(letter.name.lower())
        if seat is None or seat.home != letter.node:
            return
        departure = next((d for d in Departure if letter.departure == texts.departed(
            letter.name, d)), Departure.LOGGED_OUT)
        self._carry_out(self._part(seat, departure))

    def seat_of(self, name: str) -> SeatSession | None:
        return self.here.get(name.lower())

    def release(self, seat: SeatSession) -> None:
        """The seat goes without a word to its home (`unseat` tells it): also when its player
        logged in here, whose session the lobby put in the seat's place."""
        if self.holds(seat):
            del self.here[seat.name.lower()]
            seat.inbox.put_nowait(None)
            seat.close()

    def arrived(self, name: str, node: str) -> None:
        """`name` logged in on `node`. A seat of theirs here from another home goes, their
        match saved as for a dropped player (their home, killed, may never say they went),
        to be resumed from where they are now. A user here who plays them on a third node's
        match: that host is asked whether it still runs it (a live host goes on with it,
        taken over from there; a killed one frees the user here to resume it)."""
        seat = self.here.get(name.lower())
        if seat is not None and seat.home != node:
            self._carry_out(self._part(seat, Departure.DROPPED))
        for session in list(self._people.users.online.values()):
            elsewhere = session.place.seated_elsewhere
            if elsewhere is not None and elsewhere.host != node \
                    and elsewhere.opponent is not None \
                    and elsewhere.opponent.lower() == name.lower():
                self._check(session, elsewhere.host)

    def out_of_reach(self, node: str) -> None:
        """`node` has been silent a while (it, or the bus, is down): the matches across it
        wait. At the host their clocks stop; both players are told (the classic sessions
        see nothing new), and nothing ends before the node is taken for dead."""
        self._reach(node, held=True)

    def back_in_reach(self, node: str) -> None:
        """`node` is heard from again: its matches go on (their clocks time the decisions due
        now afresh), both players are told, and the seats compare what was lost meanwhile."""
        if self._reach(node, held=False):
            self.resync()

    def _reach(self, node: str, held: bool) -> bool:
        """Whether any match here or of a user here plays across `node`."""
        told = match_texts.out_of_reach if held else match_texts.back_in_reach
        found = False
        for seat in [seat for seat in self.here.values() if seat.home == node]:
            running = self._table.match_of(seat)
            opponent = running.opponent_of(seat) if running is not None else None
            if running is None or opponent is None:
                continue
            found = True
            if running.timer is not None:
                running.timer.hold(held)
            # Here, as a rule (the inviter's node hosts); a seat's own home hears through the bus.
            attendance = self._people
            tell = attendance.deliver if attendance.users.online.get(opponent.name.lower()) \
                is opponent else attendance.messenger.tell
            tell([opponent.name], notice([told(seat.name)], web_events.player_reach(
                seat.name, not held), audience="extensions"))
        for session in list(self._people.users.online.values()):
            elsewhere = session.place.seated_elsewhere
            if elsewhere is not None and elsewhere.host == node and elsewhere.opponent:
                found = True
                self._people.deliver([session.name], notice(
                    [told(elsewhere.opponent)],
                    web_events.player_reach(elsewhere.opponent, not held),
                    audience="extensions"))
        return found

    def node_gone(self, node: str) -> None:
        """`node` is heard from no more: this node's users seated there are told their match
        was saved (as the node's players drop), and play nothing."""
        for session in list(self._people.users.online.values()):
            seat = session.place.seated_elsewhere
            if seat is None or seat.host != node:
                continue
            if seat.opponent is not None:
                session.out.line(texts.game_saved_after(seat.opponent, Departure.DROPPED))
            self._free(session)
