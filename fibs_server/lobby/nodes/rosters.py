"""This node's roster as numbered changes (docs/NODES.md, "Rosters as changes"): each login,
logout and who-line change of a user here gets the next number of this run, so that a node
that missed some (a blip of its bus, a lost letter) asks for the changes since the last it
has, and is sent those alone, not everyone again."""
from __future__ import annotations

import collections
import secrets
from typing import Any

# The departures remembered, to tell a node that missed them: a node further behind than the
# oldest is sent the whole roster.
GONE_KEPT = 10_000


class RosterLog:
    def __init__(self, gone_kept: int = GONE_KEPT) -> None:
        self.run = secrets.token_hex(8)  # a restarted node's numbers start again
        self.version = 0
        self._gone_kept = gone_kept
        self._changed: dict[str, int] = {}  # lower-case name of a user here -> last change
        self._gone: collections.OrderedDict[str, int] = collections.OrderedDict()
        self._floor = 0  # departures up to this number may be forgotten

    def changed(self, name: str) -> int:
        """`name`, here, logged in or changed: the change's number."""
        self.version += 1
        key = name.lower()
        self._gone.pop(key, None)
        self._changed[key] = self.version
        return self.version

    def went(self, name: str) -> int:
        """`name` is here no more: the change's number."""
        self.version += 1
        key = name.lower()
        self._changed.pop(key, None)
        self._gone.pop(key, None)
        self._gone[key] = self.version
        if len(self._gone) > self._gone_kept:
            _, self._floor = self._gone.popitem(last=False)
        return self.version

    def since(self, known: list[Any] | None) -> int | None:
        """The number a node that has this roster up to `known` ([run, version]) can be sent
        the changes after; None: it must have the whole roster."""
        if known is None or known[0] != self.run or not self._floor <= known[1] <= self.version:
            return None
        return int(known[1])

    def changes_after(self, since: int) -> tuple[set[str], list[str]]:
        """The lower-case names of the users here changed after `since`, and of those gone."""
        return ({key for key, version in self._changed.items() if version > since},
                [key for key, version in self._gone.items() if version > since])
