"""TelnetProtocol with a stand-in transport and lobby: which lines are served, in what order,
when the disconnect is handled, and how much work one read or one turn of the loop gets."""
from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest

from fibs_server.lobby.presence.session import Stage
from fibs_server.net import telnet
from fibs_server.net.limits import MAX_UNREAD_BYTES, NetLimits
from fibs_server.net.telnet import AddressCounter, FrontEnd, TelnetProtocol
from tests.fake_clock import FakeClock
from tests.waiting import DEADLINE, until


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
    await asyncio.sleep) or, with `busy`, that much CPU without giving the loop a turn. On the
    lobby's fake clock (the line worker's too) the seconds pass there, not in real time."""

    def __init__(self, lobby: StandInLobby, connection) -> None:
        self.lobby = lobby
        self.connection = connection
        self.stage = Stage.ONLINE
        self.name = "alice"
        self.incoming = self  # it takes the lines itself, as a session's Incoming does

    async def handle_line(self, line: str) -> None:
        self.lobby.log.append(line)
        if self.lobby.observe is not None:
            self.lobby.observed.append(self.lobby.observe())
        if self.lobby.clock is not None:
            self.lobby.clock.advance(self.lobby.seconds_per_line)
            if not self.lobby.busy:
                await asyncio.sleep(0)
        elif self.lobby.busy:
            time.sleep(self.lobby.seconds_per_line)
        else:
            await asyncio.sleep(self.lobby.seconds_per_line)
        if line == "bye":
            self.stage = Stage.CLOSED
            self.connection.close()

    def line_too_long(self) -> None:
        self.lobby.log.append("(too long)")


class StandInLobby:
    def __init__(self, seconds_per_line: float = 0.0, busy: bool = False,
                 clock: FakeClock | None = None) -> None:
        self.clock = clock
        self.log: list[str] = []
        self.observe: Callable[[], object] | None = None  # asked at each line served
        self.observed: list[object] = []
        self.seconds_per_line = seconds_per_line
        self.busy = busy
        self.gone = asyncio.Event()

    def connect(self, connection) -> StandInSession:
        return StandInSession(self, connection)

    async def disconnected(self, session: StandInSession) -> None:
        self.log.append("(disconnected)")
        self.gone.set()


@pytest.fixture
def fake_clock(monkeypatch) -> FakeClock:
    """The clock the line workers measure their slices and a lost peer's grace on."""
    clock = FakeClock()
    monkeypatch.setattr(telnet, "serving_clock", clock.time)
    return clock


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
    await asyncio.wait_for(lobby.gone.wait(), DEADLINE)
    assert lobby.log == ["move 8-5 6-5", "leave", "bye", "(disconnected)"]


async def test_lines_after_the_session_closed_are_dropped():
    lobby = StandInLobby()
    protocol, transport = open_connection(lobby)
    protocol.data_received(b"who\r\nbye\r\nshout still here\r\n")
    await asyncio.wait_for(lobby.gone.wait(), DEADLINE)
    assert lobby.log == ["who", "bye", "(disconnected)"]


async def test_a_peer_that_hung_up_is_served_for_a_grace_at_most(monkeypatch, fake_clock):
    monkeypatch.setattr(telnet, "LOST_PEER_GRACE", 0.1)
    lobby = StandInLobby(seconds_per_line=0.02, clock=fake_clock)
    front = FrontEnd(lobby, NetLimits(), AddressCounter(30))  # type: ignore[arg-type]
    protocol, transport = open_connection(lobby, front)
    # Until its last line is served, a gone peer still counts against its address.
    lobby.observe = lambda: (protocol.lost_at is not None,
                             front.addresses._open.get("127.0.0.1"))
    started = fake_clock.time()
    await hang_up(protocol, transport, b"password a:b:b\r\n" * 1000)
    await asyncio.wait_for(lobby.gone.wait(), DEADLINE)
    assert (True, 1) in lobby.observed and all(open == 1 for _, open in lobby.observed)
    assert fake_clock.time() - started < 0.5
    assert 3 <= len(lobby.log) - 1 <= 10
    assert "127.0.0.1" not in front.addresses._open


async def test_a_run_of_empty_lines_is_served_as_one_and_a_single_one_as_itself():
    lobby = StandInLobby()
    protocol, transport = open_connection(lobby)

    def all_served() -> bool:
        return protocol.worker is None and not protocol.unread

    protocol.data_received(b"\r\n")
    await until(all_served, "the first empty line served")
    protocol.data_received(b"\r\n")
    await until(all_served, "the second empty line served")
    protocol.data_received(b"time\r\n" + b"\r\n" * 1000 + b"\n" * 1000 + b"\r\x00" * 1000
                           + b"who\r\n" + b"\x00\x07\r\n" * 1000)
    await until(all_served, "the long read served")
    assert lobby.log == ["", "", "time", "", "who", ""]


async def test_serving_lines_gives_the_loop_a_turn_every_few_milliseconds(fake_clock):
    # 20,000 lines of 0.1 ms CPU each (on the fake clock: 2 s), none giving the loop a turn.
    lobby = StandInLobby(seconds_per_line=0.0001, busy=True, clock=fake_clock)
    # Unpaced: this counts the loop's turns; the pacing has tests/net/test_pacing.py.
    unpaced = NetLimits(commands_per_second=float("inf"),
                        address_commands_per_second=float("inf"))
    first, _ = open_connection(lobby, FrontEnd(lobby, unpaced, AddressCounter(30)))  # type: ignore[arg-type]
    first.data_received(b"x\r\n" * 20_000)
    turns = []

    async def tick() -> None:
        while len(lobby.log) < 20_000:
            turns.append(fake_clock.time())
            await asyncio.sleep(0)
    ticker = asyncio.create_task(tick())
    await until(lambda: len(lobby.log) == 20_000, "every line served")
    ticker.cancel()
    assert len(turns) >= 20, "the line worker kept the loop to itself"
    # A turn at least every SERVE_SLICE of serving (and the one line that crosses it).
    assert max(b - a for a, b in zip(turns, turns[1:])) <= telnet.SERVE_SLICE + 0.0002


async def test_one_read_of_telnet_commands_is_queued_not_decoded_at_once():
    """Work per read is bounded: a read is queued; its commands are decoded a chunk at a time
    by the line worker, between other connections' turns, and reading pauses meanwhile."""
    lobby = StandInLobby()
    protocol, transport = open_connection(lobby)
    protocol.data_received(b"\xff\xf1" * MAX_UNREAD_BYTES)  # twice the cap
    assert transport.paused
    protocol.data_received(b"who\r\n")
    await until(lambda: lobby.log, "the line after the commands served")
    assert lobby.log == ["who"]
    assert not transport.paused
