"""The web client in a real browser (Debian's chromium, driven by Playwright) against the real
server: people register, invite, play by clicking checkers (a checker, then where it goes),
chat and watch; a visitor plays a bot and takes a move back; a browser user plays a telnet
user. Dice are scripted (the e2e harness), so every click's move is known. Screenshots go to
test-artifacts/web."""
from __future__ import annotations

import re

from playwright.async_api import Page, expect

from fibs_server.bots.analysis import CHEAPEST_PLIES
from fibs_server.lobby.presence.session import Incoming
from fibs_server.lobby.services.analysis_queue import AnalysisConfig
from fibs_server.rules.dice import VerifiableDice
from tests.waiting import DEADLINE
from tests.web.conftest import WebHarness

TIMEOUT = DEADLINE * 1000  # ms a page may take to show what the server said


async def open_page(browser, harness: WebHarness, width: int = 1200) -> Page:
    """A tab of its own (a context: nothing shared with the other users' tabs)."""
    context = await browser.new_context(viewport={"width": width, "height": 900})
    page = await context.new_page()
    page.set_default_timeout(TIMEOUT)
    await page.goto(harness.url)
    return page


async def register(page: Page, name: str, password: str = "secret1") -> None:
    await expect(page.locator("#register-form button")).to_be_enabled()
    await page.fill("#register-name", name)
    await page.fill("#register-password", password)
    await page.click("#register-form button")
    await expect(page.locator("#status")).to_have_text(f"Logged in as {name}")


async def log_in(page: Page, name: str, password: str = "secret1") -> None:
    await expect(page.locator("#login-form button")).to_be_enabled()
    await page.fill("#login-name", name)
    await page.fill("#login-password", password)
    await page.click("#login-form button")
    await expect(page.locator("#status")).to_have_text(f"Logged in as {name}")


def said(line: str) -> re.Pattern:
    """A line a telnet user gets, perhaps after the prompt of their last command."""
    return re.compile(r"(> )?" + re.escape(line))


def who_row(page: Page, name: str):
    return page.locator(f'#who tr[data-name="{name}"]')


async def click_point(page: Page, own_point: int) -> None:
    await page.click(f'#board-holder [data-point="{own_point}"] .hit-area')


async def click_move(page: Page, *steps: tuple[int, int], confirm: bool = True) -> None:
    """Each step a click on the checker's point, then on where it goes; then Confirm."""
    for start, end in steps:
        await click_point(page, start)
        await click_point(page, end)
    if confirm:
        await page.click("#confirm-move")


async def answer_yes(page: Page) -> None:
    """The page asks before the cube and resignations: yes."""
    await expect(page.locator("#confirm")).to_be_visible()
    await page.click("#confirm-yes")


def mine_on(page: Page, own_point: int):
    return page.locator(f'#board-holder [data-point="{own_point}"] .checker.mine')


def logged(page: Page, text: str):
    return page.locator("#server-log div", has_text=text)


async def test_two_browser_users_play_a_match_by_clicking_chat_and_a_third_watches(
        web, browser, artifacts):
    web.script_dice((3, 1), (6, 4), (2, 1), (5, 2))  # alice opens with 3-1; bob 6-4; alice 2-1
    alice, bob, carol = [await open_page(browser, web) for _ in range(3)]
    for page, name in ((alice, "alice"), (bob, "bob"), (carol, "carol")):
        await register(page, name)
    # A new user's first words are the page's own, none of the settings it makes.
    await expect(alice.locator("#game-status")).to_have_text("")
    assert "rawboards" not in await alice.locator("main").inner_text()
    await alice.fill("#who-filter", "CA")  # the who list filtered by name
    await expect(alice.locator("#who tbody tr")).to_have_count(1)
    await expect(who_row(alice, "carol")).to_have_count(1)
    await alice.fill("#who-filter", "")
    for page in (alice, bob):
        await page.click("#ready")
        await expect(page.locator("#ready")).to_be_checked()
    await expect(who_row(alice, "bob")).to_contain_text("ready")
    await alice.fill("#invite-length", "1")
    await who_row(alice, "bob").get_by_role("button", name="Invite").click()
    await expect(alice.locator("#invitations-out")).to_contain_text("You invited bob to a 1 point match")
    await expect(bob.locator("#invitations-in")).to_contain_text("alice invites you to a 1 point match")
    await bob.screenshot(path=artifacts / "room.png", full_page=True)
    await bob.locator("#invitations-in").get_by_role("button", name="Join").click()

    # carol watches alice; alice (O, the inviter) moves first with 3-1: 8-5 6-5.
    await expect(who_row(carol, "alice")).to_contain_text("playing bob")
    await who_row(carol, "alice").get_by_role("button", name="Watch").click()
    await expect(mine_on(alice, 8)).to_have_count(3)
    await click_move(alice, (8, 5), confirm=False)
    await expect(mine_on(alice, 5)).to_have_count(1)  # the step shows before it is sent
    await alice.click("#undo-step")  # and can be taken back
    await expect(mine_on(alice, 5)).to_have_count(0)
    await click_move(alice, (8, 5), (6, 5))
    await expect(logged(bob, "alice moves 8-5 6-5 .")).to_have_count(1)
    await expect(logged(carol, "alice moves 8-5 6-5 .")).to_have_count(1)
    await expect(carol.locator("#board-holder svg")).to_contain_text("alice")

    # bob (X) rolled 6-4 (the server rolls in a 1-point match): his own 24-18 13-9.
    await expect(bob.locator("#board-holder .die.mine")).to_have_count(2)
    await click_move(bob, (24, 18), (13, 9))
    await expect(logged(alice, "bob moves 1-7 12-16 .")).to_have_count(1)
    await alice.screenshot(path=artifacts / "board-mid-game.png", full_page=True)

    # Chat: say between the players, kibitz from the watcher; names and words shown as text.
    for page in (alice, carol):
        await page.click('#tabs [data-tab="chat"]')
    await alice.fill("#chat-text", "<b>good</b> luck")
    await alice.click("#chat-form button")
    await expect(bob.locator("#chat-log")).to_contain_text("alice says: <b>good</b> luck")
    assert await bob.locator("#chat-log b").count() == 0
    await carol.select_option("#chat-kind", "kibitz")
    await carol.fill("#chat-text", "nice opening")
    await carol.click("#chat-form button")
    await expect(alice.locator("#chat-log")).to_contain_text("carol kibitzes: nice opening")
    await expect(bob.locator("#chat-log")).to_contain_text("carol kibitzes: nice opening")
    await carol.click("#unwatch")  # the board and its button go with the watch
    await expect(carol.locator("#board-holder svg")).to_have_count(0)
    await expect(carol.locator("#unwatch")).to_be_hidden()

    # alice, on roll with 2-1, plays 13-11 6-5, then resigns; bob accepts: the match is over.
    await expect(alice.locator("#board-holder .die.mine")).to_have_count(2)
    await click_move(alice, (13, 11), (6, 5))
    await expect(logged(bob, "alice moves 13-11 6-5 .")).to_have_count(1)
    await alice.click("#resign")
    await answer_yes(alice)
    await expect(bob.locator("#accept")).to_be_visible()
    await bob.click("#accept")
    await answer_yes(bob)
    await expect(logged(alice, "bob wins the 1 point match 1-0 .")).to_have_count(1)
    # The match is over: its result said, its board and buttons gone.
    await expect(alice.locator("#game-status")).to_have_text("bob wins the 1 point match 1-0.")
    for page in (alice, bob):
        await expect(page.locator("#board-holder svg")).to_have_count(0)
        for control in ("#resign-controls", "#take-back", "#leave", "#roll"):
            await expect(page.locator(control)).to_be_hidden()
    record = (await web.server.store.finished_matches("alice", 1))[0]
    assert record.winner == "bob"

    # The end of the match, on each side: result, score, both ratings; a rematch on the
    # same terms; back to the room.
    await expect(bob.locator("#match-end-result")).to_have_text("You won the match against alice!")
    await expect(alice.locator("#match-end-result")).to_have_text("bob won the match.")
    await expect(alice.locator("#match-end-score")).to_have_text(
        "Final score 0-1 against bob in a 1 point match.")
    await expect(alice.locator("#match-end-ratings p")).to_have_count(2)
    for page, sign in ((alice, "-"), (bob, "+")):
        await expect(page.locator("#match-end-ratings p").first).to_have_text(re.compile(
            rf"Your rating: 1[45]\d\d\.\d\d \({re.escape(sign)}\d+\.\d\d\), experience 1\."))
    # Scripted here: the dice of a committed seed are checked in the test after the next.
    await expect(alice.locator("#match-end-dice")).to_have_text(
        "Dice: not drawn from a committed seed, nothing to verify.")
    await alice.screenshot(path=artifacts / "match-end.png")
    await alice.click("#match-end-actions button >> text=Rematch")
    await expect(alice.locator("#match-end-said")).to_have_text(
        "Rematch offered to bob on the same terms.")
    # The first invitation's line, then the rematch's.
    await expect(logged(bob, "alice wants to play a 1 point match with you.")).to_have_count(2)
    await alice.click("#match-end-actions button >> text=Back to the room")
    await expect(alice.locator("#match-end")).to_be_hidden()
    await expect(alice.locator("#no-game")).to_be_visible()

    # bob's review from the end: his own profile, where the match waits for its analysis (none
    # runs here), with the pictures: his rating over time (one rated match), his dice, and the
    # ratings list.
    await bob.click("#match-end-actions button >> text=Review")
    await expect(bob.locator("#history-name")).to_have_value("bob")
    await expect(bob.locator("#match-history")).to_contain_text("Ask for the analysis")
    await expect(bob.locator("#rating-plot")).to_contain_text("after 1 rated matches")
    await expect(bob.locator("#dice-stats")).to_contain_text("Rolls")
    await bob.click("#show-ratings")  # no one has the experience to be listed yet
    await expect(bob.locator("#ratings-list")).to_contain_text(
        "No one is on the list yet: it shows players with more than 50 experience.")


async def test_a_visitor_plays_a_bot_and_takes_a_move_back(web_with_bots, browser, artifacts):
    web_with_bots.script_dice((3, 1), (5, 2), (4, 4))
    page = await open_page(browser, web_with_bots, width=390)  # a phone's width
    await expect(page.locator("#visitor-form button")).to_be_enabled()
    await page.select_option("#visitor-level", "beginner")
    await page.click("#visitor-form button")
    await expect(page.locator("#status")).to_have_text(re.compile(r"Logged in as guest_[a-z]{5}"))
    await expect(mine_on(page, 8)).to_have_count(3)
    await click_move(page, (8, 5), (6, 5))
    # The bot thinks in its worker process, which a loaded machine may keep waiting: a wait
    # for its move, not a bound on its speed.
    await expect(logged(page, "bot_beginner moves")).to_have_count(1)
    await page.click("#take-back")
    await expect(logged(page, "You take back your last decision.")).to_have_count(1)
    # The position before the move, with the same dice.
    await expect(mine_on(page, 8)).to_have_count(3)
    await expect(mine_on(page, 5)).to_have_count(0)
    await expect(page.locator("#board-holder .die.mine")).to_have_count(2)
    await page.screenshot(path=artifacts / "visitor-phone.png", full_page=True)
    too_small = await page.evaluate("""() => [...document.querySelectorAll(
        "button, select, input")].filter((control) => control.offsetParent !== null).map(
        (control) => [control.id || control.textContent, control.getBoundingClientRect()])
        .filter(([, box]) => box.width < 44 || box.height < 44).map(([name]) => name)""")
    assert too_small == [], f"controls under 44 px on a phone: {too_small}"


async def alice_joins_bob(web, browser, invitation: str, match: str):
    """alice registers on a page and gets ready; telnet bob (registered) logs in, gets ready and
    sends `invitation`; alice joins `match` by its button. Her page and bob's connection."""
    page = await open_page(browser, web)
    await register(page, "alice")
    await page.click("#ready")
    await expect(page.locator("#ready")).to_be_checked()
    bob = await web.login_telnet("bob", "secret1")
    await bob.send("toggle ready")
    await bob.send(invitation)
    await expect(page.locator("#invitations-in")).to_contain_text(f"bob invites you to {match}")
    await page.locator("#invitations-in").get_by_role("button", name="Join").click()
    return page, bob


async def test_the_end_of_a_match_checks_its_dice_in_the_browser(web, browser):
    """Dice from a secret seed the server committed to, as in production: the page salts the
    match when it starts and, at its end, recomputes every roll from the revealed seed and the
    salts, against the commitment it was shown."""
    await web.register("bob", "secret1")
    web.dice.append(VerifiableDice.fresh())
    page, bob = await alice_joins_bob(web, browser, "invite alice 1", "a 1 point match")
    await expect(page.locator("#board-holder svg")).to_have_count(1)
    await bob.send("resign n")
    await expect(page.locator("#accept")).to_be_visible()
    await page.click("#accept")
    await answer_yes(page)
    await expect(page.locator("#match-end-result")).to_have_text("You won the match against bob!")
    await expect(page.locator("#match-end-dice")).to_have_text(re.compile(
        r"Dice: all \d+ rolls verified in your browser from the seed and salts\. Its "
        r"commitment is the one this browser was shown when the match started\."))


async def test_the_end_of_a_bot_match_shows_the_error_rates_once_analysed(tmp_path, browser):
    """A registered player's 1-point match against the beginner, resigned at once: the end of
    the match says the analysis is on its way, then shows both players' figures; its review, and a rematch."""
    harness = WebHarness(f"sqlite:///{tmp_path / 'fibs-web.db'}", bots=True)
    harness.config.analysis = AnalysisConfig(plies=CHEAPEST_PLIES)
    await harness.start()
    try:
        harness.script_dice((3, 1))
        page = await open_page(browser, harness)
        await register(page, "erin")
        await page.fill("#invite-length", "1")
        await page.locator("#bot-buttons").get_by_role("button", name="Play the beginner bot").click()
        await expect(page.locator("#resign-controls")).to_be_visible()
        await page.select_option("#resign-size", "b")
        await page.click("#resign")
        await answer_yes(page)
        await expect(page.locator("#match-end-result")).to_have_text("bot_beginner won the match.")
        analysis = page.locator("#match-end-analysis p")
        await expect(analysis.first).to_have_text(re.compile(
            r"Your error rate: \d+\.\d \(PR \d+\.\d, [A-Za-z !]+\)\."))
        await expect(analysis.nth(1)).to_have_text(re.compile(
            r"bot_beginner: \d+\.\d \(PR \d+\.\d, [A-Za-z !]+\)\."))
        # Analysed: Review opens the match's review at its first decision, from erin's side.
        await page.click("#match-end-actions button >> text=Review")
        await expect(page.locator("#review-decision")).to_contain_text("Decision 1 of")
        await expect(page.locator("#review-board .caption.player")).to_contain_text("erin")
        await page.click("#review-close")  # back to the end of the match; the bot takes the
        # rematch at once
        await page.click("#match-end-actions button >> text=Rematch")
        await expect(page.locator("#match-end")).to_be_hidden()
        await expect(page.locator("#board-holder svg")).to_be_visible()
    finally:
        await harness.stop()


async def opens_a_table(web, browser, name: str, private: bool) -> tuple[Page, str]:
    """`name` registers on a page, gets ready and opens a table for a 1-point match: the page
    and the table's link."""
    page = await open_page(browser, web)
    await register(page, name)
    await page.click("#ready")
    await expect(page.locator("#ready")).to_be_checked()
    await page.fill("#invite-length", "1")
    await page.set_checked("#table-private", private)
    await page.click("#open-table")
    link = page.locator("#my-table a")
    await expect(link).to_have_text(re.compile(r"/\?table=\w+$"))
    address = await link.get_attribute("href")
    assert address is not None
    return page, address


async def test_a_browser_user_plays_a_telnet_user_with_the_cube(web, browser):
    """A 3-point match: the browser user rolls and doubles by button; nobody rolls for them."""
    await web.register("bob", "secret1")
    # bob invites with 1, alice 3: alice (X) opens with 3-1; bob 6-4; alice rolls 2-1; bob
    # 5-2; alice doubles, bob takes, the server rolls 6-5 for her; the next game's opening 4-2.
    web.script_dice((1, 3), (6, 4), (2, 1), (5, 2), (6, 5), (4, 2))
    page, bob = await alice_joins_bob(web, browser, "invite alice 3", "a 3 point match")
    await click_move(page, (8, 5), (6, 5))
    await bob.skip_until(said("alice moves 17-20 19-20 ."))
    await bob.skip_until(re.compile(r"(> )?It's your turn to roll or double\."))
    await bob.send("roll")
    await bob.skip_until(re.compile(r"(> )?You roll 6 and 4\."))
    await bob.send("move 24-18 13-9")
    await expect(logged(page, "bob moves 24-18 13-9 .")).to_have_count(1)
    await page.click("#roll")  # alice may double, so the server waits for her
    await expect(page.locator("#board-holder .die.mine")).to_have_count(2)
    await click_move(page, (13, 11), (6, 5))
    await bob.skip_until(said("alice moves 12-14 19-20 ."))
    await bob.send("roll")
    await bob.skip_until(re.compile(r"(> )?You roll 5 and 2\."))
    await bob.send("move 13-8 13-11")
    await expect(logged(page, "bob moves 13-8 13-11 .")).to_have_count(1)
    await page.click("#double")
    await answer_yes(page)
    await bob.skip_until(re.compile(r"(> )?alice doubles\..*"))
    await bob.send("accept")
    await expect(logged(page, "bob accepts the double. The cube shows 2.")).to_have_count(1)
    # The server rolls for alice: bob owns the cube now, she cannot double.
    await expect(page.locator("#board-holder .cube")).to_contain_text("2")
    await expect(page.locator("#double")).to_be_hidden()
    await click_move(page, (24, 18), (18, 13))
    await bob.skip_until(said("alice moves 1-7 7-12 ."))
    await bob.send("say well played")
    await expect(page.locator("#chat-log")).to_contain_text("bob says: well played")
    await page.click("#resign")
    await answer_yes(page)
    await bob.skip_until(re.compile(r"(> )?alice wants to resign\..*"))
    await bob.send("accept")
    await expect(logged(page, "bob accepts and wins 2 points.")).to_have_count(1)


async def test_a_refused_registration_is_shown_and_the_forms_work_again(web, browser):
    await web.register("bob", "secret1")
    page = await open_page(browser, web)
    await expect(page.locator("#register-form button")).to_be_enabled()
    await page.fill("#register-name", "Bob")
    await page.fill("#register-password", "secret1")
    await page.click("#register-form button")
    await expect(page.locator("#welcome-message")).to_have_text(
        "Please use another name. 'Bob' is already used by someone else.")
    await log_in(page, "bob")


async def test_a_refused_password_is_sent_once_and_the_page_says_why(web, browser, monkeypatch):
    passwords_sent = 0
    handle_line = Incoming.handle_line

    async def counting_handle_line(incoming: Incoming, line: str) -> None:
        nonlocal passwords_sent
        passwords_sent += line == "abc"
        await handle_line(incoming, line)
    monkeypatch.setattr(Incoming, "handle_line", counting_handle_line)
    page = await open_page(browser, web)
    await expect(page.locator("#register-form button")).to_be_enabled()
    await page.fill("#register-name", "carol")
    await page.fill("#register-password", "abc")
    await page.click("#register-form button")
    await expect(page.locator("#welcome-message")).to_have_text(
        "Minimal password length is 4 characters.")
    await register(page, "carol", "secret1")  # the forms work again, on a new connection
    assert passwords_sent == 1


async def timed_match_with_bob(web, browser, length: int):
    """alice's page joins telnet bob's timed match (60 s a turn); her clock runs. She opens
    with 3-1; the server rolls 6-4 for bob."""
    await web.register("bob", "secret1")
    web.script_dice((1, 3), (6, 4))
    page, bob = await alice_joins_bob(web, browser, f"invite alice {length} timer 60",
                                      f"a {length} point match")
    await expect(page.locator("#clock")).to_have_text(re.compile(r"Your time to move: \d+ s"))
    return page, bob


async def test_a_timed_match_shows_whose_clock_runs(web, browser):
    """The page reads the clock from the typed board messages: from the first board on; both
    sides' clocks are on the board."""
    page, bob = await timed_match_with_bob(web, browser, 1)
    await click_move(page, (8, 5), (6, 5))
    await expect(page.locator("#clock")).to_have_text(re.compile(r"bob's time to move: \d+ s"))
    # On the board too, beside the name of whoever must decide.
    await expect(page.locator('#board-holder [data-clock="opponent"]')).to_have_text(re.compile(r"\d+ s"))
    # Hers waits with the whole minute her next decision gets (the timer runs per decision).
    await expect(page.locator('#board-holder [data-clock="player"]')).to_have_text("60 s")


async def test_a_reload_in_the_middle_of_a_timed_match_comes_back_to_it(web, browser):
    """The page keeps its session token in sessionStorage: a reload resumes the session, the
    board and its clock come back, and the match goes on (bob sees no drop)."""
    page, bob = await timed_match_with_bob(web, browser, 3)
    await page.reload()
    await expect(page.locator("#status")).to_have_text("Logged in as alice")
    await expect(page.locator("#clock")).to_have_text(re.compile(r"Your time to move: \d+ s"))
    await expect(mine_on(page, 8)).to_have_count(3)
    await click_move(page, (8, 5), (6, 5))
    told = await bob.skip_until(said("alice moves 17-20 19-20 ."))
    assert not any("drops connection" in line for line in told)
    await expect(page.locator("#clock")).to_have_text(
        re.compile(r"bob's time to roll or double: \d+ s"))
    await page.click("#logout")
    await expect(page.locator("#welcome-message")).to_have_text("You are logged out.")
    await page.reload()  # the token went with the logout: the login forms, not the room
    await expect(page.locator("#login-form button")).to_be_enabled()
    await expect(page.locator("#room")).to_be_hidden()


async def test_a_saved_match_offers_resume_while_its_opponent_is_online(web, browser):
    """bob leaves a 3-point match: alice's page lists it saved, not online when bob logs out,
    with Resume when he logs in again (from presence, no reload); Resume invites him to it.
    His invitation to resume it comes with a Join, which resumes it."""
    await web.register("bob", "secret1")
    web.script_dice((1, 3), (6, 4))
    page, bob = await alice_joins_bob(web, browser, "invite alice 3", "a 3 point match")
    await click_move(page, (8, 5), (6, 5))
    await bob.skip_until(said("alice moves 17-20 19-20 ."))
    await bob.send("leave")
    saved = page.locator("#saved-matches")
    await expect(saved).to_contain_text("with bob: a 3 point match, 0-0")
    await expect(saved.get_by_role("button", name="Resume")).to_have_count(1)
    await bob.send("bye")
    await expect(saved).to_contain_text("(not online)")
    bob = await web.login_telnet("bob", "secret1")
    await expect(saved.get_by_role("button", name="Resume")).to_have_count(1)
    await saved.get_by_role("button", name="Resume").click()
    await bob.skip_until(re.compile(r"alice wants to resume a saved match with you\."))
    await bob.send("invite alice")
    notification = page.locator("#notifications")
    await expect(notification).to_have_text("bob invites you to resume your saved match Join")
    await notification.get_by_role("button", name="Join").click()
    await expect(mine_on(page, 5)).to_have_count(2)  # her 8/5 6/5 of before
    await expect(page.locator("#notifications")).to_be_empty()
