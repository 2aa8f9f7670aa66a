"""A tournament on three nodes (PostgreSQL under them, the machine's Redis between them): its
director runs on node a, where none of its players is; ann and dan, both at home on b, and
bea (b) and cal (c) are paired, and the server starts every match without anyone typing
`join`, by the tournament's terms, whatever the players' `ready` toggles say
(lobby/play/arranged_matches.py). Without PostgreSQL or Redis: skipped with the reason (in CI
they always run)."""
from __future__ import annotations

import pytest

from fibs_server.lobby.ports.tournament_records import Status
from tests.e2e.test_nodes import running_nodes
from tests.e2e.test_tournament_commands import create, won
from tests.redis_server import prefix, redis_url  # noqa: F401 (fixtures)
from tests.waiting import until

# Seeds 1-4 by rating: the first round pairs 1 with 4 and 2 with 3.
PLAYERS = {"ann": ("b", 1900.0), "bea": ("b", 1800.0), "cal": ("c", 1700.0),
           "dan": ("b", 1600.0)}


@pytest.fixture
async def three_nodes(postgresql_url, redis_url, prefix):
    async with running_nodes(postgresql_url, redis_url, prefix, ("a", "b", "c")) as nodes:
        yield nodes


async def test_the_director_starts_matches_of_players_on_other_nodes(three_nodes):
    a, b, c = three_nodes
    nodes = {"a": a, "b": b, "c": c}
    assert a.server.tournaments_lease is not None and a.server.tournaments_lease.held
    for name, (_, rating) in PLAYERS.items():
        await a.register(name)  # one database under the three
        await a.server.store.update_account(name, rating=rating)
    clients = {name: await nodes[node].login_clip(name) for name, (node, _) in PLAYERS.items()}
    await until(lambda: all(a.server.lobby.attendance.users.directory.get(name) for name in PLAYERS)
                and b.server.lobby.attendance.users.directory.get("cal") and c.server.lobby.attendance.users.directory.get("bea"),
                "every node hears of the players on the others")
    tournament_id = await create(clients["ann"], "knockout length 1 when 4 cap 4")
    for name, client in clients.items():
        await client.send(f"tournament join {tournament_id}")
        await client.skip_until(f"Tournament {tournament_id}: {name} has joined.")

    await a.server.director.run_pass()  # it starts, and arranges both matches
    # ann and dan, both on b: their match runs there. cal's joins bea's on b, from c.
    await clients["dan"].skip_until("** You are now playing a 1 point match with ann")
    await clients["ann"].skip_until("** Player dan has joined you for a 1 point match.")
    await clients["cal"].skip_until("** You are now playing a 1 point match with bea")
    await clients["bea"].skip_until("** Player cal has joined you for a 1 point match.")
    assert {running.names for running in b.server.lobby.match_table.running_matches()} \
        == {("ann", "dan"), ("bea", "cal")}
    await won(clients["ann"], clients["dan"], "dan")
    await won(clients["bea"], clients["cal"], "cal")

    await a.server.director.run_pass()  # the results read; the final arranged
    await clients["bea"].skip_until("** You are now playing a 1 point match with ann")
    # Told on their own nodes by the director on a: each result, and each one's place.
    await clients["cal"].skip_until(f"Tournament {tournament_id}: bea beats cal.")
    await clients["cal"].skip_until(f"Tournament {tournament_id}: after round 1 you are 3rd "
                                    "of 4, with 0 points.")
    await clients["dan"].skip_until(f"Tournament {tournament_id}: ann beats dan.")
    record = await a.server.store.tournament(tournament_id)
    first = record.played.rounds[0].pairings
    assert [(pairing.winner, pairing.forfeit) for pairing in first] == [("ann", False),
                                                                        ("bea", False)]
    # Round 1's two matches (the final's may be recorded already: it started on b).
    assert [match for match in sorted(record.match_ids) if match[0] == 1] == [(1, 0), (1, 1)]
    await won(clients["ann"], clients["bea"], "bea")
    await a.server.director.run_pass()
    await clients["cal"].skip_until(f"Tournament {tournament_id}: the tournament is over. "
                                    "ann wins it!")
    ended = await a.server.store.tournament(tournament_id)
    assert ended.status is Status.FINISHED and ended.winner == "ann"
    assert len(ended.match_ids) == 3
