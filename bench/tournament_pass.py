"""What the tournament director's own work costs, apart from the matches its players play: a
128-player Swiss on a server in this process (SQLite on --directory, the lobby's clock a
fake one, so that no pass runs but the ones timed), its players CLIP clients on sockets.

Timed, each from its start to its end (the store's threads and the loop's other work
included, nothing else running): the pass that starts the tournament (the field seeded,
round 1 paired and told, its 64 matches started and linked); passes while all 64 matches are
being played (what the director does every 5 s of a round); the pass that reads the 64
results, pairs round 2 and starts its matches.

    .venv/bin/python bench/tournament_pass.py [--players 128] [--passes 50]
"""
from __future__ import annotations

import argparse
import asyncio
import dataclasses
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.e2e

from fibs_server.lobby.ports.tournament_records import TournamentSpec  # noqa: E402
from fibs_server.rules.tournament import Entrant, Format, RoundTerms  # noqa: E402
from tests.e2e.client import FibsClient  # noqa: E402
from tests.e2e.conftest import ServerHarness  # noqa: E402

LOGINS_AT_ONCE = 16


class Player:
    """A client that reads everything, accepts its opponent's resignation and notes that it
    won."""

    def __init__(self, client: FibsClient) -> None:
        self.client = client
        self.won = asyncio.Event()
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        while True:
            line = await self.client.read_line(3600)
            if line.endswith("wants to resign. You will win 1 point. Type 'accept' or "
                             "'reject'."):
                await self.client.send("accept")
            elif line.startswith("You win the 1 point match"):
                self.won.set()


async def timed(action) -> float:
    started = time.perf_counter()
    await action
    return (time.perf_counter() - started) * 1000


async def measure(players: int, passes: int, directory: Path) -> None:
    harness = ServerHarness(f"sqlite:///{directory / 'pass.db'}")
    harness.use_fake_clock()
    # Every player comes from 127.0.0.1: the per-address limits lifted, as bench/load.py does.
    headroom = players + 10
    harness.config.net_limits = dataclasses.replace(
        harness.config.net_limits, connections_per_address=headroom,
        address_command_burst=1_000_000, address_commands_per_second=1_000_000.0)
    harness.config.abuse_limits = dataclasses.replace(
        harness.config.abuse_limits, address_free_failures=headroom,
        hash_checks_per_address=headroom, hash_checks_waiting=headroom,
        known_good_checks_per_address=headroom)
    await harness.start()
    server = harness.server
    assert server is not None and server.director is not None
    names = [f"p{number:03d}" for number in range(players)]
    for name in names:
        await harness.register(name)
    clients: dict[str, Player] = {}
    for start in range(0, players, LOGINS_AT_ONCE):
        batch = names[start:start + LOGINS_AT_ONCE]
        for name, client in zip(batch, await asyncio.gather(
                *(harness.login_clip(name) for name in batch)), strict=True):
            clients[name] = Player(client)
    spec = TournamentSpec(creator=names[0], format=Format.SWISS, swiss_rounds=7,
                          entry_cap=players, start_when=players, terms=RoundTerms(length=1))
    store = server.store
    tournament_id = (await store.create_tournament(spec)).tournament_id
    for number, name in enumerate(names):
        await store.add_entrant(tournament_id, Entrant(name, 1500.0 + number))
    director = server.director
    lobby = server.lobby
    assert lobby is not None

    start_ms = await timed(director.run_pass())
    running = len(lobby.match_table.running_matches())
    playing_ms = [await timed(director.run_pass()) for _ in range(passes)]

    record = await store.tournament(tournament_id)
    assert record is not None and record.played is not None
    for pairing in record.played.current.pairings:
        assert pairing.second is not None
        await clients[pairing.second].client.send("resign n")
    await asyncio.gather(*(clients[pairing.first].won.wait()
                           for pairing in record.played.current.pairings))
    next_ms = await timed(director.run_pass())
    record = await store.tournament(tournament_id)
    assert record is not None and record.played is not None
    print(f"{players}-player Swiss, {running} matches started by the first pass")
    print(f"  the pass that starts it (round 1 paired and told, its matches started): "
          f"{start_ms:.0f} ms")
    print(f"  a pass while its {running} matches are played ({passes} passes): median "
          f"{statistics.median(playing_ms):.2f} ms, max {max(playing_ms):.2f} ms")
    print(f"  the pass that reads round 1's results and starts round "
          f"{record.played.current.number}: {next_ms:.0f} ms")
    for player in clients.values():
        player.task.cancel()
    await harness.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=128)
    parser.add_argument("--passes", type=int, default=50)
    parser.add_argument("--directory", default="/dev/shm", help="where the SQLite file goes")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=options.directory) as directory:
        asyncio.run(measure(options.players, options.passes, Path(directory)))


if __name__ == "__main__":
    main()
