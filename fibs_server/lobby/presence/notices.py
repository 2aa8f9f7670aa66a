"""Login and logout notices, coalesced: what each user online is owed of them, in order.

A login or logout is told to everyone else online (the sentence to those with `notify`, the
CLIP 7 or 8 line and the who-block to CLIP clients, a typed message to the pages that asked).
Told one notice at a time that is a pass over everyone per notice: 10,000 drops at once cost
10,000 x 10,000 / 2 sends. So notices are kept in a round (`NoticeRound`) and told in passes
over everyone (lobby/presence/attendance.py): each user gets, in one send, every notice of the
round they had not had, with exactly the lines one notice at a time would have given them, in
the same order. Most users are owed the same text as every other user of their kind (CLIP or
not, `notify` on or off, typed messages or not: `like_their_kind`), made once per kind and
pass. Only the subject of a notice, those it spares, and those who logged in or caught up
during the round have text of their own. The texts are bytes, encoded once when the notice
is made: a pass hands every user of a kind the same bytes object to write.

Pure: no session, no I/O. A user is a `Recipient`; what they are owed is a list of `Chunk`s."""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable


@dataclasses.dataclass(frozen=True, slots=True)
class Notice:
    """One login or logout (or another node's user's who-line), as formatted and encoded once
    for all: the texts are CR LF ended lines as they go on the wire (`wire_bytes`), so that
    telling 10,000 users writes the same bytes 10,000 times rather than encoding them anew
    for each. `about`: the lower-case name it is about (not told to them). `clip_text`: what
    a CLIP client with `notify` gets (the 7 or 8 line, then the who-block if any);
    `who_block`: what one without gets; `sentence`: what anyone else with `notify` gets, but
    those of `spared` (lower-case names told already, in other words); `event_line`: the
    typed message for the pages that asked for them (encoded, no line end)."""
    about: str
    clip_text: bytes
    who_block: bytes
    sentence: bytes
    spared: frozenset[str] = frozenset()
    event_line: str | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Recipient:
    """What decides which of a notice's texts a user gets."""
    key: str  # lower-case name
    clip: bool
    notified: bool  # the `notify` toggle
    wants_events: bool

    @property
    def kind(self) -> tuple[bool, bool, bool]:
        return self.clip, self.notified, self.wants_events


@dataclasses.dataclass(frozen=True, slots=True)
class Chunk:
    """Lines for the user's connection (CR LF ended, as they go on the wire), or one typed
    message (`event_line`, then no lines)."""
    wire: bytes = b""
    event_line: str | None = None


def text_for(notice: Notice, recipient: Recipient) -> bytes:
    """The lines `recipient` gets of `notice` (the event aside); b"" for none."""
    if recipient.key == notice.about:
        return b""
    if recipient.clip:
        return notice.clip_text if recipient.notified else notice.who_block
    if recipient.notified and recipient.key not in notice.spared:
        return notice.sentence
    return b""


def chunks_for(notices: Iterable[Notice], recipient: Recipient) -> list[Chunk]:
    """What `recipient` gets of `notices`, in their order: for each its lines, then its typed
    message. Adjacent lines are joined into one text (the same bytes, one send)."""
    chunks: list[Chunk] = []
    pending: list[bytes] = []
    for notice in notices:
        if recipient.key == notice.about:
            continue
        text = text_for(notice, recipient)
        if text:
            pending.append(text)
        if notice.event_line is not None and recipient.wants_events:
            if pending:
                chunks.append(Chunk(b"".join(pending)))
                pending = []
            chunks.append(Chunk(event_line=notice.event_line))
    if pending:
        chunks.append(Chunk(b"".join(pending)))
    return chunks


class NoticeRound:
    """The notices not yet told to everyone, numbered from 1 on (the numbers never restart).
    A user is owed the notices after the last one they had (`seen`); `told_up_to` ends a pass
    that brought everyone online to a number, and the notices up to it are dropped."""

    def __init__(self) -> None:
        self._notices: list[Notice] = []
        self._first = 1  # the number of self._notices[0]
        # Names some notice of the round treats apart (its subject, or spared): their texts
        # are their own. Grows with the round, emptied when it is told.
        self._apart: set[str] = set()

    @property
    def last(self) -> int:
        """The number of the newest notice (0: none yet)."""
        return self._first + len(self._notices) - 1

    def __len__(self) -> int:
        return len(self._notices)

    def add(self, notice: Notice) -> int:
        """Keep `notice`; its number."""
        self._notices.append(notice)
        self._apart.add(notice.about)
        self._apart.update(notice.spared)
        return self.last

    def owed(self, recipient: Recipient, seen: int, up_to: int | None = None) -> list[Chunk]:
        """What `recipient`, who had the notices up to `seen`, is owed of those up to `up_to`
        (the newest if None)."""
        end = self.last if up_to is None else min(up_to, self.last)
        start = max(seen + 1, self._first)
        return chunks_for(self._notices[start - self._first:end - self._first + 1], recipient)

    def like_their_kind(self, key: str, seen: int) -> bool:
        """Whether the user `key`, who had the notices up to `seen`, is owed what every other
        user of their kind is owed (`Recipient.kind`): none of the round's notices is about
        them or spares them, and they had none of it."""
        return seen == self._first - 1 and key not in self._apart

    def told_up_to(self, number: int) -> None:
        """Everyone online has had the notices up to `number`: they are dropped."""
        drop = max(0, min(number, self.last) - self._first + 1)
        if drop:
            del self._notices[:drop]
            self._first += drop
            self._apart = {name for notice in self._notices
                           for name in (notice.about, *notice.spared)}
