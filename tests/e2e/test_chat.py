"""Talking and presence over the wire, telnet and CLIP: tell/tellx, say, shout, kibitz, whisper,
message, waitfor, gag, blind, away, the silent and bell toggles, shout flood control."""
from __future__ import annotations

import re

import pytest

from fibs_server.app import FibsServer
from tests.e2e.conftest import ServerHarness
from tests.e2e.test_lobby_commands import ask
from tests.fake_clock import FakeClock

MESSAGE_LINE = re.compile(r"Message from (\w+) at [A-Z][a-z]{2} [A-Z][a-z]{2} \d\d "
                          r"\d\d:\d\d:\d\d \d{4} UTC: (.*)")


class TunedHarness(ServerHarness):
    """The harness with LobbyConfig overrides (shout limits, shutdown minutes)."""

    def __init__(self, database_url: str, **lobby_options: object) -> None:
        super().__init__(database_url)
        self.lobby_options = lobby_options

    async def start(self) -> TunedHarness:
        self.server = FibsServer(self.config, new_dice=self._next_dice,
                                 choose_first_x=lambda: 1, **self.lobby_options)
        await self.server.start()
        return self


@pytest.fixture
async def users(harness):
    """alice (telnet) and bob (CLIP) online; carol and dave registered, offline."""
    for name in ("alice", "bob", "carol", "dave"):
        await harness.register(name)
    alice = await harness.login_telnet("alice")
    bob = await harness.login_clip("bob")
    await alice.expect_lines("bob logs in.")
    return alice, bob


async def log_in_telnet(harness, name, *others):
    """`name` logs in by telnet; each of `others` reads its login notice."""
    client = await harness.login_telnet(name)
    for other in others:
        await other.skip_until(re.compile(rf"(7 {name} )?{name} logs in\."))
    return client


async def test_tell_and_tellx_in_both_modes_with_their_errors(harness, users):
    alice, bob = users
    await ask(alice, "tell bob Do you want to play a game?",
              "** You tell bob: Do you want to play a game?")
    await bob.expect_lines("12 alice Do you want to play a game?")
    await bob.send("t ali   spaced   out")  # `t` = tell; `ali` completes; spacing kept
    await bob.expect_lines("16 alice   spaced   out")
    await alice.expect_lines("bob says:   spaced   out")
    await ask(alice, "tellx bo hello", "** There is no one called bo.")
    await ask(alice, "tellx BOB hello", "** You tell bob: hello")
    await bob.expect_lines("12 alice hello")
    await ask(alice, "tell", "** Tell whom?")
    await ask(alice, "tell bob", "** Tell bob what?")
    await ask(alice, "tell nobody hi", "** There is no one called nobody.")
    await ask(alice, "tell alice note to self", "You say to yourself: note to self")
    for line, reply in [("tell", "** Tell whom?"), ("tell alice  ", "** Tell alice what?"),
                        ("tell carol hi", "** There is no one called carol."),
                        ("tell bob me", "You say to yourself: me")]:
        await bob.send(line)
        await bob.expect_lines(reply)
    await alice.expect_silence()
    await bob.expect_silence()


async def test_telling_an_away_user_and_the_bell(harness, users):
    alice, bob = users
    await bob.send("away gone fishing")
    await bob.expect_lines("You're away. Please type 'back'", re.compile("5 bob .*"), "6")
    await ask(alice, "tell bob hi", "** You tell bob: hi", "bob is away: gone fishing")
    await bob.expect_lines("12 alice hi")
    await bob.send("back")
    await bob.skip_until("Welcome back.")
    await ask(alice, "toggle bell ready",
              "** Your terminal will ring the bell if someone talks to you or invites you",
              "** You're now ready to invite or join someone.")
    await bob.send("tell alice ring")
    await bob.skip_until("16 alice ring")
    await alice.expect_lines("\abob says: ring")
    await bob.toggle_ready()
    await bob.send("invite alice 1")
    await bob.skip_until("** You invited alice to a 1 point match.")
    await alice.skip_until("\abob wants to play a 1 point match with you.")
    await alice.expect_lines("Type 'join bob' to accept.")
    # CLIP clients never get a bell, whatever the toggle says.
    await bob.send("toggle bell")
    await bob.skip_until(
        "** Your terminal will ring the bell if someone talks to you or invites you")
    await ask(alice, "tell bob no bell", "** You tell bob: no bell")
    await bob.skip_until("12 alice no bell")  # after the who-update of the toggle


async def test_shout_reaches_all_but_the_silent_and_counts_them(harness, users):
    alice, bob = users
    carol = await log_in_telnet(harness, "carol", alice, bob)
    await ask(carol, "toggle silent", "** You won't hear what other players shout.")
    await ask(alice, "shout Anybody for a 5 point match?",
              "** You shout: Anybody for a 5 point match?", "** 1 user heard you.")
    await bob.skip_until("13 alice Anybody for a 5 point match?")  # after carol's who-updates
    await bob.send("shout  me,  maybe")
    await bob.expect_lines("17 me,  maybe", "** 1 user heard you.")
    await alice.expect_lines("bob shouts: me,  maybe")
    await ask(carol, "shout hello", "** Please type 'toggle silent' again before you shout.")
    await ask(carol, "toggle silent", "** You will hear what other players shout.")
    await ask(carol, "shout hello", "** You shout: hello", "** 2 users heard you.")
    await alice.expect_lines("carol shouts: hello")
    await bob.skip_until("13 carol hello")  # after the who-update of carol's toggle
    await ask(alice, "shout", "** Shout what?")
    await carol.expect_silence()


async def test_shouting_too_often_is_refused_for_a_while(database_url):
    clock = FakeClock()
    harness = await TunedHarness(database_url, shout_limit=2, shout_window=0.6,
                                 shout_clock=clock.time).start()
    try:
        await harness.register("alice")
        alice = await harness.login_telnet("alice")
        for text in ("one", "two"):
            await ask(alice, f"shout {text}", f"** You shout: {text}", "** 0 users heard you.")
        await ask(alice, "shout three", "** You are shouting too often. Please wait 1 second "
                                         "before you shout again.")
        clock.advance(0.59)
        await ask(alice, "shout three", "** You are shouting too often. Please wait 1 second "
                                         "before you shout again.")
        clock.advance(0.01)  # the window has passed
        await ask(alice, "shout three", "** You shout: three", "** 0 users heard you.")
    finally:
        await harness.stop()


@pytest.fixture
async def game(harness):
    """alice (CLIP) plays bob (CLIP) a 1-point match; carol (telnet) watches alice, dave (CLIP)
    watches bob; erin (CLIP) is online, not at the game."""
    for name in ("alice", "bob", "carol", "dave", "erin"):
        await harness.register(name)
    alice, bob = await harness.login_clip("alice"), await harness.login_clip("bob")
    dave, erin = await harness.login_clip("dave"), await harness.login_clip("erin")
    carol = await harness.login_telnet("carol")
    for client in (alice, bob):
        await client.toggle_ready()
    harness.script_dice((3, 1))
    await alice.send("invite bob 1")
    await bob.skip_until("Type 'join alice' to accept.")
    await bob.send("join alice")
    for client in (alice, bob):
        await client.skip_until(re.compile("board:.*"))
    await carol.skip_until("alice and bob start a 1 point match.")
    await carol.send("watch alice")
    await carol.skip_until("You're now watching alice.")
    await carol.skip_until(re.compile("   BAR: .*"))  # the last line of a boardstyle 2 board
    await carol.expect_prompt()
    await dave.send("watch bob")
    await dave.skip_until(re.compile("board:.*"))
    await alice.skip_until("dave starts watching bob.")
    await bob.skip_until("dave is watching you.")
    for client in (alice, bob, dave, erin):
        await drain(client)  # who-updates and notices no test here is about
    return alice, bob, carol, dave, erin


async def drain(client, quiet: float = 0.2) -> None:
    """Read and forget whatever arrives until the line has been quiet for `quiet` seconds."""
    while await client._fill(quiet):
        pass
    client.buffer = b""


async def test_say_kibitz_and_whisper_at_a_game(harness, game):
    alice, bob, carol, dave, erin = game
    await alice.send("say Good luck!")
    await alice.expect_lines("16 bob Good luck!")
    await bob.expect_lines("12 alice Good luck!")
    await alice.send("kibitz Nice  roll")
    await alice.expect_lines("19 Nice  roll", "** 3 users heard you.")
    await bob.expect_lines("15 alice Nice  roll")
    await dave.expect_lines("15 alice Nice  roll")
    await carol.expect_lines("alice kibitzes: Nice  roll")
    await ask(carol, "k who will win?", "** You kibitz: who will win?", "** 3 users heard you.")
    await alice.expect_lines("15 carol who will win?")
    await bob.expect_lines("15 carol who will win?")
    await dave.expect_lines("15 carol who will win?")
    await dave.send("wh I think he is using loaded dice  :-)")
    await dave.expect_lines("18 I think he is using loaded dice  :-)", "** 1 user heard you.")
    await carol.expect_lines("dave whispers: I think he is using loaded dice  :-)")
    await ask(carol, "whisper shh", "** You whisper: shh", "** 1 user heard you.")
    await dave.expect_lines("14 carol shh")
    await bob.send("whisper only the watchers hear this")
    await bob.expect_lines("18 only the watchers hear this", "** 2 users heard you.")
    await carol.expect_lines("bob whispers: only the watchers hear this")
    await dave.expect_lines("14 bob only the watchers hear this")
    await ask(carol, "say hi", "** You're not playing.")
    await ask(carol, "kibitz", "** Kibitz what?")
    await ask(carol, "whisper", "** Whisper what?")
    await bob.send("say")
    await bob.expect_lines("** Say what?")
    for line in ("kibitz hi", "whisper hi"):
        await erin.send(line)
        await erin.expect_lines("** You're not watching or playing.")
    await erin.send("say hi")
    await erin.expect_lines("** You're not playing.")
    for client in (alice, bob, dave, erin):
        await client.expect_silence()


async def test_gagged_watchers_are_not_heard_but_players_are(harness, game):
    alice, bob, carol, dave, erin = game
    await bob.send("gag dave")
    await bob.expect_lines("** You gag dave.")
    await dave.send("kibitz hello players")
    await dave.expect_lines("19 hello players", "** 2 users heard you.")
    await alice.expect_lines("15 dave hello players")
    await carol.expect_lines("dave kibitzes: hello players")
    await ask(carol, "gag alice", "** You gag alice.")
    await alice.send("kibitz players can't be gagged")
    await alice.expect_lines("19 players can't be gagged", "** 3 users heard you.")
    await carol.expect_lines("alice kibitzes: players can't be gagged")
    await bob.expect_lines("15 alice players can't be gagged")
    await dave.expect_lines("15 alice players can't be gagged")


@pytest.mark.stored
async def test_messages_saved_for_offline_users_survive_a_restart(harness, users):
    alice, bob = users
    await ask(alice, "message carol I'll log in at 10pm  if you want",
              "** carol is not logged in. Your message was saved.")
    await bob.send("message carol second")
    await bob.expect_lines("11 carol")
    await bob.send("message dave for a CLIP client")
    await bob.expect_lines("11 dave")
    await harness.restart()

    carol = await harness.login_telnet("carol")
    first, second = (await carol.expect_lines(
        "There are messages for you:", MESSAGE_LINE, MESSAGE_LINE))[1:]
    assert MESSAGE_LINE.fullmatch(first).groups() == ("alice", "I'll log in at 10pm  if you want")
    assert MESSAGE_LINE.fullmatch(second).groups() == ("bob", "second")
    await carol.expect_prompt()
    dave = await harness.connect("dave")
    await dave.send("login testclient 1008 dave secret")
    await dave.skip_until("6")
    await dave.expect_lines(re.compile(r"9 bob \d{10} for a CLIP client"))
    await dave.expect_silence()

    # Delivered once: the next login brings nothing.
    await carol.send("bye")
    await carol.expect_closed()
    carol = await harness.login_telnet("carol")
    await carol.expect_silence()


async def test_messages_to_online_users_and_message_errors(harness, users):
    alice, bob = users
    await ask(alice, "message bob are you there?", "** Your message was delivered to bob.")
    await bob.expect_lines(re.compile(r"9 alice \d{10} are you there\?"))
    await bob.send("message alice yes")
    await bob.expect_lines("10 alice")
    await alice.expect_lines(MESSAGE_LINE)
    await ask(alice, "message", "** usage: message <user> <text>")
    await ask(alice, "message bob", "** usage: message <user> <text>")
    await ask(alice, "message nobody hi", "** Don't know user nobody")
    await ask(alice, "message bo hi", "** Don't know user bo")  # no name completion
    await bob.send("message")
    await bob.expect_lines("** usage: message <user> <text>")
    await bob.send("message nobody hi")
    await bob.expect_lines("** Don't know user nobody")


async def test_waitfor_tells_both_sides_at_login(harness, users):
    alice, bob = users
    await ask(alice, "waitfor", "** You're not waiting for anyone.")
    await ask(alice, "waitfor carol DAVE nobody bob",
              "** You'll be notified when carol logs in.",
              "** You'll be notified when dave logs in.",
              "** Don't know user nobody", "** bob is already logged in.")
    await ask(alice, "waitfor", "** You're waiting for: carol dave")
    await bob.send("waitfor carol")
    await bob.expect_lines("** You'll be notified when carol logs in.")
    carol = await harness.connect("carol")
    await carol.send("carol")
    await carol.expect_prompt("password: ")
    await carol.send("secret")
    await carol.skip_until(re.compile(r"\+-+\+"))
    await carol.skip_until(re.compile(r"\+-+\+"))
    await carol.expect_prompt()
    await carol.expect_lines("alice is waiting for you to log in.",
                             "bob is waiting for you to log in.")
    await carol.expect_prompt()
    await alice.expect_lines("carol logs in.", "** FINALLY!!! carol logs in.")
    await bob.skip_until("** FINALLY!!! carol logs in.")
    await ask(alice, "waitfor", "** You're waiting for: dave")
    dave = await harness.login_clip("dave")
    await dave.expect_lines("alice is waiting for you to log in.")
    await alice.skip_until("** FINALLY!!! dave logs in.")
    await ask(alice, "waitfor", "** You're not waiting for anyone.")


@pytest.mark.stored
async def test_gag_and_blind_work_and_persist_across_logout(harness, users):
    alice, bob = users
    await ask(alice, "gag", "** You gag nobody.")
    await ask(alice, "gag bo", "** You gag bob.")  # names complete
    await bob.send("tell alice hi")
    await bob.expect_lines("** alice won't listen to you.")
    await ask(alice, "tell bob hi", "** You can't talk if you won't listen.")
    await bob.send("message alice hi")
    await bob.expect_lines("** alice won't listen to you.")
    await bob.send("shout anyone?")
    await bob.expect_lines("17 anyone?", "** 0 users heard you.")
    await ask(alice, "gag alice", "** You talk too much, don't you?")
    await ask(alice, "gag nobody", "** There is no one called nobody.")
    await ask(alice, "blind bob", "** You blind bob.")
    await ask(alice, "blind dave", "** You blind dave.")  # offline accounts too
    await ask(alice, "blind alice", "** You can't read this message now, can you?")
    await bob.send("watch alice")
    await bob.expect_lines("** alice doesn't want you to watch.")
    await bob.send("look alice")
    await bob.expect_lines("** alice doesn't want you to watch.")

    await alice.send("bye")
    await alice.expect_closed()
    await bob.skip_until("8 alice alice logs out.")
    alice = await harness.login_clip("alice")
    await bob.skip_until("7 alice alice logs in.")
    await bob.expect_lines(re.compile("5 alice .*"), "6")
    await alice.send("gag")
    await alice.expect_lines("** You gag: bob")
    await alice.send("blind")
    await alice.expect_lines("** You blind: bob dave")
    await bob.send("tell alice still there?")
    await bob.expect_lines("** alice won't listen to you.")
    await alice.send("gag bob")
    await alice.expect_lines("** You ungag bob.")
    await alice.send("blind bob")
    await alice.expect_lines("** You unblind bob.")
    await bob.send("tell alice hello again")
    await bob.expect_lines("16 alice hello again")
    await alice.expect_lines("12 bob hello again")
    await bob.send("watch alice")
    await bob.skip_until("You're now watching alice.")


async def test_blinding_a_watcher_ends_the_watching(harness, users):
    alice, bob = users
    await bob.send("watch alice")
    await bob.skip_until("alice is not doing anything interesting.")
    await alice.expect_lines("bob is watching you.")
    await ask(alice, "blind bob", "** You blind bob.", "bob stops watching you.")
    await bob.skip_until("** alice doesn't want you to watch.")
