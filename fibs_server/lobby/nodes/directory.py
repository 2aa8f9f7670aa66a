"""The users of the other nodes, as this node knows them from their presence letters
(lobby/nodes/bus.py): what `who`, `whois`, a login's who-list and `tell` need of a user who is not
here. One node has an empty directory."""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator

from fibs_server.lobby.nodes.bus import Absence, Presence
from fibs_server.protocol import clip

# A node not heard from for this long (its roll calls come every NODE_HEARTBEAT seconds) is
# taken for dead, and its users for gone.
NODE_HEARTBEAT = 5.0
NODE_SILENCE = 3 * NODE_HEARTBEAT


@dataclasses.dataclass
class RemoteUser:
    info: clip.WhoInfo  # as of `heard_at`
    node: str
    away_message: str | None
    heard_at: float

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def login_time(self) -> int:
        return self.info.login_time

    def who_info(self, now: float) -> clip.WhoInfo:
        return dataclasses.replace(self.info,
                                   idle_seconds=self.info.idle_seconds + int(now - self.heard_at))

    def who_line(self, now: float) -> str:
        before_idle, after_idle = clip.who_info_around_idle(self.info)
        return clip.who_info_with_idle(before_idle, self.who_info(now).idle_seconds, after_idle)


class Directory:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.users: dict[str, RemoteUser] = {}  # lower-case name -> user, in arrival order
        self._heard_from: dict[str, float] = {}  # node -> when it last sent anything

    def __len__(self) -> int:
        return len(self.users)

    def __iter__(self) -> Iterator[RemoteUser]:
        return iter(list(self.users.values()))

    def get(self, name: str) -> RemoteUser | None:
        return self.users.get(name.lower())

    def heard_from(self, node: str) -> None:
        self._heard_from[node] = self.clock()

    def present(self, letter: Presence) -> RemoteUser:
        """The user as the letter shows them; ValueError if its fields are not a who-line's."""
        try:
            info = clip.WhoInfo(**letter.info)
        except TypeError as error:
            raise ValueError(f"not a user's presence: {error}") from error
        self.heard_from(letter.node)
        user = RemoteUser(info, letter.node, letter.away_message, self.clock())
        self.users[info.name.lower()] = user
        return user

    def absent(self, letter: Absence) -> bool:
        """Whether the user was known here as `letter.node`'s (a later login elsewhere wins)."""
        self.heard_from(letter.node)
        user = self.users.get(letter.name.lower())
        if user is None or user.node != letter.node:
            return False
        del self.users[letter.name.lower()]
        return True

    def forget(self, name: str) -> None:
        """The user logged in here: this node's session is who they are now."""
        self.users.pop(name.lower(), None)

    def silent_nodes(self) -> list[str]:
        now = self.clock()
        return [node for node, heard in self._heard_from.items() if now - heard > NODE_SILENCE]

    def forget_node(self, node: str) -> list[str]:
        """Every user of `node`, forgotten: their names."""
        self._heard_from.pop(node, None)
        gone = [key for key, user in self.users.items() if user.node == node]
        names = [self.users.pop(key).name for key in gone]
        return names

    def forget_everyone(self) -> None:
        """The bus was lost: what it told may be stale; a roll call tells it all again."""
        self.users.clear()
        self._heard_from.clear()
