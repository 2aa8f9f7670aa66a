"""Bot decisions off the event loop, in worker processes.

bgsage holds the GIL while it evaluates (two threads run its evaluations no faster than one:
docs/BOTS.md), so threads would take the event loop's turn; processes do not. The workers run
at the lowest CPU priority (unless `WorkerPriority.NORMAL` is asked for): when bots and people
want the same core, people come first.

A worker may also be held to a share of one core (`cpu_share`): after a decision that took
t seconds of CPU it rests t * (1 / share - 1) before the next one, so that bots under load
think less (their decisions come late and get the fallback) instead of taking the cores' idle
time, which on a small machine is what the people's commands run in between.

Levels that use no engine (the beginner's rules of thumb) decide at once on the loop. Levels
of at most `QUICK_PLIES` (the intermediate's bare network, about 3 ms) have a worker of their
own, so that they never wait behind other matches' expert decisions (tens of ms each).

Each decision has a time budget, counted from the request, queueing included; a decision late,
failed or refused because too many are waiting is replaced by `brain.fallback`, our rules of
thumb computed at once on the loop (about a millisecond), so a bot never stalls its match.

The workers are forked from multiprocessing's fork server, a process of its own started at
the first pool (not forked from the server: the server has threads, bcrypt's and the
database drivers', that a fork would copy in whatever state they are). The fork server
imports this module and bgsage once; each worker then starts in milliseconds where a
spawned one would import them again (about a second and a half of CPU on a slow machine):
a worker replaced after it died, every server a test starts.

Match analyses (`AnalysisLane`) run one at a time in a process of their own, also at idle
priority, and the bots go first: while any bot decision is waiting or computing in a worker,
the analysis process is stopped (SIGSTOP) and it goes on (SIGCONT) once none is. Both are
at the same idle priority, so without the stop an analysis would share a core with a bot's
decision; stopped, it takes none of its CPU.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import ctypes
import ctypes.util
import dataclasses
import enum
import functools
import json
import logging
import multiprocessing
import multiprocessing.forkserver
import os
import secrets
import signal
import time
from collections.abc import Callable
from typing import Any

from fibs_server.rules.dice import ScriptedDice
from fibs_server.rules.match import Match

from . import analysis, brain, chances, tutor
from .brain import Level
from .situation import Decision, Situation

log = logging.getLogger(__name__)

WORKER_NICENESS = 19
PR_SET_PDEATHSIG = 1  # linux/prctl.h


class WorkerPriority(enum.Enum):
    """How the engine's processes (bots, analyses) share the cores with everything else."""

    # SCHED_IDLE (or nice 19 where there is none): only the time no other process wants, so
    # people's commands come first. On a machine whose cores other programs keep busy the
    # engine then gets no CPU at all: bots play their fallback, analyses wait.
    IDLE = "idle"
    # Like any process: for a machine that other work keeps busy where the bots must still
    # think (the test suite on a shared machine; a host that runs nothing but the server).
    NORMAL = "normal"


class CpuPacer:
    """Holds a worker to `share` of one core over its decisions (1.0: no rest)."""

    def __init__(self, share: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.share = share
        self.clock = clock
        self.rested_at = 0.0  # on `clock`: when the next decision may start

    def spent(self, cpu_seconds: float) -> None:
        self.rested_at = self.clock() + cpu_seconds * (1.0 / self.share - 1.0)

    def rest(self) -> float:
        """Seconds to wait before the next decision."""
        return max(0.0, self.rested_at - self.clock())


_pacer = CpuPacer(1.0)  # a worker's own, set by _start_worker


# Sets up a worker's logging as the server's (a new process starts without any,
# and would write what it says, warnings or a failed start, as plain text among the server's
# JSON lines); picklable: a module's function, or a partial of one. None: Python's default.
LogSetup = Callable[[], None] | None


def _start_worker(server_pid: int, cpu_share: float, priority: WorkerPriority,
                  logs: LogSetup = None) -> None:
    global _pacer
    if logs is not None:
        logs()
    _end_with_the_server(server_pid)
    if priority is WorkerPriority.IDLE:
        try:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        except (AttributeError, OSError):
            os.nice(WORKER_NICENESS)
    _pacer = CpuPacer(cpu_share)
    brain.warm_up()


def _decide_paced(situation: Situation, level: Level, seed: int,
                  deadline: float) -> Decision | None:
    """In a worker: `brain.decide_seeded` after the rest the previous decision left owing;
    None, computing nothing, once `deadline` (`time.monotonic()`, the same clock in every
    process) has passed: the pool has played the fallback by then, and under load a queue of
    expired requests would keep the worker from the ones still in time. CPU time is the
    process's, so it counts bgsage's own threads too."""
    time.sleep(_pacer.rest())
    if time.monotonic() >= deadline:
        return None
    started = time.process_time()
    try:
        return brain.decide_seeded(situation, level, seed)
    finally:
        _pacer.spent(time.process_time() - started)


def _end_with_the_server(server_pid: int) -> None:
    """A server killed outright (SIGKILL, a crash) cannot stop its workers: on Linux the
    kernel does (PR_SET_PDEATHSIG), so none is left holding 150 MB and the server's output
    pipes. A worker's parent is the fork server, which ends when the server does (its pipe
    from the server closes), and the kernel then kills the worker. Elsewhere the workers end
    when their next request finds the pool's pipe closed."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    _let_the_fork_server_go()
    try:  # the server died before the call above
        os.kill(server_pid, 0)
    except ProcessLookupError:
        os._exit(1)


def _let_the_fork_server_go() -> None:
    """multiprocessing gives every process the fork server forks the write end of the pipe
    whose end tells the fork server that its server is gone, so that it lives as long as any
    of them: a worker that kept it would keep the fork server up after the server was killed,
    and so itself. Closed here, the fork server ends with the server."""
    fork_server = getattr(multiprocessing.forkserver, "_forkserver", None)
    alive = getattr(fork_server, "_forkserver_alive_fd", None)
    if isinstance(alive, int):
        os.close(alive)
        fork_server._forkserver_alive_fd = None  # type: ignore[union-attr]


def worker_context() -> multiprocessing.context.BaseContext:
    """Where the workers come from (module docstring): the fork server, with this module
    (bgsage with it) imported there once; spawn where there is no fork server."""
    try:
        context = multiprocessing.get_context("forkserver")
    except ValueError:
        return multiprocessing.get_context("spawn")
    # Read when the fork server starts (the first pool of the process); later calls change
    # nothing.
    context.set_forkserver_preload([__name__])
    return context


def analyse_stored(state: dict[str, Any], plies: int) -> dict[str, Any]:
    """In the analysis process: a stored match's state analysed, as it is stored."""
    # Only replayed, never rolled: the match needs no dice.
    match = Match.from_dict(state, ScriptedDice([]))
    return analysis.analyse_match(match, plies).to_dict()


class AnalysisLane:
    """Match analyses in one process of their own at idle priority, one at a time, held
    (stopped) whenever `hold` was called more often than `release`: the bots' pool holds it
    while any of its decisions is under way."""

    def __init__(self, priority: WorkerPriority = WorkerPriority.IDLE,
                 logs: LogSetup = None) -> None:
        self.priority = priority
        self.logs = logs
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        self._pid: int | None = None
        self._holds = 0
        self._lock = asyncio.Lock()  # one analysis at a time
        self._closed = False
        self._turn = False  # runs whoever holds it (take_turn)
        self.stops = 0  # how often the process was stopped for a bot (tests, figures)
        self.turns = 0  # how often it took a turn while held (figures)

    @property
    def held(self) -> bool:
        return self._holds > 0

    @property
    def computing(self) -> bool:
        """An analysis is under way, held or not."""
        return self._lock.locked()

    @property
    def stopped(self) -> bool:
        return self.held and not self._turn

    @property
    def pid(self) -> int | None:
        """The analysis process's, once it has run something."""
        return self._pid

    async def analyse(self, state: dict[str, Any], plies: int) -> dict[str, Any]:
        """`analysis.analyse_match` of the stored match state, as `MatchAnalysis.to_dict`;
        raises what the analysis raised, or BrokenExecutor if the process died."""
        async with self._lock:
            if self._closed:
                raise RuntimeError("the analysis lane is closed")
            if self._executor is None:
                self._executor = concurrent.futures.ProcessPoolExecutor(
                    1, mp_context=worker_context(),
                    initializer=_start_worker,
                    initargs=(os.getpid(), 1.0, self.priority, self.logs))
            executor = self._executor
            try:
                if self._pid is None:
                    self._pid = await asyncio.wrap_future(executor.submit(os.getpid))
                    self._signal(signal.SIGSTOP if self.stopped else None)
                return await asyncio.wrap_future(executor.submit(analyse_stored, state, plies))
            except concurrent.futures.BrokenExecutor:
                executor.shutdown(wait=False)
                self._executor, self._pid = None, None
                raise

    def hold(self) -> None:
        self._holds += 1
        if self._holds == 1 and not self._turn:
            self.stops += 1
            self._signal(signal.SIGSTOP)

    def release(self) -> None:
        if self._holds == 0:  # closed meanwhile: nothing is held
            return
        self._holds -= 1
        if self._holds == 0 and not self._turn:
            self._signal(signal.SIGCONT)

    def take_turn(self) -> None:
        """Runs even while held, until `end_turn`: a server (or its bots) busy all the time
        still lets its analyses move on (lobby/limits/busy_hold.py gives the turns)."""
        if not self._turn:
            self._turn = True
            if self.held:
                self.turns += 1
                self._signal(signal.SIGCONT)

    def end_turn(self) -> None:
        if self._turn:
            self._turn = False
            if self.held:
                self.stops += 1
                self._signal(signal.SIGSTOP)

    def _signal(self, number: signal.Signals | None) -> None:
        if number is None or self._pid is None:
            return
        try:
            os.kill(self._pid, number)
        except ProcessLookupError:  # it died: the analysis running gets BrokenExecutor
            pass

    async def close(self) -> None:
        """The analysis being computed is dropped; waits, in a thread, for the process."""
        self._closed = True
        self._holds, self._turn = 0, False
        self._signal(signal.SIGCONT)  # a stopped process cannot exit
        if self._executor is not None:
            executor, self._executor = self._executor, None
            await asyncio.get_running_loop().run_in_executor(None, functools.partial(
                _stop_executor, executor, [] if self._pid is None else [self._pid]))


def _stop_executor(executor: concurrent.futures.ProcessPoolExecutor, pids: list[int]) -> None:
    """Killed, not waited for: what the processes compute is nobody's any more (an analysis
    may take tens of seconds), and at idle priority on a busy machine a process may get no
    CPU to finish it, which would hold the server's shutdown for as long."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    executor.shutdown(wait=True, cancel_futures=True)


@dataclasses.dataclass
class PoolCounts:
    decided: int = 0  # by the engine, in time
    late: int = 0  # over the time budget: fallback
    refused: int = 0  # the queue was full: fallback
    failed: int = 0  # the worker raised or died: fallback


QUICK_PLIES = 1
# Seconds a match's winning chances may take (about 0.15 s at 2-ply): nothing waits on them,
# but a worker's queue should not hold them past the next bot decisions' budgets for long.
CHANCES_BUDGET = 10.0
CHANCES_KEPT = 64  # late computations kept for the next sweep, at most


class NoAnswer(Exception):
    """A computation in the bots' workers was late, refused or failed."""


class Late(NoAnswer):
    """A computation over its budget, still under way in a worker (`work`)."""

    def __init__(self, message: str, work: asyncio.Future[Any]) -> None:
        super().__init__(message)
        self.work = work


class BotPool:
    """`workers` processes (default: one per core but the event loop's) and one more for the
    quick levels; at most `queue_limit` decisions waiting or running at a time; `time_budget`
    seconds per decision; each worker held to `cpu_share` of a core."""

    def __init__(self, *, workers: int | None = None, time_budget: float = 1.0,
                 queue_limit: int = 100, cpu_share: float = 1.0,
                 analyses: AnalysisLane | None = None,
                 priority: WorkerPriority = WorkerPriority.IDLE,
                 logs: LogSetup = None) -> None:
        if not 0.0 < cpu_share <= 1.0:
            raise ValueError(f"cpu_share must be in (0, 1], not {cpu_share}")
        self.workers = workers or max(1, (os.cpu_count() or 2) - 1)
        self.cpu_share = cpu_share
        self.priority = priority
        self.logs = logs
        self.time_budget = time_budget
        self.queue_limit = queue_limit
        self.counts = PoolCounts()
        self._under_way = 0
        self._closed = False
        # Chances computed still for a sweep that stopped waiting (late), by the state asked
        # about: the next sweep's ask for that state waits for them rather than queueing the
        # same work behind them (with one worker, each ask would come later than the last).
        self._chances_kept: dict[str, asyncio.Future[Any]] = {}
        self._executor = self._new_executor(self.workers)
        self._quick_executor = self._new_executor(1)
        self.analyses = analyses  # held while a decision is under way

    def _new_executor(self, workers: int) -> concurrent.futures.ProcessPoolExecutor:
        return concurrent.futures.ProcessPoolExecutor(
            workers, mp_context=worker_context(),
            initializer=_start_worker,
            initargs=(os.getpid(), self.cpu_share, self.priority, self.logs))

    def _executor_for(self, level: Level) -> concurrent.futures.ProcessPoolExecutor:
        return self._quick_executor if level.plies <= QUICK_PLIES else self._executor

    async def start(self) -> None:
        """Start the workers and load bgsage's networks in them, so that the first decisions
        are in time (optional: workers otherwise start at the first decisions)."""
        loop = asyncio.get_running_loop()
        await asyncio.gather(*(loop.run_in_executor(executor, brain.warm_up)
                               for executor, count in ((self._executor, self.workers),
                                                       (self._quick_executor, 1))
                               for _ in range(count)))

    async def decide(self, situation: Situation, level: Level,
                     seed: int | None = None) -> Decision:
        """The bot's decision; `seed` makes its noise reproducible (default: a random one)."""
        seed = secrets.randbits(64) if seed is None else seed
        if not brain.needs_engine(situation, level):
            # Our rules of thumb cost less on the loop (0.14 ms p50, 3 ms at most) than the
            # trip to a worker, and they would wait there behind the engine's 2-ply decisions.
            self.counts.decided += 1
            return brain.decide_seeded(situation, level, seed)
        if self._closed or self._under_way >= self.queue_limit:
            self.counts.refused += 1
            return brain.fallback(situation)
        self._under_way += 1
        if self.analyses is not None:
            self.analyses.hold()
        try:
            return await self._decide_in_worker(situation, level, seed)
        finally:
            self._under_way -= 1
            if self.analyses is not None:
                self.analyses.release()

    async def _decide_in_worker(self, situation: Situation, level: Level,
                                seed: int) -> Decision:
        executor = self._executor_for(level)
        try:
            work = executor.submit(_decide_paced, situation, level, seed,
                                   time.monotonic() + self.time_budget)
        except concurrent.futures.BrokenExecutor as error:
            return self._after_failure(situation, executor, error)
        future = asyncio.wrap_future(work)
        try:
            done, _ = await asyncio.wait({future}, timeout=self.time_budget)
        except asyncio.CancelledError:
            future.cancel()  # drops the work if no worker has taken it yet
            raise
        if not done:
            future.cancel()
            self.counts.late += 1
            return brain.fallback(situation)
        if future.cancelled() or self._closed:  # the pool closed under it (its worker killed)
            self.counts.refused += 1
            return brain.fallback(situation)
        failure = future.exception()
        if failure is not None:
            log.error("bot decision failed", exc_info=failure)
            return self._after_failure(situation, executor, failure)
        decision = future.result()
        if decision is None:  # the worker took it up after its deadline
            self.counts.late += 1
            return brain.fallback(situation)
        self.counts.decided += 1
        return decision

    async def judge(self, situation: Situation, proposal: Decision) -> tutor.Verdict | None:
        """The tutor's verdict on `proposal` (`tutor.judge`), in the quick levels' worker under
        the same time budget and queue limit as a decision; None when it is late, refused or
        failed: a hint has no fallback, the player is told so."""
        try:
            verdict: tutor.Verdict = await self._computed(
                self._quick_executor, self.time_budget, tutor.judge, situation, proposal)
        except NoAnswer:
            return None
        return verdict

    async def chances(self, state: dict[str, Any]) -> float | None:
        """`chances.match_chances` of a stored match's state (player 0's match winning
        chance; None: the engine has none for this match), in the workers of the deeper
        levels, under the queue limit and `CHANCES_BUDGET`. Raises NoAnswer when it is late,
        refused or failed: nothing waits on it (the sweep over abandoned matches asks again
        at its next pass)."""
        key = json.dumps(state, sort_keys=True)
        kept = self._chances_kept.pop(key, None)
        try:
            result: float | None = await self._computed(
                self._executor, CHANCES_BUDGET, chances.match_chances, state, kept=kept,
                keep_late=True)
        except Late as late:
            while len(self._chances_kept) >= CHANCES_KEPT:  # states no sweep asks for again
                self._chances_kept.pop(next(iter(self._chances_kept))).cancel()
            self._chances_kept[key] = late.work
            raise
        return result

    async def _computed(self, executor: concurrent.futures.ProcessPoolExecutor, budget: float,
                        function: Callable[..., Any], *arguments: Any,
                        kept: asyncio.Future[Any] | None = None, keep_late: bool = False) -> Any:
        """`function(*arguments)` in `executor` within `budget` seconds, counted like a
        decision (the analyses held meanwhile); NoAnswer when it is late, refused or failed.
        Late work is dropped, or with `keep_late` raised with the `Late` that says it, still
        under way; `kept`: such work, waited for instead of submitted again."""
        if self._closed or self._under_way >= self.queue_limit:
            if kept is not None:
                kept.cancel()
            self.counts.refused += 1
            raise NoAnswer("refused: too many computations under way")
        self._under_way += 1
        if self.analyses is not None:
            self.analyses.hold()
        try:
            work = kept if kept is not None else asyncio.wrap_future(
                executor.submit(function, *arguments))
            done, _ = await asyncio.wait({work}, timeout=budget)
            if not done:
                self.counts.late += 1
                if not keep_late:
                    work.cancel()
                raise Late(f"late: over {budget:g} s", work)
            if work.cancelled() or work.exception() is not None:
                self.counts.failed += 1
                raise NoAnswer("failed")
            return work.result()
        except concurrent.futures.BrokenExecutor as error:
            self.counts.failed += 1
            raise NoAnswer("failed: the worker died") from error
        finally:
            self._under_way -= 1
            if self.analyses is not None:
                self.analyses.release()

    def _after_failure(self, situation: Situation, executor: concurrent.futures.Executor,
                       error: BaseException) -> Decision:
        self.counts.failed += 1
        # A worker died (a crash in bgsage's C++): the pool is unusable, start a new one, once.
        if isinstance(error, concurrent.futures.BrokenExecutor) and not self._closed:
            if executor is self._executor:
                executor.shutdown(wait=False)
                self._executor = self._new_executor(self.workers)
            elif executor is self._quick_executor:
                executor.shutdown(wait=False)
                self._quick_executor = self._new_executor(1)
        return brain.fallback(situation)

    async def close(self) -> None:
        """Refuse new decisions and end the workers: the decisions queued or under way get the
        fallback."""
        self._closed = True
        loop = asyncio.get_running_loop()
        await asyncio.gather(*(loop.run_in_executor(None, functools.partial(
            _stop_executor, executor, list(executor._processes or ())))  # no public way
            for executor in (self._executor, self._quick_executor)))
