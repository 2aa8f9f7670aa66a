"""Where the store's transactions run (store/transactions.py): on a SQLite file, in the
store's own threads, one trip from the event loop each, and to their end once begun."""
from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from fibs_server.store import SqlStore, upgrade_database_async
from fibs_server.store.models import AccountRow
from tests.store.test_accounts import account


@pytest.fixture
async def file_store(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'fibs.db'}"
    await upgrade_database_async(url)
    store = await SqlStore.open(url)
    yield store
    await store.close()


def accounts_counted(session) -> int:
    return session.scalar(select(func.count()).select_from(AccountRow))


async def test_a_sqlite_file_is_written_and_read_in_the_stores_threads(file_store):
    def thread_name(_session) -> str:
        return threading.current_thread().name

    assert (await file_store._writes.run(thread_name)).startswith("fibs-store-writer")
    assert (await file_store._reads.run(thread_name)).startswith("fibs-store-reader")


async def test_a_transaction_of_many_statements_is_one_trip_back_to_the_loop(
        file_store, monkeypatch):
    loop = asyncio.get_running_loop()
    trips = []
    monkeypatch.setattr(loop, "call_soon_threadsafe",
                        lambda *call, **options: trips.append(call) or
                        type(loop).call_soon_threadsafe(loop, *call, **options))

    def register_many(session) -> int:
        for number in range(20):
            session.add(AccountRow(name_key=f"player_{number}", name=f"player_{number}",
                                   password_hash=b"x", rating=1500.0, experience=0,
                                   toggles={}, settings={}, created_at=0, is_admin=False))
            session.flush()  # one INSERT each, each its own statement
        return accounts_counted(session)

    assert await file_store._writes.run(register_many) == 20
    assert len(trips) == 1  # through aiosqlite: three or four per statement


async def test_a_cancelled_callers_transaction_still_commits_and_close_waits_for_it(
        tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'fibs.db'}"
    await upgrade_database_async(url)
    store = await SqlStore.open(url)
    began = threading.Event()

    def slow_registration(session) -> None:
        began.set()
        time.sleep(0.3)
        session.add(AccountRow(name_key="alice", name="alice", password_hash=b"x",
                               rating=1500.0, experience=0, toggles={}, settings={},
                               created_at=0, is_admin=False))

    caller = asyncio.create_task(store._writes.run(slow_registration))
    await asyncio.to_thread(began.wait)
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    queued = asyncio.create_task(store.create_account(account("bob")))
    await asyncio.sleep(0)
    await store.close()  # waits for both
    await queued
    reopened = await SqlStore.open(url)
    try:
        assert await reopened._reads.run(accounts_counted) == 2
    finally:
        await reopened.close()
