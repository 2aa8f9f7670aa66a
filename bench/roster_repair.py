"""What a blip of one node's bus costs in lines to its users and letters on the bus: node a
has --remote users, node b --local CLIP users (two lobbies in this process, tests/lobby/
recording.py's, joined by a bus that encodes and decodes every letter as Redis carries it).
Node b hears nothing for a while, during which --missed of a's users change their who-line;
then b's bus comes back (`Attendance.rejoined`, as after a resubscription). Prints the lines
each CLIP user on b and on a was sent, and the letters and bytes the bus carried.

    .venv/bin/python bench/roster_repair.py --remote 1000 --local 100 --missed 10

Run it with another checkout first on the path (`PYTHONPATH=/path/to/checkout`, that
checkout's tests/ included) for its figures.
"""
from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from fibs_server.lobby.lobby import Lobby
from tests.lobby.recording import RecordingConnection, logged_in, recording_lobby
from tests.lobby.test_nodes import Wire


async def node(wire: Wire, name: str, folder: Path) -> Lobby:
    (folder / name).mkdir()
    lobby, _ = await recording_lobby(folder / name)
    lobby.config.node_id = name
    lobby.attendance.messenger.bus = wire.bus_of(name, lobby.deliver)
    return lobby


async def main(arguments: argparse.Namespace) -> None:
    wire = Wire()
    with tempfile.TemporaryDirectory() as folder:
        a, b = await node(wire, "a", Path(folder)), await node(wire, "b", Path(folder))
        heard: dict[str, list[RecordingConnection]] = {"a": [], "b": []}
        for lobby, prefix, count in ((a, "ra", arguments.remote), (b, "lb", arguments.local)):
            for number in range(count):
                session, connection = await logged_in(lobby, f"{prefix}{number}")
                session.clip = True
                heard[lobby.config.node_id].append(connection)
        for connections in heard.values():
            for connection in connections:
                connection.lines()
        for lobby in (a, b):  # a heartbeat each: the steady state
            lobby.attendance.check_in()
        deliver_to_b = wire.nodes.pop("b")
        for number in range(arguments.missed):
            session = a.attendance.users.online[f"ra{number}"]
            session.away_message = "back soon"
            a.attendance.broadcast_who(session)
        for connections in heard.values():
            for connection in connections:
                connection.lines()
        wire.nodes["b"] = deliver_to_b
        wire.letters = wire.bytes = 0
        b.attendance.rejoined()
        for _ in range(10):  # what the letters started runs (takeovers, seats' jobs)
            await asyncio.sleep(0)
        for name, connections in heard.items():
            lines = [len(connection.lines()) for connection in connections]
            print(f"node {name}: {sum(lines) / len(lines):.1f} lines per CLIP user "
                  f"({len(lines)} users)")
        print(f"bus: {wire.letters} letters, {wire.bytes} bytes")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--remote", type=int, default=1000, help="users on node a")
    parser.add_argument("--local", type=int, default=100, help="CLIP users on node b")
    parser.add_argument("--missed", type=int, default=10,
                        help="a's users whose who-line changes while b hears nothing")
    asyncio.run(main(parser.parse_args()))
