"""Store benchmark: the cost of saving an unlimited match after each action, early and late.

Plays one unlimited match with seeded random actions (the rules engine, no server) and, as
the lobby does, stores `Match.to_dict()` after every action; reports the CPU time (all the
process's threads: the store writes in one of its own), the wall time, and the bytes of the
values the store's statements send to the database (JSON text included) per save, during
game 1 and during the last game.

    .venv/bin/python bench/match_saves.py [--games 50] [--postgres-server URL]

It uses a temporary SQLite file (synchronous=FULL, as the server), or with --postgres-server
(e.g. postgresql://postgres@127.0.0.1:5432/postgres) a scratch database it creates on that
server and drops afterwards.
"""
from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg
from sqlalchemy import event

from fibs_server.lobby.ports.accounts import Account
from fibs_server.rules.dice import SeededDice
from fibs_server.rules.match import Match, Phase
from fibs_server.store import SqlStore, upgrade_database_async

SEED = 1


def random_action(match: Match, rng: random.Random) -> None:
    """One action the rules allow; no doubles or resignations, so games stay ordinary."""
    if match.phase is Phase.BETWEEN_GAMES:
        for player in (0, 1):
            if player not in match.joined:
                match.join(player)
    elif match.phase is Phase.ROLL_OR_DOUBLE:
        match.roll(match.turn)
    else:
        match.move(match.turn, rng.choice(match.legal_plays()))


async def measure(url: str, games: int) -> dict[int, list[tuple[float, float, int]]]:
    """Per measured game (1 and `games`), each save's (CPU seconds, wall seconds, bytes)."""
    await upgrade_database_async(url)
    store = await SqlStore.open(url)
    sent = [0]

    @event.listens_for(store._writes.engine, "before_cursor_execute")
    def count_bytes(_connection, _cursor, _statement, parameters, _context, executemany):
        rows = parameters if executemany else [parameters]
        sent[0] += sum(len(value) for row in rows for value in row if isinstance(value, str))

    try:
        for name in ("alice", "bob"):
            await store.create_account(Account(name=name, password_hash=b"x"))
        rng = random.Random(SEED)
        match = Match(None, SeededDice(SEED))
        match.start()
        match_id = await store.create_match("alice", "bob", None, match.to_dict())
        saves: dict[int, list[tuple[float, float, int]]] = {1: [], games: []}
        while match.game_number <= games:
            random_action(match, rng)
            sent[0] = 0
            cpu, wall = time.process_time(), time.perf_counter()
            await store.save_match_state(match_id, match.to_dict())
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            if match.game_number in saves and match.phase is not Phase.BETWEEN_GAMES:
                saves[match.game_number].append((cpu, wall, sent[0]))
        return saves
    finally:
        await store.close()


@asynccontextmanager
async def scratch_postgres_database(server_url: str) -> AsyncIterator[str]:
    name = f"fibs_bench_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(server_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        yield f"{server_url.rpartition('/')[0]}/{name}"
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def measure_on(postgres_server: str | None, games: int
                     ) -> dict[int, list[tuple[float, float, int]]]:
    if postgres_server:
        async with scratch_postgres_database(postgres_server) as url:
            return await measure(url, games)
    with tempfile.TemporaryDirectory() as folder:
        return await measure(f"sqlite:///{Path(folder) / 'bench.db'}", games)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--postgres-server")
    args = parser.parse_args()
    saves = asyncio.run(measure_on(args.postgres_server, args.games))
    print(f"{'game':>5} {'saves':>6} {'CPU ms/save':>12} {'wall ms/save':>13} "
          f"{'KB sent/save':>13}")
    for game, measured in saves.items():
        cpu, wall, size = zip(*measured)
        print(f"{game:>5} {len(measured):>6} {statistics.mean(cpu) * 1000:>12.2f} "
              f"{statistics.mean(wall) * 1000:>13.2f} {statistics.mean(size) / 1024:>13.1f}")


if __name__ == "__main__":
    main()
