"""Abandoned rated matches settled by their players' winning chances (`--forfeit-abandoned
chances`, docs/FAIRNESS.md): on the lobby's fake clock, the match left unplayed past
`abandon_after` is settled by the chances the bots' worker computes where it stands, each
player rated with their chance as their share, and the store holds what settled it; an
engine with no answer leaves the match saved for the next sweep; one with no chances for the
match (or an unrated match) leaves it to the forfeit."""
from __future__ import annotations

import asyncio

import pytest

from fibs_server.bots.chances import SETTLEMENT_PLIES, match_chances
from fibs_server.lobby.play.public_reads import match_games, open_record
from fibs_server.lobby.services.bot_players import BotConfig
from fibs_server.rules.dice import VerifiableDice
from fibs_server.rules.ratings import PlayerRating, rate_settled
from tests.e2e.conftest import ServerHarness
from tests.e2e.test_match_play import players, start  # noqa: F401

pytestmark = pytest.mark.stored

SEED = bytes(range(32))


@pytest.fixture
async def harness(database_url):
    """The server with its engine (the bots' workers), settling abandoned rated matches by
    their chances, on a fake clock."""
    harness = ServerHarness(database_url)
    harness.config.bots = BotConfig(think_time=0, workers=1, time_budget=30)
    harness.config.forfeit_abandoned = harness.config.settle_by_chances = True
    harness.use_fake_clock()
    await harness.start()
    yield harness
    await harness.stop()


async def left_by_alice(harness, alice, bob, length: str = "3") -> dict:
    """A match alice left, abandoned since: its state as stored."""
    harness.dice.append(VerifiableDice(SEED))
    await start(alice, bob, length)
    await alice.send("leave")
    await bob.skip_until("** Player alice has left the game. The game was saved.")
    lobby = harness.server.lobby
    assert await lobby.matches.saved.close_abandoned() == 0  # not yet
    harness.lobby_options["clock"].advance(lobby.config.abandon_after + 60)
    record = await harness.server.store.match_by_id(1)
    assert not record.finished and record.left_by == "alice"
    return record.state


async def test_an_abandoned_rated_match_is_settled_by_the_chances_where_it_stands(
        harness, players):
    alice, bob, _ = players
    stored = await left_by_alice(harness, alice, bob)
    chance = await asyncio.to_thread(match_chances, stored)
    assert chance is not None and 0.0 < chance < 1.0
    assert await harness.server.lobby.matches.saved.close_abandoned() == 1
    store = harness.server.store
    record = await store.match_by_id(1)
    assert record.finished and record.abandoned and record.winner is None
    expected = rate_settled(PlayerRating(), PlayerRating(), 3, chance)
    settled = record.state["settled"]
    assert settled["chances"] == pytest.approx([chance, 1 - chance])
    assert settled["expected"] == pytest.approx([0.5, 0.5])
    assert settled["left_by"] == "alice"
    assert settled["engine"] == f"bgsage, {SETTLEMENT_PLIES}-ply, cubeful"
    assert record.state["history"] == stored["history"]  # nothing played for anyone
    for name, after in zip(("alice", "bob"), expected.after):
        assert record.state["ratings"][name] == pytest.approx([1500.0, after.rating])
        account = await store.find_account(name)
        assert account.rating == pytest.approx(after.rating)
        assert account.experience == 3
    assert [m.match_id for m in await store.rated_matches("alice", None, 10)] == [1]
    # The match's JSON shows it, and so does the open record's month.
    assert match_games(record)["settled"] == settled
    [published] = await store.rated_matches_finished(0, 2**62, 0, 10)
    assert open_record(published, None)["settled"] == settled
    assert await harness.server.lobby.matches.saved.close_abandoned() == 0  # settled once
    assert (await store.match_counts("alice"))[1] == 1  # abandoned by alice, as a forfeit is


async def test_an_engine_without_an_answer_leaves_the_match_for_the_next_sweep(
        harness, players):
    alice, bob, _ = players
    await left_by_alice(harness, alice, bob)
    matches = harness.server.lobby.matches
    engine = matches.chances

    async def no_answer(state):
        raise TimeoutError("late")
    matches.chances = no_answer
    assert await matches.saved.close_abandoned() == 0
    record = await harness.server.store.match_by_id(1)
    assert not record.finished and "settled" not in record.state
    matches.chances = engine
    assert await matches.saved.close_abandoned() == 1
    assert "settled" in (await harness.server.store.match_by_id(1)).state


async def test_without_chances_for_the_match_the_player_who_stayed_wins_it(harness, players):
    alice, bob, _ = players
    await left_by_alice(harness, alice, bob)
    matches = harness.server.lobby.matches

    async def none(state):
        return None
    matches.chances = none
    assert await matches.saved.close_abandoned() == 1
    record = await harness.server.store.match_by_id(1)
    assert record.finished and record.abandoned and record.winner == "bob"
    assert "settled" not in record.state


async def test_settling_by_chances_without_the_engine_is_refused_at_start(database_url):
    harness = ServerHarness(database_url)
    harness.config.forfeit_abandoned = harness.config.settle_by_chances = True
    with pytest.raises(ValueError, match="needs the engine"):
        await harness.start()
