"""A time bank on the page (game.js's clocks), in a real browser: alice chooses "12 s a move +
30 s a point" in the room's terms and invites telnet bob to a 2-point match; the board shows
both players' clocks, the side on turn its decision's seconds before its reserve, the other
its reserve; after her move the clocks change sides. Screenshot: time-bank.png."""
from __future__ import annotations

import re

from playwright.async_api import expect

from tests.web.test_browser import click_move, open_page, register, said, who_row

RESERVE = re.compile(r"[01]:\d\d")  # a reserve of a minute, as it stands
RUNNING = re.compile(r"\d+ s \+ [01]:\d\d")  # a decision's seconds, then the reserve


async def test_both_clocks_of_a_time_bank_are_on_the_board(module_web_with_bots, shared_browser,
                                                           artifacts):
    web = module_web_with_bots
    await web.register("bob", "secret1")
    web.script_dice((3, 1), (6, 4))  # alice opens with 3-1
    page = await open_page(shared_browser, web)
    await register(page, "alice")
    await page.click("#ready")
    await expect(page.locator("#ready")).to_be_checked()
    bob = await web.login_telnet("bob", "secret1")
    await bob.send("toggle ready")
    await expect(who_row(page, "bob")).to_contain_text("ready")
    await page.fill("#invite-length", "2")
    await page.select_option("#invite-timer", "bank 12 30")
    await who_row(page, "bob").get_by_role("button", name="Invite").click()
    await expect(page.locator("#invitations-out")).to_contain_text(
        "You invited bob to a 2 point match")
    await bob.skip_until(said("The match is played with: a time bank of 30 s a point, 12 s a move."))
    await bob.send("join alice")
    mine, theirs = (page.locator(f'#board-holder [data-clock="{side}"]')
                    for side in ("player", "opponent"))
    await expect(mine).to_have_text(RUNNING)
    await expect(theirs).to_have_text("1:00")
    await bob.skip_until(re.compile(r"Clock: alice has \d+ seconds to move\. "
                                    r"Reserves: alice 1:00, bob 1:00\."))
    await click_move(page, (8, 5), (6, 5))
    await expect(theirs).to_have_text(RUNNING)  # bob's turn: his decision's seconds run
    await expect(mine).to_have_text(RESERVE)
    await expect(page.locator("#clock")).to_have_text(re.compile(r"bob's time to roll or double: \d+ s"))
    await page.screenshot(path=artifacts / "time-bank.png", full_page=True)
    await page.context.close()
