"""Each running match is owned by one node at a time, by its owner epoch: two stores on one
database play two nodes. A node that claims a match owns it; the writes of the node that
owned it before change nothing and fail with StaleMatchOwner."""
from __future__ import annotations

import asyncio

import pytest

from fibs_server.lobby.ports.match_records import (
    FIRST_OWNER_EPOCH,
    MatchDice,
    RatingUpdate,
    StaleMatchOwner,
)
from fibs_server.store import SqlStore
from tests.store.test_fair_play_records import tally
from tests.store.test_match_games import as_stored, play_to_game, unlimited_match
from tests.store.test_matches import STATE

LATER = {**STATE, "dice": [6, 6]}


@pytest.fixture
async def other_node(store, database_url):
    """A second store on the same database: another node."""
    other = await SqlStore.open(database_url)
    yield other
    await other.close()


async def test_the_creator_owns_a_new_match_and_each_claim_is_one_more(store, players,
                                                                       other_node):
    match_id = await store.create_match("alice", "bob", 5, STATE)
    assert (await store.match_by_id(match_id)).owner_epoch == FIRST_OWNER_EPOCH
    await store.save_match_state(match_id, LATER, epoch=FIRST_OWNER_EPOCH)
    assert await other_node.claim_match(match_id) == FIRST_OWNER_EPOCH + 1
    assert await store.claim_match(match_id) == FIRST_OWNER_EPOCH + 2
    assert (await other_node.running_match("bob", "alice")).owner_epoch == FIRST_OWNER_EPOCH + 2


async def test_claims_at_once_on_two_nodes_get_two_epochs(store, players, other_node):
    match_id = await store.create_match("alice", "bob", 5, STATE)
    claims = await asyncio.gather(*(node.claim_match(match_id) for node in
                                    (store, other_node, store, other_node)))
    assert sorted(claims) == [2, 3, 4, 5]


async def test_only_a_running_match_is_claimed(store, players):
    finished = await store.create_match("alice", "bob", 5, STATE)
    await store.finish_match(finished, STATE, "alice", [], epoch=FIRST_OWNER_EPOCH)
    for match_id in (finished, 12345):
        with pytest.raises(LookupError, match="no running match") as refused:
            await store.claim_match(match_id)
        assert not isinstance(refused.value, StaleMatchOwner)
    assert (await store.match_by_id(finished)).owner_epoch == FIRST_OWNER_EPOCH


async def test_a_stale_owners_writes_change_nothing_and_say_why(store, players, other_node):
    """Node A created the match; node B claimed it (its players resumed it there) and saved
    it: A's save, mark and finish each fail with StaleMatchOwner, and the row stays B's."""
    match_id = await store.create_match("alice", "bob", 5, STATE)
    b_epoch = await other_node.claim_match(match_id)
    await other_node.save_match_state(match_id, LATER, MatchDice("ab" * 32, 4, tally(1, 2, 1)),
                                      epoch=b_epoch)
    await other_node.mark_left(match_id, None, epoch=b_epoch)
    as_b_wrote = await other_node.match_by_id(match_id)

    writes = [
        store.save_match_state(match_id, {**STATE, "dice": [1, 1]},
                               MatchDice(None, 9, tally(9, 9, 9)), epoch=FIRST_OWNER_EPOCH),
        store.mark_left(match_id, "alice", epoch=FIRST_OWNER_EPOCH),
        store.finish_match(match_id, {**STATE, "score": [5, 0]}, "alice",
                           [RatingUpdate("alice", 1600.0, 9)], epoch=FIRST_OWNER_EPOCH),
    ]
    for write in writes:
        with pytest.raises(StaleMatchOwner) as stale:
            await write
        assert (stale.value.match_id, stale.value.held, stale.value.owner) == (
            match_id, FIRST_OWNER_EPOCH, b_epoch)

    assert await store.match_by_id(match_id) == as_b_wrote
    assert as_b_wrote.state == LATER and not as_b_wrote.finished and as_b_wrote.left_by is None
    assert (await store.find_account("alice")).rating == 1500.0  # no rating applied
    assert await store.match_counts("alice") == (1, 0)  # not finished
    # The owner's writes go on.
    await other_node.mark_left(match_id, "bob", epoch=b_epoch)
    await other_node.finish_match(match_id, STATE, "bob", [], epoch=b_epoch)
    assert (await store.match_by_id(match_id)).winner == "bob"


async def test_stale_saves_fail_alone_in_a_shared_transaction(store, players, other_node):
    """Saves group-committed together: the stale one fails, the others are stored."""
    lost = await store.create_match("alice", "bob", 5, STATE)
    kept = await store.create_match("alice", "carol", 5, STATE)
    await other_node.claim_match(lost)
    results = await asyncio.gather(
        store.save_match_state(lost, LATER, epoch=FIRST_OWNER_EPOCH),
        store.save_match_state(kept, LATER, epoch=FIRST_OWNER_EPOCH),
        store.save_match_state(12345, LATER, epoch=FIRST_OWNER_EPOCH),
        return_exceptions=True)
    assert isinstance(results[0], StaleMatchOwner)
    assert results[1] is None
    assert isinstance(results[2], LookupError) and not isinstance(results[2], StaleMatchOwner)
    assert (await store.match_by_id(lost)).state == STATE
    assert (await store.match_by_id(kept)).state == LATER


async def test_a_write_without_an_epoch_is_whoever_owns_it(store, players, other_node):
    match_id = await store.create_match("alice", "bob", 5, STATE)
    await other_node.claim_match(match_id)
    await store.save_match_state(match_id, LATER)
    await store.mark_left(match_id, "bob")
    assert (await other_node.match_by_id(match_id)).left_by == "bob"


async def test_a_match_resumed_on_another_node_and_back_keeps_every_game(store, players,
                                                                        other_node):
    """Each node's store remembers how many of a match's games it stored already: a match
    played on one node, then on the other, then on the first again, reads back whole."""
    match, rng = unlimited_match(seed=5)
    match_id = await store.create_match("alice", "bob", None, match.to_dict())
    play_to_game(match, rng, 3)
    await store.save_match_state(match_id, match.to_dict(), epoch=FIRST_OWNER_EPOCH)
    b_epoch = await other_node.claim_match(match_id)
    play_to_game(match, rng, 6)
    await other_node.save_match_state(match_id, match.to_dict(), epoch=b_epoch)
    a_epoch = await store.claim_match(match_id)
    play_to_game(match, rng, 8)
    await store.save_match_state(match_id, match.to_dict(), epoch=a_epoch)
    assert (await other_node.match_by_id(match_id)).state == as_stored(match)


async def test_a_node_that_claims_a_match_replaced_under_its_id_stores_every_game(
        store, players, other_node):
    """On SQLite a match replaced by the pair's new one may get its id back (the old row is
    deleted in the same transaction). The node that played the old one, claiming the new
    one, must not take the old one's games for stored."""
    old, rng = unlimited_match(seed=7)
    old_id = await store.create_match("alice", "bob", None, old.to_dict())
    play_to_game(old, rng, 5)
    await store.save_match_state(old_id, old.to_dict(), epoch=FIRST_OWNER_EPOCH)
    new, rng = unlimited_match(seed=8)
    new_id = await other_node.create_match("alice", "bob", None, new.to_dict())
    epoch = await store.claim_match(new_id)
    play_to_game(new, rng, 3)
    await store.save_match_state(new_id, new.to_dict(), epoch=epoch)
    assert (await other_node.match_by_id(new_id)).state == as_stored(new)
