"""Account and match-state updates that arrive together share one transaction (GroupCommit):
merged per row, written as one statement per set of columns, and still failing one by one."""
import asyncio

import pytest
from sqlalchemy import event, select

from fibs_server.lobby.ports.accounts import SETTING_DEFAULTS
from fibs_server.store.account_store import ACCOUNTS_BY_NAME_KEY
from fibs_server.store.group_commit import GroupCommit
from fibs_server.store.models import MatchGameRow
from tests.store.test_accounts import account
from tests.store.test_matches import STATE


async def test_concurrent_updates_of_one_account_merge_with_later_values_winning(store):
    await store.create_account(account("alice"))
    await asyncio.gather(
        store.update_account("alice", settings=dict(SETTING_DEFAULTS, boardstyle="1")),
        store.update_account("ALICE", email="first@example.org"),
        store.update_account("alice", settings=dict(SETTING_DEFAULTS, boardstyle="3"),
                             rating=1600.0),
        store.update_account("alice", email="last@example.org"))

    found = await store.find_account("alice")
    assert (found.settings["boardstyle"], found.email, found.rating) == (
        "3", "last@example.org", 1600.0)


async def test_concurrent_updates_of_many_accounts_all_land(store):
    names = [f"player_{number}" for number in range(40)]
    for name in names:
        await store.create_account(account(name))
    await asyncio.gather(*(store.update_account(name, experience=number, email=f"{name}@x")
                           for number, name in enumerate(names)),
                         *(store.update_account(name, rating=1500.0 + number)
                           for number, name in enumerate(names[::2])))

    for number, name in enumerate(names):
        found = await store.find_account(name)
        assert (found.experience, found.email) == (number, f"{name}@x")
        assert found.rating == (1500.0 + number // 2 if number % 2 == 0 else 1500.0)


async def test_an_update_of_a_missing_account_fails_alone(store):
    await store.create_account(account("alice"))
    await store.create_account(account("bob"))
    # All set the same column, so on SQLite they are one executemany that finds a row missing.
    results = await asyncio.gather(
        store.update_account("alice", email="alice@example.org"),
        store.update_account("nobody", email="nobody@example.org"),
        store.update_account("bob", email="bob@example.org"),
        store.update_account("Nobody", email="Nobody@example.org"),
        return_exceptions=True)

    assert results[0] is None and results[2] is None
    assert isinstance(results[1], LookupError) and "'nobody'" in str(results[1])
    assert isinstance(results[3], LookupError) and "'Nobody'" in str(results[3])
    assert (await store.find_account("alice")).email == "alice@example.org"
    assert (await store.find_account("bob")).email == "bob@example.org"


async def test_a_save_of_a_finished_or_unknown_match_fails_alone(store, players):
    running = await store.create_match("alice", "bob", 5, STATE)
    finished = await store.create_match("bob", "carol", 5, STATE)
    await store.finish_match(finished, STATE, "bob", [])
    later = {**STATE, "dice": [6, 5]}

    results = await asyncio.gather(
        store.save_match_state(finished, later),
        store.save_match_state(running, {**STATE, "dice": [1, 1]}),
        store.create_match("carol", "alice", 3, STATE),
        store.save_match_state(12345, later),
        store.save_match_state(running, later),
        return_exceptions=True)

    assert [type(result) for result in results] == [LookupError, type(None), int,
                                                    LookupError, type(None)]
    assert (await store.running_match("alice", "bob")).state == later
    assert (await store.running_match("alice", "carol")).match_id == results[2]
    assert (await store.match_by_id(finished)).state == STATE


async def test_a_cancelled_caller_does_not_disturb_the_others(store):
    await store.create_account(account("alice"))
    await store.create_account(account("bob"))
    cancelled = asyncio.create_task(store.update_account("alice", email="alice@example.org"))
    kept = asyncio.create_task(store.update_account("bob", email="bob@example.org"))
    await asyncio.sleep(0)  # both are queued
    cancelled.cancel()

    await kept
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    assert (await store.find_account("bob")).email == "bob@example.org"


async def test_updates_that_set_the_same_columns_are_one_statement(store):
    for name in ["alice", "bob", "carol"]:
        await store.create_account(account(name))
    engine = store._writes.engine  # the server's own: in threads on SQLite
    updates: list[int] = []  # how many rows each UPDATE statement carried

    def count_rows(_connection, _cursor, statement, parameters, _context, executemany):
        if statement.startswith("UPDATE"):
            updates.append(len(parameters) if executemany else 1)

    event.listen(engine, "before_cursor_execute", count_rows)
    commit = GroupCommit(store._writes)
    try:
        await asyncio.gather(*(
            commit.update(ACCOUNTS_BY_NAME_KEY, key, values, missing=key)
            for key, values in [("alice", {"email": "a@x"}), ("bob", {"email": "b@x"}),
                                ("carol", {"email": "c@x"}), ("alice", {"email": "a2@x"}),
                                ("bob", {"rating": 1600.0})]))
    finally:
        event.remove(engine, "before_cursor_execute", count_rows)

    if engine.dialect.supports_sane_multi_rowcount:
        assert sorted(updates) == [1, 2]  # alice and carol set email; bob email and rating
    else:  # asyncpg counts no rows for an executemany: one statement each
        assert updates == [1, 1, 1]
    found = [await store.find_account(name) for name in ["alice", "bob", "carol"]]
    assert [(account.email, account.rating) for account in found] == [
        ("a2@x", 1500.0), ("b@x", 1600.0), ("c@x", 1500.0)]


async def test_a_save_of_a_finished_match_fails_alone_and_moves_none_of_its_games(
        store, players):
    two_games = {**STATE, "history": [[{"game": 1}], [{"game": 2}]]}
    running = await store.create_match("alice", "bob", None, STATE)
    finished = await store.create_match("bob", "carol", None, STATE)
    await store.finish_match(finished, STATE, None, [])

    results = await asyncio.gather(store.save_match_state(finished, two_games),
                                   store.save_match_state(running, two_games),
                                   return_exceptions=True)

    assert [type(result) for result in results] == [LookupError, type(None)]
    assert (await store.match_by_id(finished)).state == STATE
    assert (await store.match_by_id(running)).state == two_games
    assert await store._reads.run(
        lambda session: session.scalars(select(MatchGameRow.match_id)).all()) == [running]
