"""The tutor on the page (tutor.js) in a real browser: a visitor's bot match (unrated) with
the tutor on, a losing opening play held back with the better one shown, changed and played;
a rated bot match, where the switch is off and the server refuses the tutor when asked."""
from __future__ import annotations

import re

from playwright.async_api import expect

from tests.web.test_browser import click_move, logged, mine_on, open_page, register


async def test_the_tutor_warns_of_a_losing_play_and_shows_the_better_one(web_with_bots, browser,
                                                                         artifacts):
    web_with_bots.script_dice((3, 1), (5, 2), (4, 4))
    page = await open_page(browser, web_with_bots)
    await expect(page.locator("#visitor-form button")).to_be_enabled()
    await page.select_option("#visitor-level", "beginner")
    await page.click("#visitor-form button")
    await expect(mine_on(page, 8)).to_have_count(3)
    await expect(page.locator("#tutor")).to_be_visible()
    await page.check("#tutor-on")
    await expect(page.locator("#tutor-note")).to_have_text("The tutor judges your decisions.")
    await click_move(page, (24, 21), (24, 23))  # both back checkers run: a bad 3-1
    warning = page.locator("#tutor-warning-text")
    await expect(warning).to_have_text(re.compile(
        r"The tutor: 24/21 24/23 loses 0\.\d{3} against (8/5 6/5|6/5 8/5)\."))
    await expect(mine_on(page, 24)).to_have_count(2)  # nothing was played
    await page.screenshot(path=artifacts / "tutor-warning.png", full_page=True)
    await page.click(".tutor-change")
    await expect(page.locator("#tutor-warning")).to_be_hidden()
    await click_move(page, (8, 5), (6, 5))  # the better play passes at once
    await expect(logged(page, "bot_beginner moves")).to_have_count(1)
    await expect(mine_on(page, 5)).to_have_count(2)


async def test_a_rated_match_has_no_tutor_and_the_server_refuses_it(web_with_bots, browser):
    web_with_bots.script_dice((3, 1), (5, 2), (4, 4))
    page = await open_page(browser, web_with_bots)
    await register(page, "carol")
    await page.fill("#invite-length", "1")
    await page.get_by_role("button", name="Play the beginner bot").click()
    await expect(mine_on(page, 8)).to_have_count(3)
    await expect(page.locator("#tutor-note")).to_have_text("No tutor in rated matches.")
    await expect(page.locator("#tutor-on")).to_be_disabled()
    # Asked all the same (as a telnet user would): the server refuses, with its reason.
    await page.get_by_role("tab", name="Console").click()
    await page.fill("#command", "tutor on")
    await page.press("#command", "Enter")
    await expect(page.locator("#game-status")).to_have_text(
        "The tutor is not allowed in rated matches: it helps in unrated matches and unrated "
        "matches against bots.")
    await click_move(page, (24, 21), (24, 23))  # played as sent: no tutor in a rated match
    await expect(logged(page, "bot_beginner moves")).to_have_count(1)
