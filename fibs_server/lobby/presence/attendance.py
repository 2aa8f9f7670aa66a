"""Who is online, here and on the other nodes: the comings and goings of this node's users,
the who-lines they are told and their pacing, and what the other nodes say of their users
(the heartbeat, roll calls and rosters). Who is where is `users` (lobby/presence/users.py);
the ways to tell users things are `messenger` (lobby/presence/messenger.py).

(Named so beside the bus's `Presence`, the letter that tells one user's presence.)"""
from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable, Collection, Coroutine
from typing import Any

from fibs_server.lobby.limits.who_pacing import WhoPacing
from fibs_server.lobby.nodes.bus import (
    Absence,
    Bus,
    Moderated,
    Presence,
    PresenceLetter,
    RollCall,
    Roster,
    UserLetter,
    notice,
)
from fibs_server.lobby.nodes.directory import Directory
from fibs_server.lobby.nodes.rosters import RosterLog
from fibs_server.lobby.ports.accounts import AccountsWithVisitors
from fibs_server.lobby.presence.chat_state import ChatState
from fibs_server.lobby.presence.messenger import LogOut, Messenger
from fibs_server.lobby.presence.session import Session, wire_text
from fibs_server.lobby.presence.users import NodeSettings, SeatsAcrossNodes, Users
from fibs_server.protocol import clip, texts
from fibs_server.protocol.texts import Departure
from fibs_server.protocol.views import web_events

log = logging.getLogger(__name__)


class Attendance:
    """Who is online: its two facets, who is where (`users`) and the ways to tell them things
    (`messenger`), and the comings and goings that change them, here and on the other nodes."""

    def __init__(self, settings: NodeSettings, bus: Bus, accounts: AccountsWithVisitors,
                 who_pacing: WhoPacing[Session], seats: Callable[[], SeatsAcrossNodes], log_out: LogOut,
                 chat: ChatState) -> None:
        self._settings = settings
        self.who_pacing = who_pacing
        self._seats = seats  # made after this, with it: asked for when used
        self._log_out = log_out  # the lobby's logout (its hooks part a running match)
        self._chat = chat  # mutes from the other nodes
        # Who is where: the other nodes' users among them, kept by what those nodes say here.
        self.users = Users(settings, accounts, seats, Directory(times=settings.node_times))
        self.messenger = Messenger(settings, bus, self.users, chat, log_out)
        # This node's users' changes, numbered for the other nodes.
        self.roster_log = RosterLog()
        self._node_jobs: set[asyncio.Future] = set()  # takeovers from other nodes

    @property
    def node_id(self) -> str:
        return self._settings.node_id

    # --- comings and goings ------------------------------------------------------------------

    def came_online(self, session: Session, name: str, who_line: str) -> None:
        """A login is online from now on: here, whatever another node last said of them."""
        self.users.online[name.lower()] = session
        self.messenger.notices.joined(session)
        self.users.directory.forget(name)
        self.users.who_list.set(name, who_line)
        self.users.most_online = max(self.users.most_online, len(self.users.online))

    def went_offline(self, name: str) -> None:
        self.messenger.notices.left(self.users.online.pop(name.lower()))
        self.users.who_list.remove(name)

    def deliver(self, names: Collection[str] | None,
                letter: UserLetter | Moderated | PresenceLetter) -> None:
        """A letter the bus brings to this node (the lobby routes the seats' and arranged
        matches' letters elsewhere): an administrator's action or what another node says of
        its users, here; a letter for users, to those of `names` online here (None: everyone
        online here) whom it reaches (`Messenger.deliver`)."""
        if isinstance(letter, Moderated):
            if letter.node != self.node_id:
                self._moderated(letter)
            return
        if isinstance(letter, PresenceLetter):
            self._from_another_node(letter)
            return
        self.messenger.deliver(names, letter)

    # --- moderation --------------------------------------------------------------------------

    def _moderated(self, letter: Moderated) -> None:
        target = self.users.online.get(letter.name.lower())
        if target is None:
            return
        if letter.action == "throw_out":
            self.start_job(self.messenger.throw_out(target, letter.text))
        else:
            self._chat.of(target.name).muted = letter.action == "mute"

    # --- the who-list ------------------------------------------------------------------------

    def broadcast_who(self, about: Session) -> None:
        """A changed user's CLIP 5 line (and the 6 that ends a block) to every CLIP client.
        A seat's user is told of by their home (their toggles are copied to the seat: a
        presence from here would say they were here)."""
        if self._seats().is_seat(about):
            return
        line = about.who.line()
        if self.users.online.get(about.name.lower()) is about:
            self.users.who_list.set(about.name, line)  # a login's who-list is current when paced
        if self.who_pacing.now_or_later(about, self._broadcast_held_who):
            self._tell_who(about, line)

    def _broadcast_held_who(self, about: Session) -> None:
        """The who-line that pacing held back, with the user's state as it is now."""
        if self.users.online.get(about.name.lower()) is about:
            line = about.who.line()
            self.users.who_list.set(about.name, line)
            self._tell_who(about, line)

    def _tell_who(self, about: Session, line: str) -> None:
        # Here as a who-line; to the other nodes as the presence they keep and tell likewise.
        self.messenger.deliver(None, notice(clip.who_block([line]), web_events.presence(about.who.info()),
                                            audience="clip", broadcast=True))
        self.messenger.tell_node(self.presence_of(about))

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
            for s in self.users.sessions_online() if changed is None or s.name.lower() in changed],
            log.run, log.version, since, gone, to_node)

    def leave_all(self) -> None:
        """The server stops: the other nodes are told in one letter that nobody is here."""
        self.messenger.tell_node(Roster(self.node_id, [], self.roster_log.run,
                                        self.roster_log.version))

    def heard_from(self, node: str) -> None:
        """Any letter from another node: it is in reach. If it was out of reach, its matches go
        on and their players are told so now, before its letter is read (a match's letters can
        come before its next roll call, and the match must not end unsaid)."""
        if self.users.directory.heard_from(node):
            self._seats().back_in_reach(node)

    def _from_another_node(self, letter: PresenceLetter) -> None:
        """What another node says of its users: the directory, and this node's users told as
        they are of a login, a logout or a who-line here."""
        if letter.node == self.node_id:
            return
        self.heard_from(letter.node)
        try:
            self._hear_node(letter)
        except (ValueError, KeyError, TypeError, AttributeError):
            log.exception("a letter from node %s was not understood: %r", letter.node, letter)

    def _hear_node(self, letter: PresenceLetter) -> None:
        if isinstance(letter, RollCall):  # heard from already (`_from_another_node`)
            if letter.answer and letter.to_node in (None, self.node_id):
                self._answer_roll_call(letter)
            self._check_version(letter)
        elif isinstance(letter, Roster):
            if letter.to_node in (None, self.node_id):
                self._roster_heard(letter)
        elif isinstance(letter, Presence):
            self.users.directory.applied(letter.node, letter.run, letter.version)
            here = self.users.online.get(str(letter.info["name"]).lower())
            if here is not None:
                if letter.arrival is not None and not here.is_bot:
                    # Logged in on another node: that login is who they are now.
                    self.start_job(self._taken_over_elsewhere(here, letter))
                return
            user = self.users.directory.present(letter)
            now = self.users.directory.clock()  # what the users' heard_at is on
            line = user.who_line(now)
            self.users.who_list.set(user.name, line)
            self.messenger.notices.tell_at_once(self.messenger.notice_of(
                user.name, letter.arrival, clip.LOGIN, wire_text(clip.who_block([line])),
                (), web_events.presence(user.who_info(now))))
            if letter.arrival is not None:
                self.messenger.tell_waiters(user.name)
                self._seats().arrived(user.name, letter.node)
        else:
            self.users.directory.applied(letter.node, letter.run, letter.version)
            self._remote_departed(letter)

    def _answer_roll_call(self, letter: RollCall) -> None:
        """The changes the asker lacks of this node's roster (nothing if it lacks none), or
        the whole roster if they are not kept; to the asker alone."""
        since = self.roster_log.since(letter.known.get(self.node_id))
        if since is None or since < self.roster_log.version:
            self.messenger.tell_node(self._roster(since, to_node=letter.node))

    def _check_version(self, letter: RollCall) -> None:
        """A node's roster moved on past what this node has of it (a change lost, or it
        came back with a new run): it is asked for what this node lacks."""
        if not letter.version and not letter.run:
            return
        have = self.users.directory.versions.get(letter.node)
        if have != (letter.run, letter.version):
            self.messenger.tell_node(RollCall(
                self.node_id, known={} if have is None else {letter.node: list(have)},
                to_node=letter.node))

    def _roster_heard(self, letter: Roster) -> None:
        """A roster: the whole (users missing from it went), or changes after a number this
        node has. Only the who-lines that changed are told here."""
        have = self.users.directory.versions.get(letter.node)
        if letter.since is not None and (have is None or have[0] != letter.run
                                         or have[1] < letter.since):
            return  # changes after what this node does not have: the next heartbeat asks again
        gone = ({user.name for user in self.users.directory if user.node == letter.node}
                if letter.since is None else set())
        changed = []
        for entry in letter.users:
            name = entry["info"]["name"]
            gone.discard(name)
            if name.lower() in self.users.online:
                continue
            before = self.users.directory.get(name)
            user = self.users.directory.present(Presence(letter.node, entry["info"],
                                                         entry.get("away_message")))
            if before is None or before.node != user.node or before.away_message != \
                    user.away_message or dataclasses.replace(before.info, idle_seconds=0) != \
                    dataclasses.replace(user.info, idle_seconds=0):
                changed.append(user)
        for name in [*gone, *letter.gone]:
            self._remote_departed(Absence(letter.node, name,
                                          texts.departed(name, Departure.LOGGED_OUT)))
        self.users.directory.versions[letter.node] = (letter.run, letter.version)
        if changed:
            now = self.users.directory.clock()  # what the users' heard_at is on
            lines = [user.who_line(now) for user in changed]
            for user, line in zip(changed, lines):
                self.users.who_list.set(user.name, line)
            # To this node's users only: the other nodes heard the roster themselves.
            self.messenger.deliver(None, notice(clip.who_block(lines), audience="clip", broadcast=True))

    def _remote_departed(self, letter: Absence) -> None:
        self._seats().departed(letter)
        if self.users.directory.absent(letter):
            self.users.who_list.remove(letter.name)
            self.messenger.notices.tell_at_once(self.messenger.notice_of(
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
            await asyncio.sleep(self.users.directory.times.heartbeat)

    def check_in(self) -> None:
        """One heartbeat: this node's; the players of a node out of reach told their match
        waits; the users of every node dead forgotten. A node silent while this node's own
        bus carries nothing is out of reach, not dead, until the outage lasts too long."""
        self.messenger.tell_node(RollCall(self.node_id, answer=False, run=self.roster_log.run,
                                          version=self.roster_log.version))
        directory = self.users.directory
        too_long = directory.bus_carries(self.messenger.bus.carrying)
        for node in directory.newly_out_of_reach():
            self._seats().out_of_reach(node)
        for node in directory.nodes() if too_long else directory.silent_nodes():
            for name in [u.name for u in directory if u.node == node]:
                self._remote_departed(Absence(node, name, texts.departed(
                    name, Departure.DROPPED)))
            directory.forget_node(node)
            self._seats().node_gone(node)

    def rejoined(self) -> None:
        """The bus (re)connected: what this node heard may be stale or missing, so it asks
        every node for the changes of its roster since the last it has (the whole roster
        from a node it does not know, or whose changes are not kept); its own number in
        the roll call has the others ask for theirs."""
        self.users.directory.bus_back()
        self.messenger.tell_node(RollCall(
            self.node_id, run=self.roster_log.run, version=self.roster_log.version,
            known={node: list(have) for node, have in self.users.directory.versions.items()}))
        self._seats().resync()


def _fields(info: clip.WhoInfo) -> dict[str, object]:
    """`dataclasses.asdict(info)` without its deep copy of each field (a login's presence
    letter): every field of a WhoInfo is a plain value."""
    return dict(vars(info))
