"""How the lobby persists matches: the running state of each match, and its end.

Implemented by the store layer (above the lobby). A match's state is the JSON-able dict the
rules engine's match produces; the lobby writes it after every accepted action, before it
tells anyone, so an acknowledged action is never lost.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Protocol


@dataclasses.dataclass
class MatchRecord:
    match_id: int
    player_a: str  # the inviter
    player_b: str  # the joiner
    length: int | None  # None = unlimited
    state: dict[str, Any]
    finished: bool = False
    winner: str | None = None
    started_at: int = 0  # Unix seconds
    finished_at: int | None = None


@dataclasses.dataclass
class RatingUpdate:
    name: str
    rating: float
    experience: int


@dataclasses.dataclass(frozen=True)
class RatingChange:
    """What one finished, rated match did to a player's rating."""
    finished_at: int  # Unix seconds
    before: float
    after: float


class MatchStore(Protocol):
    async def create_match(self, player_a: str, player_b: str, length: int | None,
                           state: dict[str, Any]) -> int:
        """Insert a running match and return its id."""

    async def save_match_state(self, match_id: int, state: dict[str, Any]) -> None:
        """Replace the state of a running match (one committed transaction)."""

    async def finish_match(self, match_id: int, state: dict[str, Any], winner: str | None,
                           ratings: list[RatingUpdate]) -> None:
        """In one transaction: store the final state, mark the match finished with its winner
        (None for an unlimited match ended by leaving) and apply the rating updates."""

    async def running_match(self, name_a: str, name_b: str) -> MatchRecord | None:
        """The unfinished match between the two players (either order), or None."""

    async def running_matches(self, name: str) -> list[MatchRecord]:
        """All unfinished matches that `name` plays in."""

    async def delete_match(self, match_id: int) -> None:
        """Discard a running match (a saved match replaced by a new one)."""

    async def finished_matches(self, name: str, limit: int) -> list[MatchRecord]:
        """The most recent finished matches of `name`, newest first."""

    async def rating_history(self, name: str, limit: int) -> list[RatingChange]:
        """The rating changes of `name` (spelt as the account is) by their last `limit`
        rated matches, oldest first: the ratings each finished match's state keeps."""
