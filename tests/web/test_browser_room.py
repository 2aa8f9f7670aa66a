"""The page's room in a real browser (Debian's chromium, driven by Playwright) beside a telnet
user: an invitation before "Ready" refused in the page's words; an invitation with every term
the page offers (length over 7 and unlimited, variant, cube, clock, rating), the variants the
server's hello lists; an invitation
notified with its Join and a sound, none once muted; the chat's tabs (say, kibitz, tell,
shout); another user's public table listed with its Sit, a private one not."""
from __future__ import annotations

import re

from playwright.async_api import Page, expect

from fibs_server.lobby.commands.common import RATED_EXPERIENCE
from fibs_server.rules.variants import Variant
from tests.web.test_browser import log_in, open_page, opens_a_table, register, said, who_row

# Tones counted, not played: the page's sounds.js makes them with the Web Audio API.
COUNTED_TONES = """
window.tonesPlayed = 0;
window.AudioContext = class {
  constructor() { this.state = "running"; this.currentTime = 0; this.destination = {}; }
  resume() {}
  createOscillator() {
    return { frequency: {}, connect: (next) => next, start: () => { window.tonesPlayed += 1; },
      stop() {} };
  }
  createGain() {
    return { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} },
      connect: (next) => next };
  }
};
"""


async def tones_played(page: Page) -> int:
    return await page.evaluate("window.tonesPlayed")


async def test_invitations_with_their_terms_a_notification_with_join_and_sounds(web, browser):
    # Matches over 7 points are for players with some experience, both of them.
    await web.register("alice", "secret1", experience=RATED_EXPERIENCE + 1)
    await web.register("bob", "secret1", experience=RATED_EXPERIENCE + 1)
    page = await open_page(browser, web)
    await page.context.add_init_script(COUNTED_TONES)
    await page.reload()
    await log_in(page, "alice")
    bob = await web.login_telnet("bob", "secret1")
    await bob.send("toggle ready")
    invite = who_row(page, "bob").get_by_role("button", name="Invite")
    await invite.click()  # not ready yet: said in the page's words, not FIBS's command
    await expect(page.locator("#game-status")).to_have_text("Tick “Ready to play” first.")
    await page.click("#ready")
    await expect(page.locator("#ready")).to_be_checked()

    # The variants offered are the server's (its hello), each by the word that chooses it.
    words = [variant.facts.word or "" for variant in Variant]
    for choice in ("#invite-variant", "#tournament-variant"):
        await expect(page.locator(f"{choice} option")).to_have_count(len(words))
        assert await page.eval_on_selector_all(
            f"{choice} option", "options => options.map((option) => option.value)") == words
    await page.fill("#invite-length", "11")
    await page.select_option("#invite-variant", "nack")
    await page.uncheck("#invite-cube")
    await page.select_option("#invite-timer", "30")
    await page.uncheck("#invite-rated")
    await invite.click()
    await expect(page.locator("#invitations-out")).to_have_text(
        "You invited bob to a 11 point match, nackgammon, no cube, 30 s a turn, unrated")
    await bob.skip_until(said("alice wants to play a 11 point match with you."))
    await bob.expect_lines("The match is played with: nackgammon, no cube, 30 s a turn, unrated.")
    await page.check("#invite-unlimited")  # untimed: a clock needs a length
    await expect(page.locator("#invite-timer")).to_be_disabled()
    await invite.click()
    await expect(page.locator("#invitations-out")).to_contain_text(
        "You invited bob to an unlimited match")
    await bob.skip_until(re.compile(r"(> )?alice wants to play an unlimited .*match.* with you\."))

    # bob's invitation: at the top of the room with its Join, and a sound; muted, none.
    before = await tones_played(page)
    await bob.send("invite alice 2")
    notification = page.locator("#notifications")
    await expect(notification).to_have_text("bob invites you to a 2 point match Join")
    assert await tones_played(page) > before
    await page.check("#mute")
    muted = await tones_played(page)
    await bob.send("invite alice 3")
    await expect(notification).to_have_text("bob invites you to a 3 point match Join")
    assert await tones_played(page) == muted
    await page.reload()  # the switch is kept
    await expect(page.locator("#mute")).to_be_checked()
    await expect(page.locator("#status")).to_have_text("Logged in as alice")
    await bob.send("invite alice 3")
    await notification.get_by_role("button", name="Join").click()
    await expect(page.locator("#board-holder svg")).to_be_visible()
    await expect(page.locator("#board-holder svg")).to_contain_text("3-point match")


async def test_the_chat_tabs_show_each_kind_and_choose_how_to_answer(web, browser):
    await web.register("bob", "secret1")
    page = await open_page(browser, web)
    await register(page, "alice")
    bob = await web.login_telnet("bob", "secret1")
    await expect(who_row(page, "bob")).to_have_count(1)
    await bob.send("shout hello all")
    await bob.send("tell alice psst")
    await page.click('#tabs [data-tab="chat"]')
    log = page.locator("#chat-log")
    await expect(log).to_contain_text("bob shouts: hello all")
    await expect(log).to_contain_text("bob tells you: psst")
    await page.click('[data-chat-filter="tell"]')  # private only; answering is a tell
    await expect(log.get_by_text("bob tells you: psst")).to_be_visible()
    await expect(log.get_by_text("bob shouts: hello all")).to_be_hidden()
    await expect(page.locator("#chat-kind")).to_have_value("tell")
    await page.fill("#chat-to", "bob")
    await page.fill("#chat-text", "hi back")
    await page.click("#chat-form button")
    await bob.skip_until(said("alice says: hi back"))
    await expect(log).to_contain_text("You tell bob: hi back")
    await page.click('[data-chat-filter="shout"]')  # everyone's; answering is a shout
    await expect(log.get_by_text("bob shouts: hello all")).to_be_visible()
    await expect(log.get_by_text("bob tells you: psst")).to_be_hidden()
    await page.fill("#chat-text", "hello bob")
    await page.click("#chat-form button")
    await bob.skip_until(re.compile(r"(> )?alice shouts: hello bob"))
    await page.click('[data-chat-filter="all"]')
    await expect(log.locator("div:visible")).to_have_count(4)


async def test_a_public_table_is_listed_for_others_a_private_one_is_not(web, browser):
    """bob's page is in the room; telnet dora opens a private table, alice a public one on her
    page; bob's Refresh lists alice's alone, and he sits at it."""
    page = await open_page(browser, web)
    await register(page, "bob")
    await web.register("dora", "secret1")
    dora = await web.login_telnet("dora", "secret1")
    await dora.send("toggle ready")
    await dora.send("table 3 private")
    await dora.skip_until(re.compile(r"(> )?You opened a private table for a 3 point match\..*"))
    alice, _ = await opens_a_table(web, browser, "alice", private=False)
    await expect(alice.locator("#tables li")).to_have_count(0)  # her own is not offered to her

    tables = page.locator("#tables li")
    await page.click("#show-tables")
    await expect(tables).to_have_text(["alice: a 1 point match Sit"])
    await tables.get_by_role("button", name="Sit").click()
    await expect(page.locator("#board-holder svg")).to_contain_text("1-point match")
    await expect(alice.locator("#board-holder svg")).to_contain_text("bob")
    await expect(alice.locator("#my-table")).to_be_empty()  # the table closed: its match began
