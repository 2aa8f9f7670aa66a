"""Who is online, here and on the other nodes: the sessions, the who-list and its pacing, the
notices of logins and logouts, what handlers tell other users (`tell`, `tell_all`), the
administrators' moderation across nodes, and what the other nodes say of their users.

(Named so beside the bus's `Presence`, the letter that tells one user's presence.)"""
from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable, Collection, Coroutine, Iterable
from typing import Any, Protocol

from fibs_server.lobby.limits.who_pacing import WhoPacing
from fibs_server.lobby.nodes.bus import (
    Absence,
    Bus,
    Letter,
    Moderated,
    ModerationAction,
    NodeLetter,
    Presence,
    PresenceLetter,
    RollCall,
    Roster,
    UserLetter,
    notice,
)
from fibs_server.lobby.nodes.directory import Directory, NodeTimes
from fibs_server.lobby.nodes.rosters import RosterLog
from fibs_server.lobby.ports.accounts import Account, AccountsWithVisitors
from fibs_server.lobby.presence.chat_state import ChatState
from fibs_server.lobby.presence.fan_out import NoticeFanOut
from fibs_server.lobby.presence.notices import Notice
from fibs_server.lobby.presence.session import Session, Stay, wire_bytes, wire_text
from fibs_server.lobby.presence.who_list import WhoList
from fibs_server.protocol import chat, clip, texts
from fibs_server.protocol.texts import Departure
from fibs_server.protocol.views import web_events

log = logging.getLogger(__name__)


class SeatsAcrossNodes(Protocol):
    """What presence needs of the players at matches across nodes (lobby/play/seats.py's
    `Seats`, above this wing)."""

    def holds(self, session: Session) -> bool: ...

    def is_seat(self, session: Session) -> bool: ...

    def arrived(self, name: str, node: str) -> None: ...

    def departed(self, letter: Absence) -> None: ...

    def node_gone(self, node: str) -> None: ...

    def resync(self) -> None: ...

    def out_of_reach(self, node: str) -> None: ...

    def back_in_reach(self, node: str) -> None: ...


class NodeSettings(Protocol):
    """This node's name on the bus (lobby.LobbyConfig's; read when used: a test names the
    node of a lobby it made)."""
    @property
    def node_id(self) -> str: ...

    @property
    def node_times(self) -> NodeTimes: ...


LogOut = Callable[[Session, Departure], Awaitable[None]]


class Attendance:
    """Who is online: this node's sessions by name, the other nodes' users (`directory`), the
    who-list a login gets, and the ways to tell them things."""

    def __init__(self, settings: NodeSettings, bus: Bus, accounts: AccountsWithVisitors,
                 who_pacing: WhoPacing[Session], seats: Callable[[], SeatsAcrossNodes], log_out: LogOut,
                 chat: ChatState) -> None:
        self._settings = settings
        # What handlers tell other users goes through here (`tell`, `tell_all`): this node's
        # own, or one between nodes (net/redis_bus.py).
        self.bus = bus
        self._accounts = accounts
        self.who_pacing = who_pacing
        self._seats = seats  # made after this, with it: asked for when used
        self._log_out = log_out  # the lobby's logout (its hooks part a running match)
        self._chat = chat  # gags, `waitfor`s and mutes
        self.connections: set[Session] = set()
        self.online: dict[str, Session] = {}  # lower-case name -> session
        self.most_online = 0
        # The other nodes' users (none without a bus to them), and this node's users' changes,
        # numbered for the other nodes.
        self.directory = Directory(times=settings.node_times)
        self.roster_log = RosterLog()
        # The other nodes' users' idle times are aged on the clock they were heard on.
        self.who_list = WhoList(self.online, self.directory, lambda: self.directory.clock())
        self.notices = NoticeFanOut(self.online)  # of logins and logouts, to everyone
        self._node_jobs: set[asyncio.Future] = set()  # takeovers from other nodes

    @property
    def node_id(self) -> str:
        return self._settings.node_id

    # --- who is online -----------------------------------------------------------------------

    def sessions_online(self) -> list[Session]:
        return list(self.online.values())

    def came_online(self, session: Session, name: str, who_line: str) -> None:
        """A login is online from now on: here, whatever another node last said of them."""
        self.online[name.lower()] = session
        self.notices.joined(session)
        self.directory.forget(name)
        self.who_list.set(name, who_line)
        self.most_online = max(self.most_online, len(self.online))

    def went_offline(self, name: str) -> None:
        self.notices.left(self.online.pop(name.lower()))
        self.who_list.remove(name)

    def find_online(self, typed: str) -> Session | None:
        """Name completion: exact name (any case), else a unique prefix, case-sensitive first."""
        exact = self.online.get(typed.lower())
        if exact is not None or not typed:
            return exact
        for fold in (False, True):
            matches = [s for s in self.online.values()
                       if (s.name.lower().startswith(typed.lower()) if fold
                           else s.name.startswith(typed))]
            if len(matches) == 1:
                return matches[0]
        return None

    def is_visitor(self, session: Session) -> bool:
        """A visitor plays a bot without an account (`Lobby.new_visitor`)."""
        return session.name.lower() in self._accounts.visitors

    def stay_of(self, name: str) -> Stay | None:
        """What tells `name`'s present stay online from any other: their session here, or their
        login on another node; None while they are offline. Two readings that differ mean they
        were away (or logged in again) in between."""
        here = self.online.get(name.lower())
        if here is not None:
            return here
        user = self.directory.get(name)  # (a seat here stands for a user of another node)
        return None if user is None else (user.node, user.login_time)

    def node_of(self, name: str) -> str | None:
        """The node `name` is online on, as this node knows (None: offline, or not heard of
        yet): where the bus sends a letter for them."""
        if name.lower() in self.online:
            return self.node_id
        user = self.directory.get(name)
        return None if user is None else user.node

    def is_online(self, session: Session) -> bool:
        return (session.is_bot or self.online.get(session.name.lower()) is session
                or self._seats().holds(session))

    async def user_named(self, name: str, complete: bool = False
                         ) -> tuple[Session | None, Account | None]:
        """The user's session if online, and their account: as it is now if online, else as
        stored (None: no such user). `complete`: `name` as a user typed it, completed to an
        online user's name (`find_online`)."""
        online = self.find_online(name) if complete else self.online.get(name.lower())
        if online is not None:
            return online, online.account
        return None, await self._accounts.find_account(name)

    # --- telling -----------------------------------------------------------------------------

    def tell(self, names: Collection[str], letter: Letter) -> None:
        """`letter` to the users named, wherever they are online (`bus.Bus`)."""
        self.bus.tell(names, letter)

    def tell_all(self, letter: Letter) -> None:
        """`letter` to everyone online that it reaches."""
        self.bus.tell_all(letter)

    def announce(self, text: str) -> None:
        """The server's own line to everyone online here (a shutdown's countdown)."""
        for session in self.sessions_online():
            session.out.line(text)

    def report(self, text: str, exclude: Iterable[str] = ()) -> None:
        """A match start/end line to everyone whose `report` toggle is on."""
        self.tell_all(notice([text], audience="report", excluded=exclude, broadcast=True))

    def tell_node(self, letter: NodeLetter) -> None:
        """A letter for the other nodes (one named in it, or all)."""
        self.bus.tell_others(letter)

    def deliver(self, names: Collection[str] | None,
                letter: UserLetter | Moderated | PresenceLetter) -> None:
        """A letter the bus brings to this node's users (the lobby routes the seats' and
        arranged matches' letters elsewhere): those of `names` online here (None: everyone
        online here) whom the letter reaches."""
        if isinstance(letter, Moderated):
            if letter.node != self.node_id:
                self._moderated(letter)
            return
        if isinstance(letter, PresenceLetter):
            self._from_another_node(letter)
            return
        if names is None:
            listeners = self.sessions_online()
        else:
            listeners = [s for s in map(self.online.get, (n.lower() for n in names)) if s]
        gags = self._chat.gagging
        letter.deliver([listener for listener in listeners if letter.reaches(listener, gags)])

    def tell_waiters(self, name: str) -> list[str]:
        """Those here waiting for `name` (`waitfor`) are told they logged in, and wait no
        more: their names, in the order they logged in."""
        waiting = self._chat.waiting_for_login(name)
        if len(waiting) > 1:
            waiting = [key for key in self.online if key in waiting]
        told = []
        for key in waiting:
            waiter = self.online.get(key)
            if waiter is not None:
                self.deliver([waiter.name], notice([chat.finally_logs_in(name)]))
                told.append(waiter.name)
        return told

    async def tell_everyone_else(self, about: str, sentence: str | None,
                                 clip_number: int, who_block: str = "",
                                 told: Collection[Session] = (),
                                 event: web_events.Message | None = None) -> None:
        """A login or logout: `sentence` (as CLIP line `clip_number` to CLIP clients) to
        everyone else whose `notify` toggle is on, and `who_block` to every other CLIP client;
        done when told. Telnet users in `told` know already and are spared the sentence (CLIP
        clients still get their line). `event`: the typed message of it, for the pages that
        asked for them. Told in passes over everyone that a burst of them shares (at 10,000
        online a pass per notice made a storm of logins or drops cost the square of who is
        online: lobby/presence/fan_out.py)."""
        await self.notices.tell_and_wait(
            self._notice(about, sentence, clip_number, who_block, told, event))

    @staticmethod
    def _notice(about: str, sentence: str | None, clip_number: int, who_block: str,
                told: Collection[Session], event: web_events.Message | None) -> Notice:
        """`tell_everyone_else`'s notice, each text formatted and encoded once for everyone."""
        who_wire = wire_bytes(who_block)
        return Notice(
            about=about.lower(),
            clip_text=(wire_bytes(wire_text([clip.chat(clip_number, about, sentence)]))
                       if sentence else b"") + who_wire,
            who_block=who_wire,
            sentence=wire_bytes(wire_text([sentence])) if sentence else b"",
            spared=frozenset(session.name.lower() for session in told),
            event_line=web_events.encode(event) if event is not None else None)

    # --- moderation --------------------------------------------------------------------------

    def moderate(self, name: str, action: ModerationAction, text: str = "") -> None:
        """An administrator's action on `name` where they are online: here (the caller acts
        itself) or on another node, which is told."""
        self.bus.tell_others(Moderated(self.node_id, name, action, text))

    def _moderated(self, letter: Moderated) -> None:
        target = self.online.get(letter.name.lower())
        if target is None:
            return
        if letter.action == "throw_out":
            self.start_job(self.throw_out(target, letter.text))
        else:
            self._chat.of(target.name).muted = letter.action == "mute"

    async def throw_out(self, target: Session, text: str) -> None:
        """Log a user out as if they had typed `bye` (a running match is saved), after `text`."""
        self.tell([target.name], notice([text]))
        await self._log_out(target, Departure.LOGGED_OUT)
        target.close()

    # --- the who-list ------------------------------------------------------------------------

    def broadcast_who(self, about: Session) -> None:
        """A changed user's CLIP 5 line (and the 6 that ends a block) to every CLIP client.
        A seat's user is told of by their home (their toggles are copied to the seat: a
        presence from here would say they were here)."""
        if self._seats().is_seat(about):
            return
        line = about.who.line()
        if self.online.get(about.name.lower()) is about:
            self.who_list.set(about.name, line)  # a login's who-list is current when paced
        if self.who_pacing.now_or_later(about, self._broadcast_held_who):
            self._tell_who(about, line)

    def _broadcast_held_who(self, about: Session) -> None:
        """The who-line that pacing held back, with the user's state as it is now."""
        if self.online.get(about.name.lower()) is about:
            line = about.who.line()
            self.who_list.set(about.name, line)
            self._tell_who(about, line)

    def _tell_who(self, about: Session, line: str) -> None:
        # Here as a who-line; to the other nodes as the presence they keep and tell likewise.
        self.deliver(None, notice(clip.who_block([line]), web_events.presence(about.who.info()),
                                  audience="clip", broadcast=True))
        self.bus.tell_others(self.presence_of(about))

    # --- the other nodes ---------------------------------------------------------------------

    def presence_of(self, session: Session, arrival: str | None = None) -> Presence:
        """The letter that tells the other nodes of a user here (`arrival`: of their login),
        numbered as the roster's next change: send it."""
        return Presence(self.node_id, _fields(session.who.info()),
                        session.prefs.away_message, arrival, self.roster_log.run,
                        self.roster_log.changed(session.name))

    def absence_of(self, name: str, departure: str) -> Absence:
        """The letter that tells the other nodes a user here went, numbered: send it."""
        return Absence(self.node_id, name, departure, self.roster_log.run,
                       self.roster_log.went(name))

    def _roster(self, since: int | None = None, to_node: str | None = None) -> Roster:
        """Every user here (the built-in bots included: they are online on one node, the
        `bots` lease's holder), or those changed after `since` and the names of those gone."""
        log = self.roster_log
        changed, gone = log.changes_after(since) if since is not None else (None, [])
        return Roster(self.node_id, [
            {"info": _fields(s.who.info()), "away_message": s.prefs.away_message}
            for s in self.sessions_online() if changed is None or s.name.lower() in changed],
            log.run, log.version, since, gone, to_node)

    def leave_all(self) -> None:
        """The server stops: the other nodes are told in one letter that nobody is here."""
        self.bus.tell_others(Roster(self.node_id, [], self.roster_log.run,
                                    self.roster_log.version))

    def _from_another_node(self, letter: PresenceLetter) -> None:
        """What another node says of its users: the directory, and this node's users told as
        they are of a login, a logout or a who-line here."""
        if letter.node == self.node_id:
            return
        if self.directory.heard_from(letter.node):
            self._seats().back_in_reach(letter.node)
        try:
            self._hear_node(letter)
        except (ValueError, KeyError, TypeError, AttributeError):
            log.exception("a letter from node %s was not understood: %r", letter.node, letter)

    def _hear_node(self, letter: PresenceLetter) -> None:
        if isinstance(letter, RollCall):
            self.directory.heard_from(letter.node)
            if letter.answer and letter.to_node in (None, self.node_id):
                self._answer_roll_call(letter)
            self._check_version(letter)
        elif isinstance(letter, Roster):
            if letter.to_node in (None, self.node_id):
                self._roster_heard(letter)
        elif isinstance(letter, Presence):
            self.directory.applied(letter.node, letter.run, letter.version)
            here = self.online.get(str(letter.info["name"]).lower())
            if here is not None:
                if letter.arrival is not None and not here.is_bot:
                    # Logged in on another node: that login is who they are now.
                    self.start_job(self._taken_over_elsewhere(here, letter))
                return
            user = self.directory.present(letter)
            now = self.directory.clock()  # what the users' heard_at is on
            line = user.who_line(now)
            self.who_list.set(user.name, line)
            self.notices.tell_at_once(self._notice(
                user.name, letter.arrival, clip.LOGIN, wire_text(clip.who_block([line])),
                (), web_events.presence(user.who_info(now))))
            if letter.arrival is not None:
                self.tell_waiters(user.name)
                self._seats().arrived(user.name, letter.node)
        else:
            self.directory.applied(letter.node, letter.run, letter.version)
            self._remote_departed(letter)

    def _answer_roll_call(self, letter: RollCall) -> None:
        """The changes the asker lacks of this node's roster (nothing if it lacks none), or
        the whole roster if they are not kept; to the asker alone."""
        since = self.roster_log.since(letter.known.get(self.node_id))
        if since is None or since < self.roster_log.version:
            self.bus.tell_others(self._roster(since, to_node=letter.node))

    def _check_version(self, letter: RollCall) -> None:
        """A node's roster moved on past what this node has of it (a change lost, or it
        came back with a new run): it is asked for what this node lacks."""
        if not letter.version and not letter.run:
            return
        have = self.directory.versions.get(letter.node)
        if have != (letter.run, letter.version):
            self.bus.tell_others(RollCall(
                self.node_id, known={} if have is None else {letter.node: list(have)},
                to_node=letter.node))

    def _roster_heard(self, letter: Roster) -> None:
        """A roster: the whole (users missing from it went), or changes after a number this
        node has. Only the who-lines that changed are told here."""
        have = self.directory.versions.get(letter.node)
        if letter.since is not None and (have is None or have[0] != letter.run
                                         or have[1] < letter.since):
            return  # changes after what this node does not have: the next heartbeat asks again
        gone = ({user.name for user in self.directory if user.node == letter.node}
                if letter.since is None else set())
        changed = []
        for entry in letter.users:
            name = entry["info"]["name"]
            gone.discard(name)
            if name.lower() in self.online:
                continue
            before = self.directory.get(name)
            user = self.directory.present(Presence(letter.node, entry["info"],
                                                   entry.get("away_message")))
            if before is None or before.node != user.node or before.away_message != \
                    user.away_message or dataclasses.replace(before.info, idle_seconds=0) != \
                    dataclasses.replace(user.info, idle_seconds=0):
                changed.append(user)
        for name in [*gone, *letter.gone]:
            self._remote_departed(Absence(letter.node, name,
                                          texts.departed(name, Departure.LOGGED_OUT)))
        self.directory.versions[letter.node] = (letter.run, letter.version)
        if changed:
            now = self.directory.clock()  # what the users' heard_at is on
            lines = [user.who_line(now) for user in changed]
            for user, line in zip(changed, lines):
                self.who_list.set(user.name, line)
            # To this node's users only: the other nodes heard the roster themselves.
            self.deliver(None, notice(clip.who_block(lines), audience="clip", broadcast=True))

    def _remote_departed(self, letter: Absence) -> None:
        self._seats().departed(letter)
        if self.directory.absent(letter):
            self.who_list.remove(letter.name)
            self.notices.tell_at_once(self._notice(
                letter.name, letter.departure, clip.LOGOUT, "", (), web_events.gone(letter.name)))

    async def _taken_over_elsewhere(self, session: Session, letter: Presence) -> None:
        session.out.line(texts.logged_in_again(str(letter.info["host"])))
        await self._log_out(session, Departure.LOGGED_OUT)
        session.close()
        self._hear_node(letter)

    def start_job(self, job: Coroutine[Any, Any, object]) -> None:
        """A job the bus brought, run beside it (delivery does not wait)."""
        task = asyncio.ensure_future(job)
        self._node_jobs.add(task)
        task.add_done_callback(self._node_jobs.discard)

    async def keep_in_touch(self) -> None:
        """With a bus between nodes: this node's heartbeat (a roll call that asks no answer)
        every `NodeTimes.heartbeat` seconds, and the users of a node that fell silent forgotten."""
        while True:
            self.check_in()
            await asyncio.sleep(self.directory.times.heartbeat)

    def check_in(self) -> None:
        """One heartbeat: this node's; the players of a node out of reach told their match
        waits; the users of every node dead forgotten. A node silent while this node's own
        bus carries nothing is out of reach, not dead, until the outage lasts too long."""
        self.bus.tell_others(RollCall(self.node_id, answer=False, run=self.roster_log.run,
                                      version=self.roster_log.version))
        too_long = self.directory.bus_carries(self.bus.carrying)
        for node in self.directory.newly_out_of_reach():
            self._seats().out_of_reach(node)
        for node in self.directory.nodes() if too_long else self.directory.silent_nodes():
            for name in [u.name for u in self.directory if u.node == node]:
                self._remote_departed(Absence(node, name, texts.departed(
                    name, Departure.DROPPED)))
            self.directory.forget_node(node)
            self._seats().node_gone(node)

    def rejoined(self) -> None:
        """The bus (re)connected: what this node heard may be stale or missing, so it asks
        every node for the changes of its roster since the last it has (the whole roster
        from a node it does not know, or whose changes are not kept); its own number in
        the roll call has the others ask for theirs."""
        self.directory.bus_back()
        self.bus.tell_others(RollCall(
            self.node_id, run=self.roster_log.run, version=self.roster_log.version,
            known={node: list(have) for node, have in self.directory.versions.items()}))
        self._seats().resync()


def _fields(info: clip.WhoInfo) -> dict[str, object]:
    """`dataclasses.asdict(info)` without its deep copy of each field (a login's presence
    letter): every field of a WhoInfo is a plain value."""
    return dict(vars(info))
