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
        # Lower-case name -> the lower-case names that wait for their login (`waitfor`), in the
        # order they asked: a login looks its waiters up rather than asking everyone online.
        self._waiters: dict[str, dict[str, None]] = {}

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

    def wait_for(self, waiter: str, name: str) -> None:
        """`waiter` waits for `name` (an account's name as spelt) to log in (`waitfor`)."""
        self.of(waiter).waiting_for.add(name)
        self._waiters.setdefault(name.lower(), {})[waiter.lower()] = None

    def waiting_for_login(self, name: str) -> list[str]:
        """The lower-case names of those who waited for `name` to log in, in the order they
        asked; they wait no more."""
        found = []
        for waiter in self._waiters.pop(name.lower(), {}):
            chatter = self._chatters.get(waiter)
            if chatter is not None and name in chatter.waiting_for:
                chatter.waiting_for.discard(name)
                found.append(waiter)
        return found

    def forget(self, name: str) -> None:
        """`name` logged out, or logs in afresh."""
        chatter = self._chatters.pop(name.lower(), None)
        self.gagging.pop(name.lower(), None)
        for awaited in chatter.waiting_for if chatter is not None else ():
            waiters = self._waiters.get(awaited.lower())
            if waiters is not None:
                waiters.pop(name.lower(), None)
                if not waiters:
                    del self._waiters[awaited.lower()]
