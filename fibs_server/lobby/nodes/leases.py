"""Leases: what must run once across the nodes of one lobby runs on the node holding its
lease (docs/NODES.md, "Leases"). On one node every lease is always held (`AlwaysHeld`); across
nodes the lease lives in Redis (`net/redis_lease.py`) with a time to live, which its holder
renews while it can.

`LeaseKeeper` keeps one lease: it tries to take it, renews it every third of its time to
live, and tells its duty when it is gained and when it is lost. A holder that cannot renew
(Redis gone, too slow) gives the lease up itself before its time to live could have run out
in Redis, counted from the moment it *sent* its last successful request: so two nodes never
both believe they hold it (clocks running at the same rate, within the margin).
"""
from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import math
from collections.abc import Awaitable, Callable, Iterable
from typing import Protocol

from fibs_server.lobby.clock import Alarm, Clock
from fibs_server.lobby.metrics import family

log = logging.getLogger(__name__)

DEFAULT_LEASE_SECONDS = 10.0  # how long a dead holder's lease outlives it
RENEWALS_PER_LEASE = 3  # a holder renews every third of the time to live
# The holder gives the lease up this share of the time to live before it could expire in
# Redis: room for the two clocks' rates and the loop's lateness in noticing.
GIVE_UP_MARGIN = 1 / 6

BOTS = "bots"  # the built-in bots are logged in on one node
SWEEPS = "sweeps"  # the periodic sweeps over the database run on one node
TOURNAMENTS = "tournaments"  # the tournament director runs on one node
QUICK_PLAY = "quick_play"  # quick play's seeks are paired on one node


class Lease(Protocol):
    """One named lease among the nodes."""

    name: str
    # Whether it runs out unless renewed; one node's never does, however late its loop.
    expires: bool

    async def acquire_or_renew(self) -> bool:
        """Take the lease if nobody holds it, or renew it if this node does: whether this
        node holds it now. May raise (the lease's store unreachable): not held, as far as
        anyone here can tell."""

    async def release(self) -> None:
        """Give the lease up if this node holds it, so another node may take it at once."""

    async def is_held(self) -> bool:
        """Whether this node holds it, as the lease's store says now."""


class AlwaysHeld:
    """One node, one lobby: every lease is this node's (nothing to ask anyone)."""

    expires = False

    def __init__(self, name: str) -> None:
        self.name = name

    async def acquire_or_renew(self) -> bool:
        return True

    async def release(self) -> None:
        return None

    async def is_held(self) -> bool:
        return True


# A lease by its name: AlwaysHeld on one node, a RedisLease's across nodes.
Leases = Callable[[str], Lease]


class Duty(Protocol):
    """What a lease's holder does: `begin` when the lease is gained, `end` when it is lost.
    The keeper awaits them one at a time, in order, apart from its renewals."""

    async def begin(self) -> None: ...

    async def end(self) -> None: ...


@dataclasses.dataclass
class LeaseFigures:
    gained: int = 0
    lost: int = 0


class LeaseKeeper:
    """Keeps `lease` with a time to live of `ttl` seconds on `clock` (the loop's, or a test's
    fake one), and runs `duty` while it is held.

    Attempts (take or renew) start every `ttl / 3`; one that has not answered after that long
    is abandoned. The lease is held until `ttl * (1 - GIVE_UP_MARGIN)` after the start of the
    last attempt that succeeded: if no later one succeeds by then, it is lost. An attempt
    answered with no (another node holds it) loses it at once."""

    def __init__(self, lease: Lease, duty: Duty, ttl: float, clock: Clock) -> None:
        self.lease = lease
        self.duty = duty
        self.ttl = ttl
        self.clock = clock
        self.figures = LeaseFigures()
        self.held = False
        self._valid_until = 0.0
        self._attempt_alarm: Alarm | None = None
        self._expiry_alarm: Alarm | None = None
        self._attempt: asyncio.Task[None] | None = None
        # Begin and end run in this order, one at a time, beside the renewals.
        self._changes: asyncio.Queue[bool] = asyncio.Queue()
        self._changing: asyncio.Task[None] | None = None
        self._stopped = False

    @property
    def name(self) -> str:
        return self.lease.name

    @property
    def renew_every(self) -> float:
        return self.ttl / RENEWALS_PER_LEASE

    async def start(self) -> None:
        """The first attempt, and the duty begun if it succeeded, before returning (one node
        starts as it always did); then attempts go on, on the clock."""
        self._changing = asyncio.create_task(self._run_changes(), name=f"lease {self.name}")
        await self._try()
        await self.settled()

    async def settled(self) -> None:
        """Until the duty's begin or end asked for so far has run (what a test waits for)."""
        await self._changes.join()

    async def stop(self) -> None:
        """The node stops: no more attempts, the duty ended if it runs, then the lease
        released, so that another node takes it at once."""
        self._stopped = True
        for alarm in (self._attempt_alarm, self._expiry_alarm):
            if alarm is not None:
                alarm.cancel()
        if self._attempt is not None:
            self._attempt.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._attempt
        if self.held:
            self._lost("the node stops")
        if self._changing is not None:
            await self.settled()
            self._changing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._changing
        # Even if not held here: an attempt cancelled above may have taken it (the release
        # deletes only this node's).
        try:
            await asyncio.wait_for(self.lease.release(), self.renew_every)
        except Exception as error:  # it expires by itself
            log.warning("lease %s: not released (%s); it expires within %g s",
                        self.name, error, self.ttl)

    # --- attempts --------------------------------------------------------------------------

    def _attempt_due(self) -> None:
        if self._stopped or (self._attempt is not None and not self._attempt.done()):
            return
        self._attempt = asyncio.ensure_future(self._try())

    async def _try(self) -> None:
        started = self.clock.time()
        answered = False
        try:
            ok = await asyncio.wait_for(self.lease.acquire_or_renew(), self.renew_every)
            answered = True
        except Exception as error:  # TimeoutError included
            ok = False
            if self.held:
                log.warning("lease %s: renewal failed: %s", self.name, error)
            else:
                log.debug("lease %s: not taken: %s", self.name, error)
        if self._stopped:
            return
        now = self.clock.time()
        if ok and not self.lease.expires:
            self._valid_until = math.inf
            self._gained()
            return  # held for good: nothing to renew
        valid_until = started + self.ttl * (1 - GIVE_UP_MARGIN)
        if ok and now < valid_until:
            self._valid_until = valid_until
            if self._expiry_alarm is not None:
                self._expiry_alarm.cancel()
            self._expiry_alarm = self.clock.call_at(valid_until, self._expiry_due)
            self._gained()
        elif self.held and not ok and answered:
            # Taken by another node: the key expired or vanished (a Redis restart).
            self._lost("held by another node")
        elif self.held and now >= self._valid_until:
            self._lost("not renewed in time")
        next_at = started + self.renew_every
        self._attempt_alarm = self.clock.call_at(max(now, next_at), self._attempt_due)

    def _gained(self) -> None:
        if not self.held:
            self.held = True
            self.figures.gained += 1
            log.info("lease %s: gained", self.name)
            self._changes.put_nowait(True)

    def _expiry_due(self) -> None:
        if self.held and not self._stopped and self.clock.time() >= self._valid_until:
            self._lost("not renewed in time")

    def _lost(self, why: str) -> None:
        self.held = False
        self.figures.lost += 1
        if self._expiry_alarm is not None:
            self._expiry_alarm.cancel()
            self._expiry_alarm = None
        log.log(logging.INFO if self._stopped else logging.WARNING, "lease %s: lost (%s)",
                self.name, why)
        self._changes.put_nowait(False)

    # --- the duty --------------------------------------------------------------------------

    async def _run_changes(self) -> None:
        while True:
            gained = await self._changes.get()
            try:
                await (self.duty.begin() if gained else self.duty.end())
            except Exception:
                log.exception("lease %s: the duty's %s failed", self.name,
                              "begin" if gained else "end")
            finally:
                self._changes.task_done()


async def stop_task(task: asyncio.Task[None] | None) -> None:
    """`task`, a duty's work, cancelled and waited for (a duty's end)."""
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


class CallbackDuty:
    """A duty as two coroutine functions (`begin`, `end`)."""

    def __init__(self, begin: Callable[[], Awaitable[None]],
                 end: Callable[[], Awaitable[None]]) -> None:
        self._begin = begin
        self._end = end

    async def begin(self) -> None:
        await self._begin()

    async def end(self) -> None:
        await self._end()


def lease_families(keepers: Iterable[LeaseKeeper]) -> list[list[str]]:
    """/metrics of the leases this node keeps (docs/OPERATIONS.md)."""
    keepers = list(keepers)
    return [
        family("fibs_lease_held", "gauge", "Whether this node holds the lease (1) or not "
               "(0): bots, the built-in bots online here; sweeps, the periodic sweeps over "
               "the database run here; tournaments, the tournament director runs here.",
               [({"lease": keeper.name}, int(keeper.held)) for keeper in keepers]),
        family("fibs_lease_changes_total", "counter", "Leases gained and lost by this node.",
               [({"lease": keeper.name, "change": change}, getattr(keeper.figures, change))
                for keeper in keepers for change in ("gained", "lost")]),
    ]
