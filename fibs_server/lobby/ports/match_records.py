"""How the lobby persists matches: the running state of each match, and its end.

Implemented by the store layer (above the lobby). A match's state is the JSON-able dict the
rules engine's match produces; the lobby writes it after every accepted action, before it
tells anyone, so an acknowledged action is never lost.

Several nodes share the store: a running match is owned by one of them at a time, by its
*owner epoch*. The node that creates a match owns it at FIRST_OWNER_EPOCH; a node that runs a
stored match again claims it first (`claim_match`: one more); every write that passes the
epoch it holds changes nothing, and fails with StaleMatchOwner, once another node has claimed
the match since.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Protocol

FIRST_OWNER_EPOCH = 1  # the owner epoch of a match just created: its creator's


class StaleMatchOwner(LookupError):
    """A write of a running match by a node that no longer owns it: another node claimed it
    since (its players resumed it there). Nothing was written. A LookupError: like a write
    of a match that is not running, it fails alone."""

    def __init__(self, match_id: int, held: int, owner: int) -> None:
        super().__init__(f"match {match_id} is owned by epoch {owner}, not {held}")
        self.match_id, self.held, self.owner = match_id, held, owner


@dataclasses.dataclass
class MatchDice:
    """A match's dice as stored with it (docs/FAIRNESS.md)."""
    seed: str | None  # hex, secret until the match ends; None: dice that cannot be verified
    drawn: int  # pairs drawn so far: where a resumed match's dice go on
    # The rolls counted (`dicetest`): player 0's, player 1's and the opening rolls, each by
    # the index of rules.dice_stats.ROLLS.
    tally: list[list[int]]
    # The players' salts, `rules.dice.PlayerSalt.to_list()` or None each; None: a match
    # stored before salts existed (as no salts).
    salts: list[list[str | int] | None] | None = None


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
    dice: MatchDice | None = None  # None: stored before its dice were
    left_by: str | None = None  # who left it unfinished (None: nobody, or it was resumed)
    abandoned: bool = False  # closed because it was left unfinished too long
    waits_for_both: bool = False  # its grace period ended without a forfeit (`mark_waiting`)
    owner_epoch: int = FIRST_OWNER_EPOCH  # as stored when read (see StaleMatchOwner)


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


@dataclasses.dataclass(frozen=True)
class RatedMatch:
    """One player's finished rated match, as the archive's list shows it."""
    match_id: int
    player_a: str
    player_b: str
    length: int | None
    winner: str | None
    score: list[int] | None  # the final score, player_a's first (None: a state without one)
    finished_at: int  # Unix seconds
    rating_before: float  # the player's
    rating_after: float


class MatchStore(Protocol):
    """`epoch` (keyword): the owner epoch the writer holds; the write changes nothing and
    raises StaleMatchOwner if the running match's is another now. None: whoever owns it (a
    tool or a test that runs no copy of the match); the lobby always passes its own."""

    async def create_match(self, player_a: str, player_b: str, length: int | None,
                           state: dict[str, Any], dice: MatchDice | None = None, *,
                           replace: bool = True) -> int:
        """Insert a running match, owned at FIRST_OWNER_EPOCH, and return its id; with
        `replace`, the pair's running match, if any, is replaced (a saved match that a new
        invitation starts over) in the same transaction; without, it stays saved beside the
        new one (a tournament's pairing), which `running_match` finds first until it ends."""

    async def claim_match(self, match_id: int) -> int:
        """Own the running match from now on: its owner epoch goes up by one, in one
        transaction, and is returned; LookupError if it is not running."""

    async def save_match_state(self, match_id: int, state: dict[str, Any],
                               dice: MatchDice | None = None, *,
                               epoch: int | None = None) -> None:
        """Replace the state (and the dice, if given) of a running match (one committed
        transaction)."""

    async def finish_match(self, match_id: int, state: dict[str, Any], winner: str | None,
                           ratings: list[RatingUpdate], dice: MatchDice | None = None,
                           abandoned: bool = False, *, epoch: int | None = None) -> None:
        """In one transaction: store the final state, mark the match finished with its winner
        (None for an unlimited match ended by leaving, or an abandoned one not forfeited) and
        apply the rating updates."""

    async def mark_left(self, match_id: int, name: str | None, *,
                        epoch: int | None = None) -> None:
        """`name` left the running match unfinished (kept if someone left it already); None:
        it was resumed, nobody has left it (nor does it wait for both)."""

    async def mark_waiting(self, match_id: int, left_by: str) -> bool:
        """The grace period of `left_by`'s leaving the running match ended without a
        forfeit: it waits for both (until resumed: `mark_left` clears it). Whether it was
        marked: not if it was resumed, or left by another, meanwhile."""

    async def left_matches(self) -> list[MatchRecord]:
        """The running matches that a player left (`mark_left`) and nobody resumed since."""

    async def idle_matches(self, before: int) -> list[MatchRecord]:
        """The running matches with no action stored since `before` (Unix seconds)."""

    async def match_counts(self, name: str) -> tuple[int, int]:
        """How many of `name`'s matches are unfinished, and how many they abandoned."""

    async def roll_tally(self, name: str | None) -> list[int]:
        """The rolls counted in every match (None), or those `name` rolled, by the index of
        rules.dice_stats.ROLLS."""

    async def running_match(self, name_a: str, name_b: str) -> MatchRecord | None:
        """The unfinished match between the two players (either order), or None."""

    async def running_matches(self, name: str) -> list[MatchRecord]:
        """All unfinished matches that `name` plays in."""

    async def finished_matches(self, name: str, limit: int) -> list[MatchRecord]:
        """The most recent finished matches of `name`, newest first."""

    async def rating_history(self, name: str, limit: int) -> list[RatingChange]:
        """The rating changes of `name` (spelt as the account is) by their last `limit`
        rated matches, oldest first: the ratings each finished match's state keeps."""

    async def match_by_id(self, match_id: int) -> MatchRecord | None:
        """Any stored match, running or finished."""

    async def rated_matches(self, name: str, before: int | None,
                            limit: int) -> list[RatedMatch]:
        """The finished rated matches of `name` (spelt as the account is), newest first: at
        most `limit` of those finished before the match `before` (None: from the newest)."""

    async def rated_match_counts(self, name: str) -> tuple[int, int]:
        """How many rated matches `name` finished, and won."""
