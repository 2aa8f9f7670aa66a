"""Fixtures for store tests: a migrated database behind a SqlStore, on each database kind."""
from __future__ import annotations

import itertools

import pytest

from fibs_server.lobby.ports.accounts import Account
from fibs_server.store import SqlStore, upgrade_database_async

START_TIME = 1_700_000_000


@pytest.fixture
async def store(database_url):
    await upgrade_database_async(database_url)
    # Each reading of the clock is a second later, so every timestamp differs.
    store = await SqlStore.open(database_url, clock=itertools.count(START_TIME).__next__)
    yield store
    await store.close()


@pytest.fixture
async def players(store):
    """Accounts that matches can refer to: alice, bob and carol."""
    names = ["alice", "bob", "carol"]
    for name in names:
        await store.create_account(Account(name=name, password_hash=b"hash-" + name.encode()))
    return names
