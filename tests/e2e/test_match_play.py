"""Matches over the wire: invitations, the opening, moves, the cube, resignations, the end of
games and matches, with FIBS's texts in FIBS's order."""
from __future__ import annotations

import asyncio
import re

import pytest

from fibs_server.rules.dice import SeededDice
from tests.e2e.bot import Bot
from tests.e2e.test_lobby_commands import ask

START_O = "0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0"
WHO = re.compile(r"5 .*")


@pytest.fixture
async def players(harness):
    """alice and bob (CLIP clients, ready, boardstyle 3) and carol (telnet, watching reports)."""
    for name in ("alice", "bob", "carol"):
        await harness.register(name)
    carol = await harness.login_telnet("carol")
    await ask(carol, "set boardstyle 3", "Value of 'boardstyle' set to 3.")  # reads board: lines
    alice = await harness.login_clip("alice")
    bob = await harness.login_clip("bob")
    await alice.skip_until("6")  # bob's login
    await carol.skip_until("bob logs in.")
    for client in (alice, bob):
        await client.toggle_ready()
    for client in (alice, bob):  # the who-info updates of both toggles
        await client.skip_until(re.compile(r"5 bob - - 1 .*"))
        await client.expect_lines("6")
    await alice.expect_silence()
    await bob.expect_silence()
    return alice, bob, carol


async def test_invitation_errors(harness, players):
    alice, bob, carol = players
    await alice.send("invite")
    await alice.expect_lines("** invite who?")
    await alice.send("invite nobody 3")
    await alice.expect_lines("** There is no one called nobody.")
    await alice.send("invite alice 3")
    await alice.expect_lines("** You can't invite yourself.")
    await ask(carol, "invite alice 3", "** Use 'toggle ready' first.")
    await ask(carol, "toggle ready", "** You're now ready to invite or join someone.")
    for client in (alice, bob):
        await client.expect_lines(re.compile(r"5 carol - - 1 .*"), "6")
    await alice.send("invite carol 3")
    await alice.skip_until("** You invited carol to a 3 point match.")
    await carol.expect_lines("alice wants to play a 3 point match with you.",
                             "Type 'join alice' to accept.")
    await alice.send("invite bob 10")
    await alice.expect_lines("** You're not experienced enough to play a match of that length.")
    await alice.send("invite bob twelve")
    await alice.expect_lines("** The match length must be a number from 1 to 99 or 'unlimited'.")
    await alice.send("invite bob")
    await alice.expect_lines("** There's no saved match with bob. Please give a match length.")
    await bob.send("join")
    await bob.expect_lines("** Error: Join who?")
    await bob.send("join nobody")
    await bob.expect_lines("** Error: can't find player nobody")
    await bob.send("join alice")
    await bob.expect_lines("** alice didn't invite you.")
    await bob.send("roll")
    await bob.expect_lines("** You're not playing.")
    await bob.send("leave")
    await bob.expect_lines("** Error: No one to leave.")
    await bob.send("toggle ready")
    await bob.expect_lines("** You're now refusing to play with someone.", WHO, "6")
    await alice.send("invite bob 1")
    await alice.skip_until("** bob is refusing games.")


async def test_opening_first_move_double_take_and_resignations(harness, players):
    alice, bob, carol = players
    harness.script_dice((3, 1), (6, 4), (2, 1))
    await alice.send("invite bob 5")
    await alice.expect_lines("** You invited bob to a 5 point match.")
    await bob.expect_lines("alice wants to play a 5 point match with you.",
                           "Type 'join alice' to accept.")
    await bob.send("join alice")
    await bob.expect_lines("** You are now playing a 5 point match with alice")
    await alice.expect_lines("** Player bob has joined you for a 5 point match.")
    await carol.expect_lines("alice and bob start a 5 point match.")
    for client in (alice, bob):
        await client.expect_lines(re.compile(r"5 alice bob - 1 .*"), "6",
                                  re.compile(r"5 bob alice - 1 .*"), "6")
    # alice won the opening 3-1 and plays O (bob, the invited player, is X in game 1)
    await alice.expect_lines(
        "Starting a new game with bob.", "You rolled 3, bob rolled 1", "It's your turn to move.",
        f"board:You:bob:5:0:0:{START_O}:1:3:1:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0")
    await bob.expect_lines(
        "Starting a new game with alice.", "You rolled 1, alice rolled 3",
        "alice makes the first move.",
        f"board:You:alice:5:0:0:{START_O}:1:0:0:3:1:1:1:1:0:-1:1:25:0:0:0:0:0:0:0:0:0")
    await alice.send("move 8-5 6-5")
    after = "0:-2:0:0:0:2:4:0:2:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0"
    await alice.expect_lines(
        f"board:You:bob:5:0:0:{after}:-1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:0")
    await bob.expect_lines(
        "alice moves 8-5 6-5 .",
        f"board:You:alice:5:0:0:{after}:-1:0:0:0:0:1:1:1:0:-1:1:25:0:0:0:0:0:0:0:0:0",
        "It's your turn to roll or double.")
    await alice.send("roll")
    await alice.expect_lines("** It's not your turn to roll the dice.")
    await bob.send("move 1-2")
    await bob.expect_lines("** You have to roll the dice before moving.")
    await bob.send("double")
    await bob.expect_lines("You double. Please wait for alice to accept or reject.")
    await alice.expect_lines(
        "bob doubles. Type 'accept' or 'reject'.",
        f"board:You:bob:5:0:0:{after}:1:0:0:0:0:1:0:0:1:1:-1:0:25:0:0:0:0:0:0:0:0")
    await alice.send("accept")
    await alice.expect_lines("You accept the double. The cube shows 2.", "bob rolls 6 and 4.")
    await bob.expect_lines("alice accepts the double. The cube shows 2.", "You roll 6 and 4.",
                           "Please move 2 pieces.")
    await bob.send("double")
    await bob.expect_lines("** alice owns the cube. You can't double.")
    await bob.send("move 1-7")
    await bob.expect_lines("** You must give 2 moves.")
    await bob.send("resign g")
    await bob.expect_lines("You want to resign. alice will win 4 points.")
    await alice.expect_lines("bob wants to resign. You will win 4 points. Type 'accept' or 'reject'.")
    await alice.send("reject")
    await alice.expect_lines("You reject. The game continues.")
    await bob.expect_lines("alice rejects. The game continues.")
    await bob.send("resign x")
    await bob.expect_lines("** Type 'n' (normal), 'g' (gammon) or 'b' (backgammon) after resign.")
    await bob.send("resign n")
    await bob.expect_lines("You want to resign. alice will win 2 points.")
    await alice.expect_lines("bob wants to resign. You will win 2 points. Type 'accept' or 'reject'.")
    await bob.send("accept")
    await bob.expect_lines("** alice didn't double or resign.")
    await alice.send("accept")
    await alice.expect_lines("You accept and win 2 points.", "score in 5 point match: alice-2 bob-0",
                             "Type 'join' if you want to play the next game, type 'leave' if you don't.")
    await bob.expect_lines("alice accepts and wins 2 points.", "score in 5 point match: bob-0 alice-2",
                           "Type 'join' if you want to play the next game, type 'leave' if you don't.")
    # game 2: colours swap (alice X); alice wins the opening 2-1 and moves first
    await bob.send("join")
    await bob.expect_lines("** Please wait for alice to join too.")
    await alice.expect_silence()  # FIBS tells her nothing: she has her `Type 'join'` line
    await alice.send("join")
    await alice.expect_lines("Starting a new game with bob.", "You rolled 2, bob rolled 1",
                             "It's your turn to move.", re.compile(r"board:You:bob:5:2:0:.*"))


MATCH_END = re.compile(r"(You win|\S+ wins) the \d+ point match \d+-\d+ \.")


async def play_out(alice_bot: Bot, bob_bot: Bot) -> tuple[str, str]:
    return await asyncio.gather(alice_bot.play_until(MATCH_END.fullmatch),
                                bob_bot.play_until(MATCH_END.fullmatch))


async def start(alice, bob, length: str) -> None:
    for client in (alice, bob):
        await client.send("toggle moreboards")
        await client.skip_until("** Will send rawboards after rolling.")
    await alice.send(f"invite bob {length}")
    await bob.skip_until("Type 'join alice' to accept.")
    await bob.send("join alice")
    await alice.skip_until(re.compile(r"\*\* Player bob has joined you for .*"))
    await bob.skip_until(re.compile(r"\*\* You are now playing .*"))


@pytest.mark.stored
async def test_a_whole_match_between_two_bots_updates_ratings(harness, players):
    alice, bob, carol = players
    await ask(carol, "toggle ratings", "** You'll see how the rating changes are calculated.")
    for client in (alice, bob):
        await client.send("toggle ratings")
        await client.skip_until("** You'll see how the rating changes are calculated.")
    await start(alice, bob, "3")
    alice_bot, bob_bot = Bot(alice, "alice", seed=1), Bot(bob, "bob", seed=2)
    endings = await play_out(alice_bot, bob_bot)
    assert not alice_bot.refusals and not bob_bot.refusals
    assert alice_bot.boards_seen > 10 and bob_bot.boards_seen > 10
    winner = "alice" if endings[0].startswith("You win") else "bob"
    loser = "bob" if winner == "alice" else "alice"
    winner_lines = alice_bot.lines if winner == "alice" else bob_bot.lines
    block = winner_lines[winner_lines.index("rating calculation:"):][:11]
    assert block == [
        "rating calculation:", "rating difference D=0.000000", "match length      N=3",
        f"Experience: {winner} 0 - {loser} 0",
        "Probability that underdog wins: Pu=1/(10^(D*sqrt(N)/2000)+1)=0.500000",
        "P=0.500000 is 1-Pu if underdog wins and Pu if favorite wins",
        f"K=max(1 , -Experience/100+5) for {winner}: 5.000000",
        f"change for {winner}: 4*K*sqrt(N)*P=17.320508",
        f"K=max(1 , -Experience/100+5) for {loser}: 5.000000",
        f"change for {loser}: -4*K*sqrt(N)*P=-17.320508",
        endings[0] if winner == "alice" else endings[1]]
    await carol.skip_until(re.compile(rf"{winner} wins a 3 point match against {loser}  \d+-\d+ \."))
    await carol.send("whois " + winner)
    await carol.skip_until("  Rating: 1517.32 Experience: 3")
    await carol.send("whois " + loser)
    await carol.skip_until("  Rating: 1482.68 Experience: 3")


async def bot_match(harness, alice, bob, length: str, seed: int,
                    checkers_per_side: int = 15) -> tuple[Bot, Bot, tuple]:
    """alice and bob, bots with `automove`, play a match on seeded dice to its end (`length`
    may be followed by the invitation's rule words)."""
    for client in (alice, bob):
        await client.send("toggle automove")
        await client.skip_until("** Forced moves will be done automatically.")
    harness.dice.append(SeededDice(seed))
    await start(alice, bob, length)
    alice_bot = Bot(alice, "alice", seed=seed, checkers_per_side=checkers_per_side)
    bob_bot = Bot(bob, "bob", seed=seed + 1000, checkers_per_side=checkers_per_side)
    endings = await play_out(alice_bot, bob_bot)
    assert not alice_bot.refusals and not bob_bot.refusals
    return alice_bot, bob_bot, endings


@pytest.mark.parametrize("seed, points, alice_wins", [(8, 1, True), (15, 2, True), (5, 3, True),
                                                      (3, 2, False)])
async def test_games_won_single_gammon_and_backgammon(harness, players, seed, points, alice_wins):
    """Seeded dice and seeded random bots reach a single win, a gammon and a backgammon."""
    alice, bob, _ = players
    alice_bot, bob_bot, endings = await bot_match(harness, alice, bob, "1", seed)
    won = "1 point" if points == 1 else f"{points} points"
    winner_bot, loser_bot = (alice_bot, bob_bot) if alice_wins else (bob_bot, alice_bot)
    assert f"You win the game and get {won}. Congratulations!" in winner_bot.lines
    assert f"{winner_bot.name} wins the game and gets {won}. Sorry." in loser_bot.lines
    assert tuple(endings) == ((f"You win the 1 point match {points}-0 .",
                        f"alice wins the 1 point match {points}-0 .") if alice_wins else
                       (f"bob wins the 1 point match {points}-0 .",
                        f"You win the 1 point match {points}-0 ."))


async def test_forced_moves_and_dances(harness, players):
    alice, bob, _ = players
    alice_bot, bob_bot, _ = await bot_match(harness, alice, bob, "1", seed=2)
    forced = [line for line in alice_bot.lines if line.startswith("The only possible move is ")]
    assert forced and all(re.fullmatch(r"The only possible move is "
                                       r"((bar|\d+)-(off|\d+) ?){1,4} \.", line)
                          for line in forced)
    # each forced move is announced to the opponent as an ordinary move, in the same words
    for line in forced:
        play = line.removeprefix("The only possible move is ")
        assert f"alice moves {play}" in bob_bot.lines
    assert "You can't move." in alice_bot.lines and "bob can't move." in alice_bot.lines


async def join_match(alice, bob, length: str) -> None:
    await alice.send(f"invite bob {length}")
    await bob.skip_until("Type 'join alice' to accept.")
    await bob.send("join alice")


async def test_crawford_game_and_post_crawford_doubling_and_a_drop(harness, players):
    alice, bob, _ = players
    harness.script_dice((3, 1), (1, 2), (5, 3), (3, 1))
    await join_match(alice, bob, "3")
    await alice.skip_until("It's your turn to move.")
    await alice.send("move 8-5 6-5")
    await bob.skip_until("It's your turn to roll or double.")
    await bob.send("resign g")
    await alice.skip_until("bob wants to resign. You will win 2 points. Type 'accept' or 'reject'.")
    await alice.send("accept")
    await alice.skip_until("score in 3 point match: alice-2 bob-0")
    for client in (alice, bob):
        await client.send("join")
    # game 2 is the Crawford game: bob (O now) opens 2-1; nobody may double, yet FIBS keeps
    # the may-double fields 1:1 (0:0 would tell gnubg a double is pending)
    await bob.skip_until("It's your turn to move.")
    board = await bob.read_line()
    fields = board.split(":")
    assert fields[:6] == ["board", "You", "alice", "3", "0", "2"]
    assert fields[38:41] == ["1", "1", "0"] and fields[50:52] == ["0", "0"]
    await bob.send("move 13-11 6-5")
    await alice.skip_until("bob moves 13-11 6-5 .")
    # the board shows the moment after bob's move: alice to roll, her dice 0:0; then the
    # server rolls for her (she may not double)
    board, *_ = await alice.expect_lines(re.compile(r"board:You:bob:.*"), "You roll 5 and 3.",
                                         "Please move 2 pieces.")
    assert board.split(":")[32:37] == ["-1", "0", "0", "0", "0"]  # alice is X
    await alice.send("double")
    await alice.expect_lines("** You can't double in the Crawford game.")
    await alice.send("resign n")
    await bob.skip_until("alice wants to resign. You will win 1 point. Type 'accept' or 'reject'.")
    await bob.send("accept")
    await bob.skip_until("score in 3 point match: bob-1 alice-2")
    for client in (alice, bob):
        await client.send("join")
    # game 3 is post-Crawford: alice opens, then bob may double, and alice drops
    await alice.skip_until("It's your turn to move.")
    fields = (await alice.read_line()).split(":")
    assert fields[38:40] == ["1", "1"] and fields[50:52] == ["0", "1"]
    await alice.send("move 8-5 6-5")
    await bob.skip_until("It's your turn to roll or double.")
    await bob.send("double")
    await bob.expect_lines("You double. Please wait for alice to accept or reject.")
    await alice.skip_until("bob doubles. Type 'accept' or 'reject'.")
    fields = (await alice.read_line()).split(":")
    assert fields[32] == "1" and fields[38:41] == ["0", "0", "1"]  # alice (O) must answer
    await alice.send("reject")
    await alice.expect_lines("You give up. bob wins 1 point.",
                             "score in 3 point match: alice-2 bob-2",
                             "Type 'join' if you want to play the next game, type 'leave' if you don't.")
    await bob.expect_lines("alice gives up. You win 1 point.",
                           "score in 3 point match: bob-2 alice-2",
                           "Type 'join' if you want to play the next game, type 'leave' if you don't.")


async def test_unlimited_match_with_autodouble_and_a_beaver(harness, players):
    alice, bob, _ = players
    for client in (alice, bob):
        await client.send("set redoubles 2")
        await client.skip_until("Value of 'redoubles' set to 2.")
        await client.send("toggle autodouble")
        await client.skip_until("** You agree that doublets during opening double the cube.")
    harness.script_dice((4, 4), (3, 1), (6, 5), (2, 2))
    await join_match(alice, bob, "unlimited")
    await bob.expect_lines("** You are now playing an unlimited match with alice")
    await alice.skip_until("Player bob has joined you for an unlimited match.")
    await alice.skip_until("You rolled 4, bob rolled 4")
    await alice.expect_lines("The number on the doubling cube is now 2", "You rolled 3, bob rolled 1",
                             "It's your turn to move.")
    fields = (await alice.read_line()).split(":")
    assert fields[3] == "9999" and fields[37] == "2" and fields[52] == "2"
    await alice.send("move 8-5 6-5")
    await bob.skip_until("It's your turn to roll or double.")
    await bob.send("double")
    await alice.skip_until("bob doubles. Type 'accept' or 'reject'.")
    await alice.expect_lines(re.compile(r"board:You:bob:9999:.*"))
    await alice.send("beaver")
    await alice.expect_lines("You beaver the double. The cube would show 8. "
                             "Please wait for bob to accept or reject.")
    await bob.skip_until("alice beavers the double. The cube would show 8. "
                         "Type 'accept' or 'reject'.")
    fields = (await bob.read_line()).split(":")  # bob must answer: the board says so
    assert fields[32] == "-1" and fields[37:41] == ["2", "0", "0", "1"]  # bob is X
    await bob.send("otter")
    await bob.expect_lines("** You can't otter now. Type 'redouble'.")
    await bob.send("accept")
    await bob.expect_lines("You accept the double. The cube shows 8.", "You roll 6 and 5.",
                           "Please move 2 pieces.")
    await bob.send("resign n")
    await alice.skip_until("bob wants to resign. You will win 8 points. Type 'accept' or 'reject'.")
    await alice.send("accept")
    await alice.expect_lines("You accept and win 8 points.", "score in unlimited match: alice-8 bob-0",
                             "Type 'join' if you want to play the next game, type 'leave' if you don't.")
    await alice.send("leave")
    await alice.expect_lines("** You terminated the unlimited match.")
    await bob.skip_until("** Player alice has ended the unlimited match.")


async def test_the_redoubles_limit_is_fixed_when_the_match_starts(harness, players):
    """The smaller of both players' `redoubles` as they were at the start (`help set`): set
    during the match, it counts from their next match on."""
    alice, bob, _ = players
    harness.script_dice((3, 1))
    await join_match(alice, bob, "unlimited")  # both at the default, none
    await alice.skip_until("It's your turn to move.")
    for client in (alice, bob):
        await client.send("set redoubles unlimited")
        await client.skip_until("Value of 'redoubles' set to 'unlimited'.")
    await alice.send("move 8-5 6-5")
    await bob.skip_until("It's your turn to roll or double.")
    await bob.send("double")
    await alice.skip_until("bob doubles. Type 'accept' or 'reject'.")
    assert (await alice.read_line()).split(":")[52] == "0"
    await alice.send("beaver")
    await alice.expect_lines("** No more redoubles are allowed in this match.")
    await alice.send("reject")
    await alice.skip_until("Type 'join' if you want to play the next game, type 'leave' if you don't.")
    await alice.send("leave")
    await alice.skip_until("** You terminated the unlimited match.")
    await join_match(alice, bob, "unlimited")
    await alice.skip_until("Starting a new game with bob.")
    line = await alice.read_line()
    while not line.startswith("board:"):  # the opening's lines, whoever starts
        line = await alice.read_line()
    assert line.split(":")[52] == "9999"


async def test_watchers_look_pip_board_and_show_games(harness, players):
    alice, bob, carol = players
    harness.script_dice((3, 1), (6, 4))
    await join_match(alice, bob, "5")
    await alice.skip_until("It's your turn to move.")
    await carol.skip_until("alice and bob start a 5 point match.")
    await ask(carol, "show games", "List of games:",
              "alice            -  bob              (5 point match 0-0)")
    await ask(carol, "watch carol", "** Use a mirror to do that.")
    await ask(carol, "watch alice", "You're now watching alice.",
              f"board:alice:bob:5:0:0:{START_O}:1:3:1:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0")
    await alice.skip_until("carol is watching you.")
    await bob.skip_until("carol starts watching alice.")
    await ask(carol, "look bob", re.compile(r"board:bob:alice:5:0:0:.*:1:0:0:3:1:1:1:1:0:-1:1:25:.*"))
    await ask(carol, "pip", "** You're not playing.")
    await ask(carol, "show watchers", "Watching players:", "carol is watching alice.")
    await alice.send("pip")
    await alice.skip_until("Pipcounts: O-167 X-167")
    await alice.send("move 8-5 6-5")
    await carol.expect_lines("alice moves 8-5 6-5 .", re.compile(r"board:alice:bob:5:0:0:.*"))
    await bob.skip_until("It's your turn to roll or double.")
    await bob.send("double")
    # watchers get the cube lines in full, as the players do
    await carol.expect_lines("bob doubles. Type 'accept' or 'reject'.",
                             re.compile(r"board:alice:bob:5:0:0:.*:1:0:0:0:0:1:0:0:1:1:-1:.*"))
    await alice.skip_until("bob doubles. Type 'accept' or 'reject'.")
    await alice.send("accept")
    await carol.expect_lines("alice accepts the double. The cube shows 2.", "bob rolls 6 and 4.")
    await bob.send("toggle allowpip")
    await bob.skip_until("** You don't allow the use of the server's 'pip' command.")
    await alice.skip_until(re.compile(r"board:You:bob:.*"))
    await alice.send("pip")
    await alice.skip_until("** bob doesn't allow this. Ask bob to 'toggle allowpip'")
    await ask(carol, "unwatch", "You stop watching alice.")
    await alice.skip_until("carol stops watching you.")
    await ask(carol, "unwatch", "** You're not watching.")


@pytest.mark.stored
async def test_leaving_saves_the_match_and_invite_resumes_it(harness, players):
    alice, bob, carol = players
    harness.script_dice((3, 1), (6, 4), (5, 2))
    await join_match(alice, bob, "5")
    await alice.skip_until("It's your turn to move.")
    await alice.send("move 8-5 6-5")
    await bob.skip_until("It's your turn to roll or double.")
    await bob.send("roll")
    await bob.skip_until("Please move 2 pieces.")
    await bob.send("leave")
    await bob.expect_lines("** You terminated the game. The game was saved.", WHO, "6", WHO, "6")
    await alice.skip_until("** Player bob has left the game. The game was saved.")
    await carol.skip_until("alice and bob start a 5 point match.")
    await ask(carol, "show games", "List of games:")
    await alice.send("show saved")
    await alice.skip_until("  opponent          matchlength   score (your points first)")
    await alice.expect_lines("**bob                     5                0 -  0")
    await alice.send("show savedcount bob")
    await alice.expect_lines("bob has 1 saved game.")
    await bob.send("invite alice")
    await bob.expect_lines("** You invited alice to resume a saved match.")
    await alice.expect_lines("bob wants to resume a saved match with you.",
                             "Type 'join bob' to accept.")
    await alice.send("join bob")
    await alice.expect_lines("You are now playing with bob. Your running match was loaded.")
    await bob.expect_lines("alice has joined you. Your running match was loaded.")
    await carol.skip_until("bob and alice are resuming their 5-point match.")
    # the position and bob's unplayed 6-4 are exactly as they were
    for client, me in ((alice, "You:bob"), (bob, "You:alice")):
        await client.skip_until("turn: bob")
        await client.expect_lines("match length: 5", "points for user alice: 0",
                                  "points for user bob: 0")
        fields = (await client.read_line()).split(":")
        assert ":".join(fields[1:3]) == me
    assert fields[33:35] == ["6", "4"] and fields[49] == "2"
    await bob.expect_lines("Please move 2 pieces.")
    await bob.send("move 1-5 1-7")
    await bob.expect_lines("** You can't move to 5 in your first move.")
    await bob.send("move 1-7 7-11")
    await alice.skip_until("bob moves 1-7 7-11 .")


@pytest.mark.stored
async def test_a_dropped_connection_saves_the_match(harness, players):
    alice, bob, carol = players
    harness.script_dice((3, 1))
    await join_match(alice, bob, "3")
    await alice.skip_until("It's your turn to move.")
    await bob.close()
    await alice.skip_until("bob drops connection. The game was saved.")
    bob = await harness.login_clip("bob")
    await bob.send("show saved")
    await bob.skip_until("  opponent          matchlength   score (your points first)")
    await bob.expect_lines("**alice                   3                0 -  0")  # online, ready
    await alice.send("toggle ready")
    await alice.skip_until("** You're now refusing to play with someone.")
    await bob.send("show saved")
    await bob.skip_until("  opponent          matchlength   score (your points first)")
    await bob.expect_lines(" *alice                   3                0 -  0")  # online only


async def test_toggles_double_moves_and_the_off_command(harness, players):
    alice, bob, carol = players
    harness.script_dice((3, 1), (6, 4), (2, 1))
    await join_match(alice, bob, "5")
    await alice.skip_until("It's your turn to move.")
    # Per-game toggles hold for the game they are set in (a new game resets them).
    await bob.send("toggle double")
    await bob.skip_until("** You won't be asked if you want to double.")
    await alice.send("toggle moves")
    await alice.skip_until("** You want a list of moves after this game.")
    await alice.send("off")
    await alice.skip_until("** You can't bear off now.")
    await alice.send("move 8-5 6-5")
    # bob does not want to be asked: the server rolls for him at once
    await bob.skip_until("alice moves 8-5 6-5 .")
    await bob.expect_lines(re.compile(r"board:You:alice:.*"), "You roll 6 and 4.",
                           "Please move 2 pieces.")
    await bob.send("move 1-7 7-11")
    await alice.skip_until("bob moves 1-7 7-11 .")
    await alice.send("resign n")
    await bob.skip_until("alice wants to resign. You will win 1 point. Type 'accept' or 'reject'.")
    await bob.send("accept")
    await alice.skip_until("score in 5 point match: alice-0 bob-1")
    await alice.expect_lines("bob is X - alice is O", "Score is 0-0 in a 5 point match.",
                             "O: (3 1) 8-5 6-5", "X: (6 4) 1-7 7-11", "O: wants to resign",
                             "X: accepts", "X: wins",
                             "Type 'join' if you want to play the next game, type 'leave' if you don't.")
    # a new game: the per-game toggles are back to their defaults
    for client in (alice, bob):
        await client.send("join")
    await alice.skip_until("Starting a new game with bob.")
    await bob.skip_until("Starting a new game with alice.")
    for client, row in ((bob, "double          YES"), (alice, "moves           NO")):
        await client.send("toggle")
        rows = await client.skip_until(row)
        assert "The current settings are:" in rows


async def test_telnet_watchers_see_ascii_boards(harness, players):
    alice, bob, carol = players
    harness.script_dice((3, 1))
    await ask(carol, "set boardstyle 2", "Value of 'boardstyle' set to 2.")
    await join_match(alice, bob, "3")
    await alice.skip_until("It's your turn to move.")
    await carol.skip_until("alice and bob start a 3 point match.")
    await carol.send("watch alice")
    await carol.expect_lines("You're now watching alice.",
                             "    13 14 15 16 17 18       19 20 21 22 23 24",
                             "   +------------------------------------------+ X: bob - score: 0",
                             "   | O           X    |   |  X              O |")
    await carol.skip_until("   +------------------------------------------+ O: alice - score: 0")
    await carol.expect_lines("    12 11 10  9  8  7        6  5  4  3  2  1", "",
                             "   BAR: O-0 X-0   OFF: O-0 X-0   Cube: 1  alice rolled 3 1.")


async def test_a_watcher_who_logs_in_again_or_out_is_no_longer_told(harness, players):
    alice, bob, carol = players
    lobby = harness.server.lobby
    harness.script_dice((3, 1))
    await join_match(alice, bob, "5")
    await alice.skip_until("It's your turn to move.")
    await carol.skip_until("alice and bob start a 5 point match.")
    await ask(carol, "watch alice", "You're now watching alice.", re.compile(r"board:alice:.*"))
    watched = lobby.attendance.users.online["alice"]
    assert [w.name for w in lobby.match_table.watchers.of(watched)] == ["carol"]
    # A second login replaces carol's session: the old one watches no more.
    carol_again = await harness.login_telnet("carol")
    assert lobby.match_table.watchers.of(watched) == []
    await ask(carol_again, "watch alice", "You're now watching alice.",
              re.compile(r"board:alice:.*"))
    await alice.send("move 8-5 6-5")
    await carol_again.expect_lines("alice moves 8-5 6-5 .", re.compile(r"board:alice:.*"))
    await carol_again.send("bye")
    await alice.skip_until("carol stops watching you.")
    assert lobby.match_table.watchers.by_player == {}


async def test_each_board_shows_the_moment_of_the_text_before_it(harness, players):
    """A board is a question to a bot: after `<opp> moves` it must show your dice 0:0, and only
    after `You roll` the dice. In a 1-point match the server rolls for you (no cube), and the
    may-double fields stay 1:1 (gnubg reads 0:0 as a pending double and answers `take`)."""
    alice, bob, carol = players
    harness.script_dice((3, 1), (6, 4))
    await ask(carol, "watch alice", "You're now watching alice.",
              "alice is not doing anything interesting.")
    await alice.skip_until("carol is watching you.")
    await bob.skip_until("6")  # carol's who-line
    await bob.send("toggle moreboards")
    await bob.expect_lines("** Will send rawboards after rolling.")
    await join_match(alice, bob, "1")
    await carol.skip_until("Starting a new game with bob.")
    await carol.expect_lines("alice rolled 3, bob rolled 1", "alice makes the first move.",
                             f"board:alice:bob:1:0:0:{START_O}:1:3:1:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0")
    await alice.skip_until("It's your turn to move.")
    board = (await alice.read_line()).split(":")
    assert board[33:41] == ["3", "1", "0", "0", "1", "1", "1", "0"]
    await alice.send("move 8-5 6-5")
    after = "0:-2:0:0:0:2:4:0:2:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0"
    await bob.skip_until("alice moves 8-5 6-5 .")
    await bob.expect_lines(
        f"board:You:alice:1:0:0:{after}:-1:0:0:0:0:1:1:1:0:-1:1:25:0:0:0:0:0:0:0:0:0",
        "You roll 6 and 4.",
        f"board:You:alice:1:0:0:{after}:-1:6:4:0:0:1:1:1:0:-1:1:25:0:0:0:0:0:2:0:0:0",
        "Please move 2 pieces.")
    await carol.expect_lines(
        "alice moves 8-5 6-5 .",
        f"board:alice:bob:1:0:0:{after}:-1:0:0:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:0",
        "bob rolls 6 and 4.")


async def test_double_off_at_login_lapses_when_the_match_starts_as_matchdog_needs(harness, players):
    """MatchDog (marekful/MatchDog) turns `double` off at login and then answers each board
    after the opponent's move with `roll` or `double` itself: on FIBS the per-game toggles
    are reset at the start of every game, the first of a match too, so it is asked."""
    alice, bob, carol = players
    harness.script_dice((3, 1), (6, 4))
    await bob.send("toggle double")
    await bob.skip_until("** You won't be asked if you want to double.")
    await join_match(alice, bob, "3")
    await alice.skip_until("It's your turn to move.")
    await alice.send("move 8-5 6-5")
    await bob.skip_until("alice moves 8-5 6-5 .")
    board = await bob.read_line()
    assert board.split(":")[33:35] == ["0", "0"]  # nothing rolled for him
    await bob.expect_lines("It's your turn to roll or double.")
    await bob.expect_silence()
    await bob.send("roll")
    await bob.expect_lines("You roll 6 and 4.", "Please move 2 pieces.")
