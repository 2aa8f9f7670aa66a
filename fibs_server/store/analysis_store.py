"""The lobby's AnalysisRecords on SQLAlchemy: a mixin of SqlStore (which gives `_writes`,
`_reads` for methods that only read, and `_now`). Every method is one short transaction.

The queue is the rows of analysis_requests that are queued or running; a finished match is
queued by the transaction that finishes it (`SqlMatchStore.finish_match`, when
`queue_finished_matches` turned that on), so no finished match is ever missed by a crash."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from fibs_server.lobby.ports.analysis_records import (
    WAITING,
    AnalysisRequest,
    Outcome,
    QueueLimits,
    Status,
    StoredAnalysis,
)
from fibs_server.store.models import AnalysisRequestRow, AnalysisResultRow, table_of
from fibs_server.store.transactions import Transactions

_REQUESTS = table_of(AnalysisRequestRow)
_RESULTS = table_of(AnalysisResultRow)
_WAITING = [status.value for status in WAITING]
FAILURE_CHARACTERS = 200  # of the reason kept for a failed request


class SqlAnalysisStore:
    _writes: Transactions
    _reads: Transactions
    _now: Callable[[], int]
    # (plies, limits): how finish_match queues each finished match; None: it does not.
    _finished_matches_queued: tuple[int, QueueLimits] | None

    def queue_finished_matches(self, plies: int, limits: QueueLimits) -> None:
        """From now on every match finished is queued for analysis at `plies`, in the
        transaction that finishes it, while the queue is under `limits.waiting`."""
        self._finished_matches_queued = (plies, limits)

    async def analyses_waiting(self) -> int:
        """Requests queued or running (`/metrics`): a count of the status index's rows."""
        return await self._reads.run(lambda session: session.execute(
            select(func.count()).where(_REQUESTS.c.status.in_(_WAITING))).scalar() or 0)

    async def request_analysis(self, match_id: int, plies: int, requested_by: str | None,
                               limits: QueueLimits) -> Outcome:
        now = self._now()
        return await self._writes.run(lambda session: queue_analysis(
            session.connection(), match_id, plies, requested_by, limits, now))

    async def next_analysis(self) -> AnalysisRequest | None:
        now = self._now()

        def take(session: Session) -> AnalysisRequest | None:
            row = session.scalars(
                select(AnalysisRequestRow).where(AnalysisRequestRow.status == Status.QUEUED.value)
                # A user who asked waits for no automatic request.
                .order_by(AnalysisRequestRow.requested_by.is_(None),
                          AnalysisRequestRow.requested_at, AnalysisRequestRow.match_id)
                .limit(1)).first()
            if row is None:
                return None
            row.status, row.started_at = Status.RUNNING.value, now
            return _request(row)
        return await self._writes.run(take)

    async def requeue_running_analyses(self) -> int:
        def requeue(session: Session) -> int:
            result = session.execute(
                update(_REQUESTS).where(_REQUESTS.c.status == Status.RUNNING.value)
                .values(status=Status.QUEUED.value, started_at=None))
            return int(getattr(result, "rowcount", 0) or 0)
        return await self._writes.run(requeue)

    async def store_analysis(self, match_id: int, plies: int, analysis: dict[str, Any]) -> None:
        now = self._now()

        def store(session: Session) -> None:
            connection = session.connection()
            dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
            connection.execute(dialect.insert(_RESULTS).on_conflict_do_nothing(), {
                "match_id": match_id, "plies": plies, "analysis": analysis, "analysed_at": now})
            connection.execute(update(_REQUESTS).where(_REQUESTS.c.match_id == match_id)
                               .values(status=Status.DONE.value, failure=None))
        await self._writes.run(store)

    async def fail_analysis(self, match_id: int, failure: str) -> None:
        await self._writes.run(lambda session: session.execute(
            update(_REQUESTS).where(_REQUESTS.c.match_id == match_id)
            .values(status=Status.FAILED.value, failure=failure[:FAILURE_CHARACTERS])))

    async def analysis_request(self, match_id: int) -> AnalysisRequest | None:
        def read(session: Session) -> AnalysisRequest | None:
            row = session.get(AnalysisRequestRow, match_id)
            return None if row is None else _request(row)
        return await self._reads.run(read)

    async def analysis_of(self, match_id: int) -> StoredAnalysis | None:
        def read(session: Session) -> StoredAnalysis | None:
            row = session.scalars(select(AnalysisResultRow)
                                  .where(AnalysisResultRow.match_id == match_id)
                                  .order_by(AnalysisResultRow.plies.desc()).limit(1)).first()
            return None if row is None else StoredAnalysis(row.match_id, row.plies,
                                                           row.analysis, row.analysed_at)
        return await self._reads.run(read)

    async def analysed_among(self, match_ids: list[int]) -> set[int]:
        if not match_ids:
            return set()
        return set(await self._reads.run(lambda session: list(session.scalars(
            select(_RESULTS.c.match_id).where(_RESULTS.c.match_id.in_(match_ids))))))


def queue_analysis(connection: Connection, match_id: int, plies: int, requested_by: str | None,
                   limits: QueueLimits, now: int) -> Outcome:
    """Within a transaction: the request for `match_id`, queued if the limits allow."""
    existing = connection.execute(select(_REQUESTS.c.status).where(
        _REQUESTS.c.match_id == match_id)).scalar()
    if existing in _WAITING:
        return Outcome.WAITING_ALREADY
    analysed = connection.execute(select(func.count()).where(
        _RESULTS.c.match_id == match_id, _RESULTS.c.plies >= plies)).scalar()
    if analysed:
        return Outcome.DONE_ALREADY
    waiting = connection.execute(select(func.count()).where(
        _REQUESTS.c.status.in_(_WAITING))).scalar() or 0
    if waiting >= limits.waiting:
        return Outcome.QUEUE_FULL
    if requested_by is not None:
        theirs = connection.execute(select(func.count()).where(
            _REQUESTS.c.status.in_(_WAITING), _REQUESTS.c.requested_by == requested_by)).scalar()
        if (theirs or 0) >= limits.waiting_per_user:
            return Outcome.TOO_MANY_OF_YOURS
    values = {"plies": plies, "status": Status.QUEUED.value, "requested_at": now,
              "requested_by": requested_by, "started_at": None, "failure": None}
    if existing is None:
        dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
        inserted = connection.execute(dialect.insert(_REQUESTS).on_conflict_do_nothing(),
                                      {"match_id": match_id, **values})
        if inserted.rowcount == 0:  # another transaction queued it meanwhile
            return Outcome.WAITING_ALREADY
    else:  # done at a lower level, or failed: asked again
        connection.execute(update(_REQUESTS).where(_REQUESTS.c.match_id == match_id)
                           .values(**values))
    return Outcome.QUEUED


def _request(row: AnalysisRequestRow) -> AnalysisRequest:
    return AnalysisRequest(match_id=row.match_id, plies=row.plies, status=Status(row.status),
                           requested_at=row.requested_at, requested_by=row.requested_by,
                           failure=row.failure)
