"""The periodic sweeps over the database: timed matches left on a node that stopped or died
get their grace period (`MatchClocks.resume_graces`), and matches left unfinished too long are
closed (`SavedMatches.close_abandoned`). One node of a lobby runs them: the holder of the
`sweeps` lease (docs/NODES.md, "Leases"); on one node, that node, from its start.

A running match's turn clock, the grace of a match left on this node and the expiry of an
open table stay with the node the match or the table lives on.
"""
from __future__ import annotations

import asyncio
import logging

from fibs_server.lobby.nodes.leases import stop_task
from fibs_server.lobby.play.match_play import Matches
from fibs_server.lobby.play.turn_clock import MatchClocks

log = logging.getLogger(__name__)

ABANDONMENT_CHECK_SECONDS = 3600.0  # how often matches left too long are looked for


class DatabaseSweeps:
    """The `sweeps` lease's duty (`lobby.leases.Duty`): a sweep when the lease is gained,
    then one every `period` seconds until it is lost."""

    def __init__(self, matches: Matches, clocks: MatchClocks,
                 period: float = ABANDONMENT_CHECK_SECONDS) -> None:
        self.matches = matches
        self.clocks = clocks
        self.period = period
        self._task: asyncio.Task[None] | None = None

    async def begin(self) -> None:
        # The graces before returning, as one node always armed them before serving.
        await self._arm_graces()
        self._task = asyncio.create_task(self._sweeping(), name="database sweeps")

    async def end(self) -> None:
        await stop_task(self._task)
        self._task = None
        self.clocks.drop_swept_graces()

    async def _arm_graces(self) -> None:
        try:
            await self.clocks.resume_graces()
        except Exception:
            log.exception("arming the grace periods of left matches failed; trying again later")

    async def _close_abandoned(self) -> None:
        try:
            closed = await self.matches.saved.close_abandoned()
            if closed:
                log.info("closed %d abandoned matches", closed)
        except Exception:
            log.exception("closing abandoned matches failed; trying again later")

    async def _sweeping(self) -> None:
        while True:
            await self._close_abandoned()
            await asyncio.sleep(self.period)
            await self._arm_graces()
