"""The whole server with analysis on: a match finished through the lobby is queued by the
store, analysed in the analysis process and told to the player who opted in; the request
survives a restart."""
from __future__ import annotations

import dataclasses

import pytest

from fibs_server.bots.analysis import CHEAPEST_PLIES
from fibs_server.lobby.ports.analysis_records import Status
from fibs_server.lobby.services.analysis_queue import AnalysisConfig
from fibs_server.protocol.wording import analysis_texts
from tests.e2e.conftest import ServerHarness
from tests.lobby.recording import logged_in
from tests.lobby.test_analysis import play_out, status_becomes, typed
from tests.waiting import until

pytestmark = pytest.mark.stored


async def test_a_finished_match_is_analysed_by_the_server_and_told(database_url):
    harness = ServerHarness(database_url)
    harness.config = dataclasses.replace(harness.config,
                                         analysis=AnalysisConfig(plies=CHEAPEST_PLIES))
    await harness.start()
    try:
        lobby = harness.server.lobby
        alice, alice_out = await logged_in(lobby, "alice", ready=True)
        bob, _ = await logged_in(lobby, "bob", ready=True)
        await typed(lobby, alice, alice_out, "analyse notify on")
        heard: list[str] = []
        match_id = await play_out(lobby, alice, bob)
        await until(lambda: heard.extend(alice_out.lines()) or
                    analysis_texts.ready(match_id) in heard, "the notice", timeout=120.0)
        summary = await typed(lobby, alice, alice_out, f"analysis {match_id}")
        assert summary[0].startswith(f"Analysis of match {match_id}: alice - bob")

        # Queued, then the server stops before it runs: the next start runs it.
        harness.server.analysis_lane.hold()
        second = await play_out(lobby, alice, bob, seed=2)
        await harness.restart()
        store = harness.server.store
        await status_becomes(store, second, Status.DONE)
        assert (await store.analysis_of(second)).plies == CHEAPEST_PLIES
    finally:
        await harness.stop()
