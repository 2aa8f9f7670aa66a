"""A match's finished games are written once, to match_games, and each save writes only the
state with the current game's history; every read gives back the whole history."""
from __future__ import annotations

import random

import orjson
import pytest
from sqlalchemy import event, func, select, text

from fibs_server.lobby.ports.match_records import RatingUpdate
from fibs_server.rules.dice import SeededDice
from fibs_server.rules.match import Match, Phase
from fibs_server.store import SqlStore, create_database_engine, upgrade_database_async
from fibs_server.store.models import MatchGameRow, MatchRow
from tests.rules.test_match_properties import random_action
from tests.store.test_matches import STATE


def unlimited_match(seed: int) -> tuple[Match, random.Random]:
    match = Match(None, SeededDice(seed))
    match.start()
    return match, random.Random(seed)


def as_stored(match: Match) -> dict:
    """The match's state as JSON gives it back (lists where the rules engine has tuples)."""
    return orjson.loads(orjson.dumps(match.to_dict()))


def play_to_game(match: Match, rng: random.Random, game_number: int) -> None:
    while match.game_number < game_number:
        random_action(match, rng)


async def stored_columns(store: SqlStore, match_id: int) -> tuple[dict, int, int]:
    """The match's row as written: its state, moved_games, and its rows of match_games."""
    def read(session):
        state, moved_games = session.execute(
            select(MatchRow.state, MatchRow.moved_games).where(MatchRow.id == match_id)).one()
        game_rows = session.scalar(select(func.count()).where(MatchGameRow.match_id == match_id))
        return state, moved_games, game_rows
    return await store._reads.run(read)


async def test_a_match_saved_after_every_action_reads_back_whole(store, players):
    match, rng = unlimited_match(seed=3)
    match_id = await store.create_match("alice", "bob", None, match.to_dict())
    while match.game_number < 6:
        random_action(match, rng)
        await store.save_match_state(match_id, match.to_dict())
        if match.phase is Phase.BETWEEN_GAMES or len(match.to_dict()["history"][-1]) < 3:
            # Just before and just after a game's start: where the history splits.
            running = await store.running_match("bob", "alice")
            assert orjson.dumps(running.state) == orjson.dumps(as_stored(match))

    expected = as_stored(match)
    assert (await store.match_by_id(match_id)).state == expected
    assert [record.state for record in await store.running_matches("alice")] == [expected]
    state, moved_games, game_rows = await stored_columns(store, match_id)
    assert (moved_games, game_rows) == (5, 5)
    assert state["history"] == expected["history"][5:]

    final = {**match.to_dict(), "ratings": {"alice": [1500.0, 1490.0], "bob": [1500.0, 1510.0]}}
    await store.finish_match(match_id, final, None, [RatingUpdate("alice", 1490.0, 6),
                                                     RatingUpdate("bob", 1510.0, 6)])
    expected = orjson.loads(orjson.dumps(final))
    [finished] = await store.finished_matches("alice", 10)
    assert orjson.dumps(finished.state) == orjson.dumps(expected)
    assert orjson.dumps((await store.match_by_id(match_id)).state) == orjson.dumps(expected)
    assert Match.from_dict(finished.state, SeededDice(0)).history == match.history


async def test_bytes_written_per_save_do_not_grow_with_the_finished_games(database_url,
                                                                          players, store):
    counting_store = await SqlStore.open(database_url)
    written: list[int] = []  # bytes of the values of each statement that writes

    @event.listens_for(counting_store._writes.engine, "before_cursor_execute")
    def count_bytes(_connection, _cursor, statement, parameters, _context, executemany):
        if statement.startswith(("UPDATE", "INSERT")):
            rows = parameters if executemany else [parameters]
            written.append(sum(len(value) for row in rows for value in row
                               if isinstance(value, str)))

    async def bytes_of_saves_after_start_of_game(game_number: int) -> list[int]:
        """Bytes written by each of the five saves after the one that starts the game."""
        play_to_game(match, rng, game_number)
        await counting_store.save_match_state(match_id, match.to_dict())
        written.clear()
        for _ in range(5):
            random_action(match, rng)
            await counting_store.save_match_state(match_id, match.to_dict())
        assert len(written) == 5  # one UPDATE each: no game to move
        return list(written)

    try:
        match, rng = unlimited_match(seed=5)
        match_id = await counting_store.create_match("alice", "bob", None, match.to_dict())
        early = await bytes_of_saves_after_start_of_game(2)
        late = await bytes_of_saves_after_start_of_game(41)
    finally:
        await counting_store.close()

    assert len(orjson.dumps(match.to_dict())) > 20 * max(late)  # what one save used to write
    for after_one_game, after_forty_games in zip(early, late):
        assert after_forty_games < after_one_game * 1.2
    assert (await store.running_match("alice", "bob")).state == as_stored(match)


async def test_a_save_whose_transaction_fails_moves_no_game_and_the_next_one_does(
        store, players):
    match, rng = unlimited_match(seed=3)
    match_id = await store.create_match("alice", "bob", None, match.to_dict())
    play_to_game(match, rng, 2)
    await store.save_match_state(match_id, match.to_dict())
    stored_before = as_stored(match)
    play_to_game(match, rng, 3)

    def fail_moving_games(_connection, _cursor, statement, *_):
        if statement.startswith("INSERT INTO match_games"):
            raise RuntimeError("disk full")

    event.listen(store._writes.engine, "before_cursor_execute", fail_moving_games)
    try:
        with pytest.raises(RuntimeError):
            await store.save_match_state(match_id, match.to_dict())
    finally:
        event.remove(store._writes.engine, "before_cursor_execute", fail_moving_games)
    # Neither the state with game 2 moved out nor game 2's row: the match as saved before.
    assert (await store.running_match("alice", "bob")).state == stored_before
    assert (await stored_columns(store, match_id))[1:] == (1, 1)

    await store.save_match_state(match_id, match.to_dict())
    assert (await store.running_match("alice", "bob")).state == as_stored(match)
    assert (await stored_columns(store, match_id))[1:] == (2, 2)


async def test_a_save_after_a_restart_sends_the_moved_games_again_and_keeps_them(
        store, players, database_url):
    match, rng = unlimited_match(seed=4)
    match_id = await store.create_match("alice", "bob", None, match.to_dict())
    play_to_game(match, rng, 3)
    await store.save_match_state(match_id, match.to_dict())

    restarted = await SqlStore.open(database_url)  # knows nothing of what was moved
    try:
        random_action(match, rng)
        await restarted.save_match_state(match_id, match.to_dict())
        assert (await restarted.running_match("alice", "bob")).state == as_stored(match)
    finally:
        await restarted.close()
    assert (await stored_columns(store, match_id))[1:] == (2, 2)


async def test_a_replaced_match_takes_its_games_with_it(store, players):
    match, rng = unlimited_match(seed=3)
    match_id = await store.create_match("alice", "bob", None, match.to_dict())
    play_to_game(match, rng, 3)
    await store.save_match_state(match_id, match.to_dict())

    new_id = await store.create_match("bob", "alice", 5, STATE)

    assert [record.match_id for record in await store.running_matches("alice")] == [new_id]
    assert await store._reads.run(
        lambda session: session.scalar(select(func.count()).select_from(MatchGameRow))) == 0


@pytest.mark.blank_database
async def test_a_match_stored_whole_before_0003_reads_back_and_moves_its_games_when_saved(
        database_url):
    await upgrade_database_async(database_url, "0002")
    match, rng = unlimited_match(seed=3)
    play_to_game(match, rng, 4)
    engine = create_database_engine(database_url)
    try:
        async with engine.begin() as connection:  # as the code before 0003 wrote it
            await connection.execute(text(
                "INSERT INTO accounts (name, name_key, password_hash, rating, experience, "
                "toggles, settings, created_at, is_admin) VALUES "
                "(:name, :name, :hash, 1500.0, 0, '{}', '{}', 0, false)"),
                [{"name": "alice", "hash": b"h"}, {"name": "bob", "hash": b"h"}])
            match_id = (await connection.execute(text(
                "INSERT INTO matches (player_a, player_b, state, finished, started_at, "
                "updated_at) VALUES ('alice', 'bob', :state, false, 0, 0) RETURNING id"),
                {"state": orjson.dumps(match.to_dict()).decode()})).scalar_one()
    finally:
        await engine.dispose()
    await upgrade_database_async(database_url)
    store = await SqlStore.open(database_url)
    try:
        assert (await store.running_match("alice", "bob")).state == as_stored(match)
        assert (await stored_columns(store, match_id))[1:] == (0, 0)

        random_action(match, rng)
        await store.save_match_state(match_id, match.to_dict())

        assert (await store.running_match("alice", "bob")).state == as_stored(match)
        state, moved_games, game_rows = await stored_columns(store, match_id)
        assert (moved_games, game_rows, len(state["history"])) == (3, 3, 1)
    finally:
        await store.close()
