"""No-shows, withdrawals and a saved match in a pairing's way, over the wire on a fake clock
(docs/TOURNAMENTS.md, "No-shows and withdrawals"), every result read from the store.

A Swiss of five: dave never comes. His round 1 pairing goes to his opponent by forfeit at the
no-show time, and he is withdrawn: round 2 is paired without him and played without the
clock moving (nobody waits for him again). After round 2, erin types `tournament withdraw`
and an administrator reinstates dave: round 3 pairs dave and not erin. Each player is told
their match's start, each result and their standing (dave, looking in after round 1, what
was decided while he was away); `tournament show` marks the forfeits and the withdrawn."""
from __future__ import annotations

import re

import pytest

from fibs_server.__main__ import set_admin
from fibs_server.lobby.ports.tournament_records import Status, TournamentSpec
from fibs_server.protocol.match_rules import MatchTerms
from fibs_server.protocol.wording import tournament_texts
from fibs_server.rules.tournament import Entrant, Format, RoundTerms
from tests.e2e.conftest import ServerHarness
from tests.e2e.test_tournament_commands import (
    NO_SHOW_SECONDS,
    clock_of,
    pass_over,
    play_round,
    sign_up,
    won,
)


@pytest.fixture
async def harness(tmp_path):
    server = ServerHarness(f"sqlite:///{tmp_path / 'withdrawals.db'}")
    server.use_fake_clock()
    await server.start()
    yield server
    await server.stop()


async def test_a_no_show_is_withdrawn_a_player_withdraws_and_one_is_reinstated(harness):
    clock = clock_of(harness)
    store = harness.server.store
    names = ["alice", "bob", "carol", "dave", "erin"]
    tid, clients = await sign_up(harness, names, "swiss rounds 3 length 1 cap 5")
    await clients["dave"].send("bye")  # and never comes back
    await clients["dave"].expect_closed()
    await harness.register("warden")
    assert await set_admin(harness.config.database_url, "warden", True) == 0
    warden = await harness.login_clip("warden")

    await pass_over(harness)  # five have joined: round 1 begins
    first = (await store.tournament(tid)).played.current
    await play_round(harness, tid, clients, away={"dave"})
    await pass_over(harness)  # the played results read; dave's pairing waits
    (waiting,) = [p for p in (await store.tournament(tid)).played.current.pairings
                  if not p.decided]
    assert "dave" in waiting.players
    opponent = waiting.opponent_of("dave")
    clock.advance(NO_SHOW_SECONDS)
    await pass_over(harness)  # dave forfeits, is withdrawn, and round 2 is paired
    await clients[opponent].skip_until(
        tournament_texts.forfeited(tid, "dave", opponent))
    await clients[opponent].skip_until(tournament_texts.no_show_withdrawn(tid, "dave"))
    record = await store.tournament(tid)
    pairing = record.played.rounds[0].pairing_of("dave")
    assert pairing.winner == opponent and pairing.forfeit
    assert record.played.withdrawn == {"dave"}
    second = record.played.current
    assert second.number == 2 and second.pairing_of("dave") is None
    # Everyone still in heard their place after round 1.
    for name in ("alice", "bob", "carol", "erin"):
        await clients[name].skip_until(re.compile(
            rf"Tournament {tid}: after round 1 you are \d+(st|nd|rd|th) of 5, with \d points?\."))

    # dave looks in: he hears what was decided while he was away, and goes again.
    dave = await harness.login_clip("dave")
    await dave.skip_until(f"Tournament {tid}: round 1: {opponent} beats dave by forfeit.")
    await dave.expect_lines(f"Tournament {tid}: you are 5th of 5, with 0 points.",
                            f"Tournament {tid}: you play no later round (an administrator "
                            f"may reinstate you: 'tournament reinstate {tid} dave').")
    await dave.send("bye")
    await dave.expect_closed()

    # Round 2 is over as soon as its match is: the clock does not move.
    played_pairing = next(p for p in second.pairings if p.second is not None)
    await clients[played_pairing.first].skip_until(
        tournament_texts.match_begins(tid, 2, played_pairing.second))
    await play_round(harness, tid, clients)
    await clients["erin"].send(f"tournament withdraw {tid}")
    await clients["erin"].skip_until(tournament_texts.withdraws(tid, "erin"))
    await clients["bob"].send(f"tournament reinstate {tid} dave")
    await clients["bob"].skip_until(tournament_texts.only_admins_reinstate(tid))
    await warden.send(f"tournament reinstate {tid} dave")
    await warden.skip_until(tournament_texts.reinstated(tid, "dave", "warden"))
    await pass_over(harness)
    record = await store.tournament(tid)
    assert record.played.withdrawn == {"erin"}
    third = record.played.current
    assert third.number == 3
    assert third.pairing_of("erin") is None and third.pairing_of("dave") is not None
    assert first.number == 1 and all(p.decided for p in record.played.rounds[1].pairings)

    # dave does not show again: forfeited and withdrawn again; the rest is played out.
    await play_round(harness, tid, clients, away={"dave"})
    clock.advance(NO_SHOW_SECONDS)
    await pass_over(harness)
    ended = await store.tournament(tid)
    assert ended.status is Status.FINISHED and ended.played.withdrawn == {"dave", "erin"}
    forfeits = [p for r in ended.played.rounds for p in r.pairings if p.forfeit]
    assert len(forfeits) == 2 and all("dave" in p.players for p in forfeits)
    await clients["alice"].send(f"tournament show {tid}")
    await clients["alice"].skip_until(re.compile(rf"Tournament {tid}: a swiss by alice, .*"))
    shown = []
    while not (line := await clients["alice"].read_line()).startswith("  Standings: "):
        shown.append(line)
    assert sum(line.count("beats dave by forfeit") for line in shown) == 2, shown
    assert re.search(r"\d\. dave 0 \(Buchholz \d+, SB \d+\) withdrawn", line), line
    assert re.search(r"\d\. erin \d \(Buchholz \d+, SB \d+\) withdrawn", line), line
    assert re.search(r"\(1 by forfeit\)", line), line


async def test_an_old_saved_match_waits_for_the_pairing(harness):
    """alice and bob's timed match is saved by a restart; a tournament pairs them after it.
    When they log in, the old match does not resume by itself: the director starts their
    pairing's match, and the old one resumes once the pairing is decided."""
    clock = clock_of(harness)
    store = harness.server.store
    for name in ("alice", "bob"):
        await harness.register(name)
    alice, bob = await harness.login_clip("alice"), await harness.login_clip("bob")
    lobby = harness.server.lobby
    online = lobby.attendance.users.online
    await lobby.matches.start_match(online["alice"], online["bob"], 3,
                                    terms=MatchTerms(turn_seconds=60))
    await bob.skip_until(re.compile(r".*You are now playing a 3 point match with alice.*"))
    await harness.restart()  # saved, left by nobody
    store = harness.server.store
    (old,) = await store.running_matches("alice")
    clock.advance(10)  # the tournament's round begins after the old match did
    spec = TournamentSpec(creator="alice", format=Format.KNOCKOUT, start_when=2,
                          terms=RoundTerms(length=1, final_length=1),
                          no_show_seconds=NO_SHOW_SECONDS)
    tid = (await store.create_tournament(spec)).tournament_id
    for name in ("alice", "bob"):
        assert await store.add_entrant(tid, Entrant(name, 1500.0)) is None
    await pass_over(harness)  # started, nobody online
    assert await store.paired_after("alice", old.started_at)

    # Logged in, the old match would resume by itself (both online and free): it waits.
    alice, bob = await harness.login_clip("alice"), await harness.login_clip("bob")
    await pass_over(harness)  # the pairing's match starts: both were free
    await alice.skip_until(tournament_texts.match_begins(tid, 1, "bob"))
    record = await store.tournament(tid)
    assert record.match_ids[(1, 0)] != old.match_id
    assert harness.server.lobby.matches.saved.live_match_id("alice", "bob") == record.match_ids[(1, 0)]
    await won(alice, bob, "bob")
    await pass_over(harness)  # decided: the old match resumes by itself
    await bob.skip_until(re.compile(r"(alice has joined you|You are now playing with alice)"
                                    r"\. Your running match was loaded\."))
    ended = await store.tournament(tid)
    assert ended.status is Status.FINISHED and ended.winner == "alice"
    assert not ended.played.rounds[0].pairings[0].forfeit
    still = await store.match_by_id(old.match_id)
    assert still is not None and not still.finished
