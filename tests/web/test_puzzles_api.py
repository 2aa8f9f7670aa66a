"""The puzzles' HTTP API (/api/puzzles/daily, next, <id>, /api/players/<name>/puzzles) around
an answer given over the player's connection (`puzzle <id> <answer>`): the puzzle served
without its answer, solved, the player's rating up and the puzzle's down, once."""
from __future__ import annotations

import re

import aiohttp

from tests.store.test_puzzle_records import puzzle
from tests.web.conftest import WebHarness

RATED = {"ratings": {"alice": [1500.0, 1507.5], "bob": [1500.0, 1492.5]}}
ANALYSIS = {"plies": 1, "evaluated": True, "decisions": [], "players": []}


async def test_a_puzzle_is_served_solved_and_both_ratings_change(tmp_path):
    harness = await WebHarness(f"sqlite:///{tmp_path / 'puzzles.db'}").start()
    try:
        store = harness.server.store
        for name in ("alice", "bob"):
            await harness.register(name)
        match_id = await store.create_match("alice", "bob", 5, {})
        await store.finish_match(match_id, RATED, "alice", [])
        await store.store_analysis(match_id, 1, ANALYSIS, [puzzle(1, 0.2)])

        async with aiohttp.ClientSession() as http:
            async def get(path):
                async with http.get(f"{harness.url}api/{path}") as answer:
                    return answer.status, await answer.json()

            status, daily = await get("puzzles/daily")
            assert status == 200 and daily["question"] == "play" and daily["dice"] == [3, 1]
            assert "best" not in daily and "played" not in daily  # no answer given away
            assert daily["players"] == ["alice", "bob"] and daily["decider"] == "alice"
            assert daily["score"] == {"player": 0, "opponent": 0} and daily["cube_owner"] is None
            puzzle_id, first_rating = daily["puzzle_id"], daily["rating"]
            assert (await get("puzzles/next?name=alice"))[1] == {
                key: value for key, value in daily.items() if key != "date"}
            assert await get("players/alice/puzzles") == (
                200, {"name": "alice", "rating": 1500.0, "attempts": 0, "solved": 0})

            alice = await harness.login_clip("alice")
            await alice.send(f"puzzle {puzzle_id} 6/5 8/5")
            await alice.skip_until("Right: 8/5 6/5.")
            line = await alice.read_line()
            change = float(re.fullmatch(r"Your puzzle rating: [\d.]+ \(\+([\d.]+)\)\.", line)[1])
            status, rating = await get("players/alice/puzzles")
            assert rating["rating"] == round(1500.0 + change, 1) and rating["solved"] == 1
            status, solved = await get(f"puzzles/{puzzle_id}")
            assert solved["rating"] < first_rating
            assert (solved["attempts"], solved["solved"]) == (1, 1)

            await alice.send(f"puzzle {puzzle_id} 24/21 24/23")  # again: told, not rated
            await alice.skip_until("Not the best: the analysis found 8/5 6/5 (the match saw "
                                   "24/23 24/21).")
            await alice.skip_until(re.compile(r"Your puzzle rating: [\d.]+ \(rated at your "
                                              r"first try only\)\."))
            assert (await get("players/alice/puzzles"))[1] == rating
            assert (await get("puzzles/next?name=alice"))[0] == 404  # none left for her
            assert (await get("puzzles/99999"))[0] == 404
            assert (await get("puzzles/nothing"))[0] == 404
            assert (await get("players/nobody/puzzles"))[0] == 404
    finally:
        await harness.stop()
