"""Quick play on three nodes (PostgreSQL under them, the machine's Redis between them): the
node holding the `quick_play` lease (a) pairs seeks made on b and c, every node knows every
seek, and the pair's match starts once, on the older seeker's node, joined from the other's
(lobby/services/quick_play.py, lobby/play/arranged_matches.py). Without PostgreSQL or Redis:
skipped with the reason (in CI they always run)."""
from __future__ import annotations

import re

from fibs_server.protocol.wording import quick_play_texts
from tests.e2e.test_nodes import running_nodes
from tests.e2e.test_tournament_nodes import three_nodes  # noqa: F401 (a fixture)
from tests.redis_server import prefix, redis_url  # noqa: F401 (fixtures)
from tests.waiting import until


async def test_seeks_on_two_nodes_are_paired_once_by_the_third(three_nodes):
    a, b, c = three_nodes
    assert a.server.quick_play_lease is not None and a.server.quick_play_lease.held
    for name in ("ann", "bob", "cy", "dan", "eve"):
        await a.register(name)  # one database under the three
    ann, bob, cy = await b.login_clip("ann"), await c.login_clip("bob"), await b.login_clip("cy")
    lobbies = [node.server.lobby for node in (a, b, c)]
    await until(lambda: all(lobby.attendance.users.directory.get("bob") for lobby in lobbies[:2])
                and all(lobby.attendance.users.directory.get(name) for lobby in (lobbies[0], lobbies[2])
                        for name in ("ann", "cy")),
                "every node hears of the players on the others")
    await ann.send("quickplay 3")
    await ann.skip_until(re.compile(r"Quick play: you seek a 3 point match .*"))
    await cy.send("quickplay 5")  # another match: it stays waiting
    await cy.skip_until(re.compile(r"Quick play: you seek a 5 point match .*"))
    await until(lambda: all(len(lobby.quick_play.seeks()) == 2 for lobby in lobbies),
                "every node knows both seeks")
    await bob.send("quickplay 3")
    await bob.skip_until(quick_play_texts.paired("ann"))
    await bob.skip_until(re.compile(r"\*\* You are now playing a 3 point match with ann.*"))
    await ann.skip_until(quick_play_texts.paired("bob"))
    await ann.skip_until("** Player bob has joined you for a 3 point match.")
    assert [running.names for running in lobbies[1].match_table.running_matches()] \
        == [("ann", "bob")]
    assert not list(lobbies[0].match_table.running_matches())
    assert not list(lobbies[2].match_table.running_matches())
    await until(lambda: all([entry.seek.name for entry in lobby.quick_play.seeks()] == ["cy"]
                            for lobby in lobbies), "the pair's seeks gone from every node")
    # cy, still seeking, joins dan's invitation on c: her match runs there, and her home
    # hears it started (c's `Seated`) and ends her seek everywhere, as for a match of its own.
    dan, eve = await c.login_clip("dan"), await a.login_clip("eve")
    for client in (dan, cy):
        await client.send("toggle ready")
    await until(lambda: lobbies[1].attendance.users.directory.get("dan") is not None
                and lobbies[1].attendance.users.directory.get("dan").info.ready
                and lobbies[2].attendance.users.directory.get("cy").info.ready,
                "b and c hear dan and cy are ready")
    await dan.send("invite cy 1")
    await cy.skip_until("Type 'join dan' to accept.")
    await cy.send("join dan")
    await cy.skip_until(re.compile(r"\*\* You are now playing a 1 point match with dan.*"))
    await until(lambda: lobbies[0].attendance.users.directory.get("cy").info.opponent == "dan",
                "a hears cy plays dan")
    await cy.skip_until(quick_play_texts.STOPPED_PLAYING)
    await until(lambda: all(not lobby.quick_play.seeks() for lobby in lobbies),
                "cy's seek gone from every node")
    await eve.send("quickplay 1")
    await until(lambda: [[entry.seek.name for entry in lobby.quick_play.seeks()]
                         for lobby in lobbies] == [["eve"]] * 3, "only eve's seek is left")

async def test_the_next_node_pairs_the_seeks_once_the_pairing_node_stops(
        postgresql_url, redis_url, prefix):  # noqa: F811 (fixtures)
    async with running_nodes(postgresql_url, redis_url, prefix, ("a", "b", "c"),
                             lease_seconds=6.0) as (a, b, c):
        for name in ("ann", "bob"):
            await a.register(name)
        ann, bob = await b.login_clip("ann"), await c.login_clip("bob")
        await until(lambda: b.server.lobby.attendance.users.directory.get("bob")
                    and c.server.lobby.attendance.users.directory.get("ann"),
                    "b and c hear of each other's player")
        await ann.send("quickplay 3 range 100")
        await ann.skip_until(re.compile(r"Quick play: you seek a 3 point match .*"))
        await a.stop()  # the lease is released: b or c takes it and asks for the seeks again
        await until(lambda: b.server.quick_play_lease.held or c.server.quick_play_lease.held,
                    "another node pairs")
        await bob.send("quickplay 3 range 100")
        await bob.skip_until(quick_play_texts.paired("ann"))
        await ann.skip_until("** Player bob has joined you for a 3 point match.")
