"""The CPU of a login's three store reads on SQLite, each a transaction of its own on a reader
thread, and of an empty transaction beside them (what any read pays before its statement).

Builds a SQLite database in a temporary directory (migrated to the head, --accounts
accounts) and opens it as the server does (`SqlStore.open`: a writer thread, reader
threads), then awaits each read --calls times in a row and reports the process's CPU (all
threads: the event loop's and the readers') per call, the median of --rounds rounds, the
reads taken in turn in each round. CPU rather than wall time, so that a loaded machine moves
the figures less; alternate the commits compared in the same session all the same.

    TMPDIR=/dev/shm .venv/bin/python bench/store_reads.py --calls 2000 --rounds 7
"""
from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fibs_server.lobby.ports.accounts import Account  # noqa: E402
from fibs_server.store import SqlStore, upgrade_database  # noqa: E402


def reads(store: SqlStore, name: str) -> dict[str, Callable[[], Awaitable[object]]]:
    """What a login reads, and an empty transaction on the same threads."""
    return {
        "empty transaction": lambda: store._reads.run(lambda session: None),
        "find_account": lambda: store.find_account(name),
        "active_sanction": lambda: store.active_sanction("ban", name, "10.0.0.1"),
        "kept_for_login": lambda: store.kept_for_login(name),
    }


async def cpu_per_call(read: Callable[[], Awaitable[object]], calls: int) -> float:
    started = time.process_time()
    for _ in range(calls):
        await read()
    return (time.process_time() - started) / calls


async def measure(database_url: str, accounts: int, calls: int,
                  rounds: int) -> dict[str, list[float]]:
    store = await SqlStore.open(database_url)
    try:
        names = [f"player{number:05d}" for number in range(accounts)]
        for name in names:
            await store.create_account(Account(name=name, password_hash=b"hash"))
        timed = reads(store, names[accounts // 2])
        for read in timed.values():  # warm up: connections, compiled statements' cache
            await cpu_per_call(read, 100)
        figures: dict[str, list[float]] = {label: [] for label in timed}
        for _ in range(rounds):
            for label, read in timed.items():
                figures[label].append(await cpu_per_call(read, calls))
        return figures
    finally:
        await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls of each read a round")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--accounts", type=int, default=1000)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        database_url = f"sqlite:///{directory}/fibs.db"
        upgrade_database(database_url)
        figures = asyncio.run(measure(database_url, arguments.accounts, arguments.calls,
                                      arguments.rounds))
    print(f"CPU per call, ms (median of {arguments.rounds} rounds of {arguments.calls}; "
          "min-max)")
    for label, per_call in figures.items():
        print(f"  {label:18} {statistics.median(per_call) * 1000:6.3f}"
              f"   ({min(per_call) * 1000:.3f}-{max(per_call) * 1000:.3f})")


if __name__ == "__main__":
    main()
