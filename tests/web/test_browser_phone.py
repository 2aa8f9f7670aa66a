"""The page on a phone, in a real browser (Debian's chromium, driven by Playwright, with touch):
a visitor's bot match seen at 320×640 and 390×844 in portrait and 844×390 in landscape. At
each size and on each tab: nothing wider than the screen, every control (links too) a
finger's size (44 px or more each way), the whole board on the screen. Screenshots go to test-artifacts/web
(phone-<size>-welcome.png, -board.png, -tabs.png, -end.png), to look at as a player would.
The match ends resigned: its end, on the screen, offers a rematch, which starts at once."""
from __future__ import annotations

import pathlib
import re

import pytest
from playwright.async_api import Page, expect

from tests.web.test_browser import TIMEOUT, answer_yes, mine_on

# One server and one browser for the three phones, each a visitor of its own.
PHONES = {"portrait-320": (320, 640), "portrait-390": (390, 844), "landscape-844": (844, 390)}
TABS = ("play", "chat", "tournaments", "profile", "console")
TOUCH = 44  # px: the smallest control a finger hits

# The visible controls smaller than a finger, as "id-or-text width×height".
SMALL_CONTROLS = f"""() => [...document.querySelectorAll("button, select, input, summary, a[href]")]
    .filter((control) => control.offsetParent !== null || control.tagName === "SUMMARY")
    .map((control) => [control.id || control.textContent.trim(), control.getBoundingClientRect()])
    .filter(([, box]) => box.width > 0 && (box.width < {TOUCH} || box.height < {TOUCH}))
    .map(([name, box]) => `${{name}} ${{Math.round(box.width)}}×${{Math.round(box.height)}}`)"""
# The visible buttons whose words do not fit in them.
CLIPPED_BUTTONS = """() => [...document.querySelectorAll("button")]
    .filter((control) => control.offsetParent !== null && control.scrollWidth > control.clientWidth + 1)
    .map((control) => control.id || control.textContent.trim())"""
# What sticks out at the right: the page's width against the screen's. A phone's browser
# zooms out to show a page wider than its screen, so innerWidth alone would grow with it.
OVERFLOW = """(screen) => ({page: document.documentElement.scrollWidth, inner: innerWidth,
    wide: [...document.querySelectorAll("body *")].filter((element) =>
        element.getBoundingClientRect().right > screen + 1
        && !element.closest(".scroll-x") && element.offsetParent !== null)
        .slice(0, 5).map((element) => element.tagName + "#" + element.id + "." + element.className)})"""
MOVABLE_LOOK = """() => {
    const point = document.querySelector('#board-holder .movable[data-point="8"]');
    const fill = getComputedStyle(point.querySelector(".hit-area")).fill;
    return {alpha: Number(fill.match(/rgba\\(.*,\\s*([\\d.]+)\\)/)?.[1] ?? 0),
            ring: getComputedStyle(point.querySelector(".checker.mine")).stroke}; }"""
# How each visible checkbox is drawn: a checkbox's square (26 px, in the middle of its 44 px),
# ticked when checked, never the bare 44 px box a text field would look like.
CHECKBOXES = """() => [...document.querySelectorAll("input[type=checkbox]")]
    .filter((box) => box.offsetParent !== null).map((box) => {
        const style = getComputedStyle(box);
        return {id: box.id, checked: box.checked, size: style.backgroundSize,
                image: style.backgroundImage}; })"""
BOARD_BOX = """() => { const box = document.querySelector("#board-holder svg").getBoundingClientRect();
    return {left: box.left, top: box.top, right: box.right, bottom: box.bottom,
            width: innerWidth, height: innerHeight}; }"""


async def phone_page(browser, url: str, width: int, height: int) -> Page:
    context = await browser.new_context(viewport={"width": width, "height": height},
                                        has_touch=True, is_mobile=True)
    page = await context.new_page()
    page.set_default_timeout(TIMEOUT)
    await page.goto(url)
    return page


async def fits(page: Page, width: int, where: str) -> None:
    """Nothing wider than the screen; every control a finger's size; checkboxes that look like
    checkboxes."""
    overflow = await page.evaluate(OVERFLOW, width)
    assert overflow["page"] <= width and overflow["inner"] == width, \
        f"{where}: wider than the screen: {overflow}"
    too_small = await page.evaluate(SMALL_CONTROLS)
    assert too_small == [], f"{where}: controls under {TOUCH} px: {too_small}"
    clipped = await page.evaluate(CLIPPED_BUTTONS)
    assert clipped == [], f"{where}: buttons too narrow for their words: {clipped}"
    checkboxes = await page.evaluate(CHECKBOXES)
    ticks = {box["checked"]: box["image"] for box in checkboxes}
    assert all(box["size"] == "26px 26px" and box["image"].startswith('url("data:image/svg')
               and box["image"] == ticks[box["checked"]] for box in checkboxes), \
        f"{where}: checkboxes not drawn as checkboxes: {checkboxes}"
    assert len(set(ticks.values())) == len(ticks), f"{where}: a checked box without its tick"


@pytest.mark.parametrize("phone", PHONES)
async def test_a_visitors_match_fits_a_phone(module_web_with_bots, shared_browser, artifacts,
                                             phone):
    width, height = PHONES[phone]
    module_web_with_bots.script_dice((3, 1))
    page = await phone_page(shared_browser, module_web_with_bots.url, width, height)
    try:
        await a_visitors_match_on(page, phone, width, height, artifacts)
    finally:
        await page.context.close()


async def a_visitors_match_on(page: Page, phone: str, width: int, height: int,
                              artifacts: pathlib.Path) -> None:
    await expect(page.locator("#visitor-form button")).to_be_enabled()
    await fits(page, width, "welcome")
    # All of it upright; on its side, the screen (a full page would turn the phone upright).
    await page.screenshot(path=artifacts / f"phone-{phone}-welcome.png", full_page=height > width)
    await page.select_option("#visitor-level", "beginner")
    await page.click("#visitor-form button")
    await expect(page.locator("#status")).to_have_text(re.compile(r"Logged in as guest_[a-z]{5}"))
    await expect(mine_on(page, 8)).to_have_count(3)
    await expect(page.locator("#board-holder .die.mine")).to_have_count(2)

    # The page opens on the board: all of it on the screen, nothing scrolled.
    await fits(page, width, "the board")
    board = await page.evaluate(BOARD_BOX)
    assert board["left"] >= 0 and board["top"] >= 0, board
    assert board["right"] <= board["width"] and board["bottom"] <= board["height"], board
    await page.screenshot(path=artifacts / f"phone-{phone}-board.png")
    # The points a checker can leave from (8 and 6 with 3-1, among others) stand out: lit,
    # their checkers ringed in gold.
    movable = await page.evaluate(MOVABLE_LOOK)
    assert movable["alpha"] >= 0.2 and movable["ring"] == "rgb(224, 168, 0)", movable
    for tab in TABS:
        await page.tap(f'#tabs [data-tab="{tab}"]')
        await expect(page.locator(f'.tab-panel[data-panel="{tab}"]')).to_be_visible()
        await fits(page, width, f"the {tab} tab")
    # The screen scrolled to the tabs (a full-page screenshot would resize the viewport, and
    # turn the phone on its side upright).
    await page.tap('#tabs [data-tab="play"]')
    await page.evaluate("document.querySelector('#tabs').scrollIntoView()")
    await page.screenshot(path=artifacts / f"phone-{phone}-tabs.png")
    await page.evaluate("scrollTo(0, 0)")

    # A step played by touch: a tap on the checker, a tap where it goes.
    await page.tap('#board-holder [data-point="8"] .hit-area')
    await page.tap('#board-holder [data-point="5"] .hit-area')
    await expect(mine_on(page, 5)).to_have_count(1)

    # The end of the match (resigned, a bot accepts at once): the result and what to do next,
    # all on the screen, then a rematch on the same terms.
    await page.select_option("#resign-size", "b")
    await page.tap("#resign")
    await answer_yes(page)
    end = page.locator("#match-end")
    await expect(page.locator("#match-end-result")).to_have_text("bot_beginner won the match.")
    await fits(page, width, "the end of the match")
    box = await end.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, box
    await page.screenshot(path=artifacts / f"phone-{phone}-end.png")
    await end.get_by_role("button", name="Rematch").tap()
    await expect(end).to_be_hidden()
    await expect(mine_on(page, 8)).to_have_count(3)
    # The visitor leaves (a closed page would stay online for its grace period, in the next
    # phone's list).
    await page.tap("#logout")
    await expect(page.locator("#welcome-message")).to_have_text("You are logged out.")
