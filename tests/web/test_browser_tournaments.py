"""A knockout on the page, in a real browser (Debian's chromium, driven by Playwright), on a
fake clock: alice creates it with the page's form and joins, bob signs up from the list, carol
over telnet; the director (its passes run by the test) starts it, the bracket shows the bye,
round 1's result with its winner advancing, then the final and the winner, each pushed to
the pages as it happens. A screenshot of the bracket goes to test-artifacts/web. And a daily
tournament's start time, countdown, reminder and next day's tournament on the page; and an
arena's form, clock, table and matches."""
from __future__ import annotations

import re

from playwright.async_api import Page, expect

from fibs_server.__main__ import set_admin
from tests.fake_clock import FakeClock
from tests.web.conftest import WebHarness
from tests.web.test_browser import answer_yes, open_page, register, said


async def director_pass(harness: WebHarness) -> None:
    assert harness.server is not None and harness.server.director is not None
    await harness.server.director.settled()
    await harness.server.director.run_pass()


def match_box(page: Page, round_number: int, index: int):
    return page.locator("#tournament-bracket .bracket-round").nth(round_number - 1) \
        .locator(".bracket-match").nth(index)


async def accept_resignation(page: Page) -> None:
    """Accepted, and the match over: the page takes its board away at the match's end,
    which is told only once it is stored."""
    await expect(page.locator("#accept")).to_be_visible()
    await page.click("#accept")
    await answer_yes(page)
    await expect(page.locator("#board-holder svg")).to_have_count(0)


async def test_a_knockout_signed_up_on_the_page_played_to_its_winner_in_the_bracket(
        web_on_a_fake_clock, browser, artifacts):
    web = web_on_a_fake_clock
    await web.register("carol", "secret1")
    alice, bob = [await open_page(browser, web) for _ in range(2)]
    await register(alice, "alice")
    await register(bob, "bob")
    carol = await web.login_telnet("carol", "secret1")

    # alice creates a knockout of 1-point matches with a consolation flight that starts when
    # three have joined.
    await alice.click('#tabs [data-tab="tournaments"]')
    await expect(alice.locator("#tournament-none")).to_be_visible()
    await alice.click("#tournament-create summary")
    await alice.select_option("#tournament-format", "knockout")
    await expect(alice.locator("#tournament-rounds-label")).to_be_hidden()
    for field, value in (("#tournament-length", "1"), ("#tournament-final", "1"),
                         ("#tournament-start-when", "3"), ("#tournament-cap", "4")):
        await alice.fill(field, value)
    await alice.check("#tournament-consolation")
    await alice.get_by_role("button", name="Create").click()
    await expect(alice.locator("#tournament-title")).to_have_text(
        "Tournament 1: knockout with a consolation flight, by alice")
    await expect(alice.locator("#tournament-summary")).to_contain_text(
        "sign-up open · 1-point matches, 60 s a turn · starts when 3 have joined")
    await alice.locator("#tournament-actions").get_by_role("button", name="Join").click()
    await expect(alice.locator("#tournament-actions").get_by_role("button", name="Leave")) \
        .to_be_visible()

    # bob signs up from the list; carol over telnet. alice's page hears of both.
    await bob.click('#tabs [data-tab="tournaments"]')
    row = bob.locator('#tournament-list tr[data-id="1"]')
    await expect(row).to_contain_text("sign-up open")
    await expect(row).to_contain_text("1 of 4")
    await row.get_by_role("button", name="Join").click()
    await expect(bob.locator("#tournament-entrants")).to_contain_text("alice (1500), bob (1500)")
    await carol.send("tournament join 1")
    await carol.skip_until(said("Tournament 1: carol has joined."))
    await expect(alice.locator("#tournament-entrants")).to_contain_text("Players (3 of 4)")

    # The director starts it: seed 1 (alice) has a bye, bob (2) plays carol (3) at once.
    await director_pass(web)
    for page in (alice, bob):
        await expect(page.locator("#tournament-summary")).to_contain_text("running")
        await expect(match_box(page, 1, 0)).to_have_text("1. alicebye")
        await expect(match_box(page, 1, 1)).to_have_text("2. bob3. carol")
        await expect(page.locator("#tournament-bracket .bracket-champion")) \
            .to_have_text("Winner: to come")
        # Its players: carol or bob, and alice if she loses her first match, the final.
        await expect(page.locator("#tournament-flights h3")).to_have_text(
            "The consolation flight: its players are not known yet")
    await carol.skip_until(said("** You are now playing a 1 point match with bob"))
    await expect(bob.locator("#board-holder svg")).to_be_visible()
    await carol.send("resign n")
    await accept_resignation(bob)

    # The result: bob advances to the final against alice, which starts.
    await director_pass(web)
    for page in (alice, bob):
        await expect(match_box(page, 1, 1).locator(".won")).to_have_text("2. bob")
        await expect(match_box(page, 1, 1).locator(".lost")).to_have_text("3. carol")
        await expect(match_box(page, 2, 0)).to_have_text("1. alice2. bob")
    await expect(alice.locator("#board-holder svg")).to_contain_text("bob")
    await bob.select_option("#resign-size", "n")
    await bob.click("#resign")
    await answer_yes(bob)
    await accept_resignation(alice)

    await director_pass(web)
    for page in (alice, bob):
        await expect(page.locator("#tournament-bracket .bracket-champion")) \
            .to_have_text("Winner: alice")
        await expect(page.locator("#tournament-summary")).to_contain_text("won by alice")
        # carol alone lost her first match: too few for the consolation.
        await expect(page.locator("#tournament-flights h3")).to_have_text(
            "The consolation flight: not played (fewer than two players)")
    await expect(match_box(alice, 2, 0).locator(".won")).to_have_text("1. alice")
    await expect(alice.locator("#tournament-rounds")).to_contain_text(
        "Round 1: alice has a bye; bob beats carol")
    await alice.locator("#tournament-detail").screenshot(path=artifacts / "tournament-bracket.png")

    # A Swiss: its table, the entrants by rating while it is in sign-up.
    await alice.select_option("#tournament-format", "swiss")
    await alice.fill("#tournament-rounds-count", "2")
    await alice.get_by_role("button", name="Create").click()
    await expect(alice.locator("#tournament-title")).to_have_text(
        "Tournament 2: Swiss, 2 rounds, by alice")
    await alice.locator("#tournament-actions").get_by_role("button", name="Join").click()
    standings = alice.locator("#tournament-standings")
    await expect(standings.locator("caption")).to_have_text("Standings")
    await expect(standings.locator("tbody tr")).to_have_text([re.compile(r"alice0\d{4}")])
    await expect(alice.locator('#tournament-list tr[data-id="2"]')).to_contain_text("1 of 4")

    # On a phone every control of the tab is a finger's size.
    await alice.set_viewport_size({"width": 390, "height": 800})
    controls = alice.locator('[data-panel="tournaments"]').locator(
        "button:visible, select:visible, input:visible, summary:visible")
    for shown_format in ("swiss", "knockout"):  # a Swiss's rounds; a knockout's flights
        await alice.select_option("#tournament-format", shown_format)
        sizes = [await control.bounding_box() for control in await controls.all()]
        assert len(sizes) > 10 and all(box and box["height"] >= 44 for box in sizes), sizes


async def test_a_daily_tournament_on_the_page_counts_down_reminds_and_comes_again(
        web_on_a_fake_clock, browser):
    """An administrator opens a daily knockout over telnet, to start in 10 minutes; alice's
    page lists it with its start time and recurrence, counts down to the start, shows the
    director's reminder 5 minutes before it, and, with alice alone at the start, the
    cancellation and the next day's tournament."""
    web = web_on_a_fake_clock
    await web.register("warden", "secret1")
    assert await set_admin(web.config.database_url, "warden", True) == 0
    warden = await web.login_telnet("warden", "secret1")
    await warden.send("tournament create knockout length 1 in 10 every day")
    await warden.skip_until(said("Tournament 1: created. Type 'tournament join 1' to enter it."))
    alice = await open_page(browser, web)
    await register(alice, "alice")

    await alice.click('#tabs [data-tab="tournaments"]')
    row = alice.locator('#tournament-list tr[data-id="1"]')
    await expect(row).to_contain_text(re.compile(
        r"1-point matches, 60 s a turn; starts \d{4}-\d\d-\d\d \d\d:\d\d UTC, every day; by warden"))
    await row.get_by_role("button", name="Show").click()
    summary = alice.locator("#tournament-summary")
    # The countdown runs on the page's own clock, from the time left the message gave.
    await expect(summary).to_contain_text(re.compile(
        r"starts at \d{4}-\d\d-\d\d \d\d:\d\d UTC \(in (10:00|9:5\d)\) · every day"))
    await expect(summary).to_contain_text(re.compile(r"\(in 9:5[0-8]\)"))
    await alice.locator("#tournament-actions").get_by_role("button", name="Join").click()
    await expect(alice.locator("#tournament-entrants")).to_contain_text("alice (1500)")

    clock = web.lobby_options["clock"]
    assert isinstance(clock, FakeClock)
    director = web.server.director
    clock.advance(300)  # the director's own pass, five minutes before the start
    await expect(alice.locator("#server-log")).to_contain_text(
        re.compile(r"Tournament 1: starts in 5 minutes, at .* UTC\."))
    await expect(summary).to_contain_text(re.compile(r"\(in [45]:\d\d\)"))
    await director.settled()
    clock.advance(300)  # the start: alice alone, so it is cancelled, and tomorrow's opens
    await expect(alice.locator("#server-log")).to_contain_text(
        "Tournament 1: cancelled: fewer than two players joined.")
    await expect(alice.locator("#server-log")).to_contain_text(
        "Tournament 2: the next of tournament 1's series (every day) opens")
    await expect(summary).to_contain_text("cancelled · 1-point matches, 60 s a turn · every day")


async def test_an_arena_on_the_page_its_clock_table_and_matches(web_on_a_fake_clock, browser):
    """alice creates an arena with the page's form (its minutes instead of rounds, one
    length) and joins; bob joins over telnet. As it starts the page shows the time left,
    counting down on its own clock, and the arena's table; after bob resigns, alice's 2 points
    and the match, and the two, alone free, paired again at once."""
    web = web_on_a_fake_clock
    await web.register("bob", "secret1")
    alice = await open_page(browser, web)
    await register(alice, "alice")
    bob = await web.login_telnet("bob", "secret1")

    await alice.click('#tabs [data-tab="tournaments"]')
    await alice.click("#tournament-create summary")
    await alice.select_option("#tournament-format", "arena")
    await expect(alice.locator("#tournament-minutes-label")).to_be_visible()
    for hidden in ("#tournament-rounds-label", "#tournament-final-label",
                   "#tournament-lengths-label"):
        await expect(alice.locator(hidden)).to_be_hidden()
    for field, value in (("#tournament-minutes", "10"), ("#tournament-length", "1"),
                         ("#tournament-start-when", "2"), ("#tournament-cap", "4")):
        await alice.fill(field, value)
    await alice.get_by_role("button", name="Create").click()
    await expect(alice.locator("#tournament-title")).to_have_text(
        "Tournament 1: arena, 10 min, by alice")
    await alice.locator("#tournament-actions").get_by_role("button", name="Join").click()
    # Her join is in before bob's and the pass (else the pass finds one entrant, and waits).
    await expect(alice.locator("#tournament-entrants")).to_contain_text("alice (1500)")
    await bob.send("tournament join 1")
    await bob.skip_until(said("Tournament 1: bob has joined."))

    await director_pass(web)  # it starts, and pairs the two at once
    clock = alice.locator("#tournament-clock")
    await expect(clock).to_have_text(re.compile(r"(10:00|9:5\d) left"))
    await expect(clock).to_have_text(re.compile(r"9:5[0-8] left"))  # the page's own second
    table = alice.locator("#tournament-arena")
    await expect(table.locator("caption")).to_have_text("Standings")
    await expect(table.locator("thead th")).to_have_text(
        ["Rank", "Player", "Points", "Wins in a row", "Matches"])
    await expect(alice.locator("#tournament-standings")).to_be_hidden()
    await expect(alice.locator("#tournament-bracket")).to_be_hidden()
    await expect(alice.locator("#tournament-rounds-title")).to_have_text("Matches")
    await expect(alice.locator("#tournament-rounds li")).to_have_text(["alice v bob"])
    await bob.skip_until(said("** You are now playing a 1 point match with alice"))
    await bob.send("resign n")
    await accept_resignation(alice)

    await director_pass(web)
    await expect(table.locator("tbody tr")).to_have_text(["1alice211", "2bob001"])
    await expect(alice.locator("#tournament-rounds li")).to_have_text(
        ["alice beats bob", "alice v bob"])
    await expect(clock).to_be_visible()
