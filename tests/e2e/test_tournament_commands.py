"""Tournaments through their commands, over the wire on a fake clock: a knockout of five
and a Swiss of six played to their winner, with a no-show and a dropout; the limits and
refusals; a classic session that did not ask hears nothing of them."""
from __future__ import annotations

import dataclasses
import re

import pytest

from fibs_server.lobby.ports.tournament_records import Status
from fibs_server.protocol.tournament_options import CREATE_USAGE
from fibs_server.protocol.wording import tournament_texts
from tests.e2e.client import FibsClient
from tests.e2e.conftest import ServerHarness
from tests.fake_clock import FakeClock

NO_SHOW_SECONDS = 300  # TournamentSpec's default
CREATED = re.compile(r"Tournament (\d+): created\. Type 'tournament join \d+' to enter it\.")


@pytest.fixture
async def harness(tmp_path):
    server = ServerHarness(f"sqlite:///{tmp_path / 'tournaments.db'}")
    server.use_fake_clock()
    await server.start()
    yield server
    await server.stop()


def clock_of(harness: ServerHarness) -> FakeClock:
    clock = harness.lobby_options["clock"]
    assert isinstance(clock, FakeClock)
    return clock


async def create(client: FibsClient, options: str) -> int:
    await client.send(f"tournament create {options}")
    while (created := CREATED.fullmatch(line := await client.read_line())) is None:
        assert not line.startswith("** "), line
    return int(created.group(1))


async def sign_up(harness: ServerHarness, names: list[str], options: str
                  ) -> tuple[int, dict[str, FibsClient]]:
    """Everyone registered and logged in (CLIP); the first creates, everyone joins."""
    for name in names:
        await harness.register(name)
    clients = {name: await harness.login_clip(name) for name in names}
    tournament_id = await create(clients[names[0]], options)
    for name in names:
        await clients[name].send(f"tournament join {tournament_id}")
        await clients[name].skip_until(f"Tournament {tournament_id}: {name} has joined.")
    return tournament_id, clients


async def pass_over(harness: ServerHarness) -> None:
    director = harness.server.director
    await director.settled()
    await director.run_pass()


async def play_round(harness: ServerHarness, tournament_id: int,
                     clients: dict[str, FibsClient], away: set[str] = frozenset()) -> None:
    """Each started match of the current round: its second player resigns, the first wins."""
    current = (await harness.server.store.tournament(tournament_id)).played.current
    for pairing in current.pairings:
        if pairing.decided or away & set(pairing.players):
            continue
        first, second = pairing.first, pairing.second
        await clients[second].skip_until(re.compile(
            rf"\*\* You are now playing an? .*match with {first}"))
        await won(clients[first], clients[second], second)


async def won(winner: FibsClient, loser: FibsClient, loser_name: str) -> None:
    """The loser resigns their match, and the winner accepts."""
    await loser.send("resign n")
    await winner.skip_until(re.compile(rf"{loser_name} wants to resign\..*"))
    await winner.send("accept")
    await winner.skip_until(re.compile(r"You win the \d+ point match .*"))


async def test_the_entrants_are_shown_in_the_order_they_joined(harness):
    """Every join in the same second of the fake clock, against the alphabet; one leaves
    and joins again, and comes last."""
    tid, clients = await sign_up(harness, ["dave", "bob", "erin", "alice"],
                                 "knockout length 1 cap 8")
    await clients["bob"].send(f"tournament leave {tid}")
    await clients["bob"].skip_until(f"Tournament {tid}: bob has left.")
    await clients["bob"].send(f"tournament join {tid}")
    await clients["bob"].skip_until(f"Tournament {tid}: bob has joined.")
    await clients["alice"].send(f"tournament show {tid}")
    await clients["alice"].skip_until(
        "  Entrants (4 of 8): dave (1500), erin (1500), alice (1500), bob (1500)")


async def test_a_knockout_of_five_with_a_no_show_to_its_winner(harness):
    clock = clock_of(harness)
    names = ["alice", "bob", "carol", "dave", "erin"]  # equal ratings: seeded by name
    tid, clients = await sign_up(harness, names, "knockout length 1 cap 5")
    harness.script_dice((3, 1))
    await pass_over(harness)  # five have joined: it starts
    for name in ("alice", "bob", "carol"):
        await clients[name].skip_until(f"Tournament {tid}: you have a bye in round 1.")
    # carol leaves with her bye, and is not back for round 2: she forfeits it to bob.
    await clients["carol"].send("bye")
    await clients["carol"].expect_closed()
    await play_round(harness, tid, clients)  # dave beats erin
    harness.script_dice((3, 1))
    await pass_over(harness)  # round 2: alice v dave starts at once
    await clients["erin"].skip_until(f"Tournament {tid}: dave beats erin.")
    await play_round(harness, tid, clients, away={"carol"})
    await pass_over(harness)
    assert (await harness.server.store.tournament(tid)).played.current.number == 2
    clock.advance(NO_SHOW_SECONDS)
    harness.script_dice((3, 1))
    await pass_over(harness)  # bob goes through; the final, alice v bob, starts
    await clients["bob"].skip_until(
        f"Tournament {tid}: carol did not show up; bob wins by forfeit.")
    await play_round(harness, tid, clients)
    await pass_over(harness)
    await clients["bob"].skip_until(f"Tournament {tid}: the tournament is over. alice wins it!")

    await clients["dave"].send(f"tournament show {tid}")
    await clients["dave"].skip_until(
        f"Tournament {tid}: a knockout by alice, 1 point, 60 s a turn; finished; won by alice.")
    await clients["dave"].skip_until("  Round 1: alice has a bye; dave beats erin; bob has a "
                                     "bye; carol has a bye")
    await clients["dave"].expect_lines(
        "  Round 2: alice beats dave; bob beats carol by forfeit",
        "  Round 3: alice beats bob",
        "  Standings: 1. alice 3; 2. bob 2 (1 by forfeit); 3. carol 1 withdrawn; 4. dave 1; "
        "5. erin 0")


async def test_a_swiss_of_six_with_a_dropout_to_its_winner(harness):
    clock = clock_of(harness)
    names = ["alice", "bob", "carol", "dave", "erin", "frank"]
    tid, clients = await sign_up(harness, names, "swiss rounds 3 length 1 when 6")
    harness.script_dice((3, 1), (3, 1), (3, 1))
    await pass_over(harness)
    # Round 1, top half against bottom half: alice v dave, bob v erin, carol v frank; frank
    # drops out of his match and does not come back within the grace period: carol wins it.
    await clients["frank"].skip_until(re.compile(r"\*\* You are now playing .* with carol"))
    await clients["frank"].close()
    await play_round(harness, tid, clients, away={"frank"})
    clock.advance(harness.server.lobby.config.grace_seconds)
    await harness.server.clocks.quiet()
    await pass_over(harness)
    await clients["erin"].skip_until(f"Tournament {tid}: round 2 of 3 begins.")
    stored = await harness.server.store.tournament(tid)
    assert [(p.first, p.second, p.winner) for p in stored.played.rounds[0].pairings] == [
        ("alice", "dave", "alice"), ("bob", "erin", "bob"), ("carol", "frank", "carol")]
    # Round 2 by score: alice v bob, carol (floating down) v dave, erin v frank (who is
    # away: a no-show).
    assert [(p.first, p.second) for p in stored.played.rounds[1].pairings] == [
        ("alice", "bob"), ("carol", "dave"), ("erin", "frank")]
    for _ in range(2):
        harness.script_dice((3, 1), (3, 1))
        await pass_over(harness)
        await play_round(harness, tid, clients, away={"frank"})
        clock.advance(NO_SHOW_SECONDS)
        await pass_over(harness)
    await clients["bob"].skip_until(f"Tournament {tid}: the tournament is over. alice wins it!")
    ended = await harness.server.store.tournament(tid)
    assert ended.status is Status.FINISHED and ended.winner == "alice"
    assert all(len(played.pairings) == 3 for played in ended.played.rounds)
    assert {pairing.winner for pairing in ended.played.rounds[2].pairings} >= {"alice"}


async def test_limits_and_refusals(harness):
    for name in ("alice", "bob"):
        await harness.register(name)
    alice, bob = await harness.login_clip("alice"), await harness.login_clip("bob")
    await alice.send("tournament create knockout length 99")
    await alice.skip_until("** 'length' takes a number: 1 to 25.")
    await alice.send("tournament create roundrobin")
    await alice.expect_lines(CREATE_USAGE)
    await alice.send("tournament create knockout cap 500")
    await alice.expect_lines(tournament_texts.cap_too_large(128))
    first = await create(alice, "knockout")
    await create(alice, "swiss rounds 2 in 60")
    await alice.send("tournament create knockout")
    await alice.expect_lines(tournament_texts.too_many_open(2))
    await bob.send(f"tournament cancel {first}")
    await bob.expect_lines(tournament_texts.not_yours(first))
    await bob.send(f"tournament leave {first}")
    await bob.expect_lines(tournament_texts.not_entered(first))
    await bob.send(f"tournament join {first} expert")
    await bob.expect_lines(tournament_texts.no_bots(first))
    await bob.send("tournament join 999")
    await bob.expect_lines(tournament_texts.no_such("999"))
    await bob.send(f"tournament join {first}")
    await bob.expect_lines(f"Tournament {first}: bob has joined.")
    await bob.send(f"tournament join {first}")
    await bob.expect_lines(tournament_texts.entered_already(first, "bob"))
    await alice.send(f"tournament cancel {first}")
    await bob.skip_until(f"Tournament {first}: cancelled by alice.")
    await bob.send(f"tournament join {first}")
    await bob.expect_lines(tournament_texts.not_in_signup(first))
    await bob.send("tournament list")
    lines = await bob.expect_lines("Tournaments (type 'tournament show <id>'):",
                                   re.compile(r" +2  swiss +signup .*"),
                                   re.compile(r" +1  knockout +cancelled .*"))
    assert "by alice: 3 points, 60 s a turn" in lines[1]
    await bob.send("help tournament")
    await bob.skip_until("tournament create|join|leave|withdraw|reinstate|list|show|cancel|notify ...")


async def test_only_those_who_asked_hear_of_tournaments(harness):
    for name in ("alice", "bob", "classic", "keen"):
        await harness.register(name)
    alice, bob = await harness.login_clip("alice"), await harness.login_clip("bob")
    classic = await harness.login_telnet("classic")
    keen = await harness.login_clip("keen")
    await keen.send("tournament notify on")
    await keen.expect_lines(tournament_texts.NOTIFY_ON)
    tid = await create(alice, "knockout length 1 when 2")
    await keen.skip_until(tournament_texts.opened(tid, "alice", "knockout", 1, 16))
    for name, client in (("alice", alice), ("bob", bob)):
        await client.send(f"tournament join {tid}")
        await client.skip_until(f"Tournament {tid}: {name} has joined.")
    harness.script_dice((3, 1))
    await pass_over(harness)
    await keen.skip_until(f"Tournament {tid}: the tournament starts with 2 players.")
    await play_round(harness, tid, {"alice": alice, "bob": bob})
    await pass_over(harness)
    await keen.skip_until(f"Tournament {tid}: the tournament is over. alice wins it!")
    await classic.send("tournament notify off")  # a line of its own to read up to
    heard = await classic.skip_until(tournament_texts.NOTIFY_OFF)
    assert not [line for line in heard if "ournament" in line], heard


async def test_a_left_match_is_its_grace_periods_not_the_no_show_times(tmp_path):
    """carol drops out of the match and comes back after bob has gone: the no-show time
    ends first, with bob away, and the director leaves the match alone (a forfeit by bob
    there would give the match the other winner); her grace period ends with bob away too,
    which loses it for nobody: the match waits for both, and resumes when bob is back."""
    grace = NO_SHOW_SECONDS + 60
    harness = ServerHarness(f"sqlite:///{tmp_path / 'race.db'}")
    clock = harness.use_fake_clock()
    harness.config = dataclasses.replace(harness.config, grace_seconds=grace)
    await harness.start()
    try:
        tid, clients = await sign_up(harness, ["bob", "carol"], "knockout length 3 when 2")
        harness.script_dice((3, 1))
        await pass_over(harness)
        await clients["carol"].skip_until(re.compile(r"\*\* You are now playing .* with bob"))
        await clients["carol"].close()
        await clients["bob"].skip_until(
            f"carol has {grace} seconds to resume the match, or loses it.")
        await clients["bob"].send("bye")
        await clients["bob"].expect_closed()
        carol = await harness.login_clip("carol")  # back, but bob is away: nothing to resume
        clock.advance(NO_SHOW_SECONDS)
        await pass_over(harness)
        await pass_over(harness)
        assert (await harness.server.store.tournament(tid)).status is Status.RUNNING
        clock.advance(grace - NO_SHOW_SECONDS)
        await harness.server.clocks.quiet()
        await pass_over(harness)
        running = await harness.server.store.tournament(tid)
        assert running.status is Status.RUNNING
        assert not (await harness.server.store.match_by_id(running.match_ids[(1, 0)])).finished
        await harness.login_clip("bob")  # both online and free: it resumes by itself
        await carol.skip_until(re.compile(r"(bob has joined you|You are now playing with bob)"
                                          r"\. Your running match was loaded\."))
    finally:
        await harness.stop()


async def test_the_tournament_decides_crawford_and_seeds_by_the_ratings_at_its_start(harness):
    """Both players' `crawford` toggles are on (the default); the tournament says no. The
    seeds go by the ratings at the start: carol has overtaken alice since she joined."""
    tid, clients = await sign_up(harness, ["alice", "carol"], "knockout length 5 "
                                 "nocrawford when 2")
    await harness.server.store.update_account("carol", rating=1600.0)
    harness.script_dice((3, 1))
    await pass_over(harness)
    stored = await harness.server.store.tournament(tid)
    assert [entrant.name for entrant in stored.played.entrants] == ["carol", "alice"]
    assert stored.played.entrants[0].rating == 1600.0
    await clients["alice"].skip_until(re.compile(r"\*\* You are now playing .* with carol"))
    (running,) = harness.server.lobby.match_table.running_matches()
    assert running.match.crawford_rule is False
