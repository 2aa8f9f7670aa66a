"""An arena of eight over real sockets for ten minutes of the lobby's fake clock, played to its
winner: six e2e bots (tests/e2e/bot.py) and two of the server's built-in bots, entered by the
creator and rated highest so that the first pairing pairs them with each other (a bot-vs-bot
match is played like any). At each pass everyone free is paired at once with the nearest in
score; the clock moves on only between the waves of matches, but for the last wave, which the
time runs out under (the turn clock, 60 s, never runs out meanwhile): it finishes and counts, and nobody is paired after. Checked: every
pairing's winner against what the players' clients were told, nobody paired while busy nor
with the opponent just played (all eight are free at each pass, so it is always avoidable),
the points and streaks recomputed by the rule from the results, `tournament show`'s
standings, the countdown lines (at the start, at 5 and 1 minutes left, time up) and the
winner told to everyone."""
from __future__ import annotations

import asyncio
import random
import re

import pytest

from fibs_server.lobby.ports.tournament_records import Status
from fibs_server.lobby.services.bot_players import BotConfig
from fibs_server.protocol.tournament_options import ARENA_LENGTH, ARENA_TIME
from fibs_server.protocol.wording import tournament_texts
from fibs_server.rules import tournament as rules
from fibs_server.rules.dice import SEED_BYTES, VerifiableDice
from tests.e2e.bot import Bot
from tests.e2e.conftest import ServerHarness
from tests.e2e.test_tournament_commands import (
    clock_of,
    create,
    pass_over,
    play_round,
    sign_up,
    won,
)
from tests.e2e.tournament_players import Entrant, join_with_rawboards, opponent_named
from tests.fake_clock import FakeClock
from tests.waiting import DEADLINE, until

WAVE_TIMEOUT = 3 * DEADLINE  # seconds a wave of 1-point matches may take on a loaded machine
BOTS = ("bot_beginner", "bot_intermediate")  # the quickest levels (1 ply)
PEOPLE = ("alice", "bob", "carol", "dave", "erin", "frank")
MINUTES = 10
STEP = 115  # seconds of the fake clock between waves: passes at 0, 115, ... 575, then 605
WAVES = 6


@pytest.fixture
async def harness(tmp_path):
    server = ServerHarness(f"sqlite:///{tmp_path / 'arena.db'}")
    server.config.bots = BotConfig(think_time=0, workers=1, time_budget=30)
    server.use_fake_clock()
    seeds = random.Random(52)
    server.dice = [VerifiableDice(seeds.randbytes(SEED_BYTES)) for _ in range(80)]
    await server.start()
    lobby = server.server.lobby
    await until(lambda: all(lobby.attendance.users.find_online(name) for name in BOTS),
                "the built-in bots online")
    yield server
    await server.stop()


def winners_seen(entrants: dict[str, Entrant]) -> list[tuple[frozenset[str], str]]:
    """Each match a client saw end, (the pair, who won), in the order each entrant played."""
    seen = []
    for entrant in entrants.values():
        opponent = None
        for line in entrant.lines:
            if (named := opponent_named(line)) is not None:
                opponent = named
            elif (ended := re.fullmatch(r"(You win|(\S+) wins) the 1 point match .*", line)) \
                    and opponent is not None:
                seen.append((frozenset((entrant.name, opponent)), ended[2] or entrant.name))
                opponent = None
    return seen


async def test_an_arena_of_eight_for_ten_minutes_to_its_winner(harness):
    server = harness.server
    store = server.store
    clock = harness.lobby_options["clock"]
    assert isinstance(clock, FakeClock)
    for name in PEOPLE:
        await harness.register(name)
    ratings = dict(zip((*BOTS, *PEOPLE), range(1900, 1500, -40), strict=False))
    for name, rating in ratings.items():
        await store.update_account(name, rating=float(rating))
    clients = {name: await harness.login_clip(name) for name in PEOPLE}
    alice = clients["alice"]
    for typed, refused in (("arena", ARENA_TIME), ("arena 0", ARENA_TIME),
                           ("arena 10 final 3", ARENA_LENGTH), ("arena 10 rounds 3", ARENA_LENGTH)):
        await alice.send(f"tournament create {typed}")
        await alice.skip_until(refused)
    tid = await create(alice, f"arena {MINUTES} length 1 bots when 8")
    await join_with_rawboards(clients, tid)
    entrants = {name: Entrant(name, client, Bot(client, name, seed=number))
                for number, (name, client) in enumerate(clients.items())}
    tasks = [asyncio.create_task(entrant.run()) for entrant in entrants.values()]
    try:
        for bot in BOTS:  # the eighth join starts it at the next pass
            await alice.send(f"tournament join {tid} {bot}")
        await until(lambda: sum(f"Tournament {tid}: {bot} has joined." in
                                entrants["alice"].lines for bot in BOTS) == 2, "bots entered")
        matches = server.lobby.match_table
        waves = 0
        while True:
            await pass_over(harness)
            record = await store.tournament(tid)
            assert record is not None
            if record.status is not Status.RUNNING:
                break
            if waves == 0:  # the first pairing, by rating: the two bots meet
                first = record.played.rounds[0].pairings[0]
                assert (first.first, first.second) == BOTS
            if clock.now + STEP > 60 * MINUTES:
                # The time runs out while the last wave is played: it finishes and counts.
                assert matches.running_matches()
                clock.advance(60 * MINUTES + 5 - clock.now)  # less than a turn's 60 s
                await pass_over(harness)
                closed = await store.tournament(tid)
                assert closed.status is Status.RUNNING
                assert len(closed.played.rounds) == len(record.played.rounds)
            await until(lambda: not matches.running_matches()
                        and not server.lobby.matches.saved.is_live(*BOTS),
                        "the wave's matches over", timeout=WAVE_TIMEOUT)
            waves += 1
            clock.advance(STEP)
            await server.clocks.quiet()

        assert record.status is Status.FINISHED and record.played is not None
        played = record.played
        assert waves == len(played.rounds) == WAVES and played.closed
        # Each pairing's winner is the one its clients saw win, in the order played.
        seen = winners_seen(entrants)
        pairings = [pairing for wave in played.rounds for pairing in wave.pairings]
        assert all(pairing.decided and not pairing.forfeit for pairing in pairings)
        for pairing in pairings:
            pair = frozenset(pairing.players)
            if not set(BOTS) >= pair:
                assert (pair, pairing.winner) in seen, pairing
        # Everyone free is paired at each pass (eight, so all of them), never with the
        # opponent just played.
        last: dict[str, str] = {}
        for wave in played.rounds:
            names = [name for pairing in wave.pairings for name in pairing.players]
            assert sorted(names) == sorted(ratings)
            for pairing in wave.pairings:
                assert pairing.first != pairing.second
                assert last.get(pairing.first) != pairing.second
            last.update({name: pairing.opponent_of(name) for pairing in wave.pairings
                         for name in pairing.players})
        # The bots played each other, through the bots' pool, and the stored match is it.
        bots_match = await store.match_by_id(record.match_ids[(1, 0)])
        assert bots_match is not None and bots_match.finished
        assert bots_match.winner.lower() == played.rounds[0].pairings[0].winner.lower()
        # Points and streaks by the rule: 2 a win, 4 after two wins in a row, out at a loss.
        table = rules.standings(played)
        for row in table:
            points = run = 0
            for pairing in pairings:
                if row.name in pairing.players:
                    won = pairing.winner == row.name
                    points += (4 if run >= 2 else 2) if won else 0
                    run = run + 1 if won else 0
            assert (row.score, row.streak, row.games) == (points, run, WAVES)
        assert [row.score for row in table] == sorted((row.score for row in table), reverse=True)
        assert record.winner == table[0].name == rules.winner(played)

        # What the entrants were told: the countdown, the time up, their place, the winner.
        lines = entrants["bob"].lines
        for line in (f"Tournament {tid}: the arena starts with 8 players and ends in 10 minutes.",
                     tournament_texts.arena_ends_in(tid, 300),
                     tournament_texts.arena_ends_in(tid, 60),
                     tournament_texts.arena_time_up(tid)):
            assert lines.count(line) == 1, line
        won_line = tournament_texts.tournament_won(tid, record.winner)
        for entrant in entrants.values():
            await until(lambda entrant=entrant: won_line in entrant.lines,
                        f"{entrant.name} told the winner")
            row = next(row for row in table if row.name == entrant.name)
            assert tournament_texts.arena_standing(tid, row.place, 8, row.score) in entrant.lines
            assert isinstance(entrant.decider, Bot) and not entrant.decider.refusals
        assert not server.bots.refusals
        # `show`: every match and the standings with each one's matches and streak.
        await alice.send(f"tournament show {tid}")
        await until(lambda: any(line.startswith("  Standings: ")
                                for line in entrants["alice"].lines), "the arena shown")
        shown = next(line for line in entrants["alice"].lines if line.startswith("  Standings: "))
        rows = [re.fullmatch(rf"(\d+)\. (\S+) (\d+) \({WAVES} matches(?:, (\d+) wins in a row)?\)",
                             row) for row in shown.removeprefix("  Standings: ").split("; ")]
        assert [(int(m[1]), m[2], int(m[3]), int(m[4] or 0)) for m in rows if m] == [
            (row.place, row.name, row.score, row.streak if row.streak >= 2 else 0)
            for row in table]
        assert sum(line.startswith("  Matches: ") for line in entrants["alice"].lines) == 1
    finally:
        for task in tasks:
            task.cancel()


@pytest.fixture
async def plain(tmp_path):
    server = ServerHarness(f"sqlite:///{tmp_path / 'arena_plain.db'}")
    server.use_fake_clock()
    await server.start()
    yield server
    await server.stop()


async def test_who_is_away_or_withdrawn_is_not_paired_and_the_time_runs_out(plain):
    """Five of equal rating (ranked by name): erin away at the start is not paired; back,
    she is; dave withdraws and is not. `show` tells the time left, the matches and the
    standings; the end comes when the time is up and the matches are over."""
    clock = clock_of(plain)
    names = ["alice", "bob", "carol", "dave", "erin"]
    tid, clients = await sign_up(plain, names, "arena 3 length 1 when 5")
    await clients["erin"].send("bye")
    await clients["erin"].expect_closed()
    await pass_over(plain)  # it starts: the four there are paired at once
    alice = clients["alice"]
    await alice.skip_until(f"Tournament {tid}: the arena starts with 5 players and ends in "
                           "3 minutes.")
    await alice.skip_until(tournament_texts.arena_match(tid, "bob", 1))
    record = await plain.server.store.tournament(tid)
    assert [p.players for p in record.played.rounds[0].pairings] == [
        ("alice", "bob"), ("carol", "dave")]
    await play_round(plain, tid, clients)  # alice and carol win
    clients["erin"] = await plain.login_clip("erin")
    await clients["dave"].send(f"tournament withdraw {tid}")
    await clients["dave"].skip_until(tournament_texts.withdraws(tid, "dave"))
    clock.advance(30)
    await pass_over(plain)  # the results; then alice v carol (2 points each), bob v erin
    record = await plain.server.store.tournament(tid)
    assert [p.players for p in record.played.rounds[1].pairings] == [
        ("alice", "carol"), ("bob", "erin")]
    await alice.send(f"tournament show {tid}")
    await alice.skip_until(f"Tournament {tid}: an arena by alice, 3 minutes of 1 point, 60 s a "
                           "turn; running, 3 minutes left.")
    await alice.skip_until("  Matches: alice beats bob; carol beats dave; alice v carol; "
                           "bob v erin")
    await alice.skip_until("  Standings: 1. alice 2 (1 match); 2. carol 2 (1 match); "
                           "3. erin 0 (0 matches); 4. bob 0 (1 match); "
                           "5. dave 0 (1 match) withdrawn")
    await play_round(plain, tid, clients)  # alice and bob win
    clock.advance(130)
    await pass_over(plain)  # 20 s left: the results, the warning, and the next pairing
    await alice.skip_until(tournament_texts.arena_ends_in(tid, 20))
    record = await plain.server.store.tournament(tid)
    assert [p.players for p in record.played.rounds[2].pairings] == [("alice", "bob"),
                                                                     ("carol", "erin")]
    clock.advance(30)
    await pass_over(plain)  # time is up: no pairing; the two matches under way go on
    await alice.skip_until(tournament_texts.arena_time_up(tid))
    # A withdrawal has the director read the arena again: the time is up all the same (told
    # once), and erin's match under way counts.
    await clients["erin"].send(f"tournament withdraw {tid}")
    await clients["erin"].skip_until(tournament_texts.withdraws(tid, "erin"))
    await pass_over(plain)
    await alice.send(f"tournament show {tid}")
    told = await alice.skip_until(f"Tournament {tid}: an arena by alice, 3 minutes of 1 point, "
                                  "60 s a turn; running, time is up.")
    assert tournament_texts.arena_time_up(tid) not in told
    await won(clients["alice"], clients["bob"], "bob")  # alice's third in a row: 4 points
    await won(clients["carol"], clients["erin"], "erin")
    await pass_over(plain)
    record = await plain.server.store.tournament(tid)
    assert record.status is Status.FINISHED and len(record.played.rounds) == 3
    assert [(row.name, row.score, row.streak) for row in rules.standings(record.played)][:2] \
        == [("alice", 8, 3), ("carol", 4, 1)]
    await alice.skip_until(tournament_texts.arena_standing(tid, 1, 5, 8))
    await alice.skip_until(tournament_texts.tournament_won(tid, "alice"))
    # Equal points: fewer matches first (dave played one, erin two).
    await clients["dave"].skip_until(tournament_texts.arena_standing(tid, 4, 5, 0))
    await clients["erin"].skip_until(tournament_texts.arena_standing(tid, 5, 5, 0))
