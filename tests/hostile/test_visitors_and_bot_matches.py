"""Visitors (`bot` at the login prompt, no account) and bot matches: the visitor names cannot
be used up (freed on every way out, drawn a bounded number of times, capped per address and
in all), and bot matches are capped per address and in all whichever way they start. Each
flood runs while a logged-in bystander asks the time; connections come from several loopback
addresses (127.0.0.2, ...), which the server sees as addresses."""
from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import multiprocessing
import re
import string

from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.lobby.ports.accounts import Account
from fibs_server.lobby.ports.chat_records import Sanction
from fibs_server.lobby.services.bot_players import BotConfig
from fibs_server.protocol import texts
from fibs_server.protocol.wording import admin_texts
from tests.hostile.bystander import Baseline, assert_unhurt, time_answers_during, time_answers_quiet
from tests.waiting import until

BOT_JOINED = re.compile(r"(> )*\*\* Player bot_\w+ has joined you for a .*")


async def visit(port: int, source: str, first_line: str = "bot", *answers: str,
                stay: asyncio.Event | None = None) -> bytes:
    """A connection from `source` that sends `first_line` at the login prompt; what it got
    up to the first of `answers`, or (none given) until the server closed it. It hangs up
    then, or once `stay` is set."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    try:
        await reader.readuntil(b"login: ")
        writer.write(f"{first_line}\r\n".encode())
        if not answers:
            return await asyncio.wait_for(reader.read(), 30)
        got = b""
        while not any(answer.encode() in got for answer in answers):
            chunk = await asyncio.wait_for(reader.read(65536), 30)
            assert chunk, got  # closed without an answer
            got += chunk
        if stay is not None:
            await stay.wait()
        return got
    finally:
        writer.close()


async def measured_during(harness, attack) -> tuple[Baseline, list[float]]:
    """The bystander's answer times (`time`, command to reply) before `attack`, and while it
    runs."""
    await harness.register("bystander")
    bystander = await harness.login_clip("bystander")
    quiet = await time_answers_quiet(bystander)
    return quiet, await time_answers_during(bystander, asyncio.ensure_future(attack))


async def test_refused_visitors_from_a_banned_address_leave_no_name(make_harness, tracebacks):
    harness = await make_harness()
    lobby = harness.server.lobby
    await lobby.chat_records.add_sanction(Sanction("ban", "mallory", "127.0.0.2", None, "admin"))
    banned = admin_texts.banned(None).encode()
    answers: list[bytes] = []

    async def visitor_after_visitor() -> None:
        for _ in range(20):
            answers.append(await visit(harness.server.port, "127.0.0.2"))

    async def attack() -> None:  # 10 at a time: within the connections per address
        await asyncio.gather(*(visitor_after_visitor() for _ in range(10)))

    quiet, delays = await measured_during(harness, attack())
    # Before: each refused visitor kept its name, so from the 11th on (visitors per address)
    # they were refused for that instead, and with enough of them the draw spun for ever.
    assert len(answers) == 200 and all(banned in answer for answer in answers)
    assert lobby.accounts.visitors == {} and lobby.accounts.visitors_from("127.0.0.2") == 0
    assert_unhurt(quiet, delays, "visitors from a banned address")
    # A visitor from a clean address is let in.
    welcome = await harness.connect("visitor", "127.0.0.3")
    await welcome.send("bot")
    await until(lambda: len(lobby.accounts.visitors) == 1, "a visitor in")


async def test_a_full_visitor_name_space_gets_a_refusal_not_a_freeze(
        make_harness, tracebacks, monkeypatch):
    harness = await make_harness()
    lobby = harness.server.lobby
    monkeypatch.setattr(texts, "VISITOR_LETTERS", 1)  # 26 names: all of them held
    for letter in string.ascii_lowercase:
        lobby.accounts.add_visitor(Account(name=texts.VISITOR_PREFIX + letter,
                                           password_hash=b""), f"10.0.0.{ord(letter)}")
    answers = []

    async def attack() -> None:  # 200 visitors, 20 at a time
        for _ in range(10):
            answers.extend(await asyncio.gather(*(visit(harness.server.port, "127.0.0.2")
                                                  for _ in range(20))))

    quiet, delays = await measured_during(harness, attack())
    # Before: `while True` over 26 held names, with no await between: the server froze.
    assert all(texts.NO_VISITOR_NAME_FREE.encode() in answer for answer in answers)
    assert len(lobby.accounts.visitors) == 26
    assert_unhurt(quiet, delays, "visitors finding no name free")


async def test_visitors_are_capped_per_address_and_in_all(make_harness, tracebacks):
    harness = await make_harness(abuse=AbuseLimits(visitors_per_address=2, max_visitors=4))
    lobby, port = harness.server.lobby, harness.server.port
    admitted = []
    for source in ("127.0.0.2", "127.0.0.2", "127.0.0.3"):
        client = await harness.connect("visitor", source)
        await client.send("bot")
        admitted.append(client)
        await until(lambda: len(lobby.accounts.visitors) == len(admitted), "a visitor in")
    assert texts.TOO_MANY_VISITORS_FROM_ADDRESS.encode() in await visit(port, "127.0.0.2")
    fourth = await harness.connect("visitor", "127.0.0.4")
    await fourth.send("bot")
    await until(lambda: len(lobby.accounts.visitors) == 4, "the fourth visitor in")
    assert texts.TOO_MANY_VISITORS.encode() in await visit(port, "127.0.0.5")
    await admitted[0].send("bye")
    await admitted[0].expect_closed()
    await until(lambda: len(lobby.accounts.visitors) == 3, "the visitor's name freed")
    again = await harness.connect("visitor", "127.0.0.2")
    await again.send("bot")
    await until(lambda: len(lobby.accounts.visitors) == 4, "a visitor in again")
    # A flood of visitors from 10 addresses: never more than the caps, none refused for a
    # leaked name, and the bystander unhurt.
    # In a process of its own: 300 connections' own work in this event loop, the server's,
    # delayed the bystander as much as the server's work did.
    answers: list[bytes] = []
    with concurrent.futures.ProcessPoolExecutor(
            1, mp_context=multiprocessing.get_context("spawn")) as flooder:
        async def attack() -> None:
            answers.extend(await asyncio.get_running_loop().run_in_executor(
                flooder, flood_of_visitors, port))

        quiet, delays = await measured_during(harness, attack())
    assert all(texts.TOO_MANY_VISITORS.encode() in answer for answer in answers)
    assert len(lobby.accounts.visitors) == 4
    assert_unhurt(quiet, delays, "a flood of visitors")


def flood_of_visitors(port: int) -> list[bytes]:
    """3 x 100 visitors at once, from 10 addresses: what each was answered."""
    async def bursts() -> list[bytes]:
        answers: list[bytes] = []
        for _ in range(3):
            answers.extend(await asyncio.gather(*(visit(port, f"127.0.0.{10 + n % 10}")
                                                  for n in range(100))))
        return answers
    return asyncio.run(bursts())


async def with_bots(make_harness, **limits):
    harness = await make_harness(abuse=AbuseLimits(**limits))
    # The bots take a second to think: every match started is still under way at the end.
    harness.config = dataclasses.replace(harness.config,
                                         bots=BotConfig(think_time=1.0, workers=1))
    await harness.restart()
    return harness


async def test_bot_matches_are_capped_per_address_and_in_all_every_way_in(
        make_harness, tracebacks):
    harness = await with_bots(make_harness, bot_matches_per_address=2, max_bot_matches=3)
    port = harness.server.port
    # Visitors' `bot` at the login prompt, two from one address: both play.
    for _ in range(2):
        visitor = await harness.connect("visitor", "127.0.0.2")
        await visitor.send("bot beginner 1")
        await visitor.skip_until(BOT_JOINED)
    # The third from that address is refused, as a visitor and as a user, `bot` or `invite`.
    visitor = await harness.connect("visitor", "127.0.0.2")
    await visitor.send("bot beginner 1")
    await visitor.skip_until(re.compile(
        r"(> )*" + re.escape(texts.TOO_MANY_BOT_MATCHES_FROM_ADDRESS)))
    lobby = harness.server.lobby
    await lobby.accounts.create_account(Account(name="alice", password_hash=await
                                                lobby.gatekeeper.hasher.hash("secret")))
    alice = await harness.connect("alice", "127.0.0.2")
    await alice.send("login testclient 1008 alice secret")
    await alice.skip_until("6")
    await alice.send("bot beginner 1")
    await alice.skip_until(texts.TOO_MANY_BOT_MATCHES_FROM_ADDRESS)
    await alice.send("toggle ready")
    await alice.send("invite bot_beginner 1")
    await alice.skip_until(texts.TOO_MANY_BOT_MATCHES_FROM_ADDRESS)  # the bot's answer
    assert lobby.match_table.invitations.invitation_from("alice") is None
    # Another address plays the third; a fourth address finds the bots busy.
    other = await harness.connect("visitor", "127.0.0.3")
    await other.send("bot beginner 1")
    await other.skip_until(BOT_JOINED)
    answers: list[bytes] = []

    addresses = [f"127.0.0.{10 + n}" for n in range(6)]

    async def attack() -> None:  # 3 x 60 visitors from 6 addresses: every one refused
        for _ in range(3):
            answers.extend(await asyncio.gather(*(
                visit(port, addresses[n % 6], "bot beginner 1",
                      texts.TOO_MANY_BOT_MATCHES, "has joined you") for n in range(60))))
            # A round's visitors have hung up; the next round comes once the server has let
            # their names go (else the visitors per address refuse it first, for that).
            await until(lambda: not any(lobby.accounts.visitors_from(address)
                                        for address in addresses), "the round's visitors gone")

    quiet, delays = await measured_during(harness, attack())
    assert len(lobby.match_table.bot_matches) == 3
    assert all(texts.TOO_MANY_BOT_MATCHES.encode() in answer for answer in answers), answers[0]
    assert_unhurt(quiet, delays, "visitors refused bot matches")


async def test_a_flood_of_bot_matches_stops_at_the_caps(make_harness, tracebacks):
    harness = await with_bots(make_harness, bot_matches_per_address=3, max_bot_matches=12)
    port, lobby = harness.server.port, harness.server.lobby
    answers: list[bytes] = []
    stay = asyncio.Event()  # until the bots have played a while

    async def attack() -> None:  # 100 visitors from 10 addresses at once
        visiting = asyncio.gather(*(
            visit(port, f"127.0.0.{10 + n % 10}", "bot beginner 1", "has joined you",
                  texts.TOO_MANY_BOT_MATCHES, texts.TOO_MANY_BOT_MATCHES_FROM_ADDRESS,
                  stay=stay)
            for n in range(100)))
        await until(lambda: len(lobby.match_table.bot_matches) == 12, "12 matches under way")
        # Each bot thinks a second before its move, then waits for the visitor's.
        await asyncio.sleep(BotConfig().think_time * 1.5)
        assert len(lobby.match_table.bot_matches) == 12
        stay.set()
        answers.extend(await visiting)

    quiet, delays = await measured_during(harness, attack())
    # Before: all 100 played.
    assert sum(b"has joined you" in answer for answer in answers) == 12
    assert_unhurt(quiet, delays, "a flood of bot matches")
