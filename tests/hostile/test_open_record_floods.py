"""A flood of the open record's reads (docs/WEB-API.md): a long match's record and `.mat`
file (each a replay of its history), the months and a month's files, from one address, while
a bystander plays: the bystander is answered as fast as ever, and the flooder gets the heavy
reads' few answers and then their refusals."""
from __future__ import annotations

import asyncio
import time

from fibs_server.open_record import write_month
from fibs_server.protocol.views.record_files import Month
from tests.hostile.bystander import assert_unhurt, time_answers_during, time_answers_quiet
from tests.hostile.test_heavy_reads import (
    a_long_rated_match,
    api_requests,
    assert_heavy_reads_paced,
    bystander_playing,
    heavy_reads_harness,
)


async def test_a_flood_of_the_open_record_is_refused_and_slows_nobody(tmp_path, tracebacks):
    harness = await heavy_reads_harness(tmp_path)
    try:
        store = harness.server.store
        match_id, _ = await a_long_rated_match(store)
        record = await store.match_by_id(match_id)
        month = Month.of(record.finished_at)
        await write_month(store, month, tmp_path / "records")
        paths = [f"api/matches/{match_id}/record", f"api/matches/{match_id}/mat",
                 "api/records", f"records/{month.matches_file}", f"records/{month.mat_file}"]
        bystander, _ = await bystander_playing(harness)
        quiet = await time_answers_quiet(bystander)
        started = time.monotonic()
        flooding = asyncio.ensure_future(api_requests(harness.url, paths))
        delays = await time_answers_during(bystander, flooding)
        seconds = time.monotonic() - started
        answers = flooding.result()
    finally:
        await harness.stop()

    assert_heavy_reads_paced(answers, seconds)
    assert_unhurt(quiet, delays, "a flood of the open record")
