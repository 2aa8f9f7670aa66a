"""The passes that tell login and logout notices to everyone online (what each is owed:
lobby/presence/notices.py).

A notice is kept, and a pass over everyone online sends each user, in one send, all the
notices they are owed. Passes are paced: after one that took t seconds the next starts no
sooner than t x (1 / PASS_SHARE - 1) later, so that at most PASS_SHARE of the event loop's
time goes to them, nor sooner than PASS_HOLD_PER_USER per user online, and the notices that
come meanwhile (a burst of logins, a storm of drops) share the next pass. A pass yields to
the event loop every FAN_OUT_CHUNK users. Anything else sent to a user who is owed notices
sends those first (`Session` asks `catch_up`), so that every user's lines come in the order
in which they happened."""
from __future__ import annotations

import asyncio
import logging
import time

from fibs_server.lobby.presence.notices import Chunk, Notice, NoticeRound, Recipient
from fibs_server.lobby.presence.session import Session

log = logging.getLogger(__name__)

FAN_OUT_CHUNK = 1000  # users a pass serves between yields to the event loop
PASS_SHARE = 0.25  # of the event loop's time, at most, spent in passes
# And a pass follows the last one no sooner than this per user online, at most PASS_HOLD_MAX
# seconds: a pass costs ~2-5 us per user, so logins coming at a few a second (each alone in
# its pass) cost 10-20 ms each at 10,000 online; held, those of a second share one. A login
# or logout after a quiet spell is told at once. As long as the batcher holds a broadcast
# round (net/telnet.py, BROADCAST_HOLD_PER_CONNECTION): what a pass sends waits for the next
# round anyway: held a tenth as long, there was a pass for each login of a burst at 500
# online, queuing text for the same writes again and again.
PASS_HOLD_PER_USER = 0.0005
PASS_HOLD_MAX = 1.0


class NoticeFanOut:
    """The notices of logins and logouts to everyone online (`online`: lower-case name ->
    session, as Attendance keeps it)."""

    def __init__(self, online: dict[str, Session]) -> None:
        self._online = online
        self._round = NoticeRound()
        self._scheduled = False  # a pass is under way or has its callback set
        self._due = 0.0  # loop time before which no pass starts
        self._next_done: asyncio.Future[None] | None = None  # the end of the next pass
        # The pass under way: whom it serves, how far it got, up to which notice, its time.
        self._serving: list[tuple[str, Session]] = []
        self._position = 0
        self._up_to = 0
        self._spent = 0.0
        self._done: asyncio.Future[None] | None = None
        self._by_kind: dict[tuple[bool, bool, bool], list[Chunk]] = {}  # in this pass

    @property
    def last(self) -> int:
        """The newest notice's number: a session that had it is owed nothing."""
        return self._round.last

    def joined(self, session: Session) -> None:
        """`session` is online from now on: owed the notices that come from now on."""
        session.out.notices, session.out.notices_seen = self, self._round.last

    @staticmethod
    def left(session: Session) -> None:
        session.out.notices = None

    def tell(self, notice: Notice) -> None:
        """`notice` to everyone online it is for, in the next pass."""
        self._round.add(notice)
        self._schedule()

    async def tell_and_wait(self, notice: Notice) -> None:
        """`tell`, and wait until the pass that tells it is done."""
        self.tell(notice)
        if self._next_done is None:
            self._next_done = asyncio.get_running_loop().create_future()
        await asyncio.shield(self._next_done)

    def catch_up(self, session: Session, up_to: int | None = None) -> None:
        """What `session` is owed of the notices up to `up_to` (the newest if None), sent."""
        key = session.name.lower()
        out = session.out
        recipient = Recipient(key, out.clip, session.prefs.toggle("notify"), out.wants_events)
        chunks = self._round.owed(recipient, out.notices_seen, up_to)
        out.notices_seen = max(out.notices_seen, self.last if up_to is None else up_to)
        out.owed(chunks)

    def tell_at_once(self, notice: Notice) -> None:
        """`notice` to everyone online it is for, now, in a pass of its own (what another
        node says of its users is told as it is heard)."""
        self._round.add(notice)
        up_to = self._round.last
        by_kind: dict[tuple[bool, bool, bool], list[Chunk]] = {}
        for key, session in list(self._online.items()):
            self._serve(key, session, up_to, by_kind)
        self._round.told_up_to(up_to)

    # --- the passes ------------------------------------------------------------------------

    def _schedule(self) -> None:
        if not self._scheduled:
            self._scheduled = True
            loop = asyncio.get_running_loop()
            loop.call_at(max(loop.time(), self._due), self._start_pass)

    def _start_pass(self) -> None:
        self._up_to = self._round.last
        self._serving = list(self._online.items())
        self._position, self._spent = 0, 0.0
        self._done, self._next_done = self._next_done, None
        self._by_kind.clear()
        self._serve_a_chunk()

    def _serve(self, key: str, session: Session, up_to: int,
               by_kind: dict[tuple[bool, bool, bool], list[Chunk]]) -> None:
        """`session` (online as `key`) sent what it is owed of the notices up to `up_to`;
        `by_kind`: what the users like their kind are owed, as the pass made it."""
        seen = session.out.notices_seen
        # Gone meanwhile, or caught up by something else sent to them.
        if session.out.notices is not self or seen >= up_to:
            return
        try:
            if self._round.like_their_kind(key, seen):
                assert session.account is not None
                kind = (session.out.clip, session.account.toggles["notify"],
                        session.out.event_sink is not None)
                chunks = by_kind.get(kind)
                if chunks is None:
                    chunks = by_kind[kind] = self._round.owed(Recipient(key, *kind), seen, up_to)
                session.out.notices_seen = up_to
                if chunks:
                    session.out.owed(chunks)
            else:
                self.catch_up(session, up_to)
        except Exception:  # one session's failure must not stop everyone's notices
            log.exception("telling %s of logins and logouts failed", session.name)

    def _serve_a_chunk(self) -> None:
        started = time.perf_counter()
        end = min(self._position + FAN_OUT_CHUNK, len(self._serving))
        for key, session in self._serving[self._position:end]:
            self._serve(key, session, self._up_to, self._by_kind)
        self._position = end
        self._spent += time.perf_counter() - started
        loop = asyncio.get_running_loop()
        if end < len(self._serving):
            loop.call_soon(self._serve_a_chunk)
            return
        # Everyone online has had the notices up to `up_to`: those who came online during
        # the pass were owed only later ones.
        self._round.told_up_to(self._up_to)
        if self._done is not None:
            self._done.set_result(None)
            self._done = None
        self._due = loop.time() + max(self._spent * (1 / PASS_SHARE - 1), min(
            PASS_HOLD_MAX, len(self._serving) * PASS_HOLD_PER_USER))
        self._serving = []
        self._scheduled = False
        if self._round.last > self._up_to:
            self._schedule()
