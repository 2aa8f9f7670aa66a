"""A flood of puzzles: one user answers the same puzzle in a loop over telnet while one
address loops over the puzzles' JSON API (docs/WEB-API.md, "Puzzles"), and a bystander plays:
both are paced as the heavy reads (a burst, then a token a while), the rest refused with
their texts; the answers rate the player once; the bystander is answered as fast as ever."""
from __future__ import annotations

import asyncio
import re
import time

from tests.hostile.bystander import assert_unhurt, time_answers_during, time_answers_quiet
from tests.hostile.test_heavy_reads import (
    BURST,
    PER_SECOND,
    api_requests,
    assert_heavy_reads_paced,
    bystander_playing,
    heavy_reads_harness,
)
from tests.store.test_puzzle_records import puzzle
from tests.web.test_puzzles_api import ANALYSIS

ROUNDS = 100
ANSWERED = re.compile(r"Your puzzle rating: .*")
REFUSED = re.compile(r"\*\* Too many puzzles asked for: try again in [1-5] seconds?\.")


async def answers(client, puzzle_id: int) -> tuple[int, int]:
    answered = refused = 0
    for _ in range(ROUNDS):
        await client.send(f"puzzle {puzzle_id} 8/5 6/5")
        while not (ANSWERED.fullmatch(line := await client.read_line())
                   or REFUSED.fullmatch(line)):
            pass
        answered += ANSWERED.fullmatch(line) is not None
        refused += REFUSED.fullmatch(line) is not None
    return answered, refused


async def test_a_flood_of_puzzles_is_paced_rates_once_and_slows_nobody(tmp_path, tracebacks):
    harness = await heavy_reads_harness(tmp_path)
    try:
        store = harness.server.store
        match_id = await store.create_match("flooder", "opponent", 5, {})
        await store.finish_match(match_id, {"ratings": {"flooder": [1500.0, 1501.0],
                                                        "opponent": [1500.0, 1499.0]}},
                                 "flooder", [])
        await store.store_analysis(match_id, 1, ANALYSIS, [puzzle(1, 0.2)])
        puzzle_id = (await store.next_puzzle("flooder", 1500.0)).puzzle_id
        # The next puzzle of a player who never tries it: the flooder's own next is none
        # (404) once the telnet flood's first answer is stored, which comes when it may.
        paths = ["api/puzzles/daily", "api/puzzles/next?name=opponent",
                 f"api/puzzles/{puzzle_id}", "api/players/flooder/puzzles"]
        flooder = await harness.login_clip("flooder")
        bystander, _ = await bystander_playing(harness)
        quiet = await time_answers_quiet(bystander)
        started = time.monotonic()
        flooding = asyncio.gather(answers(flooder, puzzle_id), api_requests(harness.url, paths))
        delays = await time_answers_during(bystander, flooding)
        seconds = time.monotonic() - started
        (answered, refused), api_answers = flooding.result()
        rating = await store.puzzle_rating("flooder")
    finally:
        await harness.stop()

    assert 0 < answered <= BURST + seconds * PER_SECOND + 1 and refused == ROUNDS - answered
    assert (rating.attempts, rating.solved) == (1, 1)  # rated once, however often answered
    assert_heavy_reads_paced(api_answers, seconds)
    assert_unhurt(quiet, delays, "a flood of puzzles")
