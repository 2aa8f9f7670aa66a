"""Telling users things: what handlers tell other users wherever they are online (`tell`,
`tell_all`), letters for the other nodes (`tell_node`), the letters the bus brings to this
node's users, the notices of logins and logouts, and the administrators' moderation across
nodes (Attendance's `messenger`, lobby/presence/attendance.py)."""
from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Iterable
from typing import TYPE_CHECKING

from fibs_server.lobby.nodes.bus import (
    Bus,
    Letter,
    Moderated,
    ModerationAction,
    NodeLetter,
    UserLetter,
    notice,
)
from fibs_server.lobby.presence.fan_out import NoticeFanOut
from fibs_server.lobby.presence.notices import Notice
from fibs_server.lobby.presence.session import Session, wire_bytes, wire_text
from fibs_server.protocol import chat, clip
from fibs_server.protocol.texts import Departure
from fibs_server.protocol.views import web_events

if TYPE_CHECKING:
    from fibs_server.lobby.presence.chat_state import ChatState
    from fibs_server.lobby.presence.users import NodeSettings, Users

LogOut = Callable[[Session, Departure], Awaitable[None]]


class Messenger:
    """The ways to tell users things: through the bus to wherever they are online, to this
    node's users, and the notices of logins and logouts to everyone."""

    def __init__(self, settings: NodeSettings, bus: Bus, users: Users, chat: ChatState,
                 log_out: LogOut) -> None:
        self._settings = settings
        # What handlers tell other users goes through here (`tell`, `tell_all`), and what
        # this node tells the others (`tell_node`): this node's own, or one between nodes
        # (net/redis_bus.py).
        self.bus = bus
        self._users = users
        self._chat = chat  # gags and `waitfor`s
        self._log_out = log_out  # the lobby's logout (its hooks part a running match)
        self.notices = NoticeFanOut(users.online)  # of logins and logouts, to everyone

    @property
    def node_id(self) -> str:
        return self._settings.node_id

    def tell(self, names: Collection[str], letter: Letter) -> None:
        """`letter` to the users named, wherever they are online (`bus.Bus`)."""
        self.bus.tell(names, letter)

    def tell_all(self, letter: Letter) -> None:
        """`letter` to everyone online that it reaches."""
        self.bus.tell_all(letter)

    def announce(self, text: str) -> None:
        """The server's own line to everyone online here (a shutdown's countdown)."""
        for session in self._users.sessions_online():
            session.out.line(text)

    def report(self, text: str, exclude: Iterable[str] = ()) -> None:
        """A match start/end line to everyone whose `report` toggle is on."""
        self.tell_all(notice([text], audience="report", excluded=exclude, broadcast=True))

    def tell_node(self, letter: NodeLetter) -> None:
        """A letter for the other nodes (one named in it, or all)."""
        self.bus.tell_others(letter)

    def deliver(self, names: Collection[str] | None, letter: UserLetter) -> None:
        """A letter for this node's users: those of `names` online here (None: everyone online
        here) whom the letter reaches."""
        if names is None:
            listeners = self._users.sessions_online()
        else:
            listeners = [s for s in map(self._users.online.get, (n.lower() for n in names)) if s]
        gags = self._chat.gagging
        letter.deliver([listener for listener in listeners if letter.reaches(listener, gags)])

    def tell_waiters(self, name: str) -> list[str]:
        """Those here waiting for `name` (`waitfor`) are told they logged in, and wait no
        more: their names, in the order they logged in."""
        waiting = self._chat.waiting_for_login(name)
        if len(waiting) > 1:
            waiting = [key for key in self._users.online if key in waiting]
        told = []
        for key in waiting:
            waiter = self._users.online.get(key)
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
            self.notice_of(about, sentence, clip_number, who_block, told, event))

    @staticmethod
    def notice_of(about: str, sentence: str | None, clip_number: int, who_block: str,
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

    def moderate(self, name: str, action: ModerationAction, text: str = "") -> None:
        """An administrator's action on `name` where they are online: here (the caller acts
        itself) or on another node, which is told."""
        self.bus.tell_others(Moderated(self.node_id, name, action, text))

    async def throw_out(self, target: Session, text: str) -> None:
        """Log a user out as if they had typed `bye` (a running match is saved), after `text`."""
        self.tell([target.name], notice([text]))
        await self._log_out(target, Departure.LOGGED_OUT)
        target.close()
