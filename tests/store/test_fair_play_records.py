"""What the store keeps for fair play: a match's dice (seed, pairs drawn, roll tally), who
left it, abandoned matches, and the sums `dicetest` and `whois` ask for."""
from __future__ import annotations

from fibs_server.lobby.ports.match_records import MatchDice
from tests.store.conftest import START_TIME
from tests.store.test_matches import STATE


def tally(player_0: int, player_1: int, openings: int) -> list[list[int]]:
    """Counts of the roll 1-1 (index 0) and 6-6 (index 20) only."""
    return [[count] + [0] * 19 + [count] for count in (player_0, player_1, openings)]


async def test_a_matchs_dice_are_stored_with_it_and_kept_when_not_given(store, players):
    dice = MatchDice("ab" * 32, 3, tally(1, 0, 1))
    match_id = await store.create_match("alice", "bob", 5, STATE, dice)
    assert (await store.running_match("alice", "bob")).dice == dice
    later = MatchDice("ab" * 32, 7, tally(2, 2, 1))
    await store.save_match_state(match_id, STATE, later)
    await store.save_match_state(match_id, STATE)  # without dice: they stay
    assert (await store.match_by_id(match_id)).dice == later
    await store.finish_match(match_id, STATE, "alice", [], MatchDice("ab" * 32, 9, tally(3, 2, 1)))
    finished = await store.match_by_id(match_id)
    assert finished.dice.drawn == 9 and not finished.abandoned


async def test_a_match_stored_without_dice_has_none(store, players):
    await store.create_match("alice", "bob", 5, STATE)
    assert (await store.running_match("alice", "bob")).dice is None


async def test_the_first_to_leave_is_the_one_who_left_until_both_are_back(store, players):
    match_id = await store.create_match("alice", "bob", 5, STATE)
    await store.mark_left(match_id, "bob")
    await store.mark_left(match_id, "alice")  # logs out later, while waiting: bob left
    assert (await store.match_by_id(match_id)).left_by == "bob"
    await store.mark_left(match_id, None)
    assert (await store.match_by_id(match_id)).left_by is None


async def test_idle_matches_are_the_running_ones_not_stored_since(store, players):
    first = await store.create_match("alice", "bob", 5, STATE)  # at START_TIME
    second = await store.create_match("alice", "carol", 5, STATE)  # a second later
    finished = await store.create_match("bob", "carol", 5, STATE)
    await store.finish_match(finished, STATE, "bob", [])
    assert [r.match_id for r in await store.idle_matches(START_TIME)] == []
    assert [r.match_id for r in await store.idle_matches(START_TIME + 1)] == [first]
    assert [r.match_id for r in await store.idle_matches(START_TIME + 100)] == [first, second]


async def test_counts_of_unfinished_and_abandoned_matches(store, players):
    left = await store.create_match("alice", "bob", 5, STATE)
    await store.create_match("alice", "carol", 5, STATE)
    await store.mark_left(left, "alice")
    assert await store.match_counts("alice") == (2, 0)
    await store.finish_match(left, STATE, None, [], abandoned=True)
    assert await store.match_counts("alice") == (1, 1)
    assert await store.match_counts("bob") == (0, 0)  # bob stayed: not his to count


async def test_the_roll_tally_of_everyone_and_of_one_player(store, players):
    await store.create_match("alice", "bob", 5, STATE, MatchDice(None, 6, tally(2, 3, 1)))
    await store.create_match("carol", "alice", 5, STATE, MatchDice(None, 9, tally(4, 5, 2)))
    await store.create_match("bob", "carol", 5, STATE)  # no tally: stored before dice were
    everyone = await store.roll_tally(None)
    assert (everyone[0], everyone[20], sum(everyone)) == (17, 17, 34)
    alice = await store.roll_tally("alice")  # player 0 of the first, player 1 of the second
    assert (alice[0], alice[20], sum(alice)) == (7, 7, 14)
    assert sum(await store.roll_tally("bob")) == 6


async def test_the_roll_tally_sums_finished_matches_with_the_running_ones(store, players):
    """A finish adds the match's tally to the sums (the saved one when it gives none); the
    running matches' tallies count as they are stored."""
    saved = await store.create_match("alice", "bob", 5, STATE, MatchDice(None, 6, tally(1, 1, 1)))
    await store.save_match_state(saved, STATE, MatchDice(None, 8, tally(2, 3, 1)))
    await store.finish_match(saved, STATE, None, [], abandoned=True)
    given = await store.create_match("carol", "alice", 5, STATE, MatchDice(None, 6, tally(1, 1, 1)))
    await store.finish_match(given, STATE, "carol", [], MatchDice(None, 9, tally(4, 5, 2)))
    await store.create_match("bob", "carol", 5, STATE, MatchDice(None, 2, tally(1, 0, 1)))
    assert sum(await store.roll_tally(None)) == 2 * (6 + 11 + 2)
    assert (await store.roll_tally("alice"))[0] == 2 + 5
    assert sum(await store.roll_tally("bob")) == 2 * (3 + 1)
    assert sum(await store.roll_tally("carol")) == 2 * (4 + 0)


async def test_an_erased_account_takes_its_matches_out_of_every_sum(store, players):
    for player_a, player_b, winner in (("alice", "bob", "alice"), ("bob", "carol", "carol")):
        match_id = await store.create_match(player_a, player_b, 3, STATE,
                                            MatchDice(None, 6, tally(2, 3, 1)))
        await store.finish_match(match_id, {**STATE, "ratings": {player_a: [1500.0, 1510.0],
                                                                 player_b: [1500.0, 1490.0]}},
                                 winner, [], MatchDice(None, 6, tally(2, 3, 1)))
    await store.erase_account("alice", "carol")
    assert sum(await store.roll_tally(None)) == 2 * 6
    assert sum(await store.roll_tally("bob")) == 2 * 2
    assert sum(await store.roll_tally("alice")) == 0
    assert [change.after for change in await store.rating_history("bob", 10)] == [1510.0]
    assert await store.rating_history("alice", 10) == []
