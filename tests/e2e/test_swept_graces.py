"""The grace periods the `sweeps` lease's holder arms from the database (lobby/services/sweeps.py,
`MatchClocks.resume_graces`; docs/NODES.md, "Leases"): dropped when the lease is lost, and
harmless to a match resumed meanwhile on another node; a grace armed by a player leaving here
stays with this node whoever holds the lease."""
from __future__ import annotations

import pytest

from tests.e2e.test_match_play import join_match, players  # noqa: F401 (a fixture)
from tests.e2e.test_timers import harness, ring, timed_match_left_by_bob  # noqa: F401 (a fixture)

pytestmark = pytest.mark.stored


async def test_a_swept_grace_forfeits_nothing_resumed_on_another_node(harness, players):
    saved = await timed_match_left_by_bob(harness, players)
    await harness.restart()  # its grace now comes from the sweep over the database
    await harness.login_clip("alice")  # back, waiting: only bob's absence could lose it
    clocks = harness.server.clocks
    assert list(clocks.swept) == [saved.match_id] and list(clocks.graces) == [saved.match_id]
    # Another node resumes it (resuming forgets who left): this node's alarm cannot see that
    # in its own running matches.
    await harness.server.store.mark_left(saved.match_id, None)
    await ring(harness, 60)
    record = await harness.server.store.match_by_id(saved.match_id)
    assert not record.finished and record.winner is None


async def test_a_swept_grace_forfeits_nothing_resumed_and_left_again_elsewhere(harness,
                                                                              players):
    """Resumed on another node and left again there: that node, its host now, times the
    new grace; the sweep's, from before, would end it early."""
    saved = await timed_match_left_by_bob(harness, players)
    await harness.restart()
    await harness.login_clip("alice")
    store = harness.server.store
    epoch = await store.claim_match(saved.match_id)  # resumed on another node
    await store.mark_left(saved.match_id, None, epoch=epoch)
    await store.mark_left(saved.match_id, "bob", epoch=epoch)  # and left again
    await ring(harness, 60)
    record = await store.match_by_id(saved.match_id)
    assert not record.finished and record.left_by == "bob"


async def test_losing_the_sweeps_lease_drops_the_swept_graces_not_the_local_ones(harness,
                                                                                players):
    saved = await timed_match_left_by_bob(harness, players)
    clocks = harness.server.clocks
    sweeps = harness.server.sweeps_lease.duty
    assert clocks.swept == {} and list(clocks.graces) == [saved.match_id]
    await sweeps.end()  # the lease lost: the grace of bob's leaving here stays
    assert list(clocks.graces) == [saved.match_id]

    await harness.restart()
    await harness.login_clip("alice")  # back, waiting: only bob's absence can lose it now
    clocks, sweeps = harness.server.clocks, harness.server.sweeps_lease.duty
    assert list(clocks.swept) == [saved.match_id]
    await sweeps.end()  # another node sweeps from now, and arms it itself
    assert clocks.graces == {} and clocks.swept == {}
    await ring(harness, 60)
    assert not (await harness.server.store.match_by_id(saved.match_id)).finished
    await sweeps.begin()  # gained again: armed again, counted from now
    assert list(clocks.swept) == [saved.match_id]
    await ring(harness, 60)
    record = await harness.server.store.match_by_id(saved.match_id)
    assert record.finished and record.winner == "alice"
    await sweeps.end()
