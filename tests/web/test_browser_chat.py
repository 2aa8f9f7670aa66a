"""The chat in a real browser (Debian's chromium, driven by Playwright): lines said while the
chat is not shown are counted on its tab; the watchers' words (their kibitzes and whispers) are
apart from the players'."""
from __future__ import annotations

import re

from playwright.async_api import Page, expect

from tests.web.test_browser import alice_joins_bob, open_page, register, who_row

CHAT_TAB = '#tabs [data-tab="chat"]'


def chat_line(page: Page, text: str):
    return page.locator("#chat-log div", has_text=text)


async def filtered(page: Page, chat_filter: str) -> None:
    await page.click(f'[data-chat-filter="{chat_filter}"]')
    await expect(page.locator(f'[data-chat-filter="{chat_filter}"]')).to_have_attribute(
        "aria-pressed", "true")


async def test_unread_lines_are_counted_and_the_watchers_words_are_apart(web, browser, artifacts):
    for name in ("bob", "dave"):
        await web.register(name, "secret1")
    alice, bob = await alice_joins_bob(web, browser, "invite alice 1", "a 1 point match")
    await expect(alice.locator("#board-holder svg")).to_be_visible()
    carol = await open_page(browser, web)  # watches on a page, dave over telnet
    await register(carol, "carol")
    await who_row(carol, "alice").get_by_role("button", name="Watch").click()
    await expect(carol.locator("#board-holder svg")).to_be_visible()
    dave = await web.login_telnet("dave", "secret1")
    await dave.send("watch alice")
    await dave.skip_until(re.compile(r".*You're now watching alice\..*"))

    await bob.send("kibitz good luck")
    await dave.send("kibitz nice opening")
    await dave.send("whisper she should double")  # for the watchers only
    await expect(chat_line(carol, "dave whispers: she should double")).to_have_count(1)
    # Neither page shows its chat: the tab counts what came.
    await expect(alice.locator(CHAT_TAB)).to_have_attribute("data-unread", "2")
    await expect(carol.locator(CHAT_TAB)).to_have_attribute("data-unread", "3")
    await alice.screenshot(path=artifacts / "chat-unread.png")
    await alice.click(CHAT_TAB)
    await expect(alice.locator(CHAT_TAB)).not_to_have_attribute("data-unread", re.compile(".*"))
    # The game's words are its players'; a watcher's kibitz is the watchers'.
    await filtered(alice, "kibitz")
    await expect(chat_line(alice, "bob kibitzes: good luck")).to_be_visible()
    await expect(chat_line(alice, "dave kibitzes: nice opening")).to_be_hidden()
    await filtered(alice, "watchers")
    await expect(chat_line(alice, "dave kibitzes: nice opening")).to_be_visible()
    await expect(chat_line(alice, "bob kibitzes: good luck")).to_be_hidden()

    await carol.click(CHAT_TAB)
    await filtered(carol, "watchers")
    await expect(carol.locator("#chat-kind")).to_have_value("whisper")  # the way to answer
    for line in ("dave kibitzes: nice opening", "dave whispers: she should double"):
        await expect(chat_line(carol, line)).to_be_visible()
    await expect(chat_line(carol, "bob kibitzes: good luck")).to_be_hidden()
    await carol.fill("#chat-text", "agreed")
    await carol.click("#chat-form button")
    await dave.skip_until(re.compile(r".*carol whispers: agreed"))
    await expect(chat_line(carol, "You whisper: agreed")).to_be_visible()
    await expect(carol.locator(CHAT_TAB)).not_to_have_attribute("data-unread", re.compile(".*"))
    await carol.screenshot(path=artifacts / "chat-watchers.png", full_page=True)
