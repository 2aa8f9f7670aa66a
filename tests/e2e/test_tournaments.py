"""The tournament director over the wire, on a fake clock: a knockout of three (a bye, a
played match, a result read from the store), a restart in the final that reloads it, and a
finalist who does not come back and loses the saved final; a sign-up too small."""
from __future__ import annotations

import pytest

from fibs_server.lobby.ports.tournament_records import Status, TournamentSpec
from fibs_server.protocol.wording import tournament_texts
from fibs_server.rules import tournament as rules
from fibs_server.rules.tournament import Entrant, Format, RoundTerms
from tests.e2e.conftest import ServerHarness
from tests.fake_clock import FakeClock

NO_SHOW_SECONDS = 300


@pytest.fixture
async def harness(database_url):
    server = ServerHarness(database_url)
    server.use_fake_clock()
    await server.start()
    yield server
    await server.stop()


async def knockout_of_three(harness) -> int:
    for name in ("alice", "bob", "carol"):
        await harness.register(name)
    store = harness.server.store
    spec = TournamentSpec(creator="alice", format=Format.KNOCKOUT, start_when=3,
                          terms=RoundTerms(length=1, final_length=1, turn_seconds=60),
                          no_show_seconds=NO_SHOW_SECONDS)
    tournament_id = (await store.create_tournament(spec)).tournament_id
    for name in ("alice", "bob", "carol"):  # equal ratings: seeded by name
        assert await store.add_entrant(tournament_id, Entrant(name, 1500.0)) is None
    return tournament_id


async def test_a_knockout_from_its_start_to_its_winner_across_a_restart(harness):
    tournament_id = await knockout_of_three(harness)
    alice = await harness.login_clip("alice")
    bob = await harness.login_clip("bob")
    carol = await harness.login_clip("carol")
    harness.script_dice((3, 1))  # bob, the inviter, opens
    await harness.server.director.run_pass()

    await alice.skip_until(f"Tournament {tournament_id}: you have a bye in round 1.")
    await carol.skip_until(tournament_texts.your_match(tournament_id, "bob", 1, 5))
    await carol.skip_until("** You are now playing a 1 point match with bob")
    await carol.skip_until(f"Tournament {tournament_id}: your round 1 match with bob begins.")
    await carol.send("resign n")
    await bob.skip_until("carol wants to resign. You will win 1 point. Type 'accept' or 'reject'.")
    await bob.send("accept")
    await bob.skip_until("You win the 1 point match 1-0 .")

    await harness.server.director.run_pass()
    await carol.skip_until(f"Tournament {tournament_id}: bob beats carol.")
    await bob.skip_until(f"Tournament {tournament_id}: round 2 of 2 begins.")
    stored = await harness.server.store.tournament(tournament_id)
    assert stored.played.rounds[0].pairings[1].winner == "bob"
    assert stored.played.current.number == 2

    # alice was online: the final began at once. A restart stops it, and alice does not
    # come back: the timed match's grace period gives it to bob.
    await harness.restart()
    bob = await harness.login_clip("bob")
    clock = harness.lobby_options["clock"]
    assert isinstance(clock, FakeClock)
    await harness.server.director.run_pass()
    assert (await harness.server.store.tournament(tournament_id)).status is Status.RUNNING
    # The restart armed the final's grace period (a timed match alice is away from).
    clock.advance(harness.server.lobby.config.grace_seconds)
    await harness.server.clocks.quiet()
    await harness.server.director.settled()
    await harness.server.director.run_pass()  # the result read
    await bob.skip_until(f"Tournament {tournament_id}: the tournament is over. bob wins it!")
    ended = await harness.server.store.tournament(tournament_id)
    assert ended.status is Status.FINISHED and ended.winner == "bob"
    final = ended.played.rounds[1].pairings[0]
    assert final.winner == "bob"
    assert (await harness.server.store.match_by_id(2)).winner == "bob"


async def test_a_sign_up_that_closes_with_one_player_is_cancelled(harness):
    await harness.register("alice")
    store = harness.server.store
    clock = harness.lobby_options["clock"]
    assert isinstance(clock, FakeClock)
    spec = TournamentSpec(creator="alice", format=Format.SWISS, swiss_rounds=2,
                          terms=RoundTerms(), starts_at=int(clock.wall()) + 100)
    tournament_id = (await store.create_tournament(spec)).tournament_id
    await store.add_entrant(tournament_id, Entrant("alice", 1500.0))
    alice = await harness.login_clip("alice")
    await harness.server.director.run_pass()  # not yet
    assert (await store.tournament(tournament_id)).status is Status.SIGNUP
    clock.advance(100)
    await harness.server.director.settled()
    await harness.server.director.run_pass()
    await alice.skip_until(f"Tournament {tournament_id}: cancelled: fewer than two players joined.")
    assert (await store.tournament(tournament_id)).status is Status.CANCELLED


@pytest.mark.stored
async def test_a_round_stored_done_but_not_followed_is_followed_after_a_restart(harness):
    """A kill between storing a round's last result and storing the next round (or the end)
    leaves a done round as the current one: the next pass goes on from it."""
    tournament_id = await knockout_of_three(harness)
    store = harness.server.store
    record = await store.tournament(tournament_id)
    played = rules.start(Format.KNOCKOUT, record.entrants)
    assert await store.start_tournament(tournament_id, played, 0)
    played = rules.record(played, "bob", "bob", forfeit=True)  # round 1 done: alice had a bye
    await store.save_results(tournament_id, played.current, [0, 1])
    await harness.restart()
    await harness.server.director.run_pass()
    stored = await harness.server.store.tournament(tournament_id)
    assert [(p.first, p.second) for p in stored.played.current.pairings] == [("alice", "bob")]

    played = rules.record(rules.next_round(played), "alice", "alice", forfeit=True)
    await harness.server.store.save_results(tournament_id, played.current, [0])  # the final's
    await harness.restart()
    await harness.server.director.run_pass()
    ended = await harness.server.store.tournament(tournament_id)
    assert ended.status is Status.FINISHED and ended.winner == "alice"


class CountedReads:
    """The director's records, counting the whole tournaments it reads."""

    def __init__(self, records) -> None:
        self._records = records
        self.whole_reads: list[int] = []

    async def tournament(self, tournament_id: int):
        self.whole_reads.append(tournament_id)
        return await self._records.tournament(tournament_id)

    def __getattr__(self, name: str):
        return getattr(self._records, name)


async def test_a_running_tournament_is_read_whole_once_while_it_is_directed_here(harness):
    tournament_id = await knockout_of_three(harness)
    director = harness.server.director
    director.records = reads = CountedReads(director.records)
    for name in ("alice", "bob", "carol"):
        await harness.login_clip(name)
    await director.run_pass()  # it starts, and bob and carol's match with it
    for _ in range(3):
        await director.run_pass()
    assert reads.whole_reads == [tournament_id]
    assert harness.server.lobby.match_table.running_matches()

    await harness.server.store.end_tournament(tournament_id, Status.CANCELLED, None)
    await director.run_pass()  # no longer open: forgotten, and not read again
    await director.run_pass()
    assert reads.whole_reads == [tournament_id]


async def test_a_pairs_match_from_before_the_tournament_is_not_its_pairings(harness):
    """alice and bob finished a match of their own before the tournament paired them: the
    director starts their pairing's match rather than take that one's result for it."""
    for name in ("alice", "bob"):
        await harness.register(name)
    alice = await harness.login_clip("alice")
    bob = await harness.login_clip("bob")
    for client in (alice, bob):
        await client.toggle_ready()
    await alice.send("invite bob 1")
    await bob.skip_until("Type 'join alice' to accept.")
    await bob.send("join alice")
    await bob.skip_until("** You are now playing a 1 point match with alice")
    await bob.send("resign n")
    await alice.skip_until("bob wants to resign. You will win 1 point. Type 'accept' or 'reject'.")
    await alice.send("accept")
    await alice.skip_until("You win the 1 point match 1-0 .")
    harness.lobby_options["clock"].advance(60)  # type: ignore[attr-defined]

    store = harness.server.store
    spec = TournamentSpec(creator="alice", format=Format.KNOCKOUT, start_when=2,
                          terms=RoundTerms(length=1, final_length=1))
    tournament_id = (await store.create_tournament(spec)).tournament_id
    for name in ("alice", "bob"):
        assert await store.add_entrant(tournament_id, Entrant(name, 1500.0)) is None
    await harness.server.director.run_pass()
    await bob.skip_until("** You are now playing a 1 point match with alice")
    record = await store.tournament(tournament_id)
    assert record.status is Status.RUNNING and not record.played.current.pairings[0].decided
    assert record.match_ids == {(1, 0): 2}
