"""What telling everyone online costs the event loop.

Logs --online CLIP users into a lobby (tests/lobby/recording.py's store, each user's
connection the server's own QueuedConnection over a transport that takes the bytes and drops
them, or with --sockets a loopback TCP socket) and times, --times times each, the two notices
every match's end sends to everyone: a user's who-line (`Lobby.broadcast_who`) and the
match's report. What is timed is the queueing for every listener, done at once in one
callback. Then the whole end of a 1-point match (one player resigns, the other accepts:
stored, rated, told, and written once the batcher has held and paced the round), as the
event loop's thread's CPU time (the store's writer thread not counted).

    .venv/bin/python bench/fan_out.py --online 2000 --times 30 [--sockets]
"""
from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fibs_server.lobby.nodes.bus import notice  # noqa: E402
from fibs_server.lobby.ports.accounts import Account  # noqa: E402
from fibs_server.lobby.presence.session import Session  # noqa: E402
from fibs_server.net.telnet import OutputBatcher, QueuedConnection  # noqa: E402
from fibs_server.rules.events import WinKind  # noqa: E402
from tests.lobby.recording import recording_lobby  # noqa: E402


class DroppingTransport:
    """The part of an asyncio transport a QueuedConnection uses; what is written is dropped."""

    def is_closing(self) -> bool:
        return False

    def write(self, data: bytes) -> None:
        pass

    def get_write_buffer_size(self) -> int:
        return 0

    def get_extra_info(self, name: str, default: object = None) -> object:
        return ("127.0.0.1", 4321) if name == "peername" else default

    def close(self) -> None:
        pass

    def abort(self) -> None:
        pass


async def over_sockets(sessions: list[Session]) -> list[socket.socket]:
    """Each session's connection writes to a loopback TCP socket from now on; the peers."""
    loop = asyncio.get_running_loop()
    peers = []
    with socket.create_server(("127.0.0.1", 0), backlog=len(sessions)) as listener:
        for session in sessions:
            peers.append(socket.create_connection(listener.getsockname()))
            accepted, _ = listener.accept()
            transport, _ = await loop.connect_accepted_socket(asyncio.Protocol, accepted)
            assert isinstance(session.connection, QueuedConnection)
            session.connection.transport = transport  # type: ignore[assignment]
    return peers


async def written(batcher: OutputBatcher) -> None:
    # A coarse poll (not tests/waiting.py's 2 ms): its wake-ups over a held round would count
    # in the thread's CPU time measured around it.
    while not batcher.idle:
        await asyncio.sleep(0.05)


async def measure(online: int, times: int, sockets: bool
                  ) -> tuple[list[float], list[float], list[float]]:
    with tempfile.TemporaryDirectory() as directory:
        lobby, store = await recording_lobby(Path(directory), *[(3, 1)] * times)  # openings
        batcher = OutputBatcher()
        sessions: list[Session] = []
        for number in range(online):
            account = Account(name=f"user{number}", password_hash=b"-")
            await lobby.accounts.create_account(account)
            session = lobby.connect(QueuedConnection(DroppingTransport(),  # type: ignore[arg-type]
                                                     batcher))
            session.prompts = False
            session.clip = True
            await lobby.log_in(session, account)
            sessions.append(session)
        await written(batcher)  # the logins' own notices
        peers = await over_sockets(sessions) if sockets else []
        who_lines, reports = [], []
        for number in range(times):
            started = time.perf_counter()
            lobby.broadcast_who(sessions[number])
            who_lines.append(time.perf_counter() - started)
            report = notice([f"user{number} wins a 1 point match against user{number + 1}  1-0 ."],
                            audience="report", broadcast=True)
            started = time.perf_counter()
            lobby.deliver(None, report)
            reports.append(time.perf_counter() - started)
            await written(batcher)  # before the next
        ends = []
        for first, second in zip(sessions[:2 * times:2], sessions[1:2 * times:2]):
            await lobby.matches.start_match(first, second, 1)
            await lobby.matches.act(first,
                                    lambda match, player: match.resign(player, WinKind.SINGLE))
            await written(batcher)
            started = time.thread_time()
            await lobby.matches.act(second, lambda match, player: match.accept(player))
            await written(batcher)  # in the batcher's paced slices, after its hold
            ends.append(time.thread_time() - started)
        await store.close()
        for peer in peers:
            peer.close()
    return who_lines, reports, ends


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--online", type=int, default=2000)
    parser.add_argument("--times", type=int, default=30)
    parser.add_argument("--sockets", action="store_true")
    arguments = parser.parse_args()
    who_lines, reports, ends = asyncio.run(measure(arguments.online, arguments.times,
                                                   arguments.sockets))
    for name, seconds in (("who-line", who_lines), ("report", reports), ("match end", ends)):
        print(f"{name:9} to {arguments.online} online: median "
              f"{statistics.median(seconds) * 1000:.2f} ms, max {max(seconds) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
