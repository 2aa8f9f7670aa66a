"""Tournaments played to the end over real sockets by gnubg processes and e2e bots: a
knockout of sixteen and a Swiss of twelve in four rounds, each with a no-show (signed up,
never there, withdrawn after the first pairing it forfeits) and a dropout (leaves a match in
the middle and does not come back). Two
entrants of each are gnubg processes whose own parser reads every board and whose every
decision is played (tests/e2e/gnubg_player.py); the rest are the e2e bots. The matches are
1 point, the dice verifiable and seeded, the lobby's clock a fake one moved on only for the
no-show time and the grace period. Every result, pairing and standing is checked against
what was played and what the pure rules say, and every match's dice are verified as the
operator verifies any match's (`fibs-server verify-dice`)."""
from __future__ import annotations

import asyncio
import contextlib
import random
import re
from collections.abc import AsyncIterator

import pytest

from fibs_server.__main__ import verify_dice
from fibs_server.gnubg_bot.external import GnubgConnection
from fibs_server.lobby.ports.tournament_records import Status, TournamentRecord
from fibs_server.protocol.wording import tournament_texts
from fibs_server.rules import tournament as rules
from fibs_server.rules.dice import SEED_BYTES, VerifiableDice
from tests.e2e.bot import Bot
from tests.e2e.conftest import ServerHarness
from tests.e2e.gnubg_player import RecordingPlayer
from tests.e2e.test_gnubg_external import engines  # noqa: F401 (a fixture)
from tests.e2e.test_tournament_commands import create, pass_over
from tests.e2e.tournament_players import Entrant, join_with_rawboards, opponent_named
from tests.fake_clock import FakeClock
from tests.waiting import DEADLINE, until

pytestmark = pytest.mark.gnubg
NO_SHOW_SECONDS = 300  # TournamentSpec's default; longer than the grace period (60 s)
ROUND_TIMEOUT = 3 * DEADLINE  # seconds a round's matches may take on a loaded 2-core machine
DROP_AFTER_BOARDS = 4


@pytest.fixture
async def harness(tmp_path):
    server = ServerHarness(f"sqlite:///{tmp_path / 'tournament.db'}")
    server.use_fake_clock()
    seeds = random.Random(35)
    server.dice = [VerifiableDice(seeds.randbytes(SEED_BYTES)) for _ in range(64)]
    await server.start()
    yield server
    await server.stop()


@contextlib.asynccontextmanager
async def field(harness: ServerHarness, engines: list, names: list[str], gnubg: set[str],
                no_show: str, dropout: str, options: str
                ) -> AsyncIterator[tuple[int, dict[str, Entrant]]]:
    """Everyone registered, rated in the order named (the first highest), logged in and
    signed up for a tournament the first creates with `options`; the no-show then logs
    out; the others play (the gnubg ones through `engines`, in the order named)."""
    for number, name in enumerate(names):
        await harness.register(name)
        await harness.server.store.update_account(name, rating=1900.0 - 10 * number)
    clients = {name: await harness.login_clip(name) for name in names}
    tournament_id = await create(clients[names[0]], options)
    await join_with_rawboards(clients, tournament_id)
    await clients[no_show].send("bye")
    await clients[no_show].expect_closed()
    connections = []
    entrants = {}
    engine_of = dict(zip(sorted(gnubg, key=names.index), engines, strict=True))
    for number, name in enumerate(names):
        if name == no_show:
            continue
        client = clients[name]
        if name in engine_of:
            connections.append(await GnubgConnection.open(engine_of[name]))
            decider: RecordingPlayer | Bot = RecordingPlayer(client, name, connections[-1])
        else:
            decider = Bot(client, name, seed=number)
        entrants[name] = Entrant(name, client, decider, DROP_AFTER_BOARDS
                                 if name == dropout else None)
    tasks = [asyncio.create_task(entrant.run()) for entrant in entrants.values()]
    try:
        yield tournament_id, entrants
    finally:
        for task in tasks:
            task.cancel()
        for connection in connections:
            connection.close()


async def play_to_the_end(harness: ServerHarness, tournament_id: int
                          ) -> tuple[TournamentRecord, list[int]]:
    """Pass after pass: each round's matches start and are played out; the next pass reads
    their results. A round still not done then waits for someone: the fake clock is moved on
    past the no-show time (which is past the grace period of a match left), and the next
    pass decides the rest, pairs the next round and starts its matches. The tournament as
    stored at the end, and the rounds that waited so."""
    server = harness.server
    clock = harness.lobby_options["clock"]
    assert isinstance(clock, FakeClock)
    waited: list[int] = []
    while True:
        await pass_over(harness)
        await until(lambda: not server.lobby.match_table.running_matches(),
                    "every match of the round started is over", timeout=ROUND_TIMEOUT)
        record = await server.store.tournament(tournament_id)
        if record.status is not Status.RUNNING:
            return record, waited
        number = record.played.current.number
        await pass_over(harness)  # the results just played
        record = await server.store.tournament(tournament_id)
        if record.status is not Status.RUNNING:
            return record, waited
        if record.played.current.number == number \
                and not server.lobby.match_table.running_matches():
            waited.append(number)
            clock.advance(NO_SHOW_SECONDS)
            await server.clocks.quiet()


def pairings(record: TournamentRecord) -> list[rules.Pairing]:
    assert record.played is not None
    return [pairing for played in record.played.rounds for pairing in played.pairings]


def match_winners(entrants: dict[str, Entrant]) -> dict[frozenset[str], str]:
    """Who won each match, as its winner was told: `You win the 1 point match`, paired with
    the opponent it named at the start."""
    won = {}
    for entrant in entrants.values():
        opponent = None
        for line in entrant.lines:
            if (named := opponent_named(line)) is not None:
                opponent = named
            elif line.startswith("You win the 1 point match") and opponent is not None:
                won[frozenset((entrant.name, opponent))] = entrant.name
    return won


async def shown_standings(entrant: Entrant, tournament_id: int) -> list[tuple[str, ...]]:
    """`tournament show`'s standings, as (name, score[, Buchholz, Sonneborn-Berger])."""
    await entrant.client.send(f"tournament show {tournament_id}")
    await until(lambda: any(line.startswith("  Standings: ") for line in entrant.lines),
                f"{entrant.name} shown the standings")
    line = next(line for line in entrant.lines if line.startswith("  Standings: "))
    return [re.fullmatch(r"\d+\. (\S+) (\d+)(?: \(Buchholz (\d+), SB (\d+)\))?"
                         r"(?: \(\d+ by forfeit\))?(?: withdrawn)?", row).groups()
            for row in line.removeprefix("  Standings: ").split("; ")]


async def assert_played_as_stored(record: TournamentRecord, entrants: dict[str, Entrant],
                                  no_show: str, dropout: str, database_url: str,
                                  capsys) -> None:
    """Each pairing played was won by whom its winner's client saw win; the no-show lost
    every pairing by forfeit, the dropout its match by the grace period (not by forfeit);
    every match's dice recompute from the seed committed to."""
    won = match_winners(entrants)
    left = [pairing for pairing in pairings(record)
            if dropout in pairing.players and not pairing.forfeit]
    assert len(left) == 1 and left[0].winner == left[0].opponent_of(dropout), left
    away = {no_show}
    for played in record.played.rounds:
        for pairing in played.pairings:
            assert pairing.decided
            if pairing.is_bye:
                continue
            present = [name for name in pairing.players if name not in away]
            if len(present) < 2:
                assert pairing.forfeit and pairing.winner == (present or [None])[0], pairing
                if present:  # the one who came heard it
                    assert tournament_texts.forfeited(record.tournament_id, *(
                        set(pairing.players) - set(present)), present[0]) in \
                        entrants[present[0]].lines
            elif pairing is not left[0]:
                assert not pairing.forfeit and pairing.winner == won[frozenset(present)], pairing
        if left[0] in played.pairings:
            away.add(dropout)  # and not back for the rounds after
    opponent = entrants[left[0].opponent_of(dropout)]
    assert f"{dropout} has 60 seconds to resume the match, or loses it." in opponent.lines
    assert entrants[dropout].dropped
    match_ids = sorted(record.match_ids.values())
    assert len(match_ids) == len([p for p in pairings(record)
                                  if not p.is_bye and not p.forfeit])
    for match_id in match_ids:
        capsys.readouterr()
        assert await verify_dice(database_url, match_id) == 0, capsys.readouterr()
        assert "rolls recompute from the seed" in capsys.readouterr().out
    for entrant in entrants.values():
        decider = entrant.decider
        if isinstance(decider, RecordingPlayer):
            assert decider.decisions and not decider.refused and not decider.problems, \
                decider.report()
        else:
            assert isinstance(decider, Bot) and not decider.refusals, decider.refusals


async def test_a_knockout_of_sixteen_to_its_winner(harness, engines, capsys):  # noqa: F811
    names = [f"k{number:02d}" for number in range(1, 17)]
    gnubg = {"k01", "k02"}  # seeds 1 and 2: they can meet only in the final
    no_show, dropout = "k09", "k12"  # round 1: k08 v k09, k05 v k12
    async with field(harness, engines, names, gnubg, no_show, dropout,
                     "knockout length 1 final 1 when 16") as (tid, entrants):
        record, waited = await play_to_the_end(harness, tid)
        assert waited == [1]  # for the no-show and the dropout, out after round 1
        assert record.status is Status.FINISHED and record.played is not None
        played = record.played
        assert [len(r.pairings) for r in played.rounds] == [8, 4, 2, 1]
        assert [(p.first, p.second) for p in played.rounds[0].pairings] == [
            ("k01", "k16"), ("k08", "k09"), ("k04", "k13"), ("k05", "k12"),
            ("k02", "k15"), ("k07", "k10"), ("k03", "k14"), ("k06", "k11")]
        for earlier, later in zip(played.rounds, played.rounds[1:]):
            winners = [p.winner for p in earlier.pairings]
            assert [(p.first, p.second) for p in later.pairings] == list(
                zip(winners[::2], winners[1::2]))
        (final,) = played.rounds[-1].pairings
        assert record.winner == final.winner == rules.winner(played)
        await assert_played_as_stored(record, entrants, no_show, dropout,
                                      harness.config.database_url, capsys)
        shown = await shown_standings(entrants["k03"], tid)
        assert shown[:2] == [(record.winner, "4", None, None),
                             (final.opponent_of(record.winner), "3", None, None)]
        won_line = tournament_texts.tournament_won(tid, record.winner)
        for entrant in entrants.values():
            if entrant.name != dropout:
                await until(lambda entrant=entrant: won_line in entrant.lines,
                            f"{entrant.name} told the winner")


async def test_a_swiss_of_twelve_in_four_rounds_to_its_winner(harness, engines,  # noqa: F811
                                                               capsys):
    names = [f"s{number:02d}" for number in range(1, 13)]
    gnubg = {"s03", "s08"}
    # Round 1, top half against bottom half: s05 v s11 (the dropout leaves an e2e bot, not
    # a gnubg player, in the middle of their match), s06 v s12.
    no_show, dropout = "s12", "s05"
    async with field(harness, engines, names, gnubg, no_show, dropout,
                     "swiss rounds 4 length 1 when 12") as (tid, entrants):
        record, waited = await play_to_the_end(harness, tid)
        assert record.status is Status.FINISHED and record.played is not None
        played = record.played
        assert len(played.rounds) == 4
        # The no-show forfeits round 1 and is withdrawn; the dropout, who lost round 1 by
        # the grace period, is a no-show in round 2 and withdrawn then: rounds 3 and 4 wait
        # for nobody.
        assert waited == [1, 2]
        assert played.withdrawn == {no_show, dropout}
        met: set[frozenset[str]] = set()
        scores = {name: 0 for name in names}
        out: set[str] = set()
        for played_round in played.rounds:
            assert sorted(n for p in played_round.pairings for n in p.players) == sorted(
                set(names) - out)
            for pairing in played_round.pairings:
                if pairing.is_bye:
                    continue
                pair = frozenset(pairing.players)
                assert pair not in met, f"a rematch in round {played_round.number}: {pair}"
                met.add(pair)
                # Score groups: a pairing crosses at most one point of score.
                first, second = pairing.players
                assert abs(scores[first] - scores[second]) <= 1, (played_round, scores)
            for pairing in played_round.pairings:
                if pairing.winner is not None:
                    scores[pairing.winner] += 1
                if pairing.forfeit:  # a no-show: paired no more
                    out.update(set(pairing.players) - {pairing.winner})
        assert scores[no_show] == 0
        # The standings shown: score, then Buchholz (the opponents' scores summed), then SB.
        buchholz = {name: sum(scores[pairing.opponent_of(name)] for pairing in pairings(record)
                              if name in pairing.players and not pairing.is_bye)
                    for name in names}
        shown = await shown_standings(entrants["s01"], tid)
        assert sorted(name for name, *_ in shown) == sorted(names)
        assert [(int(score), int(sum_met)) for name, score, sum_met, _ in shown] == \
            [(scores[name], buchholz[name]) for name, *_ in shown]
        ranks = [(int(score), int(sum_met), int(beaten)) for _, score, sum_met, beaten in shown]
        assert ranks == sorted(ranks, reverse=True)
        assert record.winner == shown[0][0]
        won_line = tournament_texts.tournament_won(tid, record.winner)
        await until(lambda: won_line in entrants["s01"].lines, "s01 told the winner")
        await assert_played_as_stored(record, entrants, no_show, dropout,
                                      harness.config.database_url, capsys)
