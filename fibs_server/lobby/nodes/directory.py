"""The users of the other nodes, as this node knows them from their presence letters
(lobby/nodes/bus.py): what `who`, `whois`, a login's who-list and `tell` need of a user who is not
here. One node has an empty directory."""
from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Iterator

from fibs_server.lobby.nodes.bus import Absence, Presence
from fibs_server.protocol import clip

# A node not heard from for this long (its roll calls come every NODE_HEARTBEAT seconds) while
# the bus carries this node's letters is taken for dead, and its users for gone.
NODE_HEARTBEAT = 5.0
NODE_SILENCE = 3 * NODE_HEARTBEAT


@dataclasses.dataclass(frozen=True)
class NodeTimes:
    """How the nodes keep in touch (docs/NODES.md, "A bus outage"): a roll call every
    `heartbeat`; a node silent for `out_of_reach` has its players told that their match
    waits; one silent for `silence` while this node's bus carries letters is dead; an outage
    of this node's own bus longer than `outage_limit` forgets every node (tests: shorter)."""
    heartbeat: float = NODE_HEARTBEAT
    out_of_reach: float = 2 * NODE_HEARTBEAT
    silence: float = NODE_SILENCE
    outage_limit: float = 60.0


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
    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 times: NodeTimes = NodeTimes()) -> None:
        self.clock = clock
        self.times = times
        self.users: dict[str, RemoteUser] = {}  # lower-case name -> user, in arrival order
        self._heard_from: dict[str, float] = {}  # node -> when it last sent anything
        self._unreached: set[str] = set()  # nodes whose players were told they are out of reach
        # A node's silence counts from when this node's bus last came back at the earliest:
        # while it carried nothing, the others' silence said nothing of them.
        self._back_at = -math.inf
        self._outage_since: float | None = None  # this node's bus carries nothing since
        # node -> the run and number of its roster's last change applied here (lobby/nodes/
        # rosters.py): what this node asks the changes after
        self.versions: dict[str, tuple[str, int]] = {}

    def __len__(self) -> int:
        return len(self.users)

    def __iter__(self) -> Iterator[RemoteUser]:
        return iter(list(self.users.values()))

    def get(self, name: str) -> RemoteUser | None:
        return self.users.get(name.lower())

    def heard_from(self, node: str) -> bool:
        """`node` sent something: whether it was out of reach until now."""
        self._heard_from[node] = self.clock()
        if node in self._unreached:
            self._unreached.discard(node)
            return True
        return False

    def nodes(self) -> list[str]:
        return list(self._heard_from)

    def bus_carries(self, carrying: bool) -> bool:
        """At each heartbeat, whether this node's bus carries letters now: whether it has
        carried nothing for longer than `outage_limit` (every node is then forgotten)."""
        now = self.clock()
        if carrying:
            if self._outage_since is not None:
                self.bus_back()
            return False
        if self._outage_since is None:
            self._outage_since = now
        return now - self._outage_since > self.times.outage_limit

    def bus_back(self) -> None:
        """This node's bus carries letters again (or subscribed again): every node has
        `silence` from now to be heard from."""
        self._back_at = self.clock()
        self._outage_since = None

    def newly_out_of_reach(self) -> list[str]:
        """The nodes silent for `out_of_reach`, not said so before (until heard from)."""
        now = self.clock()
        unreached = [node for node, heard in self._heard_from.items()
                     if now - heard > self.times.out_of_reach and node not in self._unreached]
        self._unreached.update(unreached)
        return unreached

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

    def applied(self, node: str, run: str, version: int) -> None:
        """A numbered change of `node`'s roster was applied: the next one in order moves
        what this node has on (a gap waits for the node's heartbeat to be seen, and asked).
        A node first heard of at its first change is had whole from then on."""
        if version and self.versions.get(node, (run, 0)) == (run, version - 1):
            self.versions[node] = (run, version)

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
        """The nodes taken for dead: silent for `silence` while this node's bus carried
        letters (none during an outage of its own)."""
        if self._outage_since is not None:
            return []
        now = self.clock()
        return [node for node, heard in self._heard_from.items()
                if now - max(heard, self._back_at) > self.times.silence]

    def forget_node(self, node: str) -> list[str]:
        """Every user of `node`, forgotten: their names."""
        self._heard_from.pop(node, None)
        self._unreached.discard(node)
        self.versions.pop(node, None)
        gone = [key for key, user in self.users.items() if user.node == node]
        names = [self.users.pop(key).name for key in gone]
        return names

    def forget_everyone(self) -> None:
        """The bus was lost: what it told may be stale; a roll call tells it all again."""
        self.users.clear()
        self._heard_from.clear()
