"""The TournamentRecords part of SqlStore: a tournament from sign-up through its rounds to
its end, read back as it was written (what a restart reloads), on SQLite and PostgreSQL."""
from __future__ import annotations

import dataclasses

from fibs_server.lobby.ports.tournament_records import (
    JoinRefused,
    OpenTournament,
    Status,
    TournamentSpec,
)
from fibs_server.rules.tournament import (
    Entrant,
    Flight,
    Format,
    RoundTerms,
    arena_round,
    next_round,
    record,
    start,
)
from fibs_server.rules.variants import Variant
from fibs_server.store import SqlStore, downgrade_database_async, upgrade_database_async
from tests.store.conftest import START_TIME
from tests.store.test_migrations import table_names

TOURNAMENT_TABLES = {"tournaments", "tournament_entrants", "tournament_rounds",
                     "tournament_pairings"}
SPEC = TournamentSpec(creator="alice", format=Format.KNOCKOUT, entry_cap=3, start_when=3,
                      terms=RoundTerms(length=3, final_length=5, variant=Variant.NACKGAMMON,
                                       crawford=False, turn_seconds=30, rated=False),
                      no_show_seconds=120, bots_allowed=True)


async def test_sign_up_keeps_the_cap_and_refuses_twice(store):
    created = await store.create_tournament(SPEC)
    assert created.status is Status.SIGNUP and created.created_at == START_TIME
    tid = created.tournament_id
    assert await store.add_entrant(tid, Entrant("alice", 1600.0)) is None
    assert await store.add_entrant(tid, Entrant("ALICE", 1600.0)) is JoinRefused.ALREADY
    assert await store.add_entrant(tid, Entrant("bob", 1700.0)) is None
    assert await store.remove_entrant(tid, "Bob")
    assert not await store.remove_entrant(tid, "bob")
    for name in ("bob", "carol"):
        assert await store.add_entrant(tid, Entrant(name, 1500.0)) is None
    assert await store.add_entrant(tid, Entrant("dave", 1500.0)) is JoinRefused.FULL
    assert await store.add_entrant(tid + 1, Entrant("dave", 1500.0)) is JoinRefused.NOT_OPEN
    loaded = await store.tournament(tid)
    assert loaded.spec == SPEC
    assert [entrant.name for entrant in loaded.entrants] == ["alice", "bob", "carol"]
    assert loaded.played is None


def names(entrants) -> list[str]:
    return [entrant.name for entrant in entrants]


async def test_the_entrants_are_read_in_sign_up_order_however_close_their_joins(database_url):
    """All the joins in one second (the clock stopped), against the alphabet, one left and
    joined again: read back in the order they joined, in sign-up, from the start on (the
    field then in seed order) and after a restart."""
    await upgrade_database_async(database_url)
    store = await SqlStore.open(database_url, clock=lambda: START_TIME)
    signed_up = ["dave", "carol", "alice", "bob"]
    try:
        tid = (await store.create_tournament(dataclasses.replace(
            SPEC, entry_cap=4, start_when=4))).tournament_id
        for name in ("dave", "bob", "carol", "alice"):
            assert await store.add_entrant(tid, Entrant(name, 1500.0)) is None
        assert await store.remove_entrant(tid, "bob")
        assert await store.add_entrant(tid, Entrant("bob", 1500.0)) is None  # now last
        loaded = await store.tournament(tid)
        assert names(loaded.entrants) == signed_up
        assert names((await store.recent_tournaments(1))[0].entrants) == signed_up
        assert await store.start_tournament(tid, start(Format.KNOCKOUT, loaded.entrants),
                                            START_TIME)
    finally:
        await store.close()
    reopened = await SqlStore.open(database_url)  # a restart
    try:
        loaded = await reopened.tournament(tid)
    finally:
        await reopened.close()
    assert names(loaded.entrants) == signed_up
    assert names(loaded.played.entrants) == ["alice", "bob", "carol", "dave"]  # equal ratings


async def test_a_tournament_is_reloaded_as_it_was_played(store, database_url):
    tid = (await store.create_tournament(SPEC)).tournament_id
    field = [Entrant("alice", 1600.0), Entrant("bob", 1700.0), Entrant("carol", 1500.0)]
    for entrant in field:
        await store.add_entrant(tid, entrant)
    played = start(Format.KNOCKOUT, field)
    assert await store.start_tournament(tid, played, 5000)
    assert not await store.start_tournament(tid, played, 5000)  # once
    await store.link_matches(tid, 1, {1: 42})
    played = record(played, "alice", "carol", forfeit=True)
    await store.save_results(tid, played.rounds[0], [0, 1])
    played = next_round(played)
    await store.save_round(tid, played.rounds[1], 6000)

    # A restart: a new store on the same database.
    reopened = await SqlStore.open(database_url)
    try:
        assert await reopened.open_tournaments() == [
            OpenTournament(tid, Status.RUNNING, "alice")]
        loaded = await reopened.tournament(tid)
    finally:
        await reopened.close()
    assert loaded.status is Status.RUNNING and loaded.played == played
    assert loaded.match_ids == {(1, 1): 42}
    assert loaded.round_started_at == {1: 5000, 2: 6000}
    assert [entrant.name for entrant in loaded.played.entrants] == ["bob", "alice", "carol"]

    played = record(played, "bob", "carol")
    await store.save_results(tid, played.rounds[1], [0])
    assert await store.end_tournament(tid, Status.FINISHED, "carol")
    assert not await store.end_tournament(tid, Status.CANCELLED, None)
    assert await store.open_tournaments() == []
    ended = await store.tournament(tid)
    assert ended.status is Status.FINISHED and ended.winner == "carol"
    assert ended.played == played


async def test_recent_tournaments_list_the_open_ones_first(store):
    ids = [(await store.create_tournament(SPEC)).tournament_id for _ in range(3)]
    await store.end_tournament(ids[2], Status.CANCELLED, None)
    recent = await store.recent_tournaments(10)
    assert [found.tournament_id for found in recent] == [ids[1], ids[0], ids[2]]
    assert len(await store.recent_tournaments(2)) == 2
    assert await store.tournament(999) is None


async def test_a_swiss_keeps_its_rounds_and_a_cancel_stops_the_start(store):
    spec = TournamentSpec(creator="bob", format=Format.SWISS, swiss_rounds=3,
                          terms=RoundTerms())
    tid = (await store.create_tournament(spec)).tournament_id
    field = [Entrant(name, 1500.0) for name in ("a", "b", "c")]
    for entrant in field:
        await store.add_entrant(tid, entrant)
    played = start(Format.SWISS, field, swiss_rounds=3)
    assert await store.start_tournament(tid, played, 10)
    loaded = await store.tournament(tid)
    assert loaded.played == played and loaded.played.round_count == 3

    other = (await store.create_tournament(spec)).tournament_id
    assert await store.end_tournament(other, Status.CANCELLED, None)
    assert not await store.start_tournament(other, played, 10)


async def test_the_downgrade_removes_the_tournament_tables(store, database_url):
    assert TOURNAMENT_TABLES <= await table_names(database_url)
    await downgrade_database_async(database_url, "0007")
    assert not TOURNAMENT_TABLES & await table_names(database_url)


async def test_results_are_saved_for_the_pairings_named_only(store):
    tid = (await store.create_tournament(SPEC)).tournament_id
    field = [Entrant(name, 1500.0) for name in ("alice", "bob", "carol", "dave")]
    for entrant in field:
        await store.add_entrant(tid, entrant)
    played = start(Format.KNOCKOUT, field)
    assert await store.start_tournament(tid, played, 5000)
    first, second = played.current.pairings
    played = record(record(played, first.first, first.second), second.first, second.first,
                    forfeit=True)
    await store.save_results(tid, played.current, [1])
    await store.link_matches(tid, 1, {0: 7})
    loaded = await store.tournament(tid)
    assert loaded.played.current.pairings == (first, played.current.pairings[1])
    assert loaded.played.current.pairings[1].forfeit
    assert loaded.match_ids == {(1, 0): 7}


async def test_withdrawals_the_revision_and_who_is_paired(store, database_url):
    """`set_withdrawn` marks the entrant (read back in the tournament's `withdrawn`) and goes
    one up the revision that `open_tournaments` reads; `running_entered` and `paired_after`
    find the entrant of a running tournament and their undecided pairing."""
    tid = (await store.create_tournament(dataclasses.replace(SPEC, entry_cap=4))).tournament_id
    field = [Entrant(name, 1500.0) for name in ("Alice", "bob", "carol", "dave")]
    for entrant in field:
        assert await store.add_entrant(tid, entrant) is None
    assert await store.set_withdrawn(tid, "bob", True) is None  # not running yet
    played = start(Format.KNOCKOUT, field)
    assert await store.start_tournament(tid, played, START_TIME)
    assert await store.running_entered("ALICE") == [tid]
    assert await store.running_entered("erin") == []
    assert (await store.kept_for_login("Alice")).tournaments  # the login asks, then
    assert not (await store.kept_for_login("erin")).tournaments
    assert await store.paired_after("alice", START_TIME - 1)
    assert not await store.paired_after("alice", START_TIME)  # a match begun with the round
    assert await store.set_withdrawn(tid, "BOB", True) == 1
    assert await store.set_withdrawn(tid, "bob", True) is None  # so already
    assert await store.set_withdrawn(tid, "erin", True) is None  # no such entrant
    (entry,) = [entry for entry in await store.open_tournaments() if entry.tournament_id == tid]
    assert entry.revision == 1
    reloaded = await store.tournament(tid)
    assert reloaded.revision == 1 and reloaded.played.withdrawn == {"bob"}
    assert await store.set_withdrawn(tid, "bob", False) == 2
    assert (await store.tournament(tid)).played.withdrawn == frozenset()
    decided = record(played, "Alice", "Alice")
    await store.save_results(tid, decided.current, [decided.current.pairings.index(
        decided.current.pairing_of("Alice"))])
    assert not await store.paired_after("alice", START_TIME - 1)  # decided
    assert await store.paired_after("bob", START_TIME - 1)


async def test_each_rounds_length_is_kept(store):
    spec = dataclasses.replace(SPEC, terms=RoundTerms(length=5, final_length=11,
                                                      lengths=(5, 7, 9, 11)))
    created = await store.create_tournament(spec)
    assert (await store.tournament(created.tournament_id)).spec == spec


async def test_a_recurring_tournament_makes_its_next_one_with_its_start_or_its_cancel(
        store, database_url):
    """The next of the series is written in the transaction that starts the tournament, or
    cancels it in sign-up; once only, and read back with its period after a restart."""
    daily = dataclasses.replace(SPEC, start_when=None, starts_at=10_000, repeat_seconds=86_400)
    tid = (await store.create_tournament(daily)).tournament_id
    field = [Entrant("alice", 1600.0), Entrant("bob", 1700.0)]
    for entrant in field:
        await store.add_entrant(tid, entrant)
    following = dataclasses.replace(daily, starts_at=96_400, follows=tid)
    assert await store.next_in_series(tid) is None
    assert await store.start_tournament(tid, start(Format.KNOCKOUT, field), 10_000, following)
    second = await store.next_in_series(tid)
    assert second is not None
    # Ending it running makes no other: it made its own at its start.
    assert await store.end_tournament(tid, Status.FINISHED, "bob",
                                      dataclasses.replace(following, follows=None))
    assert [entry.tournament_id for entry in await store.open_tournaments()] == [second]

    third_spec = dataclasses.replace(daily, starts_at=182_800, follows=second)
    assert await store.end_tournament(second, Status.CANCELLED, None, third_spec)
    assert not await store.end_tournament(second, Status.CANCELLED, None, third_spec)
    third = await store.next_in_series(second)
    reopened = await SqlStore.open(database_url)  # a restart
    try:
        loaded = await reopened.tournament(third)
        assert await reopened.next_in_series(third) is None
    finally:
        await reopened.close()
    assert loaded.status is Status.SIGNUP and loaded.spec == third_spec
    assert (await store.tournament(second)).spec == following


async def test_a_knockouts_flights_are_reloaded_as_played(store, database_url):
    """The side flights asked for, and each pairing's flight: a restart reloads a round that
    holds the main flight's final and the consolation's first round as it was."""
    flights = (Flight.MAIN, Flight.CONSOLATION, Flight.LAST_CHANCE)
    spec = dataclasses.replace(SPEC, entry_cap=4, start_when=4, flights=flights)
    tid = (await store.create_tournament(spec)).tournament_id
    field = [Entrant(name, 1700.0 - index) for index, name in enumerate(
        ("alice", "bob", "carol", "dave"))]
    for entrant in field:
        await store.add_entrant(tid, entrant)
    played = start(Format.KNOCKOUT, field, flights=flights)
    assert await store.start_tournament(tid, played, 5000)
    played = record(record(played, "alice", "alice"), "bob", "bob")
    await store.save_results(tid, played.rounds[0], [0, 1])
    played = next_round(played)
    assert [pairing.flight for pairing in played.rounds[1].pairings] == [
        Flight.MAIN, Flight.CONSOLATION]
    await store.save_round(tid, played.rounds[1], 6000)
    reopened = await SqlStore.open(database_url)
    try:
        loaded = await reopened.tournament(tid)
    finally:
        await reopened.close()
    assert loaded.spec == spec and loaded.played == played
    assert (await store.tournament(tid)).spec.flights == flights
    # A tournament without them reads back with the main flight alone.
    plain = await store.create_tournament(SPEC)
    assert (await store.tournament(plain.tournament_id)).spec.flights == (Flight.MAIN,)


async def test_an_arena_starts_with_no_round_and_pairs_in_rounds_under_way_together(store):
    """An arena's minutes and start are kept; it starts with no round, each pairing it makes
    at once a round of its own, several undecided together (`paired_after` finds one in a
    round before the last); over, it is read back closed."""
    spec = dataclasses.replace(SPEC, format=Format.ARENA, entry_cap=4, arena_minutes=10)
    tid = (await store.create_tournament(spec)).tournament_id
    field = [Entrant(name, 1500.0) for name in ("alice", "bob", "carol", "dave")]
    for entrant in field:
        assert await store.add_entrant(tid, entrant) is None
    arena = start(Format.ARENA, field)
    assert await store.start_tournament(tid, arena, START_TIME)
    loaded = await store.tournament(tid)
    assert loaded.spec == spec and loaded.started_at == START_TIME
    assert loaded.played.rounds == () and not loaded.played.closed
    arena = arena_round(arena, ["alice", "bob"])
    await store.save_round(tid, arena.current, START_TIME)
    arena = arena_round(arena, ["carol", "dave"])
    await store.save_round(tid, arena.current, START_TIME + 5)
    assert await store.paired_after("alice", START_TIME - 1)  # round 1 of 2, undecided
    assert not await store.paired_after("alice", START_TIME)
    assert await store.paired_after("carol", START_TIME + 4)
    arena = record(arena, "alice", "bob", number=1)
    await store.save_results(tid, arena.rounds[0], [0])
    assert not await store.paired_after("alice", START_TIME - 1)
    assert (await store.tournament(tid)).played.rounds == arena.rounds
    assert await store.end_tournament(tid, Status.FINISHED, "bob")
    assert (await store.tournament(tid)).played.closed
