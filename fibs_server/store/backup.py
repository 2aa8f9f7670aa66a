"""`fibs-server db backup <file>`: a copy of the SQLite database through SQLite's online
backup API, safe while the server runs (docs/OPERATIONS.md). PostgreSQL has its own tool,
pg_dump."""
from __future__ import annotations

import os
import pathlib
import sqlite3

from sqlalchemy.engine import make_url

from fibs_server.store.database import async_database_url, is_sqlite_file


def sqlite_file_of(url: str) -> pathlib.Path | None:
    """The database file a SQLite URL names; None for any other database."""
    if not is_sqlite_file(url):
        return None
    return pathlib.Path(make_url(async_database_url(url)).database or "")


def back_up_sqlite(database: pathlib.Path, target: pathlib.Path) -> None:
    """Copy `database` into `target` as of one moment. The copy is made in one step (a read
    transaction: under WAL the server's writes go on meanwhile), into a file beside `target`
    that replaces it only when complete, so that a failed or interrupted backup never leaves
    a file that looks like one."""
    # Read-only and never created: a wrong path fails instead of backing up an empty file.
    source = sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)
    partial = target.with_name(target.name + ".partial")
    try:
        partial.unlink(missing_ok=True)
        copy = sqlite3.connect(partial)
        try:
            source.backup(copy)
        finally:
            copy.close()
        os.replace(partial, target)
    finally:
        source.close()
        partial.unlink(missing_ok=True)
