"""Quick play: players seek a match (its length and terms, a rating range) and the server
pairs them at once, oldest first, widening each range as it waits (docs/PROTOCOL.md, "Quick
play"); who pairs with whom is `seek_pairing`'s pure function.

Across nodes (docs/NODES.md): every node keeps every node's seeks, told in `Seeking` and
`SeekEnded` letters; only the node holding the `quick_play` lease pairs (`begin`/`end`), so a
seek is paired once, wherever its player is. It asks the others for their seeks again when it
begins (`SeeksAsked`). A pair's match is arranged as a tournament's is
(lobby/play/arranged_matches.py): on its inviter's node, joined from the invitee's.

Each node tells its own seekers: their confirmation, the bot offered once nobody came within
`bot_after` seconds (on the lobby's clock), and the end of their seek. A pair's match that does
not start puts its seekers' seeks back: the pairing node knows at once when both are at home
there; otherwise each home gives up waiting for it after `start_wait` seconds."""
from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from fibs_server.lobby.clock import Alarm, Clock
from fibs_server.lobby.limits.token_bucket import TokenBuckets
from fibs_server.lobby.nodes.bus import SeekEnded, Seeking, SeekLetter, SeeksAsked
from fibs_server.lobby.play.running_match import Invitation
from fibs_server.lobby.presence.attendance import Attendance
from fibs_server.lobby.presence.session import Session
from fibs_server.lobby.services.seek_pairing import Seek, Widening, next_widening, pairs
from fibs_server.protocol.match_rules import MatchTerms, terms_fields, terms_from_fields
from fibs_server.protocol.views import web_events
from fibs_server.protocol.wording import quick_play_texts

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class QuickPlayConfig:
    widening: Widening = Widening()
    bot_after: float = 30.0  # seconds a seek waits before a bot is offered
    # Seeks a user may make (a new seek replaces the last): `seek_burst` at once, then
    # `seeks_per_second`. Each one tells every node and runs a pairing pass.
    seek_burst: float = 5.0
    seeks_per_second: float = 0.5
    # The least time between two pairing passes that a widening runs: a widened range is
    # served up to this late, and however many seeks wait (each widening at its own moment)
    # the clock runs one pass a second at most.
    pass_gap: float = 1.0
    # Seconds a paired seeker's home waits for a match started on other nodes (a few letters
    # on the bus) before it takes it for one that could not start, and the seek goes on.
    start_wait: float = 10.0


@dataclasses.dataclass(frozen=True)
class Entry:
    """A seek as every node keeps it: `node` is its player's home."""
    seek: Seek
    node: str
    length: int
    terms: MatchTerms


class QuickPlay:
    """Every node's seeks, this node's seekers told, and (while this node holds the lease)
    the pairing."""

    def __init__(self, people: Attendance, busy: Callable[[Session], bool], clock: Clock,
                 node_id: str, config: QuickPlayConfig,
                 arrange: Callable[[Invitation], Coroutine[Any, Any, object]],
                 bots_offered: Callable[[], bool]) -> None:
        self._people = people  # who is online here and elsewhere; the bus to the other nodes
        self._busy = busy  # whether a session here plays (or is starting) a match
        self._clock = clock
        self._node_id = node_id
        self.config = config
        self._arrange = arrange  # a pair's match, started where its players are
        self._bots_offered = bots_offered  # whether `bot` plays a bot on this server
        self._book: dict[str, Entry] = {}  # lower-case name -> their seek, any node's
        self._offers: dict[str, Alarm] = {}  # this node's seekers' bot offers to come
        self._offered: set[str] = set()  # ... and made
        self._starts: dict[str, Alarm] = {}  # this node's paired seekers' matches, awaited
        self._seeks = TokenBuckets[str](config.seek_burst, config.seeks_per_second)
        self._pairing = False  # this node holds the lease
        self._widening: Alarm | None = None

    # --- this node's seekers -------------------------------------------------------------

    def seek_wait(self, session: Session) -> float:
        """0.0, counting a seek, if `session` may seek now; else the seconds to wait."""
        return self._seeks.try_take(session.name.lower(), self._clock.time())

    def seek(self, session: Session, length: int, terms: MatchTerms,
             rating_range: float | None) -> None:
        """`session` (free to play) seeks this match: a seek they had is replaced, and waits
        from now."""
        assert session.account is not None
        key = session.name.lower()
        self._forget(key)
        entry = Entry(Seek(session.name, session.account.rating, self._clock.time(),
                           (length, terms), rating_range), self._node_id, length, terms)
        self._book[key] = entry
        self._people.messenger.tell_node(self._letter(entry))
        session.out.line(quick_play_texts.seeking(length, terms, rating_range))
        session.out.event(web_events.quick_play(length, terms, rating_range))
        if self._bots_offered():
            self._offers[key] = self._clock.call_at(entry.seek.since + self.config.bot_after,
                                                    lambda: self._offer_bot(entry))
        self._pair()

    def is_seeking(self, session: Session) -> bool:
        return self._home_seek(session.name.lower())

    def cancel(self, session: Session) -> None:
        """`session` stops seeking (told), if they were."""
        if self._end_here(session.name):
            session.out.line(quick_play_texts.CANCELLED)
            session.out.event(web_events.quick_play())

    def gone(self, name: str) -> None:
        """`name` logged out here: their seek ends (and a match it was paired for is awaited
        no more)."""
        self._awaited_no_more(name)
        self._end_here(name)

    def playing(self, session: Session) -> None:
        """`session` plays a match now (any match, here or on another node): their seek ends,
        and they are told; a match they were paired for is awaited no more."""
        self._awaited_no_more(session.name)
        if self._end_here(session.name):
            self._tell_stopped(session)

    def _awaited_no_more(self, name: str) -> None:
        alarm = self._starts.pop(name.lower(), None)
        if alarm is not None:
            alarm.cancel()

    @staticmethod
    def _tell_stopped(session: Session) -> None:
        session.out.line(quick_play_texts.STOPPED_PLAYING)
        session.out.event(web_events.quick_play())

    def _end_here(self, name: str) -> bool:
        """The seek of `name`, at home here, ends (the other nodes told); whether there was
        one."""
        key = name.lower()
        if not self._home_seek(key):
            return False
        self._forget(key)
        self._people.messenger.tell_node(SeekEnded(self._node_id, name))
        return True

    def _home_seek(self, key: str) -> bool:
        """Whether `key` (a lower-case name) seeks, at home here."""
        entry = self._book.get(key)
        return entry is not None and entry.node == self._node_id

    def _forget(self, key: str) -> None:
        """`key`'s seek gone from this node's book, whichever node's it was."""
        self._book.pop(key, None)
        self._offered.discard(key)
        self._awaited_no_more(key)
        alarm = self._offers.pop(key, None)
        if alarm is not None:
            alarm.cancel()

    def _offer_bot(self, entry: Entry) -> None:
        key = entry.seek.key
        self._offers.pop(key, None)
        session = self._people.users.online.get(key)
        # The bots may have moved to another node since the seek (their lease).
        if self._book.get(key) is not entry or session is None or not self._bots_offered():
            return
        self._offered.add(key)
        session.out.line(quick_play_texts.bot_offer(entry.length, entry.terms))
        self.show(session)

    def show(self, session: Session) -> None:
        """To a page (again, after a reload): the seek of `session`'s user, if they seek."""
        key = session.name.lower()
        entry = self._book.get(key)
        if entry is not None and entry.node == self._node_id:
            session.out.event(web_events.quick_play(entry.length, entry.terms,
                                                    entry.seek.rating_range,
                                                    bot_offered=key in self._offered))

    def _letter(self, entry: Entry) -> Seeking:
        seek = entry.seek
        return Seeking(self._node_id, seek.name, seek.rating, entry.length,
                       terms_fields(entry.terms), seek.rating_range,
                       max(0.0, self._clock.time() - seek.since))

    def seeks(self) -> list[Entry]:
        """Every node's seeks as this node knows them, the oldest first."""
        return sorted(self._book.values(), key=lambda entry: (entry.seek.since, entry.seek.key))

    # --- what the other nodes say --------------------------------------------------------

    def receive(self, letter: SeekLetter) -> None:
        if letter.node == self._node_id:
            return
        if isinstance(letter, SeeksAsked):
            for entry in list(self._book.values()):
                if entry.node == self._node_id:
                    self._people.messenger.tell_node(self._letter(entry))
            return
        key = letter.name.lower()
        if isinstance(letter, SeekEnded):
            ended = self._book.get(key)
            if ended is None:
                return
            self._forget(key)
            if ended.node == self._node_id:  # ours, ended by the pairing node
                if letter.opponent is not None:
                    self._tell_paired(key, letter.opponent)
                    self._await_start(ended, letter.opponent)
                elif (session := self._people.users.online.get(key)) is not None:
                    self._tell_stopped(session)
            return
        if self._home_seek(key):
            return  # the user is here: a letter from a node that thought otherwise is late
        try:
            terms = terms_from_fields(letter.terms)
        except (KeyError, TypeError, ValueError):
            log.exception("a seek from node %s was not understood", letter.node)
            return
        now = self._clock.time()
        self._book[key] = Entry(Seek(letter.name, float(letter.rating),
                                     now - max(0.0, float(letter.waited)),
                                     (letter.length, terms), letter.rating_range),
                                letter.node, letter.length, terms)
        self._pair()

    def _tell_paired(self, key: str, opponent: str) -> None:
        session = self._people.users.online.get(key)
        if session is not None:
            session.out.line(quick_play_texts.paired(opponent))
            session.out.event(web_events.quick_play(opponent=opponent))

    def _await_start(self, entry: Entry, opponent: str) -> None:
        """`entry`'s seeker, at home here, was paired with `opponent` and their match starts
        on other nodes: if they play nothing by `start_wait`, it did not start (a node on the
        way found a player busy, or fell silent), and their seek goes on."""
        key = entry.seek.key
        self._starts[key] = self._clock.call_at(
            self._clock.time() + self.config.start_wait,
            lambda: self._not_started(entry, opponent))

    def _not_started(self, entry: Entry, opponent: str) -> None:
        self._starts.pop(entry.seek.key, None)
        session = self._free_session(entry)
        if session is not None and self._restore(entry):
            self._seek_on(entry, session, opponent)
            self._pair()

    def _seek_on(self, entry: Entry, session: Session, opponent: str) -> None:
        """`entry`, back in the book after its match with `opponent` could not start: the
        other nodes and its seeker told."""
        self._people.messenger.tell_node(self._letter(entry))
        session.out.line(quick_play_texts.not_started(opponent))
        self.show(session)

    # --- the pairing (the lease's duty) --------------------------------------------------

    async def begin(self) -> None:
        self._pairing = True
        self._people.messenger.tell_node(SeeksAsked(self._node_id))
        self._pair()

    async def end(self) -> None:
        self._pairing = False
        if self._widening is not None:
            self._widening.cancel()
            self._widening = None

    def _pair(self) -> None:
        """Every pair the seeks make now, started; then an alarm for the next widening."""
        if not self._pairing:
            return
        now = self._clock.time()
        ready = [entry.seek for entry in list(self._book.values()) if self._free(entry)]
        for older, younger in pairs(ready, now, self.config.widening):
            first, second = self._book[older.key], self._book[younger.key]
            self._forget(older.key)
            self._forget(younger.key)
            if first.node == second.node == self._node_id:
                self._people.start_job(self._start_here(first, second))
                continue
            for entry, opponent in ((first, younger.name), (second, older.name)):
                self._people.messenger.tell_node(SeekEnded(self._node_id, entry.seek.name, opponent))
                if entry.node == self._node_id:
                    self._tell_paired(entry.seek.key, opponent)
                    self._await_start(entry, opponent)
            self._people.start_job(self._arrange(self._invitation(first, second)))
        if self._widening is not None:
            self._widening.cancel()
        due = next_widening(self._book_seeks(), now, self.config.widening) \
            if len(self._book) > 1 else None
        self._widening = None if due is None else self._clock.call_at(
            max(due, now + self.config.pass_gap), self._pair)

    @staticmethod
    def _invitation(first: Entry, second: Entry) -> Invitation:
        return Invitation(first.seek.name, second.seek.name, first.length, terms=first.terms,
                          arranged=True)

    async def _start_here(self, first: Entry, second: Entry) -> None:
        """A pair whose players are both at home here: told they are paired only if both are
        still free, and their match then started at once. Whoever is no longer free has their
        seek ended (told if they are here); a seek whose match could not start goes on (its
        player told), and so does the seek of a player whose opponent was no longer free, as
        if never paired."""
        pair = ((first, second), (second, first))
        free = [self._free_session(entry) for entry in (first, second)]
        if any(session is None for session in free):
            for (entry, _), session in zip(pair, free):
                if session is None:
                    self._people.messenger.tell_node(SeekEnded(self._node_id, entry.seek.name))
                    if (present := self._people.users.online.get(entry.seek.key)) is not None:
                        self._tell_stopped(present)
                else:
                    self._restore(entry)
            self._pair()
            return
        for entry, other in pair:
            self._people.messenger.tell_node(SeekEnded(self._node_id, entry.seek.name, other.seek.name))
            self._tell_paired(entry.seek.key, other.seek.name)
        try:
            started = await self._arrange(self._invitation(first, second))
        except Exception:  # a store fault: it decides nothing, the seeks go on
            log.exception("the quick play match of %s and %s did not start",
                          first.seek.name, second.seek.name)
            started = None
        if started is not None:
            return
        for entry, other in pair:
            session = self._free_session(entry)
            if session is not None and self._restore(entry):
                self._seek_on(entry, session, other.seek.name)
        if self._pairing:
            # Paired again on the next pass, not at once: a fault that lasts costs one
            # attempt a `pass_gap`.
            if self._widening is not None:
                self._widening.cancel()
            self._widening = self._clock.call_at(self._clock.time() + self.config.pass_gap,
                                                 self._pair)

    def _free_session(self, entry: Entry) -> Session | None:
        """The seeker's session if they are here and may play now."""
        session = self._people.users.online.get(entry.seek.key)
        return session if session is not None and not self._busy(session) else None

    def _restore(self, entry: Entry) -> bool:
        """`entry`'s seek back in the book, unless its player seeks anew already; whether it
        is."""
        key = entry.seek.key
        if key in self._book:
            return False
        self._book[key] = entry
        return True

    def _book_seeks(self) -> list[Seek]:
        return [entry.seek for entry in self._book.values()]

    def _free(self, entry: Entry) -> bool:
        """Whether the seeker may be paired now: free here, or (another node's) known there
        and playing nobody. Another node's seek is dropped when its player is gone from the
        directory (their node fell silent), or ended when they play."""
        key = entry.seek.key
        if entry.node == self._node_id:
            return self._free_session(entry) is not None
        user = self._people.users.directory.get(entry.seek.name)
        if user is None or user.node != entry.node:
            del self._book[key]
            return False
        if user.info.opponent is not None:
            # A match on another node than their home's (their home saw no match start):
            # the seek ends there too.
            del self._book[key]
            self._people.messenger.tell_node(SeekEnded(self._node_id, entry.seek.name))
            return False
        return True
