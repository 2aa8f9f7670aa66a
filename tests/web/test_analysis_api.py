"""`/api/matches/<id>/analysis`: a finished rated match's stored analysis, to anyone; an
unrated one's is its players' (telnet only), and the heavy reads' per-address limit holds."""
from __future__ import annotations

import dataclasses

import aiohttp

from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.lobby.ports.accounts import Account
from fibs_server.lobby.ports.analysis_records import QueueLimits
from fibs_server.net.http import TOO_MANY_ANALYSIS_REQUESTS
from tests.web.conftest import WebHarness

RATED = {"ratings": {"alice": [1500.0, 1507.5], "bob": [1500.0, 1492.5]}}
PLAYERS = [{"player": 0, "unforced_decisions": 40, "error_rate": 1.2},
           {"player": 1, "unforced_decisions": 40, "error_rate": 12.5}]
ANALYSIS = {"plies": 2, "decisions": [], "players": PLAYERS}


async def finished(store, state) -> int:
    match_id = await store.create_match("alice", "bob", 1, {})
    await store.finish_match(match_id, state, "alice", [])
    return match_id


async def test_the_analysis_endpoint_serves_public_matches_only(tmp_path):
    harness = WebHarness(f"sqlite:///{tmp_path / 'api.db'}")
    harness.config = dataclasses.replace(harness.config, abuse_limits=AbuseLimits(
        heavy_read_burst=6, heavy_reads_per_second=0.01))
    await harness.start()
    try:
        store = harness.server.store
        for name in ("alice", "bob"):
            await store.create_account(Account(name=name, password_hash=b"x"))
        rated, unrated, analysed = [await finished(store, state)
                                    for state in (RATED, {}, RATED)]
        await store.request_analysis(rated, 2, "alice", QueueLimits())
        await store.store_analysis(analysed, 2, ANALYSIS)

        async with aiohttp.ClientSession() as http:
            async def get(match_id):
                async with http.get(f"{harness.url}api/matches/{match_id}/analysis") as answer:
                    return answer.status, await answer.json()

            status, body = await get(analysed)
            assert status == 200 and body["status"] == "done" and body["analysis"] == ANALYSIS
            # The first player's 1.2 mEMG is below what the judge can see: marked.
            assert body["below_resolution"] == [True, False]
            assert body["players"] == ["alice", "bob"]
            assert await get(rated) == (200, {"match_id": rated, "players": ["alice", "bob"],
                                              "length": 1, "status": "queued",
                                              "analysis": None})
            assert (await get(unrated))[0] == 404
            assert (await get("nothing"))[0] == 404
            assert (await get(99999))[0] == 404
            assert (await get(2**40))[0] == 404
            assert await get(analysed) == (429, {"error": TOO_MANY_ANALYSIS_REQUESTS})
    finally:
        await harness.stop()
