"""Persistence on SQLAlchemy: implements the lobby's AccountStore and MatchStore (see
docs/STORE.md for the schema, URL forms and migrations)."""
from fibs_server.store.database import (
    DEFAULT_DATABASE_URL,
    async_database_url,
    create_database_engine,
)
from fibs_server.store.migrate import (
    downgrade_database,
    downgrade_database_async,
    upgrade_database,
    upgrade_database_async,
)
from fibs_server.store.sql_store import SqlStore

__all__ = [
    "DEFAULT_DATABASE_URL",
    "SqlStore",
    "async_database_url",
    "create_database_engine",
    "downgrade_database",
    "downgrade_database_async",
    "upgrade_database",
    "upgrade_database_async",
]
