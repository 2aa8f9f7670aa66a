"""The built-in expert against GNU Backgammon: `fibs-gnubg-bot` (gnubg 0-ply, its own
`external` board parser) invites bot_expert to one-point matches, one after another, on a
server in this process. Prints the score.

    .venv/bin/python bench/bots_vs_gnubg.py --matches 30 [--level expert] [--seed 1]
"""
from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

from fibs_server.app import FibsServer, ServerConfig
from fibs_server.lobby.bot_players import BotConfig

GNUBG_NAME = "gnubg"


async def play(matches: int, level: str, seed: int, directory: Path) -> None:
    config = ServerConfig(host="127.0.0.1", port=0, bcrypt_rounds=4, dice_seed=seed,
                          database_url=f"sqlite:///{directory / 'bench.db'}",
                          bots=BotConfig(think_time=0, time_budget=30))
    server = FibsServer(config)
    await server.start()
    store = server.store
    try:
        for played in range(matches):
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "fibs_server.gnubg_bot", "--host", "127.0.0.1",
                "--port", str(server.port), "--name", GNUBG_NAME, "--password", "secret",
                "--register", "--invite", f"bot_{level}", "1", "--log-level", "WARNING",
                stdin=asyncio.subprocess.DEVNULL)
            while len(await store.finished_matches(GNUBG_NAME, matches)) <= played:
                await asyncio.sleep(0.2)
            process.terminate()
            await process.wait()
        records = await store.finished_matches(GNUBG_NAME, matches)
        won = sum(record.winner == GNUBG_NAME for record in records)
        points = {name: sum(max(record.state["score"]) for record in records
                            if record.winner == name) for name in (GNUBG_NAME, f"bot_{level}")}
        print(f"{len(records)} one-point matches: gnubg 0-ply won {won}, bot_{level} won "
              f"{len(records) - won}; points won {points}; bot pool {server.bots.pool.counts}")
    finally:
        await server.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=30)
    parser.add_argument("--level", default="expert")
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        asyncio.run(play(arguments.matches, arguments.level, arguments.seed, Path(directory)))


if __name__ == "__main__":
    main()
