"""A page whose network fails in the middle of a match, through a proxy the test cuts and
black-holes (tests/web/cutting_proxy.py): the page keeps the room and the board under a banner,
tries again with growing waits, notices a silent network by its heartbeats, and resumes the
same match with its session token; nothing is lost or forfeited."""
from __future__ import annotations

import re

from playwright.async_api import Page, expect

from tests.waiting import until
from tests.web.conftest import WebHarness
from tests.web.cutting_proxy import CuttingProxy
from tests.web.test_browser import alice_joins_bob, click_move, logged, said

# What each point of the board holds, as the page draws it: the same position or not.
CHECKERS = """() => Array.from(document.querySelectorAll('#board-holder [data-point]'),
    (point) => `${point.dataset.point}:${point.querySelectorAll('.checker.mine').length}`
               + `/${point.querySelectorAll('.checker.theirs').length}`).join(' ')"""


class ProxiedHarness(WebHarness):
    """The web harness, its page loaded (and its WebSocket opened) through `proxy`."""

    def __init__(self, database_url: str, proxy_port: int) -> None:
        super().__init__(database_url)
        self.proxy_port = proxy_port
        self.config.web_origins = (f"http://127.0.0.1:{proxy_port}",)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.proxy_port}/"


async def board_of(page: Page) -> str:
    return await page.evaluate(CHECKERS)


async def back_in_the_match(page: Page, before: str) -> None:
    """The banner gone, logged in again, the same board."""
    await expect(page.locator("#connection-banner")).to_be_hidden()
    await expect(page.locator("#status")).to_have_text("Logged in as alice")
    await expect(page.locator("#board-holder svg")).to_have_count(1)
    assert await board_of(page) == before


async def test_the_page_keeps_its_match_through_a_cut_and_a_black_hole(tmp_path, browser,
                                                                        artifacts):
    proxy = CuttingProxy()
    web = ProxiedHarness(f"sqlite:///{tmp_path / 'fibs-web.db'}", await proxy.start())
    await web.start()
    assert web.server is not None
    proxy.target_port = web.server.http_port
    try:
        await web.register("bob", "secret1")
        # alice (X) opens with 3-1; bob 6-4; alice 2-1.
        web.script_dice((1, 3), (6, 4), (2, 1))
        page, bob = await alice_joins_bob(web, browser, "invite alice 3", "a 3 point match")
        await expect(page.locator("#board-holder .die.mine")).to_have_count(2)
        lobby = web.server.lobby
        running = lobby.match_table.match_of(lobby.attendance.online["alice"])
        before = await board_of(page)

        # Cut: the room and the board stay, under the banner, while the page tries again.
        proxy.cut()
        await expect(page.locator("#connection-banner")).to_contain_text(
            re.compile(r"Connection lost: trying again in \d+ s\."))
        await page.screenshot(path=artifacts / "connection-lost.png")
        await until(lambda: proxy.refused >= 3, "three tries while the network is cut")
        assert await board_of(page) == before
        proxy.restore()
        await back_in_the_match(page, before)
        await click_move(page, (8, 5), (6, 5))
        await bob.skip_until(said("alice moves 17-20 19-20 ."))
        await bob.skip_until(re.compile(r"(> )?It's your turn to roll or double\."))
        await bob.send("roll")
        await bob.send("move 24-18 13-9")
        await expect(logged(page, "bob moves 24-18 13-9 .")).to_have_count(1)
        await page.click("#roll")  # alice may double, so the server waits for her
        await expect(page.locator("#board-holder .die.mine")).to_have_count(2)
        before = await board_of(page)

        # A black hole: no close comes; the page's heartbeats go unanswered and it gives the
        # connection up, then resumes once the network is back.
        opened = proxy.accepted
        proxy.black_hole()
        await until(lambda: proxy.accepted > opened, "the silent connection given up")
        await expect(page.locator("#connection-banner")).to_be_visible()
        assert await board_of(page) == before
        proxy.restore()
        await back_in_the_match(page, before)
        await click_move(page, (13, 11), (6, 5))
        await bob.skip_until(said("alice moves 12-14 19-20 ."))

        # The same match all along: never saved, forfeited or finished.
        assert lobby.match_table.match_of(lobby.attendance.online["alice"]) is running
        assert await web.server.store.finished_matches("alice", 1) == []
    finally:
        await web.stop()
        await proxy.stop()
