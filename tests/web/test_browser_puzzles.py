"""The Puzzles tab in a real browser: the day's puzzle drawn from its decider's side, a play
typed in one's own numbers, solved, and the puzzle rating's change said (and kept)."""
from __future__ import annotations

import re

from playwright.async_api import expect

from tests.web.test_browser import log_in, open_page
from tests.web.test_puzzles_api import ANALYSIS, RATED, puzzle


async def test_the_days_puzzle_is_solved_and_the_rating_rises(web, browser, artifacts):
    store = web.server.store
    await web.register("alice", "secret1")
    await web.register("bob")
    # The match finished before alice logs in: her login reads her saved matches, and a match
    # stored bare (no state) but not yet finished is none that a server ever keeps.
    match_id = await store.create_match("alice", "bob", 5, {})
    await store.finish_match(match_id, RATED, "alice", [])
    await store.store_analysis(match_id, 1, ANALYSIS, [puzzle(1, 0.2)])
    page = await open_page(browser, web)
    await log_in(page, "alice")

    await page.get_by_role("tab", name="Puzzles").click()
    await page.click(".puzzle-daily")
    await expect(page.locator("#puzzle-heading")).to_have_text(re.compile(
        r"Puzzle \d+ \(rating \d+\): alice to play, match \d+, game 1\. Find the best play\."))
    # The decider's side below: alice's 3-1 and her checkers on her 8, 6 and 13 points.
    await expect(page.locator(".puzzle-board .die")).to_have_count(2)
    await page.fill("#puzzle-play", "8/5 6/5")
    await page.press("#puzzle-play", "Enter")
    said = page.locator("#puzzle-said")
    await expect(said).to_have_text(re.compile(
        r"Right: 8/5 6/5\. Your puzzle rating: 15\d\d\.\d \(\+\d+\.\d\)\."))
    await page.screenshot(path=artifacts / "puzzle-solved.png", full_page=True)
    rating = await store.puzzle_rating("alice")
    assert rating.rating > 1500.0 and (rating.attempts, rating.solved) == (1, 1)
