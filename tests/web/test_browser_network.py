"""A page whose network fails in the middle of a match, through a proxy the test cuts and
black-holes (tests/web/cutting_proxy.py): the page keeps the room and the board under its
veil, never shows the login forms, tries again on its schedule, notices a silent network by
its heartbeats (and the server by its pings), and resumes the same match with its session
token; the opponent's page says the connection dropped meanwhile; nothing is lost or
forfeited.

The server tells the page a pace five times the default's (PACE) for what costs only the
test's time: a heartbeat every 0.5 s, tries again after 0.05 to 0.1 s doubling to 1 to 2 s. So
the cut, which lasts until the page has tried five times (8 to 15 s at the default pace: the
schedule near its most), takes a few seconds here. The silences that give a connection up
stay the default's (the page's 7.5 s, the server's ping after 10 s and 5 s more): shorter,
they would be wall-clock bounds a busy machine misses, a live page taken for gone while it
registers. The black hole lasts until both ends gave the connection up and the page's next
try was given up too: 15 s and more."""
from __future__ import annotations

import re

from playwright.async_api import Page, expect

from fibs_server.net.limits import NetLimits
from tests.waiting import until
from tests.web.conftest import WebHarness
from tests.web.cutting_proxy import CuttingProxy
from tests.web.test_browser import (
    alice_joins_bob,
    click_move,
    logged,
    open_page,
    register,
    said,
    who_row,
)

SCALE = 5
DEFAULT = NetLimits()
PACE = NetLimits(
    page_heartbeat_seconds=DEFAULT.page_heartbeat_seconds / SCALE,
    page_silent_heartbeats=DEFAULT.page_silent_heartbeats * SCALE,
    page_retry_first_seconds=DEFAULT.page_retry_first_seconds / SCALE,
    page_retry_most_seconds=DEFAULT.page_retry_most_seconds / SCALE)

# What each point of the board holds, as the page draws it: the same position or not.
CHECKERS = """() => Array.from(document.querySelectorAll('#board-holder [data-point]'),
    (point) => `${point.dataset.point}:${point.querySelectorAll('.checker.mine').length}`
               + `/${point.querySelectorAll('.checker.theirs').length}`).join(' ')"""
# From now on, whether the welcome's forms were ever shown: `hidden` gone after any change
# of it (what each change left is the next one's old value, the last one's is the present).
WATCH_THE_FORMS = """() => {
  const welcome = document.getElementById('welcome');
  window.formsShown = false;
  new MutationObserver((records) => {
    const left = [...records.slice(1).map((record) => record.oldValue),
                  welcome.getAttribute('hidden')];
    if (left.includes(null)) window.formsShown = true;
  }).observe(welcome, {attributes: true, attributeFilter: ['hidden'], attributeOldValue: true});
}"""


class ProxiedHarness(WebHarness):
    """The web harness at the quick pace, its pages loaded (and their WebSockets opened)
    through proxies: `url` through the first."""

    def __init__(self, database_url: str, *proxy_ports: int) -> None:
        super().__init__(database_url)
        self.proxy_ports = proxy_ports
        self.config.web_origins = tuple(f"http://127.0.0.1:{port}" for port in proxy_ports)
        self.config.net_limits = PACE

    @property
    def url(self) -> str:
        return self.url_through(0)

    def url_through(self, proxy: int) -> str:
        return f"http://127.0.0.1:{self.proxy_ports[proxy]}/"


async def proxied(tmp_path, count: int) -> tuple[ProxiedHarness, list[CuttingProxy]]:
    proxies = [CuttingProxy() for _ in range(count)]
    ports = [await proxy.start() for proxy in proxies]
    web = ProxiedHarness(f"sqlite:///{tmp_path / 'fibs-web.db'}", *ports)
    await web.start()
    assert web.server is not None
    for proxy in proxies:
        proxy.target_port = web.server.http_port
    return web, proxies


async def board_of(page: Page) -> str:
    return await page.evaluate(CHECKERS)


async def back_in_the_match(page: Page, before: str) -> None:
    """The veil gone, logged in again, the same board."""
    await expect(page.locator("#connection-overlay")).to_be_hidden()
    await expect(page.locator("#status")).to_have_text("Logged in as alice")
    await expect(page.locator("#board-holder svg")).to_have_count(1)
    assert await board_of(page) == before


async def the_same_match_all_along(web: ProxiedHarness, page: Page, running: object) -> None:
    """alice's match never saved, forfeited or finished, her page never showed the forms."""
    lobby = web.server.lobby
    assert lobby.match_table.match_of(lobby.attendance.users.online["alice"]) is running
    assert await web.server.store.finished_matches("alice", 1) == []
    assert await page.evaluate("window.formsShown") is False


async def test_the_page_keeps_its_match_through_a_cut(tmp_path, browser, artifacts):
    web, (proxy,) = await proxied(tmp_path, 1)
    try:
        await web.register("bob", "secret1")
        # alice (X) opens with 3-1; bob 6-4.
        web.script_dice((1, 3), (6, 4))
        page, bob = await alice_joins_bob(web, browser, "invite alice 3", "a 3 point match")
        await expect(page.locator("#board-holder .die.mine")).to_have_count(2)
        await page.evaluate(WATCH_THE_FORMS)
        lobby = web.server.lobby
        running = lobby.match_table.match_of(lobby.attendance.users.online["alice"])
        before = await board_of(page)

        # Cut: the room and the board stay, under the veil, while the page tries again.
        proxy.cut()
        await expect(page.locator("#connection-banner")).to_contain_text(
            re.compile(r"Connection lost: (trying again in \d+ s\.|reconnecting…)"))
        await expect(page.locator("#room")).to_be_visible()
        await page.screenshot(path=artifacts / "connection-lost.png")
        await until(lambda: proxy.refused >= 5, "five tries while the network is cut")
        assert await board_of(page) == before
        proxy.restore()
        await back_in_the_match(page, before)
        await click_move(page, (8, 5), (6, 5))
        await bob.skip_until(said("alice moves 17-20 19-20 ."))
        await the_same_match_all_along(web, page, running)
    finally:
        await web.stop()
        await proxy.stop()


async def test_the_page_keeps_its_match_through_a_black_hole_and_its_opponent_is_told(
        tmp_path, browser, artifacts):
    web, (proxy, bobs_proxy) = await proxied(tmp_path, 2)
    try:
        # alice (O, the inviter) opens with 3-1.
        web.script_dice((3, 1), (6, 4))
        alice = await open_page(browser, web)
        bob = await (await browser.new_context()).new_page()
        await bob.goto(web.url_through(1))
        for page, name in ((alice, "alice"), (bob, "bob")):
            await register(page, name)
            await page.click("#ready")
            await expect(page.locator("#ready")).to_be_checked()
        await alice.fill("#invite-length", "1")
        await who_row(alice, "bob").get_by_role("button", name="Invite").click()
        await bob.locator("#invitations-in").get_by_role("button", name="Join").click()
        await expect(alice.locator("#board-holder .die.mine")).to_have_count(2)
        await alice.evaluate(WATCH_THE_FORMS)
        lobby = web.server.lobby
        session = lobby.attendance.users.online["alice"]
        running = lobby.match_table.match_of(session)
        before = await board_of(alice)

        # A black hole: no close comes. The server's pings go unanswered and it holds
        # alice's session (bob's page says so); her page's heartbeats go unanswered and it
        # gives the connection up, and the next, which never opens.
        opened = proxy.accepted
        proxy.black_hole()
        await expect(bob.locator("#opponent-connection")).to_have_text(
            "alice's connection dropped: the server keeps the match for them to come back.")
        assert lobby.held.is_held(session)
        await expect(alice.locator("#connection-overlay")).to_be_visible()
        await until(lambda: proxy.accepted >= opened + 2, "a try in the black hole given up")
        await alice.screenshot(path=artifacts / "connection-black-hole.png")
        await bob.screenshot(path=artifacts / "opponent-connection-dropped.png")
        assert await board_of(alice) == before
        proxy.restore()
        await back_in_the_match(alice, before)
        await expect(bob.locator("#opponent-connection")).to_be_hidden()
        await click_move(alice, (8, 5), (6, 5))
        await expect(logged(bob, "alice moves 8-5 6-5 .")).to_have_count(1)
        await the_same_match_all_along(web, alice, running)
    finally:
        await web.stop()
        await proxy.stop()
        await bobs_proxy.stop()
