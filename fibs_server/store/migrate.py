"""Bringing a database's schema up to date (or back) with the Alembic migrations in
`migrations/` beside this module, which ship inside the package (wheel installs included)."""
from __future__ import annotations

import asyncio
from pathlib import Path

from alembic import command
from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


def alembic_config(url: str) -> Config:
    """Alembic's configuration for the database at `url`, without an alembic.ini."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["database_url"] = url  # read by migrations/env.py
    return config


def upgrade_database(url: str, revision: str = "head") -> None:
    """Apply the migrations up to `revision`; a no-op for a database already there.
    Synchronous (env.py runs its own event loop): call it outside any running loop."""
    command.upgrade(alembic_config(url), revision)


def downgrade_database(url: str, revision: str = "base") -> None:
    """Revert migrations down to `revision` ("base" drops every table). Synchronous."""
    command.downgrade(alembic_config(url), revision)


async def upgrade_database_async(url: str, revision: str = "head") -> None:
    """upgrade_database, run in a worker thread so the caller's event loop keeps running."""
    await asyncio.to_thread(upgrade_database, url, revision)


async def downgrade_database_async(url: str, revision: str = "base") -> None:
    """downgrade_database, run in a worker thread so the caller's event loop keeps running."""
    await asyncio.to_thread(downgrade_database, url, revision)
