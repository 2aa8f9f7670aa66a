"""A knockout of eight with a consolation flight, played to both winners over real sockets by
the e2e bots (tests/e2e/bot.py): 1-point matches, seeded verifiable dice, the lobby's clock a
fake one that never needs to move (everyone is there). The main flight's first-round losers
play the consolation beside the main flight's rounds 2 and 3; checked are both brackets, each
result against what the players' clients saw, that no one played two matches at once, who
heard what (the flight's start, its rounds, its results and its winner) and what `tournament
show` says of the flight. And a knockout of seven with a last-chance flight, its results
chosen: a bye holder who loses their first match joins the consolation, and the last chance
follows the consolation's first round."""
from __future__ import annotations

import asyncio
import random
import re

import pytest

from fibs_server.lobby.ports.tournament_records import Status
from fibs_server.protocol.wording import tournament_texts
from fibs_server.rules import tournament as rules
from fibs_server.rules.dice import SEED_BYTES, VerifiableDice
from tests.e2e.bot import Bot
from tests.e2e.client import FibsClient
from tests.e2e.conftest import ServerHarness
from tests.e2e.test_tournament_commands import create, pass_over, sign_up, won
from tests.e2e.test_tournament_wire import match_winners, play_to_the_end
from tests.e2e.tournament_players import MATCH_BEGINS, MATCH_END, Entrant, join_with_rawboards
from tests.waiting import until

NAMES = [f"f{number}" for number in range(1, 9)]  # f1 the highest rated: seed 1
CONSOLATION = rules.Flight.CONSOLATION


@pytest.fixture
async def harness(tmp_path):
    server = ServerHarness(f"sqlite:///{tmp_path / 'tournament_flights.db'}")
    server.use_fake_clock()
    seeds = random.Random(53)
    server.dice = [VerifiableDice(seeds.randbytes(SEED_BYTES)) for _ in range(16)]
    await server.start()
    yield server
    await server.stop()


async def test_a_knockout_of_eight_with_a_consolation_to_both_winners(harness):
    for number, name in enumerate(NAMES):
        await harness.register(name)
        await harness.server.store.update_account(name, rating=1900.0 - 10 * number)
    clients = {name: await harness.login_clip(name) for name in NAMES}
    tid = await create(clients["f1"], "knockout length 1 final 1 consolation when 8")
    await join_with_rawboards(clients, tid)
    entrants = {name: Entrant(name, client, Bot(client, name, seed=number))
                for number, (name, client) in enumerate(clients.items())}
    tasks = [asyncio.create_task(entrant.run()) for entrant in entrants.values()]
    try:
        record, waited = await play_to_the_end(harness, tid)
        assert waited == []
        assert record.status is Status.FINISHED and record.played is not None
        played = record.played
        assert played.flights == (rules.Flight.MAIN, CONSOLATION)

        # The main flight, as a knockout without flights plays it.
        main = rules.flight_rounds(played, rules.Flight.MAIN)
        assert [number for number, _pairings in main] == [1, 2, 3]
        assert [p.players for p in main[0][1]] == [
            ("f1", "f8"), ("f4", "f5"), ("f2", "f7"), ("f3", "f6")]
        for (_before, earlier), (_after, later) in zip(main, main[1:]):
            winners = [p.winner for p in earlier]
            assert [p.players for p in later] == list(zip(winners[::2], winners[1::2]))
        (final,) = main[-1][1]
        assert record.winner == final.winner == rules.winner(played)

        # The consolation: round 1's four losers, seeded as the main flight, from round 2 on
        # beside the main flight.
        losers = [p.opponent_of(p.winner) for p in main[0][1]]
        field = tuple(sorted(losers, key=played.seed_of))
        assert rules.flight_field(played, CONSOLATION) == field
        consolation = rules.flight_rounds(played, CONSOLATION)
        assert [number for number, _pairings in consolation] == [2, 3]
        assert [p.players for p in consolation[0][1]] == [(field[0], field[3]),
                                                          (field[1], field[2])]
        winners = [p.winner for p in consolation[0][1]]
        (consolation_final,) = consolation[1][1]
        assert consolation_final.players == tuple(winners)
        consolation_winner = rules.flight_winner(played, CONSOLATION)
        assert consolation_winner == consolation_final.winner is not None

        # Every result as its winner's client saw it; nobody in two matches at once.
        won = match_winners(entrants)
        for played_round in played.rounds:
            names = [name for p in played_round.pairings for name in p.players]
            assert len(names) == len(set(names))
            for pairing in played_round.pairings:
                assert pairing.decided and not pairing.forfeit
                assert pairing.winner == won[frozenset(pairing.players)], pairing
        for entrant in entrants.values():
            marks = [bool(MATCH_BEGINS.fullmatch(line)) for line in entrant.lines
                     if MATCH_BEGINS.fullmatch(line) or MATCH_END.fullmatch(line)]
            assert marks == [True, False] * (len(marks) // 2), entrant.name
            assert not entrant.decider.refusals, entrant.decider.refusals

        # Who heard what.
        for name in field:
            lines = entrants[name].lines
            assert tournament_texts.flight_begins(tid, CONSOLATION, 4) in lines
            assert tournament_texts.round_begins(tid, 1, 2, CONSOLATION) in lines
            assert f"Tournament {tid}: consolation round 2 of 2 begins." in lines \
                or name not in consolation_final.players
        loser = consolation_final.opponent_of(consolation_winner)
        assert (f"Tournament {tid}: {consolation_winner} beats {loser} in the consolation "
                "flight.") in entrants[loser].lines
        told = [tournament_texts.flight_won(tid, CONSOLATION, consolation_winner),
                tournament_texts.tournament_won(tid, record.winner)]
        await until(lambda: all(line in entrant.lines for line in told
                                for entrant in entrants.values()), "everyone told both winners")
        for entrant in entrants.values():
            assert entrant.lines.index(told[0]) < entrant.lines.index(told[1])
            # The main flight's winners never hear of the consolation's rounds.
            if entrant.name not in field:
                assert not any("consolation round" in line for line in entrant.lines)

        # `tournament show`: the flight's players, rounds and winner.
        shower = entrants["f1"]
        await shower.client.send(f"tournament show {tid}")
        await until(lambda: any(line.startswith("  Standings: ") for line in shower.lines),
                    "f1 shown the tournament")
        assert (f"Tournament {tid}: a knockout with a consolation flight by f1, 1 point, "
                f"60 s a turn; finished; won by {record.winner}.") in shower.lines
        assert (f"  Consolation flight (4 players): {', '.join(field)}; won by "
                f"{consolation_winner}.") in shower.lines
        shown_rounds = [line for line in shower.lines
                        if re.match(r"  (Consolation round|Round) \d", line)]
        assert shown_rounds == [
            "  Round 1: " + "; ".join(map(tournament_texts.pairing_words, main[0][1])),
            "  Round 2: " + "; ".join(map(tournament_texts.pairing_words, main[1][1])),
            "  Round 3: " + "; ".join(map(tournament_texts.pairing_words, main[2][1])),
            "  Consolation round 1 (round 2): "
            + "; ".join(map(tournament_texts.pairing_words, consolation[0][1])),
            "  Consolation round 2 (round 3): "
            + tournament_texts.pairing_words(consolation_final)]
    finally:
        for task in tasks:
            task.cancel()


async def play_round(harness: ServerHarness, tid: int, clients: dict[str, FibsClient],
                     losers: set[str]) -> list[rules.Pairing]:
    """Each match of the current round played out: one of `losers` resigns it, else its
    second player. The round's pairings."""
    current = (await harness.server.store.tournament(tid)).played.current
    for pairing in current.pairings:
        if pairing.decided:
            continue
        first, second = pairing.first, pairing.second
        await clients[second].skip_until(re.compile(
            rf"\*\* You are now playing an? .*match with {first}"))
        loser = first if first in losers else second
        await won(clients[pairing.opponent_of(loser)], clients[loser], loser)
    return list(current.pairings)


async def test_a_bye_holder_joins_the_consolation_and_the_last_chance_follows(harness):
    names = ["alice", "bob", "carol", "dave", "erin", "frank", "gina"]  # seeded by name
    tid, clients = await sign_up(harness, names, "knockout length 1 lastchance cap 7")
    await pass_over(harness)  # seven have joined: it starts
    await clients["alice"].skip_until(f"Tournament {tid}: you have a bye in round 1.")
    # Round 1: dave, bob and carol win; alice had a bye.
    assert [p.players for p in await play_round(harness, tid, clients, set())] == [
        ("alice",), ("dave", "erin"), ("bob", "gina"), ("carol", "frank")]
    await pass_over(harness)
    # Round 2: alice loses her first match, after her bye: she joins the consolation with
    # round 1's losers, which waited for it.
    round_two = await play_round(harness, tid, clients, {"alice", "carol"})
    assert [p.flight for p in round_two] == [rules.Flight.MAIN] * 2
    await pass_over(harness)
    # Round 3: the main final beside the consolation's first round.
    record = await harness.server.store.tournament(tid)
    assert [(p.flight.value, p.players) for p in record.played.current.pairings] == [
        ("main", ("dave", "bob")), ("consolation", ("alice", "gina")),
        ("consolation", ("erin", "frank"))]
    for name in ("alice", "erin", "frank", "gina"):
        await clients[name].skip_until(tournament_texts.flight_begins(tid, CONSOLATION, 4))
        await clients[name].skip_until(f"Tournament {tid}: consolation round 1 of 2 begins.")
    await play_round(harness, tid, clients, {"bob"})
    await pass_over(harness)
    await clients["gina"].skip_until(f"Tournament {tid}: alice beats gina in the consolation "
                                     "flight.")
    # Round 4: the consolation's final beside the last chance's, of its first-match losers.
    record = await harness.server.store.tournament(tid)
    assert [(p.flight.value, p.players) for p in record.played.current.pairings] == [
        ("consolation", ("alice", "erin")), ("lastchance", ("frank", "gina"))]
    for name in ("frank", "gina"):
        await clients[name].skip_until(tournament_texts.flight_begins(
            tid, rules.Flight.LAST_CHANCE, 2))
        await clients[name].skip_until(f"Tournament {tid}: last-chance round 1 of 1 begins.")
    await play_round(harness, tid, clients, {"alice", "frank"})
    await pass_over(harness)
    record = await harness.server.store.tournament(tid)
    assert record.status is Status.FINISHED and record.winner == "dave"
    for flight, winner in ((CONSOLATION, "erin"), (rules.Flight.LAST_CHANCE, "gina")):
        assert rules.flight_winner(record.played, flight) == winner
    for line in (tournament_texts.flight_won(tid, CONSOLATION, "erin"),
                 tournament_texts.flight_won(tid, rules.Flight.LAST_CHANCE, "gina"),
                 tournament_texts.tournament_won(tid, "dave")):
        await clients["carol"].skip_until(line)
    await clients["carol"].send(f"tournament show {tid}")
    await clients["carol"].skip_until(
        f"Tournament {tid}: a knockout with consolation and last-chance flights by alice, "
        "1 point, 60 s a turn; finished; won by dave.")
    await clients["carol"].skip_until(
        "  Consolation flight (4 players): alice, erin, frank, gina; won by erin.")
    await clients["carol"].skip_until(
        "  Consolation round 2 (round 4): erin beats alice")
    await clients["carol"].skip_until(
        "  Last-chance flight (2 players): frank, gina; won by gina.")
    await clients["carol"].skip_until("  Last-chance round 1 (round 4): gina beats frank")
