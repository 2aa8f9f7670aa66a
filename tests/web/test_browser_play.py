"""The page's board and room in a real browser (Debian's chromium, driven by Playwright): a
whole match against a bot played by dragging checkers onto the destinations the page
highlights; the legal destinations, the opponent's last move and the screen reader's labels;
a play made with the keyboard and sent as soon as it is complete, and a move typed; a forced
play laid out and a roll without a play said, and still said after the opponent's roll in a
1-point match; questions before a resignation, before dropping and taking the opponent's
double and before a take-back that unrates; a table's link; the page in Spanish; a finished
match reviewed with its analysis; a lost connection that comes back by itself, and the
clock's warning."""
from __future__ import annotations

import asyncio
import re

from playwright.async_api import Page, expect

from fibs_server.bots.analysis import CHEAPEST_PLIES
from fibs_server.bots.pool import analyse_stored
from fibs_server.rules.board.position import Position
from tests.e2e.test_timers import ring
from tests.rules.match_helpers import arranged, side
from tests.waiting import until
from tests.web.test_browser import (
    alice_joins_bob,
    answer_yes,
    click_move,
    click_point,
    log_in,
    logged,
    mine_on,
    open_page,
    opens_a_table,
    register,
    said,
)

POINT = '#board-holder [data-point="{}"]'
TURN_PASSED_MS = 5000  # game.js: how long a roll without a play stays said
TURNS = 200  # a 1-point match takes about 50 decisions of the page's side


async def drag(page: Page, start: str, end: str) -> None:
    """Press on `start`, move over `end` in steps (a real drag), release there."""
    await page.locator(start).hover()
    await page.mouse.down()
    box = await page.locator(end).bounding_box()
    assert box is not None
    await page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=5)
    await page.mouse.up()


async def drag_a_legal_step(page: Page) -> None:
    """Drag the first checker the page marks movable to the first destination it marks."""
    start = await page.locator("#board-holder .point.movable .hit-area").first.bounding_box()
    assert start is not None
    x, y = start["x"] + start["width"] / 2, start["y"] + start["height"] / 2
    await page.mouse.move(x, y)
    await page.mouse.down()
    await page.mouse.move(x + 4, y + 8, steps=2)  # a drag begins: the page marks where it may go
    end = page.locator("#board-holder .point.destination .hit-area").first
    await expect(end).to_be_visible()
    box = await end.bounding_box()
    assert box is not None
    await page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=5)
    await page.mouse.up()


async def test_a_whole_match_against_a_bot_played_by_dragging(web_with_bots, browser, artifacts):
    page = await open_page(browser, web_with_bots)
    await expect(page.locator("#visitor-form button")).to_be_enabled()
    await page.select_option("#visitor-level", "beginner")
    await page.click("#visitor-form button")
    await expect(page.locator("#status")).to_have_text(re.compile(r"Logged in as guest_"))
    over = page.locator("#game-status", has_text=re.compile(r"wins? the 1 point match"))
    # What the page offers next: a step to drag, a play to confirm, a question, or the end.
    next_thing = page.locator(
        "#board-holder .point.movable, #confirm-move:visible, #accept:visible, #game-status")
    for _ in range(TURNS):
        await expect(next_thing.first).to_be_visible()
        if await over.count():
            break
        if await page.locator("#confirm-move:visible").count():
            await page.click("#confirm-move")
        elif await page.locator("#accept:visible").count():  # the bot offers to resign
            await page.click("#accept")
            await answer_yes(page)
        elif await page.locator("#board-holder .point.movable").count():
            await drag_a_legal_step(page)
        else:
            # The bot's turn, or a roll the page cannot move: wait for the board to change.
            await page.wait_for_function(
                """() => document.querySelector('#board-holder .point.movable')
                    || !document.querySelector('#confirm-move').hidden
                    || !document.querySelector('#accept').hidden
                    || /wins? the 1 point match/.test(
                        document.querySelector('#game-status').textContent)""")
    await expect(over).to_have_count(1)
    await page.screenshot(path=artifacts / "bot-match-over.png", full_page=True)


async def test_destinations_last_move_labels_the_keyboard_and_a_typed_move(web, browser, artifacts):
    await web.register("bob", "secret1")
    # bob invites: alice (X) opens with 3-1; bob rolls 6-4; alice 2-1.
    web.script_dice((1, 3), (6, 4), (2, 1))
    page, bob = await alice_joins_bob(web, browser, "invite alice 3", "a 3 point match")
    eight = page.locator(POINT.format(8))
    await expect(eight).to_have_attribute("aria-label", "Point 8: 3 of your checkers")
    await click_point(page, 8)
    # 3-1 takes a checker from 8 to 7, 5 or 4, and nowhere else.
    await expect(page.locator("#board-holder .point.destination")).to_have_count(3)
    for point in (7, 5, 4):
        await expect(page.locator(POINT.format(point))).to_have_class(re.compile(r"\bdestination\b"))
    await drag(page, f"{POINT.format(6)} .hit-area", f"{POINT.format(5)} .hit-area")  # 6/5
    await expect(mine_on(page, 5)).to_have_count(1)
    # The keyboard: a point picked and its destination chosen with Enter; the play complete,
    # it goes at once (auto-confirm).
    await page.check("#auto-confirm")
    await eight.focus()
    await page.keyboard.press("Enter")
    await expect(eight).to_have_class(re.compile(r"\bselected\b"))
    await page.locator(POINT.format(5)).focus()
    await page.keyboard.press("Enter")
    await bob.skip_until(re.compile(r"(> )?alice moves (19-20 17-20|17-20 19-20) \."))
    await page.uncheck("#auto-confirm")
    await bob.skip_until(re.compile(r"(> )?It's your turn to roll or double\."))
    await bob.send("roll")
    await bob.skip_until(re.compile(r"(> )?You roll 6 and 4\."))
    await bob.send("move 24-18 13-9")
    # bob's move, marked on alice's board: from her 1 and 12, to her 7 and 16.
    await expect(page.locator("#board-holder .point.last-from")).to_have_count(2)
    await expect(page.locator(POINT.format(7))).to_have_class(re.compile(r"\blast-to\b"))
    await expect(page.locator(POINT.format(16))).to_have_class(re.compile(r"\blast-to\b"))
    await page.screenshot(path=artifacts / "last-move.png", full_page=True)
    await page.click("#roll")
    await page.fill("#move-text", "13/11 6/5")  # a typed move, in her own numbers
    await page.click("#move-form button")
    await bob.skip_until(said("alice moves 12-14 19-20 ."))


async def test_a_resignation_and_an_unrating_take_back_are_asked_first(web, browser):
    await web.register("bob", "secret1")
    web.script_dice((1, 3), (6, 4))
    page, bob = await alice_joins_bob(web, browser, "invite alice 3", "a 3 point match")
    await page.select_option("#resign-size", "b")
    await page.click("#resign")
    await expect(page.locator("#confirm-text")).to_have_text("Resign the game (backgammon)?")
    await page.click("#confirm-no")
    await page.select_option("#resign-size", "g")
    await page.click("#resign")
    await expect(page.locator("#confirm-text")).to_have_text("Resign the game (gammon)?")
    await page.click("#confirm-no")
    await expect(page.locator("#confirm")).to_be_hidden()
    await page.click("#resign")
    await answer_yes(page)
    await bob.skip_until(re.compile(r"(> )?alice wants to resign\. You will win 2 points\..*"))


async def test_the_opponents_double_is_dropped_then_taken_each_asked_first(web, browser, artifacts):
    """A 3-point match: bob (telnet) doubles after alice's opening; she drops, saying No to the
    question first; in the next game he doubles again and she takes: the cube is hers at 2."""
    await web.register("bob", "secret1")
    # alice opens both games with 3-1; the server rolls bob's 6-4 once she owns the cube.
    web.script_dice((1, 3), (1, 3), (6, 4))
    page, bob = await alice_joins_bob(web, browser, "invite alice 3", "a 3 point match")
    # Her 8/5 6/5 in FIBS's numbers: the colours change sides with each game.
    for game, her_move in ((1, "17-20 19-20"), (2, "8-5 6-5")):
        if game == 2:
            await page.click("#join-next")
            await bob.send("join")
        # The new game's opening roll on her board first: a click before it would pick nothing.
        await expect(page.locator("#board-holder .die.mine")).to_have_count(2)
        await click_move(page, (8, 5), (6, 5))
        await bob.skip_until(said(f"alice moves {her_move} ."))
        await bob.skip_until(re.compile(r"(> )?It's your turn to roll or double\."))
        await bob.send("double")
        await expect(page.locator("#game-status")).to_have_text("bob doubles to 2.")
        # The cube offered lies in her half of the board, at the value it would have.
        offered = page.locator("#board-holder .cube.offered")
        await expect(offered).to_have_attribute("aria-label", "Cube offered at 2")
        if game == 1:
            await page.locator("#board-holder").screenshot(path=artifacts / "cube-offered.png")
        if game == 1:
            await page.click("#reject")
            await expect(page.locator("#confirm-text")).to_have_text(
                "Drop the double and lose the game?")
            await page.click("#confirm-no")  # nothing is sent: the question stays open
            await expect(page.locator("#confirm")).to_be_hidden()
            await expect(page.locator("#reject")).to_be_visible()
            await page.click("#reject")
            await answer_yes(page)
            await bob.skip_until(said("alice gives up. You win 1 point."))
            await expect(offered).to_have_count(0)
            await expect(page.locator("#game-status")).to_have_text(
                "bob wins the game and 1 point. Score 0-1.")
        else:
            await page.click("#accept")
            await expect(page.locator("#confirm-text")).to_have_text("Take the double?")
            await page.click("#confirm-yes")
            await bob.skip_until(said("alice accepts the double. The cube shows 2."))
            await expect(offered).to_have_count(0)
            await expect(page.locator("#board-holder .cube")).to_have_attribute(
                "aria-label", "Cube 2, yours")
            for answer in ("#accept", "#reject"):
                await expect(page.locator(answer)).to_be_hidden()


async def test_a_take_back_in_a_rated_bot_match_says_it_unrates(web_with_bots, browser):
    web_with_bots.script_dice((3, 1), (5, 2), (4, 4))
    page = await open_page(browser, web_with_bots)
    await register(page, "carol")
    await page.fill("#invite-length", "1")
    await page.get_by_role("button", name="Play the beginner bot").click()
    await click_move(page, (8, 5), (6, 5))
    await expect(logged(page, "bot_beginner moves")).to_have_count(1)
    await page.click("#take-back")
    await expect(page.locator("#confirm-text")).to_have_text(
        "Taking a move back makes this match unrated. Take it back?")
    await page.click("#confirm-no")
    await expect(page.locator("#confirm")).to_be_hidden()


async def test_a_table_link_seats_whoever_opens_it(web, browser, artifacts):
    host, address = await opens_a_table(web, browser, "alice", private=True)
    guest = await (await browser.new_context()).new_page()
    await guest.goto(address)
    # The link's page says where it leads before anyone logs in.
    code = address.rsplit("=", 1)[1]
    await expect(guest.locator("#table-notice")).to_contain_text(f"You have a link to table {code}")
    await guest.screenshot(path=artifacts / "table-link-welcome.png")
    await register(guest, "bob")
    await expect(guest.locator("#table-notice")).to_be_hidden()
    await expect(guest.locator("#board-holder svg")).to_be_visible()
    await expect(host.locator("#board-holder svg")).to_be_visible()
    await expect(guest).to_have_url(re.compile(r"/$"))  # the code is not kept in the address
    await guest.screenshot(path=artifacts / "table-match.png", full_page=True)


async def test_the_page_speaks_the_browsers_language_and_the_picker_changes_it(web, browser, artifacts):
    await web.register("bob", "secret1")
    context = await browser.new_context(locale="es-ES", viewport={"width": 390, "height": 844})
    page = await context.new_page()
    await page.goto(web.url)
    await expect(page.locator("#login-form h2")).to_have_text("Entrar")
    await expect(page.locator("#status")).to_have_text("Sin sesión")
    await page.fill("#register-name", "Bob")
    await page.fill("#register-password", "secret1")
    await page.click("#register-form button")
    # The server's refusal, by its code, in the page's language.
    message = page.locator("#welcome-message")
    await expect(message).not_to_have_text("")
    assert "Bob" in await message.text_content()
    assert "already used" not in await message.text_content()
    await page.screenshot(path=artifacts / "welcome-es-phone.png", full_page=True)
    await page.select_option("#language", "en")
    await expect(page.locator("#login-form h2")).to_have_text("Log in")
    await page.reload()  # the choice is kept
    await expect(page.locator("#login-form h2")).to_have_text("Log in")


async def test_a_finished_match_is_reviewed_decision_by_decision(web_with_bots, browser, artifacts):
    """A telnet user's rated bot match, resigned at once and analysed; a browser user reads it
    (rated matches are public) from that player's profile."""
    web_with_bots.script_dice((3, 1))
    await web_with_bots.register("dora", "secret1")
    telnet = await web_with_bots.login_telnet("dora", "secret1")
    await telnet.send("bot beginner 1")
    await telnet.skip_until(re.compile(r"(> )?It's your turn to move\."))
    await telnet.send("resign b")
    await telnet.skip_until(re.compile(r".*wins the 1 point match.*"))
    store = web_with_bots.server.store
    match_id = (await store.finished_matches("dora", 1))[0].match_id
    record = await store.match_by_id(match_id)
    analysis = await asyncio.to_thread(analyse_stored, record.state, CHEAPEST_PLIES)
    await store.store_analysis(match_id, CHEAPEST_PLIES, analysis)

    page = await open_page(browser, web_with_bots)
    await register(page, "erin")
    await page.click('#tabs [data-tab="profile"]')
    await page.fill("#history-name", "dora")
    await page.click("#profile-form button")
    await page.locator("#match-history").get_by_role("button", name="Review with analysis").click()
    await expect(page.locator("#review")).to_be_visible()
    await expect(page.locator("#review-decision")).to_contain_text("Decision 1 of")
    await expect(page.locator("#review-board svg")).to_be_visible()
    await expect(page.locator("#review-summary tr")).not_to_have_count(0)
    # The depth and the scale under the figures (docs/ANALYSIS.md, "The scale").
    await expect(page.locator("#review-scale")).to_contain_text(
        f"Judged by bgsage at {CHEAPEST_PLIES}-ply (gnubg's {CHEAPEST_PLIES - 1}-ply).")
    await page.screenshot(path=artifacts / "review.png", full_page=True)
    await page.click("#review-close")
    await expect(page.locator("#room")).to_be_visible()


async def test_a_forced_play_is_laid_out_and_a_roll_without_one_is_said(web, browser):
    """A saved 3-point match resumed: alice (X) has one checker left, on the bar; bob holds her
    20 and 14 points. Her 6-5 enters on 19 and nothing more; her 5-5 then cannot move."""
    await web.register("alice", "secret1")
    await web.register("bob", "secret1")
    position = Position((side({}, bar=1), side({5: 2, 11: 2, 24: 1})))
    await web.server.store.create_match("alice", "bob", 3,
                                        arranged(position, turn=0, length=3).to_dict())
    web.script_dice((6, 5), (2, 1), (5, 5))
    page = await open_page(browser, web)
    await log_in(page, "alice")
    await page.click("#ready")
    bob = await web.login_telnet("bob", "secret1")
    await bob.toggle_ready()  # before alice resumes: else her invitation can come first, refused
    await page.locator("#saved-matches").get_by_role("button", name="Resume").click()
    await bob.skip_until(re.compile(r"(> )?Type 'join alice' to accept\."))
    await bob.send("join alice")
    await page.click("#roll")
    await expect(page.locator("#game-status")).to_have_text("The only legal move is shown: confirm it.")
    await expect(mine_on(page, 19)).to_have_count(1)
    await page.click("#confirm-move")
    await bob.skip_until(said("alice moves bar-6 ."))
    await bob.skip_until(re.compile(r"(> )?It's your turn to roll or double\."))
    await bob.send("roll")
    await bob.skip_until(re.compile(r"(> )?You roll 2 and 1\."))
    await bob.send("move 24-22 22-21")
    await page.click("#roll")
    await expect(page.locator("#turn-notice")).to_have_text(
        "You rolled 5 and 5 and cannot move: the turn passes.")
    await expect(page.locator("#board-holder .point.movable")).to_have_count(0)
    await bob.skip_until(said("alice can't move."))


async def test_a_turn_without_a_play_stays_said_after_the_next_roll(web, browser):
    """A saved 1-point match (no cube: the server rolls for both): alice's 5-5 cannot enter
    against bob's points, and bob's roll follows at once. Her page still says why her turn
    passed, until the page's clock has run TURN_PASSED_MS."""
    await web.register("alice", "secret1")
    await web.register("bob", "secret1")
    position = Position((side({}, bar=1), side({5: 2, 11: 2, 24: 1})))
    await web.server.store.create_match("alice", "bob", 1,
                                        arranged(position, turn=0, length=1).to_dict())
    web.script_dice((5, 5), (2, 1))
    context = await browser.new_context(viewport={"width": 1200, "height": 900})
    page = await context.new_page()
    await page.clock.install()  # the page's timers: run by the test from here on
    await page.goto(web.url)
    await log_in(page, "alice")
    await page.click("#ready")
    await expect(page.locator("#ready")).to_be_checked()
    bob = await web.login_telnet("bob", "secret1")
    await bob.toggle_ready()  # before alice resumes: else her invitation can come first, refused
    await page.clock.pause_at(await page.evaluate("Date.now()") + 1000)
    await page.locator("#saved-matches").get_by_role("button", name="Resume").click()
    await bob.skip_until(re.compile(r"(> )?Type 'join alice' to accept\."))
    await bob.send("join alice")
    await page.click("#roll")  # a resumed match waits for its first roll, even without a cube
    await bob.skip_until(said("alice can't move."))
    await expect(page.locator("#game-status")).to_have_text("bob rolled 2 and 1.")
    notice = page.locator("#turn-notice")
    await expect(notice).to_have_text("You rolled 5 and 5 and cannot move: the turn passes.")
    await page.clock.run_for(TURN_PASSED_MS - 1)
    await expect(notice).to_be_visible()
    await page.clock.run_for(1)
    await expect(notice).to_be_hidden()


async def test_a_lost_connection_comes_back_by_itself_and_the_clock_warns(
        web_on_a_fake_clock, browser):
    """Without a reload: the network goes (the server's end of the socket is cut), the page
    reconnects with its token and the timed match goes on. The server's warning 10 s before
    the time is up is said, and the clock shows the seconds the server counts."""
    web = web_on_a_fake_clock
    await web.register("bob", "secret1")
    web.script_dice((1, 3), (6, 4))
    page, bob = await alice_joins_bob(web, browser, "invite alice 1 timer 60", "a 1 point match")
    await expect(page.locator("#clock")).to_have_text(re.compile(r"Your time to move: \d+ s"))
    lobby = web.server.lobby
    lost = lobby.attendance.users.online["alice"]
    lost.connection.transport.abort()
    # Held meanwhile, the same session: a new one once her page has resumed it.
    await until(lambda: lobby.attendance.users.online.get("alice") not in (None, lost),
                "alice's page back on a new connection")
    await expect(page.locator("#status")).to_have_text("Logged in as alice")
    await expect(mine_on(page, 8)).to_have_count(3)
    await ring(web, 50)
    await expect(page.locator("#game-status")).to_have_text("Hurry: 10 s left.")
    await expect(page.locator("#clock")).to_have_class(re.compile(r"\bwarning\b"))
    await expect(page.locator("#clock")).to_have_text(re.compile(r"Your time to move: (10|[1-9]) s"))
    await click_move(page, (8, 5), (6, 5))
    told = await bob.skip_until(said("alice moves 17-20 19-20 ."))
    assert not any("drops connection" in line for line in told)
