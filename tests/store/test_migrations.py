import dataclasses
import json

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import insert, inspect, select, text
from sqlalchemy.pool import NullPool

from fibs_server.lobby.ports.accounts import Account
from fibs_server.lobby.ports.match_records import RatingChange
from fibs_server.lobby.ports.tournament_records import Status
from fibs_server.store import (
    SqlStore,
    create_database_engine,
    downgrade_database_async,
    upgrade_database_async,
)
from fibs_server.store.migrate import alembic_config
from fibs_server.store.models import Base, MatchRow
from tests.store.test_match_games import as_stored, play_to_game, unlimited_match

# Each test here starts from a database with no table.
pytestmark = pytest.mark.blank_database

SCHEMA_TABLES = {"accounts", "matches", "match_games"}


async def inspect_database(url, inspection):
    """The result of `inspection(sync_connection)` on the database at `url`."""
    engine = create_database_engine(url, poolclass=NullPool)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(inspection)
    finally:
        await engine.dispose()


async def table_names(url) -> set[str]:
    return set(await inspect_database(url, lambda sync: inspect(sync).get_table_names()))


async def current_revision(url) -> str | None:
    return await inspect_database(
        url, lambda sync: MigrationContext.configure(sync).get_current_revision())


def head_revision(url) -> str:
    return ScriptDirectory.from_config(alembic_config(url)).get_current_head()


async def test_upgrade_creates_the_schema_and_downgrade_removes_it(database_url):
    assert await table_names(database_url) == set()

    await upgrade_database_async(database_url)
    assert SCHEMA_TABLES <= await table_names(database_url)
    assert await current_revision(database_url) == head_revision(database_url)

    await downgrade_database_async(database_url)
    assert await table_names(database_url) & SCHEMA_TABLES == set()
    assert await current_revision(database_url) is None

    await upgrade_database_async(database_url)
    assert SCHEMA_TABLES <= await table_names(database_url)


async def test_upgrading_an_upgraded_database_changes_nothing(database_url):
    await upgrade_database_async(database_url)
    store = await SqlStore.open(database_url)
    try:
        await store.create_account(Account(name="alice", password_hash=b"h"))
        await upgrade_database_async(database_url)
        assert await store.find_account("alice") is not None
    finally:
        await store.close()
    assert await current_revision(database_url) == head_revision(database_url)


async def test_migrations_build_exactly_the_schema_of_the_models(database_url):
    await upgrade_database_async(database_url)
    differences = await inspect_database(
        database_url, lambda sync: compare_metadata(MigrationContext.configure(sync),
                                                    Base.metadata))
    assert differences == []


async def test_0003_moves_finished_games_out_and_its_downgrade_puts_them_back(database_url):
    await upgrade_database_async(database_url)
    match, rng = unlimited_match(seed=3)
    store = await SqlStore.open(database_url)
    try:
        for name in ("alice", "bob"):
            await store.create_account(Account(name=name, password_hash=b"h"))
        match_id = await store.create_match("alice", "bob", None, match.to_dict())
        play_to_game(match, rng, 4)
        await store.save_match_state(match_id, match.to_dict())
    finally:
        await store.close()

    await downgrade_database_async(database_url, "0002")
    assert "match_games" not in await table_names(database_url)
    columns = await inspect_database(
        database_url, lambda sync: {c["name"] for c in inspect(sync).get_columns("matches")})
    assert "moved_games" not in columns
    engine = create_database_engine(database_url, poolclass=NullPool)
    try:
        async with engine.connect() as connection:
            state = (await connection.execute(select(MatchRow.state))).scalar_one()
    finally:
        await engine.dispose()
    assert state == as_stored(match)

    await upgrade_database_async(database_url)
    store = await SqlStore.open(database_url)
    try:
        assert (await store.running_match("alice", "bob")).state == as_stored(match)
    finally:
        await store.close()



async def test_0005_sums_the_matches_finished_before_it(database_url):
    """The migration fills the sums from the finished matches stored before it: the rating
    history and the roll tallies read what they read from the matches themselves."""
    await upgrade_database_async(database_url, "0004")
    store = await SqlStore.open(database_url)
    try:
        for name in ("alice", "bob", "carol"):
            await store.create_account(Account(name=name, password_hash=b"h"))
    finally:
        await store.close()
    one_roll = [[1] + [0] * 20, [0] * 20 + [1], [0, 1] + [0] * 19]  # 1-1, 6-6, opening 2-1

    def match(player_a, player_b, finished_at, rated=True, finished=True):
        ratings = {player_a: [1500.0, 1501.0], player_b: [1500.0, 1499.0]} if rated else None
        return {"player_a": player_a, "player_b": player_b, "length": 1, "finished": finished,
                "winner": player_a if finished else None, "started_at": 0,
                "finished_at": finished_at if finished else None, "updated_at": 0,
                "state": {"ratings": ratings} if rated else {}, "dice_tally": one_roll}
    engine = create_database_engine(database_url, poolclass=NullPool)
    try:
        async with engine.begin() as connection:
            await connection.execute(insert(MatchRow), [
                match("alice", "bob", 10), match("bob", "alice", 20), match("carol", "alice", 30),
                match("alice", "carol", 40, rated=False), match("bob", "carol", 0, finished=False)])
    finally:
        await engine.dispose()

    await upgrade_database_async(database_url)
    store = await SqlStore.open(database_url)
    try:
        assert await store.rating_history("alice", 2) == [RatingChange(20, 1500.0, 1499.0),
                                                          RatingChange(30, 1500.0, 1499.0)]
        assert await store.rating_history("carol", 10) == [RatingChange(30, 1500.0, 1501.0)]
        assert sum(await store.roll_tally(None)) == 5 * 3
        alice = await store.roll_tally("alice")
        assert (alice[0], alice[20], sum(alice)) == (2, 2, 4)
        assert sum(await store.roll_tally("bob")) == 3
    finally:
        await store.close()


async def test_0009_numbers_the_entrants_stored_before_it_in_the_order_read_until_then(
        database_url):
    """By the second of joining, then by name, each tournament's own from 1."""
    terms = json.dumps({"length": 1, "final_length": 1, "variant": "standard",
                        "crawford": True, "turn_seconds": 60, "rated": True})
    await upgrade_database_async(database_url, "0008")
    joined = {1: [("carol", 20), ("bob", 10), ("alice", 20)], 2: [("dave", 5)]}
    engine = create_database_engine(database_url, poolclass=NullPool)
    try:
        async with engine.begin() as connection:
            for tid in joined:
                await connection.execute(text(
                    "INSERT INTO tournaments (id, creator, format, terms, swiss_rounds, "
                    "entry_cap, bots_allowed, no_show_seconds, status, created_at) VALUES "
                    "(:tid, 'alice', 'knockout', :terms, 0, 8, false, 300, 'signup', 0)"),
                    {"tid": tid, "terms": terms})
            await connection.execute(text(
                "INSERT INTO tournament_entrants (tournament_id, name_key, name, rating, "
                "joined_at) VALUES (:tid, :name, :name, 1500.0, :at)"),
                [{"tid": tid, "name": name, "at": at}
                 for tid, entrants in joined.items() for name, at in entrants])
    finally:
        await engine.dispose()

    await upgrade_database_async(database_url)
    store = await SqlStore.open(database_url)
    try:
        assert [e.name for e in (await store.tournament(1)).entrants] == ["bob", "alice", "carol"]
        assert [e.name for e in (await store.tournament(2)).entrants] == ["dave"]
        numbers = await inspect_database(database_url, lambda sync: sync.execute(text(
            "SELECT tournament_id, name_key, entry_number FROM tournament_entrants "
            "ORDER BY tournament_id, entry_number")).all())
    finally:
        await store.close()
    assert [tuple(row) for row in numbers] == [
        (1, "bob", 1), (1, "alice", 2), (1, "carol", 3), (2, "dave", 1)]


async def test_0015_leaves_the_tournaments_before_it_one_offs_and_its_downgrade_keeps_them(
        database_url):
    """A tournament stored before series reads back with no period and no series; a series
    written after, downgraded, leaves its tournaments as one-offs."""
    terms = json.dumps({"length": 1, "final_length": 1, "variant": "standard",
                        "crawford": True, "turn_seconds": 60, "rated": True})
    await upgrade_database_async(database_url, "0014")
    engine = create_database_engine(database_url, poolclass=NullPool)
    try:
        async with engine.begin() as connection:
            await connection.execute(text(
                "INSERT INTO tournaments (creator, format, terms, swiss_rounds, entry_cap, "
                "starts_at, bots_allowed, no_show_seconds, status, created_at) VALUES "
                "('alice', 'knockout', :terms, 0, 8, 5000, false, 300, 'signup', 0)"),
                {"terms": terms})
    finally:
        await engine.dispose()

    await upgrade_database_async(database_url)
    store = await SqlStore.open(database_url)
    try:
        before = await store.tournament(1)
        assert (before.spec.starts_at, before.spec.repeat_seconds, before.spec.follows) == (
            5000, None, None)
        following = dataclasses.replace(before.spec, repeat_seconds=86_400, follows=1)
        assert await store.end_tournament(1, Status.CANCELLED, None, following)
        assert await store.next_in_series(1) == 2
    finally:
        await store.close()
    await downgrade_database_async(database_url, "0014")
    rows = await inspect_database(database_url, lambda sync: sync.execute(text(
        "SELECT id, status, starts_at FROM tournaments ORDER BY id")).all())
    assert [tuple(row) for row in rows] == [(1, "cancelled", 5000), (2, "signup", 5000)]
