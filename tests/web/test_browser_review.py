"""A finished match's review in a real browser (Debian's chromium, driven by Playwright), on a
phone: the archive's answers for one match are the real match and analysis of
tests/web/js/fixtures/review.json (the browser is given them in place of the server's, which
has no such match), opened from alice's profile. The board stays alice's from decision to
decision, whoever decides, and the words number the points as her board does; turned, it is
bob's. A screenshot goes to test-artifacts/web (review-phone.png)."""
from __future__ import annotations

import json
import pathlib

from playwright.async_api import Page, Route, expect

from tests.web.test_browser import register
from tests.web.test_browser_phone import fits, phone_page

FIXTURE = json.loads((pathlib.Path(__file__).parent / "js" / "fixtures" / "review.json").read_text())
MATCH_ID = FIXTURE["match"]["match_id"]
ALICES_MATCHES = {"name": "alice", "next_before": None, "matches": [{
    "match_id": MATCH_ID, "opponent": "bob", "length": 3, "winner": "bob", "score": [0, 5],
    "finished_at": 1700000000, "rating_before": 1500.0, "rating_after": 1492.0,
    "analysed": True}, {
    # Abandoned and settled by both players' chances: no winner (docs/FAIRNESS.md).
    "match_id": MATCH_ID + 1, "opponent": "carol", "length": 5, "winner": None, "score": [2, 1],
    "finished_at": 1690000000, "rating_before": 1496.0, "rating_after": 1500.0,
    "analysed": False}]}
ANSWERS = {"/api/players/alice/matches": ALICES_MATCHES,
           f"/api/matches/{MATCH_ID}": FIXTURE["match"],
           f"/api/matches/{MATCH_ID}/analysis": {
               "match_id": MATCH_ID, "players": ["alice", "bob"], "length": 3,
               "status": "done", "analysed_at": 1700000100, "analysis": FIXTURE["analysis"],
               "below_resolution": [False, False]}}


async def archive_of_one_match(route: Route) -> None:
    path = route.request.url.split("://", 1)[1].split("/", 1)[1].split("?")[0]
    answer = ANSWERS.get("/" + path)
    if answer is None:
        await route.continue_()
    else:
        await route.fulfill(json=answer)


async def decision(page: Page, number: int) -> None:
    await expect(page.locator("#review-decision")).to_contain_text(f"Decision {number} of")


async def test_a_review_is_seen_from_the_viewers_side_throughout(web, browser, artifacts):
    await web.register("alice", "secret1")  # her profile's own answers are the server's
    page = await phone_page(browser, web.url, 390, 844)
    await page.route("**/api/**", archive_of_one_match)
    await register(page, "erin")
    await page.tap('#tabs [data-tab="profile"]')
    await page.fill("#history-name", "alice")
    await page.tap("#profile-form button")
    await expect(page.locator("#match-history")).to_contain_text(
        f"#{MATCH_ID + 1} against carol, a 5 point match: settled by the chances 2-1")
    await page.locator("#match-history").get_by_role("button", name="Review with analysis").tap()
    await decision(page, 1)
    board = page.locator("#review-board")
    # bob (O in game 1) opens with 6-2, 24-18 18-16 in his numbers: on alice's board his
    # checkers leave her 1 point, and the words say so.
    await expect(page.locator("#review-decision")).to_contain_text("bob played 1/7 7/9.")
    await expect(board.locator('[data-point="1"] .checker.theirs')).to_have_count(2)
    await expect(board.locator('[data-point="24"] .checker.mine')).to_have_count(2)
    await expect(board.locator(".caption.player")).to_contain_text("alice")
    await fits(page, 390, "the review")
    await page.screenshot(path=artifacts / "review-phone.png", full_page=True)
    # alice's reply, 6-2 as X: her own 24/18 13/11 on the same board, still hers.
    await page.tap("#review-next")
    await decision(page, 2)
    await page.tap("#review-next")
    await decision(page, 3)
    await expect(page.locator("#review-decision")).to_contain_text("alice played 24/18 13/11.")
    await expect(board.locator(".caption.player")).to_contain_text("alice")
    await expect(board.locator('[data-point="24"] .checker.mine')).to_have_count(2)
    await expect(board.locator('[data-point="1"] .checker.theirs')).to_have_count(1)
    await expect(board.locator('[data-point="7"] .checker.theirs')).to_have_count(0)
    await expect(board.locator('[data-point="9"] .checker.theirs')).to_have_count(1)
    # Every decision after: alice at the bottom.
    for number in range(4, 12):
        await page.tap("#review-next")
        await decision(page, number)
        await expect(board.locator(".caption.player")).to_contain_text("alice")
    # Turned to bob's side: his opening in his own numbers, on his board.
    await page.tap("#review-first")
    await decision(page, 1)
    await page.tap("#review-turn")
    await expect(page.locator("#review-decision")).to_contain_text("bob played 24/18 18/16.")
    await expect(board.locator(".caption.player")).to_contain_text("bob")
    await expect(board.locator('[data-point="24"] .checker.mine')).to_have_count(2)
    # The phone on its side: the whole board in the screen's height.
    await page.set_viewport_size({"width": 844, "height": 390})
    await board.locator("svg").scroll_into_view_if_needed()
    box = await board.locator("svg").bounding_box()
    assert box is not None and box["height"] <= 390 and box["width"] <= 844, box
    await fits(page, 844, "the review on its side")
    # The narrowest phone upright: nothing wider than its screen.
    await page.set_viewport_size({"width": 320, "height": 640})
    await fits(page, 320, "the review on a narrow phone")


async def test_the_review_recomputes_the_dice_in_the_browser_and_catches_a_tampered_roll(
        web, browser):
    """The match's `dice` (tests/web/js/fixtures/dice.json: the server's generator, with two
    salts) recomputed by the page's WebCrypto: every roll verified; then the same record
    with one roll changed is caught, and the roll named."""
    dice = json.loads((pathlib.Path(__file__).parent / "js" / "fixtures" / "dice.json")
                      .read_text())
    await web.register("alice", "secret1")
    page = await phone_page(browser, web.url, 390, 844)
    answers = dict(ANSWERS)
    answers[f"/api/matches/{MATCH_ID}"] = {**FIXTURE["match"], "dice": dice}

    async def archive(route: Route) -> None:
        path = "/" + route.request.url.split("://", 1)[1].split("/", 1)[1].split("?")[0]
        if path in answers:
            await route.fulfill(json=answers[path])
        else:
            await route.continue_()
    await page.route("**/api/**", archive)
    await register(page, "erin")
    await page.tap('#tabs [data-tab="profile"]')
    await page.fill("#history-name", "alice")
    await page.tap("#profile-form button")
    review = page.locator("#match-history").get_by_role("button", name="Review with analysis")
    await review.tap()
    await expect(page.locator("#review-dice")).to_have_text(
        f"Dice: all {len(dice['rolls'])} rolls verified in your browser from the seed and salts.")
    # The match to download, as the open record keeps it.
    await expect(page.get_by_role("link", name="Download as .mat")).to_have_attribute(
        "href", f"/api/matches/{MATCH_ID}/mat")
    await expect(page.get_by_role("link", name="Download the record (JSON)")).to_have_attribute(
        "href", f"/api/matches/{MATCH_ID}/record")
    rolls = [list(roll) for roll in dice["rolls"]]
    first, second = rolls[9]
    rolls[9] = [second, first] if first != second else [first % 6 + 1, second]
    answers[f"/api/matches/{MATCH_ID}"] = {**FIXTURE["match"], "dice": {**dice, "rolls": rolls}}
    await page.tap("#review-close")
    await review.tap()
    await expect(page.locator("#review-dice")).to_have_text(
        f"Dice: roll 10 is {rolls[9][0]}{rolls[9][1]}, but the seed and salts give "
        f"{dice['rolls'][9][0]}{dice['rolls'][9][1]}: the record is not the dice drawn!")
