"""Quick play on the page (fibs_server/web/static/quick_play.js) in a real browser, beside a
telnet user: a browser seeks with the room's terms and a rating range, stops and seeks again,
and is paired with the telnet user's `quickplay`; the match starts as every match does. A
second browser waits, sees the bot offered once the (fake) clock passes `bot_after`, and plays
the bot by its button, which ends its seek."""
from __future__ import annotations

import re

import pytest_asyncio
from playwright.async_api import expect

from tests.web.conftest import WebHarness
from tests.web.test_browser import log_in, open_page, said


@pytest_asyncio.fixture(loop_scope="session")
async def web_with_bots_on_a_fake_clock(tmp_path):
    harness = WebHarness(f"sqlite:///{tmp_path / 'fibs-web.db'}", bots=True)
    clock = harness.use_fake_clock()
    await harness.start()
    yield harness, clock
    await harness.stop()


async def test_browsers_and_a_telnet_user_are_paired_and_a_bot_is_offered(
        web_with_bots_on_a_fake_clock, browser, artifacts):
    web, clock = web_with_bots_on_a_fake_clock
    for name in ("alice", "bea", "tom"):
        await web.register(name, "secret1")
    alice, bea = await open_page(browser, web), await open_page(browser, web)
    await log_in(alice, "alice")
    await log_in(bea, "bea")

    await alice.fill("#invite-length", "3")
    await alice.click("#quick-play-start")
    status = alice.locator("#quick-play-status")
    await expect(status).to_have_text(re.compile(
        r"Looking for a 3 point match, rating within 200 points of yours"))
    await alice.screenshot(path=artifacts / "quick-play-waiting.png", full_page=True)
    await alice.click("#quick-play-cancel")
    await expect(alice.locator("#quick-play-start")).to_be_visible()
    await expect(status).to_have_text("")
    await alice.select_option("#quick-play-range", "any")
    await alice.click("#quick-play-start")
    await expect(status).to_have_text("Looking for a 3 point match against anyone…")

    await bea.fill("#invite-length", "1")  # another match: she waits
    await bea.click("#quick-play-start")
    await expect(bea.locator("#quick-play-status")).to_contain_text("Looking for a 1 point match")

    tom = await web.login_telnet("tom", "secret1")
    await tom.send("quickplay 3")
    await tom.skip_until(said("Quick play: you play alice."))
    await tom.skip_until(said("** You are now playing a 3 point match with alice"))
    await expect(status).to_have_text("Paired with tom.")
    await expect(alice.locator("#board-holder")).to_be_visible()
    await expect(alice.locator("#quick-play-start")).to_be_visible()

    # Nobody seeks bea's match: after bot_after on the lobby's clock, a bot is offered.
    await expect(bea.locator("#quick-play-bot")).to_be_hidden()
    clock.advance(web.server.lobby.quick_play.config.bot_after)
    await expect(bea.locator("#quick-play-bot")).to_be_visible()
    await bea.click("#quick-play-bot")
    await expect(bea.locator("#quick-play-waiting")).to_be_hidden()
    await expect(bea.locator("#quick-play-status")).to_have_text("")
    assert web.server.lobby.quick_play.seeks() == []
    assert web.server.lobby.match_table.match_of(
        web.server.lobby.attendance.users.online["bea"]) is not None

