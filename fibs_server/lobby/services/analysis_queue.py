"""The match analysis queue: requests kept in the store (a restart loses none), run one at a
time by a compute function (the app's: `bots.pool.AnalysisLane.analyse`, where the bots'
decisions go first), "apply, store, then tell": computed, stored, and only then are the
players who opted in told (`analyse notify on`)."""
from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from fibs_server.bots.analysis import DEFAULT_PLIES
from fibs_server.bots.puzzles import puzzles_of
from fibs_server.lobby.limits.busy_hold import BUSY_CPU_SHARE, LEAST_SHARE
from fibs_server.lobby.nodes.bus import notice
from fibs_server.lobby.ports.analysis_records import AnalysisRecords, Outcome, QueueLimits
from fibs_server.lobby.ports.match_records import MatchRecord
from fibs_server.protocol.views import web_events
from fibs_server.protocol.wording import analysis_texts

if TYPE_CHECKING:  # types only: the lobby's owners, given in the constructor
    from fibs_server.lobby.ports.match_records import MatchStore
    from fibs_server.lobby.presence.attendance import Attendance

log = logging.getLogger(__name__)

# A stored match state and the level -> MatchAnalysis.to_dict() of it.
Compute = Callable[[dict[str, Any], int], Awaitable[dict[str, Any]]]
NOTICE_SETTING = "analysis_notice"  # in Account.settings: "on" tells its owner (default off)
IDLE_LOOK_SECONDS = 60.0  # the store is looked at this often even when nothing woke the queue
RETRY_SECONDS = 5.0  # after the store failed
# About 52 decisions a game, 60 ms each at the default level: a match of 60 games takes
# about 3 minutes of the analysis process; an unlimited match of hundreds would hold it for
# an hour while everyone else's requests wait.
MAX_GAMES = 60


@dataclasses.dataclass(frozen=True)
class AnalysisConfig:
    plies: int = DEFAULT_PLIES
    limits: QueueLimits = QueueLimits()
    queue_finished: bool = True  # every finished stored match is queued (`--no-analysis`: no)
    max_games: int = MAX_GAMES  # longer matches are not analysed (their request fails)
    # Held while the server's process used more than this share of a core (lobby/limits/busy_hold.py);
    # 0: never held.
    busy_share: float = BUSY_CPU_SHARE
    # However held (busy server, bots deciding), an analysis under way runs at least this share
    # of the time (busy_hold.py's turns); 0: it may wait for as long as they are busy.
    least_share: float = LEAST_SHARE


def readable(record: MatchRecord, name: str) -> bool:
    """Whether `name` may read (and ask for) the analysis of a stored match: a finished one
    they played, or any finished rated one (public, as the archive is)."""
    if not record.finished:
        return False
    players = (record.player_a.lower(), record.player_b.lower())
    return name.lower() in players or bool(record.state.get("ratings"))


def wants_notices(people: Attendance, name: str) -> bool:
    session = people.users.online.get(name.lower())
    return session is not None and session.account is not None \
        and session.account.settings.get(NOTICE_SETTING) == "on"


class AnalysisQueue:
    def __init__(self, people: Attendance, matches: MatchStore, records: AnalysisRecords,
                 compute: Compute, config: AnalysisConfig = AnalysisConfig()) -> None:
        self.people = people  # whom a finished analysis is told to
        self.matches = matches  # the stored matches to analyse
        self.records = records
        self.compute = compute
        self.config = config
        self._work = asyncio.Event()
        self._task: asyncio.Task | None = None

    async def start(self) -> None:
        """Requests the server left running are queued again; then they are run."""
        requeued = await self.records.requeue_running_analyses()
        if requeued:
            log.info("%d match analyses taken up again", requeued)
        self._task = asyncio.create_task(self._run())

    def wake(self) -> None:
        """Something was queued: look at the store now rather than later."""
        self._work.set()

    async def ask(self, match_id: int, name: str) -> Outcome:
        outcome = await self.records.request_analysis(match_id, self.config.plies, name,
                                                      self.config.limits)
        if outcome is Outcome.QUEUED:
            self.wake()
        return outcome

    async def _run(self) -> None:
        failed = False
        while True:
            try:
                if failed:
                    # The request that was running when the store failed is queued again:
                    # this queue is the one that runs requests, so every running one is its.
                    await self.records.requeue_running_analyses()
                    failed = False
                if await self.run_one():
                    continue
            except Exception:
                log.exception("the analysis queue failed; trying again in %s s", RETRY_SECONDS)
                failed = True
                await asyncio.sleep(RETRY_SECONDS)
                continue
            self._work.clear()
            try:
                await asyncio.wait_for(self._work.wait(), IDLE_LOOK_SECONDS)
            except TimeoutError:
                pass

    async def run_one(self) -> bool:
        """Run the next request: False if there was none."""
        request = await self.records.next_analysis()
        if request is None:
            return False
        record = await self.matches.match_by_id(request.match_id)
        if record is None or not record.finished:
            await self.records.fail_analysis(request.match_id, "no finished match")
            return True
        games = len(record.state.get("history", []))
        if games > self.config.max_games:
            await self.records.fail_analysis(
                request.match_id, f"{games} games, more than the {self.config.max_games} analysed")
            return True
        try:
            result = await self.compute(record.state, request.plies)
        except Exception as error:
            log.exception("analysing match %d failed", request.match_id)
            await self.records.fail_analysis(request.match_id, repr(error))
            return True
        # A rated match's blunders become puzzles (public, as the match is); an unrated
        # match's analysis stays its players'.
        puzzles = (puzzles_of(result, record.state)
                   if result["evaluated"] and readable(record, "") else [])
        await self.records.store_analysis(request.match_id, request.plies, result, puzzles)
        told = {record.player_a, record.player_b, request.requested_by or record.player_a}
        # Every page of theirs hears it (its end of the match shows the error rates); a
        # classic session only when its user asked (`analyse notify on`).
        ready = web_events.analysis_ready(request.match_id, (record.player_a, record.player_b),
                                          result["players"] if result["evaluated"] else None)
        for name in told:
            lines = [analysis_texts.ready(request.match_id)] if wants_notices(self.people,
                                                                              name) else []
            self.people.messenger.tell([name], notice(lines, ready))
        return True

    async def close(self) -> None:
        """Stop taking requests; the one running stays queued in the store as running and is
        taken up again at the next start."""
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
