"""Who is where: this node's sessions by name, the other nodes' users (the directory), the
who-list a login gets, and the lookups the commands and the match's life ask of them
(Attendance's `users`, lobby/presence/attendance.py)."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from fibs_server.lobby.ports.accounts import Account, AccountsWithVisitors
from fibs_server.lobby.presence.session import Session, Stay
from fibs_server.lobby.presence.who_list import WhoList

if TYPE_CHECKING:
    from fibs_server.lobby.nodes.bus import Absence
    from fibs_server.lobby.nodes.directory import Directory, NodeTimes


class SeatsAcrossNodes(Protocol):
    """What presence needs of the players at matches across nodes (lobby/play/seats.py's
    `Seats`, above this wing)."""

    def holds(self, session: Session) -> bool: ...

    def is_seat(self, session: Session) -> bool: ...

    def arrived(self, name: str, node: str) -> None: ...

    def departed(self, letter: Absence) -> None: ...

    def node_gone(self, node: str) -> None: ...

    def resync(self) -> None: ...

    def out_of_reach(self, node: str) -> None: ...

    def back_in_reach(self, node: str) -> None: ...


class NodeSettings(Protocol):
    """This node's name on the bus (lobby.LobbyConfig's; read when used: a test names the
    node of a lobby it made)."""
    @property
    def node_id(self) -> str: ...

    @property
    def node_times(self) -> NodeTimes: ...


class Users:
    """Who is online: this node's connections and its sessions by name (`online`), the most
    ever online at once, the other nodes' users (`directory`), the who-list a login gets, and
    who a name stands for. Attendance's comings and goings change them."""

    def __init__(self, settings: NodeSettings, accounts: AccountsWithVisitors,
                 seats: Callable[[], SeatsAcrossNodes], directory: Directory) -> None:
        self._settings = settings
        self._accounts = accounts
        self._seats = seats  # made after this, with it: asked for when used
        self.connections: set[Session] = set()
        self.online: dict[str, Session] = {}  # lower-case name -> session
        self.most_online = 0
        self.directory = directory  # the other nodes' users (none without a bus to them)
        # The other nodes' users' idle times are aged on the clock they were heard on.
        self.who_list = WhoList(self.online, self.directory, lambda: self.directory.clock())

    @property
    def node_id(self) -> str:
        return self._settings.node_id

    def sessions_online(self) -> list[Session]:
        return list(self.online.values())

    def find_online(self, typed: str) -> Session | None:
        """Name completion: exact name (any case), else a unique prefix, case-sensitive first."""
        exact = self.online.get(typed.lower())
        if exact is not None or not typed:
            return exact
        for fold in (False, True):
            matches = [s for s in self.online.values()
                       if (s.name.lower().startswith(typed.lower()) if fold
                           else s.name.startswith(typed))]
            if len(matches) == 1:
                return matches[0]
        return None

    def is_visitor(self, session: Session) -> bool:
        """A visitor plays a bot without an account (`Lobby.new_visitor`)."""
        return session.name.lower() in self._accounts.visitors

    def stay_of(self, name: str) -> Stay | None:
        """What tells `name`'s present stay online from any other: their session here, or their
        login on another node; None while they are offline. Two readings that differ mean they
        were away (or logged in again) in between."""
        here = self.online.get(name.lower())
        if here is not None:
            return here
        user = self.directory.get(name)  # (a seat here stands for a user of another node)
        return None if user is None else (user.node, user.login_time)

    def node_of(self, name: str) -> str | None:
        """The node `name` is online on, as this node knows (None: offline, or not heard of
        yet): where the bus sends a letter for them."""
        if name.lower() in self.online:
            return self.node_id
        user = self.directory.get(name)
        return None if user is None else user.node

    def is_online(self, session: Session) -> bool:
        return (session.is_bot or self.online.get(session.name.lower()) is session
                or self._seats().holds(session))

    async def user_named(self, name: str, complete: bool = False
                         ) -> tuple[Session | None, Account | None]:
        """The user's session if online, and their account: as it is now if online, else as
        stored (None: no such user). `complete`: `name` as a user typed it, completed to an
        online user's name (`find_online`)."""
        online = self.find_online(name) if complete else self.online.get(name.lower())
        if online is not None:
            return online, online.account
        return None, await self._accounts.find_account(name)
