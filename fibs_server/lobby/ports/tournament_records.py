"""How the lobby persists tournaments (docs/TOURNAMENTS.md): each tournament as created, its
entrants, its rounds with their pairings and results, and the match each pairing plays.
Implemented by the store layer (above the lobby), like MatchStore. Times are Unix seconds.

The store is the truth across nodes: `tournament join` on any node writes here, and the
director (on the node holding the `tournaments` lease) reads what it must act on from here.
"""
from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping, Sequence
from typing import Protocol

from fibs_server.rules.tournament import Entrant, Flight, Format, Round, RoundTerms, Tournament


class Status(enum.Enum):
    SIGNUP = "signup"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"

    @property
    def open(self) -> bool:
        return self in (Status.SIGNUP, Status.RUNNING)


@dataclasses.dataclass(frozen=True)
class TournamentSpec:
    """A tournament as its creator asked for it."""

    creator: str
    format: Format
    terms: RoundTerms
    swiss_rounds: int = 0  # knockout: as many as the field needs
    entry_cap: int = 16
    starts_at: int | None = None  # the sign-up closes then ...
    start_when: int | None = None  # ... or when this many have joined, whichever comes first
    bots_allowed: bool = False
    no_show_seconds: int = 300  # a player not in their match this long after the round began forfeits
    arena_minutes: int = 0  # an arena: how long it pairs players from its start
    # A recurring tournament (`every day|week`): when it starts or is cancelled in sign-up,
    # the next of its series is made with the same terms, `starts_at` this much later.
    repeat_seconds: int | None = None
    follows: int | None = None  # the tournament of the series it was made after
    flights: tuple[Flight, ...] = (Flight.MAIN,)  # a knockout's, the main one first


@dataclasses.dataclass
class TournamentRecord:
    tournament_id: int
    spec: TournamentSpec
    status: Status
    created_at: int
    entrants: list[Entrant]  # in the order they joined (ratings as at joining, then at the start)
    played: Tournament | None = None  # from the start on: the seeded field, rounds and results
    round_started_at: dict[int, int] = dataclasses.field(default_factory=dict)
    # (round, position of the pairing in its round) -> the stored match playing it
    match_ids: dict[tuple[int, int], int] = dataclasses.field(default_factory=dict)
    winner: str | None = None
    started_at: int | None = None  # when the sign-up closed and play began
    revision: int = 0  # one more at each change a command made while it runs

    def has_entered(self, name: str) -> bool:
        return any(entrant.name.lower() == name.lower() for entrant in self.entrants)


@dataclasses.dataclass(frozen=True)
class OpenTournament:
    tournament_id: int
    status: Status
    creator: str
    revision: int = 0


class JoinRefused(enum.Enum):
    NOT_OPEN = "not_open"  # no such tournament in sign-up
    FULL = "full"
    ALREADY = "already"


class TournamentRecords(Protocol):
    async def create_tournament(self, spec: TournamentSpec) -> TournamentRecord:
        """Store a new tournament in sign-up."""

    async def add_entrant(self, tournament_id: int, entrant: Entrant) -> JoinRefused | None:
        """In one transaction: the entrant added, unless the tournament is not in sign-up,
        is full, or has them already (why not)."""

    async def remove_entrant(self, tournament_id: int, name: str) -> bool:
        """The entrant removed while the tournament is in sign-up: whether they were in it."""

    async def start_tournament(self, tournament_id: int, played: Tournament,
                               started_at: int, successor: TournamentSpec | None = None) -> bool:
        """From sign-up to running, with the seeded field (its ratings as at the start) and
        the first round (an arena has none yet): whether it was still in sign-up (it may
        have been cancelled). In the same transaction, `successor` (the next of a recurring
        tournament's series) created in sign-up."""

    async def save_round(self, tournament_id: int, paired: Round, started_at: int) -> None:
        """A new round and its pairings."""

    async def save_results(self, tournament_id: int, paired: Round,
                           positions: Sequence[int]) -> None:
        """The results of the round's pairings at `positions`, as `paired` has them."""

    async def link_matches(self, tournament_id: int, round_number: int,
                           links: Mapping[int, int]) -> None:
        """The stored match that plays each pairing (position in the round -> match id)."""

    async def set_withdrawn(self, tournament_id: int, name: str,
                            withdrawn: bool) -> int | None:
        """The entrant of the running tournament withdrawn (or reinstated), its revision
        one more: the new revision, or None if it is not running, has no such entrant, or
        has them so already."""

    async def running_entered(self, name: str) -> list[int]:
        """The running tournaments `name` is an entrant of (a light read)."""

    async def paired_after(self, name: str, since: int) -> bool:
        """Whether a round of a running tournament begun after `since` (Unix seconds) pairs
        `name` in a pairing not yet decided (only the current round has such pairings, but
        in an arena, whose rounds are the pairings it makes as players come free): a match
        of theirs begun at `since` is not that pairing's, and waits for it."""

    async def end_tournament(self, tournament_id: int, status: Status, winner: str | None,
                             successor: TournamentSpec | None = None) -> bool:
        """Finished (with its winner) or cancelled: whether it was still open. `successor`
        created with it in sign-up if it ends in sign-up (a running one made its own at
        its start)."""

    async def next_in_series(self, tournament_id: int) -> int | None:
        """The tournament made after `tournament_id` in its series, if one was."""

    async def tournament(self, tournament_id: int) -> TournamentRecord | None: ...

    async def open_tournaments(self) -> list[OpenTournament]:
        """Every tournament in sign-up or running, oldest first, as a light read (no
        entrants, rounds or pairings)."""

    async def recent_tournaments(self, limit: int) -> list[TournamentRecord]:
        """The open tournaments and the latest ended ones, newest first, `limit` in all."""
