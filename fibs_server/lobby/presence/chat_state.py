"""Each user's chat here, by lower-case name: whom they gag and blind, whose login they wait
for, whether an administrator muted them, and their recent shouts. A login starts afresh (the
gags, blinds and mute are then loaded from the store: `chat_commands`); a logout forgets it."""
from __future__ import annotations

import collections
import dataclasses
from collections.abc import Collection


@dataclasses.dataclass
class Chatter:
    """One user's chat (its sets changed in place: `ChatState.gagging` holds `gagged`)."""
    gagged: set[str] = dataclasses.field(default_factory=set)  # lower-case names not heard
    blinded: set[str] = dataclasses.field(default_factory=set)  # lower-case: may not watch
    waiting_for: set[str] = dataclasses.field(default_factory=set)  # `waitfor`'s names
    # Whether an administrator muted them (their shouts reach nobody); None until the
    # login's chat hook has read the stored mute: an admin's mute or unmute given while it
    # read is newer than what it read, and stays.
    muted: bool | None = None
    shout_times: collections.deque[float] = dataclasses.field(
        default_factory=collections.deque)  # `shout_window`'s, the oldest first


NO_ONE: frozenset[str] = frozenset()


class ChatState:
    def __init__(self) -> None:
        self._chatters: dict[str, Chatter] = {}
        # Lower-case name -> the lower-case names they gag (each chatter's own set): a shout
        # asks for every listener's, one lookup each (`bus.Said.reaches`).
        self.gagging: dict[str, set[str]] = {}

    def of(self, name: str) -> Chatter:
        """`name`'s chat, made empty if they have none yet."""
        lower = name.lower()
        chatter = self._chatters.get(lower)
        if chatter is None:
            chatter = self._chatters[lower] = Chatter()
            self.gagging[lower] = chatter.gagged
        return chatter

    def gags(self, name: str) -> Collection[str]:
        """The lower-case names `name` gags."""
        return self.gagging.get(name.lower(), NO_ONE)

    def blinds(self, name: str) -> Collection[str]:
        """The lower-case names `name` does not let watch them."""
        chatter = self._chatters.get(name.lower())
        return NO_ONE if chatter is None else chatter.blinded

    def muted(self, name: str) -> bool:
        chatter = self._chatters.get(name.lower())
        return chatter is not None and bool(chatter.muted)

    def get(self, name: str) -> Chatter | None:
        return self._chatters.get(name.lower())

    def forget(self, name: str) -> None:
        """`name` logged out, or logs in afresh."""
        self._chatters.pop(name.lower(), None)
        self.gagging.pop(name.lower(), None)
