"""How the lobby keeps match analyses: the requests (a queue that survives restarts) and the
results, one per match and level. Implemented by the store layer (store/analysis_store.py).

A result is `bots.analysis.MatchAnalysis.to_dict()`; the store keeps it as it is given."""
from __future__ import annotations

import dataclasses
import datetime
import enum
from collections.abc import Sequence
from typing import Any, Protocol

from fibs_server.bots.puzzles import Puzzle


class Status(enum.Enum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


WAITING = (Status.QUEUED, Status.RUNNING)  # what the queue's bound counts


class Outcome(enum.Enum):
    """What became of a request (`request_analysis`)."""
    QUEUED = "queued"
    WAITING_ALREADY = "waiting already"  # queued or running
    DONE_ALREADY = "done already"  # analysed at that level
    QUEUE_FULL = "queue full"
    TOO_MANY_OF_YOURS = "too many of yours"


@dataclasses.dataclass(frozen=True)
class QueueLimits:
    """Requests waiting (queued or running) in all, and per user who asked."""
    waiting: int = 1000
    waiting_per_user: int = 3


@dataclasses.dataclass(frozen=True)
class AnalysisRequest:
    match_id: int
    plies: int
    status: Status
    requested_at: int  # Unix seconds
    requested_by: str | None  # None: queued when the match finished
    failure: str | None = None


@dataclasses.dataclass(frozen=True)
class StoredAnalysis:
    match_id: int
    plies: int
    analysis: dict[str, Any]  # MatchAnalysis.to_dict()
    analysed_at: int  # Unix seconds


@dataclasses.dataclass(frozen=True)
class StoredPuzzle:
    """A puzzle as stored (bots.puzzles.Puzzle), with its match's facts and its figures."""
    puzzle_id: int
    match_id: int
    players: tuple[str, str]
    length: int | None
    puzzle: Puzzle
    rating: float
    attempts: int
    solved: int


@dataclasses.dataclass(frozen=True)
class PuzzleRating:
    """A player's puzzle rating, and their attempts (first tries only) and solves."""
    rating: float
    attempts: int
    solved: int


@dataclasses.dataclass(frozen=True)
class PuzzleAttempt:
    """What an answer did: `first` (the player's first try of this puzzle: the ratings
    moved), their rating now and the puzzle's."""
    first: bool
    rating: float
    change: float
    puzzle_rating: float


class AnalysisRecords(Protocol):
    async def request_analysis(self, match_id: int, plies: int, requested_by: str | None,
                               limits: QueueLimits) -> Outcome:
        """Queue the match's analysis at `plies` unless it is analysed at that level, waiting
        already, or the limits say no (one transaction). A failed request is queued again."""

    async def next_analysis(self) -> AnalysisRequest | None:
        """The request to run next, marked running: those users asked for first, then the
        oldest. None: the queue is empty."""

    async def requeue_running_analyses(self) -> int:
        """At start: the requests left running by the server before are queued again."""

    async def store_analysis(self, match_id: int, plies: int, analysis: dict[str, Any],
                             puzzles: Sequence[Puzzle] = ()) -> None:
        """The result, its puzzles (each kept once per match, game, roll and player) and its
        request done, in one transaction (a result already there at that level is kept)."""

    async def fail_analysis(self, match_id: int, failure: str) -> None:
        """The request could not be run."""

    async def analysis_request(self, match_id: int) -> AnalysisRequest | None:
        """The match's request as it stands, or None."""

    async def analysis_of(self, match_id: int) -> StoredAnalysis | None:
        """The match's analysis at the deepest level it has, or None."""

    async def analysed_among(self, match_ids: list[int]) -> set[int]:
        """Those of the matches that have an analysis."""

    async def puzzle(self, puzzle_id: int) -> StoredPuzzle | None:
        """The puzzle, or None."""

    async def daily_puzzle(self, day: datetime.date) -> StoredPuzzle | None:
        """The day's puzzle (bots.puzzles.daily_index over them all, by number); None: none."""

    async def next_puzzle(self, name: str, rating: float) -> StoredPuzzle | None:
        """A puzzle `name` has not tried, the nearest to `rating`; None: none left."""

    async def puzzle_rating(self, name: str) -> PuzzleRating:
        """The player's (the starting rating before their first try)."""

    async def attempt_puzzle(self, name: str, puzzle_id: int, solved: bool) -> PuzzleAttempt:
        """An answer to a puzzle: at the player's first try both ratings move
        (bots.puzzles.rated), in one transaction; later tries move neither."""
