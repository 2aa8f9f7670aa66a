import json

import pytest

from fibs_server.lobby.ports.match_records import MatchRecord, RatingChange, RatingUpdate
from tests.store.conftest import START_TIME

# Shaped like a rules-engine match: nested dicts and lists, None, bools, floats, text.
STATE = {
    "score": [2, 4],
    "board": [0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0],
    "cube": {"value": 2, "owner": "bob", "offered": False},
    "dice": None,
    "crawford": True,
    "games": [{"rolls": [[3, 1], [6, 6]], "plays": [["8/5", "6/5"], []], "winner": None}],
    "elapsed": 12.5,
    "whole_float": 1.0,
    "note": "Zoë sagt: ½ Punkt",
    "empty": {"list": [], "dict": {}},
}


async def test_a_created_match_is_running_between_its_players_in_either_order(store, players):
    match_id = await store.create_match("alice", "bob", 5, STATE)
    expected = MatchRecord(match_id=match_id, player_a="alice", player_b="bob", length=5,
                           state=STATE, started_at=START_TIME)

    assert await store.running_match("alice", "bob") == expected
    assert await store.running_match("bob", "alice") == expected
    assert await store.running_match("alice", "carol") is None


async def test_state_round_trips_exactly(store, players):
    match_id = await store.create_match("alice", "bob", None, STATE)
    loaded = (await store.running_match("alice", "bob")).state

    assert loaded == STATE
    assert json.dumps(loaded) == json.dumps(STATE)  # same key order and number types
    assert (await store.running_match("alice", "bob")).length is None
    assert match_id > 0


async def test_saving_replaces_the_state(store, players):
    match_id = await store.create_match("alice", "bob", 3, STATE)
    later = {**STATE, "dice": [5, 2], "score": [2, 5]}
    await store.save_match_state(match_id, later)

    assert (await store.running_match("alice", "bob")).state == later


async def test_saving_an_unknown_match_raises_lookup_error(store, players):
    with pytest.raises(LookupError):
        await store.save_match_state(12345, STATE)


async def test_running_matches_lists_every_unfinished_match_of_a_player(store, players):
    with_bob = await store.create_match("alice", "bob", 1, STATE)
    with_carol = await store.create_match("carol", "alice", 7, STATE)
    without_alice = await store.create_match("bob", "carol", 3, STATE)
    await store.finish_match(without_alice, STATE, "bob", [])

    assert [record.match_id for record in await store.running_matches("alice")] == [
        with_bob, with_carol]
    assert [record.match_id for record in await store.running_matches("carol")] == [with_carol]


async def test_finishing_stores_the_result_and_both_ratings(store, players):
    match_id = await store.create_match("alice", "bob", 5, STATE)
    final = {**STATE, "score": [5, 4]}
    await store.finish_match(match_id, final, "alice", [RatingUpdate("alice", 1512.34, 5),
                                                        RatingUpdate("bob", 1487.66, 5)])

    assert await store.running_match("alice", "bob") is None
    [record] = await store.finished_matches("alice", 10)
    assert record == MatchRecord(match_id=match_id, player_a="alice", player_b="bob", length=5,
                                 state=final, finished=True, winner="alice",
                                 started_at=START_TIME, finished_at=START_TIME + 1)
    alice, bob = await store.find_account("alice"), await store.find_account("bob")
    assert (alice.rating, alice.experience) == (1512.34, 5)
    assert (bob.rating, bob.experience) == (1487.66, 5)


async def test_a_failing_rating_update_leaves_match_and_ratings_untouched(store, players):
    match_id = await store.create_match("alice", "bob", 5, STATE)
    with pytest.raises(LookupError):
        await store.finish_match(match_id, {"score": [5, 0]}, "alice",
                                 [RatingUpdate("alice", 1520.0, 5),
                                  RatingUpdate("nobody", 1480.0, 5)])

    assert (await store.running_match("alice", "bob")).state == STATE
    assert await store.finished_matches("alice", 10) == []
    assert (await store.find_account("alice")).rating == 1500.0


async def test_a_finished_match_cannot_be_saved_or_finished_again(store, players):
    match_id = await store.create_match("alice", "bob", None, STATE)
    await store.finish_match(match_id, STATE, None, [])

    with pytest.raises(LookupError):
        await store.save_match_state(match_id, {"score": [0, 0]})
    with pytest.raises(LookupError):
        await store.finish_match(match_id, STATE, "bob", [])
    [record] = await store.finished_matches("bob", 10)
    assert (record.winner, record.state) == (None, STATE)


async def test_a_new_match_replaces_the_pairs_running_match_but_never_a_finished_one(
        store, players):
    archived = await store.create_match("alice", "bob", 1, STATE)
    await store.finish_match(archived, STATE, "bob", [])
    saved = await store.create_match("alice", "bob", 5, STATE)
    with_carol = await store.create_match("carol", "alice", 3, STATE)

    new = await store.create_match("bob", "alice", 7, STATE)  # the other one invites

    assert [record.match_id for record in await store.running_matches("alice")] == [
        with_carol, new]
    assert await store.match_by_id(saved) is None
    with pytest.raises(LookupError):  # a save of the replaced match finds no running match
        await store.save_match_state(saved, STATE)
    assert [record.match_id for record in await store.finished_matches("alice", 10)] == [
        archived]


async def test_finished_matches_are_newest_first_and_limited(store, players):
    started = []  # a pair has one running match at a time: two rounds of two
    for _ in range(2):
        with_bob = await store.create_match("bob", "alice", 1, STATE)
        with_carol = await store.create_match("carol", "alice", 1, STATE)
        started += [with_bob, with_carol]
        for match_id in (with_carol, with_bob):  # finished in the other order
            await store.finish_match(match_id, STATE, "alice", [])
    await store.create_match("alice", "bob", 1, STATE)  # running: not listed

    newest_first = [record.match_id for record in await store.finished_matches("alice", 10)]
    assert newest_first == [started[2], started[3], started[0], started[1]]
    assert [record.match_id for record in await store.finished_matches("alice", 2)] == (
        newest_first[:2])
    assert [record.match_id for record in await store.finished_matches("carol", 10)] == [
        started[3], started[1]]


async def test_matches_must_name_existing_accounts(store, players):
    from sqlalchemy.exc import IntegrityError

    with pytest.raises(IntegrityError):
        await store.create_match("alice", "nobody", 1, STATE)


async def test_rating_history_reads_the_ratings_each_finished_match_kept(store, players):
    """Oldest first, the last `limit` only; unrated and running matches have none, and each
    player gets their own before and after."""
    unrated = await store.create_match("alice", "bob", 1, STATE)
    await store.finish_match(unrated, STATE, "alice", [])
    finished_at = []
    for before, after in ((1500.0, 1510.5), (1510.5, 1502.25), (1502.25, 1520.0)):
        match_id = await store.create_match("alice", "carol", 3, STATE)
        await store.finish_match(match_id, {**STATE, "ratings": {"alice": [before, after],
                                                                 "carol": [1500.0, 1490.0]}},
                                 "alice", [])
        finished_at.append((await store.finished_matches("alice", 1))[0].finished_at)
    await store.create_match("alice", "bob", 5, {**STATE, "ratings": {"alice": [0.0, 1.0]}})

    assert await store.rating_history("alice", 2) == [
        RatingChange(finished_at[1], 1510.5, 1502.25), RatingChange(finished_at[2], 1502.25, 1520.0)]
    assert [change.after for change in await store.rating_history("carol", 10)] == [1490.0] * 3
    assert await store.rating_history("bob", 10) == []
