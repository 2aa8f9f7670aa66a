"""How the lobby keeps match analyses: the requests (a queue that survives restarts) and the
results, one per match and level. Implemented by the store layer (store/analysis_store.py).

A result is `bots.analysis.MatchAnalysis.to_dict()`; the store keeps it as it is given."""
from __future__ import annotations

import dataclasses
import enum
from typing import Any, Protocol


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

    async def store_analysis(self, match_id: int, plies: int, analysis: dict[str, Any]) -> None:
        """The result, and its request done, in one transaction (a result already there at
        that level is kept)."""

    async def fail_analysis(self, match_id: int, failure: str) -> None:
        """The request could not be run."""

    async def analysis_request(self, match_id: int) -> AnalysisRequest | None:
        """The match's request as it stands, or None."""

    async def analysis_of(self, match_id: int) -> StoredAnalysis | None:
        """The match's analysis at the deepest level it has, or None."""

    async def analysed_among(self, match_ids: list[int]) -> set[int]:
        """Those of the matches that have an analysis."""
