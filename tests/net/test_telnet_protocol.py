"""TelnetProtocol with a stand-in transport and lobby: which lines are served, in what order,
when the disconnect is handled, and how much work one read or one turn of the loop gets."""
from __future__ import annotations

import asyncio
import time

import pytest

from fibs_server.lobby.session import Stage
from fibs_server.net import telnet
from fibs_server.net.limits import MAX_UNREAD_BYTES, NetLimits
from fibs_server.net.telnet import AddressCounter, FrontEnd, TelnetProtocol


class StandInTransport(asyncio.Transport):
    def __init__(self, protocol: TelnetProtocol) -> None:
        super().__init__()
        self.protocol = protocol
        self.written = bytearray()
        self.closing = False
        self.paused = False

    def get_extra_info(self, name, default=None):
        return ("127.0.0.1", 4321) if name == "peername" else default

    def write(self, data) -> None:
        self.written += data

    def get_write_buffer_size(self) -> int:
        return 0

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        if not self.closing:
            self.closing = True
            asyncio.get_running_loop().call_soon(self.protocol.connection_lost, None)

    abort = close

    def pause_reading(self) -> None:
        self.paused = True

    def resume_reading(self) -> None:
        self.paused = False


class StandInSession:
    """Logs each line it is given; `bye` closes it; each line takes `seconds_per_line` (in
    await asyncio.sleep) or, with `busy`, that much CPU without giving the loop a turn."""

    def __init__(self, lobby: StandInLobby, connection) -> None:
        self.lobby = lobby
        self.connection = connection
        self.stage = Stage.ONLINE

    async def handle_line(self, line: str) -> None:
        self.lobby.log.append(line)
        if self.lobby.busy:
            time.sleep(self.lobby.seconds_per_line)
        else:
            await asyncio.sleep(self.lobby.seconds_per_line)
        if line == "bye":
            self.stage = Stage.CLOSED
            self.connection.close()

    def line_too_long(self) -> None:
        self.lobby.log.append("(too long)")


class StandInLobby:
    def __init__(self, seconds_per_line: float = 0.0, busy: bool = False) -> None:
        self.log: list[str] = []
        self.seconds_per_line = seconds_per_line
        self.busy = busy
        self.gone = asyncio.Event()

    def connect(self, connection) -> StandInSession:
        return StandInSession(self, connection)

    async def disconnected(self, session: StandInSession) -> None:
        self.log.append("(disconnected)")
        self.gone.set()


def open_connection(lobby: StandInLobby, front: FrontEnd | None = None
                    ) -> tuple[TelnetProtocol, StandInTransport]:
    front = front or FrontEnd(lobby, NetLimits(), AddressCounter(30))  # type: ignore[arg-type]
    protocol = TelnetProtocol(front)
    transport = StandInTransport(protocol)
    protocol.connection_made(transport)
    return protocol, transport


async def hang_up(protocol: TelnetProtocol, transport: StandInTransport, data: bytes) -> None:
    """`data` then the peer's end of file, as one read and the next."""
    protocol.data_received(data)
    transport.close()


async def test_lines_read_before_the_peer_hung_up_are_served_then_it_is_disconnected():
    lobby = StandInLobby(seconds_per_line=0.01)
    protocol, transport = open_connection(lobby)
    await hang_up(protocol, transport, b"move 8-5 6-5\r\nleave\r\nbye\r\n")
    await asyncio.wait_for(lobby.gone.wait(), 5)
    assert lobby.log == ["move 8-5 6-5", "leave", "bye", "(disconnected)"]


async def test_lines_after_the_session_closed_are_dropped():
    lobby = StandInLobby()
    protocol, transport = open_connection(lobby)
    protocol.data_received(b"who\r\nbye\r\nshout still here\r\n")
    await asyncio.wait_for(lobby.gone.wait(), 5)
    assert lobby.log == ["who", "bye", "(disconnected)"]


async def test_a_peer_that_hung_up_is_served_for_a_grace_at_most(monkeypatch):
    monkeypatch.setattr(telnet, "LOST_PEER_GRACE", 0.1)
    lobby = StandInLobby(seconds_per_line=0.02)
    front = FrontEnd(lobby, NetLimits(), AddressCounter(30))  # type: ignore[arg-type]
    protocol, transport = open_connection(lobby, front)
    started = time.monotonic()
    await hang_up(protocol, transport, b"password a:b:b\r\n" * 1000)
    await asyncio.sleep(0.05)
    # Until its last line is served, a gone peer still counts against its address.
    assert front.addresses._open["127.0.0.1"] == 1
    await asyncio.wait_for(lobby.gone.wait(), 5)
    assert time.monotonic() - started < 0.5
    assert 3 <= len(lobby.log) - 1 <= 10
    assert "127.0.0.1" not in front.addresses._open


async def test_a_run_of_empty_lines_is_served_as_one_and_a_single_one_as_itself():
    lobby = StandInLobby()
    protocol, transport = open_connection(lobby)
    protocol.data_received(b"\r\n")
    await asyncio.sleep(0.01)
    protocol.data_received(b"\r\n")
    await asyncio.sleep(0.01)
    protocol.data_received(b"time\r\n" + b"\r\n" * 1000 + b"\n" * 1000 + b"\r\x00" * 1000
                           + b"who\r\n" + b"\x00\x07\r\n" * 1000)
    await asyncio.sleep(0.01)
    assert lobby.log == ["", "", "time", "", "who", ""]


async def test_serving_lines_gives_the_loop_a_turn_every_few_milliseconds():
    lobby = StandInLobby(seconds_per_line=0.0001, busy=True)  # 20,000 lines: 2 s of CPU
    first, _ = open_connection(lobby)
    first.data_received(b"x\r\n" * 20_000)
    turns = []

    async def tick() -> None:
        while len(lobby.log) < 20_000:
            turns.append(time.monotonic())
            await asyncio.sleep(0)
    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.2)
    ticker.cancel()
    assert len(turns) >= 20, "the line worker kept the loop to itself"
    assert max(b - a for a, b in zip(turns, turns[1:])) < 0.02


async def test_one_read_of_telnet_commands_is_queued_not_decoded_at_once():
    """Work per read is bounded: a read is queued; its commands are decoded a chunk at a time
    by the line worker, between other connections' turns, and reading pauses meanwhile."""
    lobby = StandInLobby()
    protocol, transport = open_connection(lobby)
    protocol.data_received(b"\xff\xf1" * MAX_UNREAD_BYTES)  # twice the cap
    assert transport.paused
    protocol.data_received(b"who\r\n")
    for _ in range(1000):
        if lobby.log:
            break
        await asyncio.sleep(0.001)
    assert lobby.log == ["who"]
    assert not transport.paused
