"""Reads on their own connections: on a SQLite file they neither take the write lock nor
queue behind writes, and still see every committed write."""
import asyncio
from pathlib import Path

import pytest
from sqlalchemy import event, text
from sqlalchemy.pool import NullPool

from fibs_server.store import SqlStore, create_database_engine, upgrade_database_async
from fibs_server.store.database import is_sqlite_file
from fibs_server.store.models import Base
from fibs_server.store.transactions import AsyncTransactions
from tests.store.test_accounts import account
from tests.waiting import DEADLINE, until


async def test_reads_do_not_wait_for_writes_in_progress_and_see_them_once_committed(
        store, database_url):
    await store.create_account(account("alice"))
    other_writer = create_database_engine(database_url, poolclass=NullPool)
    try:
        async with other_writer.connect() as connection:
            # Holds SQLite's write lock (BEGIN IMMEDIATE), or on PostgreSQL alice's row lock.
            await connection.begin()
            await connection.execute(text(
                "UPDATE accounts SET email = 'uncommitted' WHERE name_key = 'alice'"))

            # A read that waited for the lock would fail: SQLite's after its 10 s busy
            # timeout, PostgreSQL's at the ceiling (the lock goes only after the reads).
            found = await asyncio.wait_for(store.find_account("alice"), DEADLINE)
            assert found.email is None
            sent: list[str] = []
            event.listen(store._writes.engine, "before_cursor_execute",
                         lambda *call: sent.append(call[2]))
            update = asyncio.create_task(store.update_account("alice", email="committed"))
            # Its first statement waits for the lock: SQLite's BEGIN IMMEDIATE, PostgreSQL's
            # UPDATE of alice's row.
            await until(lambda: sent, "the update's first statement is sent")
            found = await asyncio.wait_for(store.find_account("alice"), DEADLINE)
            assert found.email is None  # the read did not wait for the update...
            assert not update.done()  # ...which waits for the other writer

            await connection.rollback()
        await asyncio.wait_for(update, DEADLINE)
    finally:
        await other_writer.dispose()
    assert (await store.find_account("alice")).email == "committed"


async def test_closing_the_store_closes_its_read_connections_too(tmp_path: Path):
    database = tmp_path / "fibs.db"
    url = f"sqlite:///{database}"
    await upgrade_database_async(url)
    store = await SqlStore.open(url)
    await store.create_account(account("alice"))
    await store.find_account("alice")
    assert Path(f"{database}-wal").exists()

    await store.close()
    # SQLite folds the WAL into the database and removes it when its last connection closes.
    assert not Path(f"{database}-wal").exists()


@pytest.mark.parametrize("url", ["sqlite+aiosqlite://", "sqlite:///:memory:"])
async def test_an_in_memory_database_is_one_engine_for_reads_and_writes(url):
    assert not is_sqlite_file(url)  # SqlStore.open gives it one AsyncTransactions
    engine = create_database_engine(url)
    async with engine.begin() as connection:
        await connection.run_sync(Base.metadata.create_all)
    store = SqlStore(AsyncTransactions(engine))
    try:
        await store.create_account(account("alice"))
        await store.update_account("alice", email="alice@example.org")
        assert (await store.find_account("alice")).email == "alice@example.org"
    finally:
        await store.close()
