"""The lobby's AnalysisRecords on SQLAlchemy: a mixin of SqlStore (which gives `_writes`,
`_reads` for methods that only read, and `_now`). Every method is one short transaction.

The queue is the rows of analysis_requests that are queued or running; a finished match is
queued by the transaction that finishes it (`SqlMatchStore.finish_match`, when
`queue_finished_matches` turned that on), so no finished match is ever missed by a crash."""
from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from fibs_server.bots import puzzles as puzzle_rules
from fibs_server.bots.puzzles import Puzzle
from fibs_server.lobby.ports.analysis_records import (
    WAITING,
    AnalysisRequest,
    Outcome,
    PuzzleAttempt,
    PuzzleRating,
    QueueLimits,
    Status,
    StoredAnalysis,
    StoredPuzzle,
)
from fibs_server.store.models import (
    AnalysisRequestRow,
    AnalysisResultRow,
    MatchRow,
    PuzzleAttemptRow,
    PuzzleRatingRow,
    PuzzleRow,
    name_key,
    table_of,
)
from fibs_server.store.transactions import Transactions

_REQUESTS = table_of(AnalysisRequestRow)
_RESULTS = table_of(AnalysisResultRow)
_PUZZLES = table_of(PuzzleRow)
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

    async def store_analysis(self, match_id: int, plies: int, analysis: dict[str, Any],
                             puzzles: Sequence[Puzzle] = ()) -> None:
        now = self._now()

        def store(session: Session) -> None:
            connection = session.connection()
            dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
            connection.execute(dialect.insert(_RESULTS).on_conflict_do_nothing(), {
                "match_id": match_id, "plies": plies, "analysis": analysis, "analysed_at": now})
            if puzzles:  # a deeper analysis's puzzles of the same decisions are kept once
                connection.execute(dialect.insert(_PUZZLES).on_conflict_do_nothing(), [
                    {"match_id": match_id, "game": puzzle.game, "turn": puzzle.turn,
                     "player": puzzle.player, "question": puzzle.question,
                     "position_id": puzzle.position_id,
                     "dice": list(puzzle.dice) if puzzle.dice else None, "cube": puzzle.cube,
                     "cube_owner": puzzle.cube_owner, "score": list(puzzle.score),
                     "best": puzzle.best, "played": puzzle.played, "error": puzzle.error,
                     "rating": puzzle.rating} for puzzle in puzzles])
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


    async def puzzle(self, puzzle_id: int) -> StoredPuzzle | None:
        return await self._reads.run(lambda session: _stored_puzzle(
            session, session.get(PuzzleRow, puzzle_id)))

    async def daily_puzzle(self, day: datetime.date) -> StoredPuzzle | None:
        def read(session: Session) -> StoredPuzzle | None:
            count = session.execute(select(func.count()).select_from(_PUZZLES)).scalar() or 0
            if not count:
                return None
            return _stored_puzzle(session, session.scalars(
                select(PuzzleRow).order_by(PuzzleRow.id)
                .offset(puzzle_rules.daily_index(day, count)).limit(1)).first())
        return await self._reads.run(read)

    async def next_puzzle(self, name: str, rating: float) -> StoredPuzzle | None:
        tried = select(PuzzleAttemptRow.puzzle_id).where(
            PuzzleAttemptRow.name_key == name_key(name))
        return await self._reads.run(lambda session: _stored_puzzle(session, session.scalars(
            select(PuzzleRow).where(PuzzleRow.id.not_in(tried))
            .order_by(func.abs(PuzzleRow.rating - rating), PuzzleRow.id).limit(1)).first()))

    async def puzzle_rating(self, name: str) -> PuzzleRating:
        def read(session: Session) -> PuzzleRating:
            row = session.get(PuzzleRatingRow, name_key(name))
            return (PuzzleRating(puzzle_rules.START_RATING, 0, 0) if row is None
                    else PuzzleRating(row.rating, row.attempts, row.solved))
        return await self._reads.run(read)

    async def attempt_puzzle(self, name: str, puzzle_id: int, solved: bool) -> PuzzleAttempt:
        now, key = self._now(), name_key(name)

        def attempt(session: Session) -> PuzzleAttempt:
            puzzle = session.get(PuzzleRow, puzzle_id, with_for_update=True)
            assert puzzle is not None  # the lobby read it; puzzles go only with their match
            player = session.get(PuzzleRatingRow, key, with_for_update=True)
            if player is None:
                player = PuzzleRatingRow(name_key=key, rating=puzzle_rules.START_RATING,
                                         attempts=0, solved=0)
                session.add(player)
            if session.get(PuzzleAttemptRow, (key, puzzle_id)) is not None:
                return PuzzleAttempt(False, player.rating, 0.0, puzzle.rating)
            session.add(PuzzleAttemptRow(name_key=key, puzzle_id=puzzle_id, solved=solved,
                                         tried_at=now))
            before = player.rating
            player.rating, puzzle.rating = puzzle_rules.rated(before, puzzle.rating, solved)
            player.attempts += 1
            puzzle.attempts += 1
            player.solved += solved
            puzzle.solved += solved
            return PuzzleAttempt(True, player.rating, player.rating - before, puzzle.rating)
        return await self._writes.run(attempt)


def _stored_puzzle(session: Session, row: PuzzleRow | None) -> StoredPuzzle | None:
    if row is None:
        return None
    match = session.get(MatchRow, row.match_id)
    assert match is not None  # a puzzle goes with its match (ON DELETE CASCADE)
    puzzle = Puzzle(row.game, row.turn, row.player, row.question, row.position_id,
                    (row.dice[0], row.dice[1]) if row.dice else None, row.cube, row.cube_owner,
                    (row.score[0], row.score[1]), row.best, row.played, row.error)
    return StoredPuzzle(row.id, row.match_id, (match.player_a, match.player_b), match.length,
                        puzzle, row.rating, row.attempts, row.solved)


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
