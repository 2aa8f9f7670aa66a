"""The server's built-in bots in a tournament, over real sockets: a knockout of four 1-point
matches that its creator enters two bots into, played to its winner. The seeds (by rating)
pair the two bots in round 1, who play their match like anyone (each side a bot session of
its own, deciding through the bots' pool); the two people (e2e bots, tests/e2e/bot.py) play
each other; the final is a person against a built-in bot, which accepts the invitation the
director makes in the person's name (who, like every entrant here, never typed `toggle
ready`) and plays it. Seeded dice; the lobby's clock a fake one that never needs to move.
Also the refusals of entering a bot that test_tournament_commands.py does not cover."""
from __future__ import annotations

import asyncio
import random
import re

import pytest

from fibs_server.lobby.ports.tournament_records import Status
from fibs_server.lobby.services.bot_players import BotConfig
from fibs_server.protocol.wording import tournament_texts
from fibs_server.rules import tournament as rules
from fibs_server.rules.dice import SEED_BYTES, VerifiableDice
from tests.e2e.bot import Bot
from tests.e2e.conftest import ServerHarness
from tests.e2e.test_tournament_commands import create, pass_over
from tests.e2e.tournament_players import Entrant
from tests.waiting import DEADLINE, until

MATCH_TIMEOUT = 3 * DEADLINE  # seconds a 1-point match may take on a loaded 2-core machine
TOP_BOT, LAST_BOT = "bot_beginner", "bot_intermediate"  # the quickest levels (1 ply)
RATINGS = {TOP_BOT: 1900.0, "alice": 1800.0, "bob": 1700.0, LAST_BOT: 1600.0}


@pytest.fixture
async def harness(tmp_path):
    server = ServerHarness(f"sqlite:///{tmp_path / 'tournament_bots.db'}")
    server.config.bots = BotConfig(think_time=0, workers=1, time_budget=30)
    server.use_fake_clock()
    seeds = random.Random(41)
    server.dice = [VerifiableDice(seeds.randbytes(SEED_BYTES)) for _ in range(8)]
    await server.start()
    lobby = server.server.lobby
    await until(lambda: all(lobby.attendance.users.find_online(name) for name in (TOP_BOT, LAST_BOT)),
                "the built-in bots online")
    yield server
    await server.stop()


def winner_seen(entrant: Entrant, opponent: str) -> str | None:
    """Who won the entrant's match against `opponent`, as the entrant's client was told."""
    begun = False
    for line in entrant.lines:
        if re.fullmatch(rf"\*\* (You are now playing an? .* match with {opponent}\.?"
                        rf"|Player {opponent} has joined you for .*)", line):
            begun = True
        elif begun and (won := re.fullmatch(r"(You win|(\S+) wins) the 1 point match .*", line)):
            return won[2] or entrant.name
    return None


async def test_built_in_bots_in_a_knockout_to_its_winner(harness):
    server = harness.server
    store = server.store
    for name in ("alice", "bob"):
        await harness.register(name)
    for name, rating in RATINGS.items():
        await store.update_account(name, rating=rating)
    alice, bob = await harness.login_clip("alice"), await harness.login_clip("bob")
    tid = await create(alice, "knockout length 1 final 1 bots when 4")

    # Only its creator enters a bot, and only one there is.
    await bob.send(f"tournament join {tid} beginner")
    await bob.expect_lines(tournament_texts.no_bots(tid))
    await alice.send(f"tournament join {tid} grandmaster")
    await alice.expect_lines(tournament_texts.no_such_bot("grandmaster"))
    for client, typed, name in ((alice, "", "alice"), (bob, "", "bob"),
                                (alice, " beginner", TOP_BOT), (alice, f" {LAST_BOT}", LAST_BOT)):
        await client.send(f"tournament join {tid}{typed}")
        await alice.skip_until(f"Tournament {tid}: {name} has joined.")
    await alice.send(f"tournament join {tid} {TOP_BOT}")
    await alice.skip_until(tournament_texts.entered_already(tid, TOP_BOT))
    for client in (alice, bob):
        await client.send("toggle moreboards")
        await client.skip_until("** Will send rawboards after rolling.")

    entrants = {name: Entrant(name, client, Bot(client, name, seed=number))
                for number, (name, client) in enumerate((("alice", alice), ("bob", bob)))}
    tasks = [asyncio.create_task(entrant.run()) for entrant in entrants.values()]
    try:
        # Round 1, by the seeds: the two bots (1 v 4) and alice v bob (2 v 3).
        await pass_over(harness)
        record = await store.tournament(tid)
        assert record.status is Status.RUNNING and record.played is not None
        assert [e.name for e in record.played.entrants] == list(RATINGS)
        bots_pairing, people = record.played.rounds[0].pairings
        assert (bots_pairing.first, bots_pairing.second) == (TOP_BOT, LAST_BOT)
        assert not bots_pairing.decided  # no point without a game
        assert (people.first, people.second) == ("alice", "bob")
        await until(lambda: all(e.matches_ended == 1 for e in entrants.values()),
                    "alice and bob's match played out", timeout=MATCH_TIMEOUT)
        assert (1, 0) in (await store.tournament(tid)).match_ids  # linked as it began
        matches = server.lobby.matches
        await until(lambda: not matches.saved.is_live(TOP_BOT, LAST_BOT),
                    "the bots' match played out", timeout=MATCH_TIMEOUT)

        # The final: the winner of alice v bob invites the bots' winner, which plays it.
        await pass_over(harness)
        record = await store.tournament(tid)
        assert record.played is not None and record.played.current is not None
        (people,) = [p for p in record.played.rounds[0].pairings if "alice" in p.players]
        assert not people.forfeit and people.winner == winner_seen(entrants["alice"], "bob")
        finalist = entrants[people.winner]
        (final,) = record.played.current.pairings
        assert record.played.current.number == 2
        bot = final.opponent_of(finalist.name)
        assert bot in (TOP_BOT, LAST_BOT)
        await until(lambda: finalist.matches_ended == 2, f"{finalist.name} v {bot} over",
                    timeout=MATCH_TIMEOUT)
        await pass_over(harness)

        record = await store.tournament(tid)
        assert record.status is Status.FINISHED and record.played is not None
        (final,) = record.played.rounds[1].pairings
        assert not final.forfeit and final.winner == winner_seen(finalist, bot)
        assert record.winner == final.winner == rules.winner(record.played)
        # The bot took the invitation made in the finalist's name and played it to the end.
        assert f"** Player {bot} has joined you for a 1 point match." in finalist.lines
        # ... and made none itself: its resident session would have taken it, and never played.
        assert f"Type 'join {bot}' to accept." not in finalist.lines
        match = await store.match_by_id(record.match_ids[(2, 0)])
        assert match is not None and match.finished
        assert (match.player_a, match.player_b) == (finalist.name, bot)
        assert match.winner is not None and match.winner.lower() == final.winner.lower()
        assert not server.bots.refusals
        # The two bots played their pairing: its winner is their stored match's.
        (bots_pairing, _) = record.played.rounds[0].pairings
        played = await store.match_by_id(record.match_ids[(1, 0)])
        assert played is not None and played.finished and not bots_pairing.forfeit
        assert (played.player_a, played.player_b) == (TOP_BOT, LAST_BOT)
        assert played.winner is not None and played.winner.lower() == bots_pairing.winner.lower()

        won_line = tournament_texts.tournament_won(tid, record.winner)
        for entrant in entrants.values():
            await until(lambda entrant=entrant: won_line in entrant.lines,
                        f"{entrant.name} told the winner")
            assert isinstance(entrant.decider, Bot) and not entrant.decider.refusals
        await alice.send(f"tournament show {tid}")
        await until(lambda: any(line.startswith("  Round 2: ")
                                for line in entrants["alice"].lines), "the tournament shown")
        shown = entrants["alice"].lines
        loser = people.opponent_of(people.winner)
        bots_loser = bots_pairing.opponent_of(bots_pairing.winner)
        assert f"  Round 1: {bots_pairing.winner} beats {bots_loser}; " \
               f"{people.winner} beats {loser}" in shown
        assert f"  Round 2: {final.winner} beats {final.opponent_of(final.winner)}" in shown
    finally:
        for task in tasks:
            task.cancel()


async def test_the_creator_enters_no_bot_where_bots_are_not_taken(harness):
    await harness.register("alice")
    alice = await harness.login_clip("alice")
    tid = await create(alice, "swiss rounds 2 length 1")
    await alice.send(f"tournament join {tid} {TOP_BOT}")
    await alice.expect_lines(tournament_texts.no_bots(tid))
    record = await harness.server.store.tournament(tid)
    assert record is not None and record.entrants == []


async def test_no_tournament_takes_bots_on_a_server_without_them(tmp_path):
    harness = await ServerHarness(f"sqlite:///{tmp_path / 'no_bots.db'}").start()
    try:
        await harness.register("alice")
        alice = await harness.login_clip("alice")
        await alice.send("tournament create knockout length 1 bots")
        await alice.expect_lines(tournament_texts.NO_BOTS_ON_THIS_SERVER)
        assert await harness.server.store.open_tournaments() == []
    finally:
        await harness.stop()
