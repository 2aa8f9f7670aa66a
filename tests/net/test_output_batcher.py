"""The output batcher: one write per connection per round, replies at the next loop turn,
broadcasts paced to a share of the loop's time."""
from __future__ import annotations

import asyncio
import time

import pytest

from fibs_server.net import telnet
from fibs_server.net.telnet import BROADCAST_SHARE, FLUSH_SLICE, OutputBatcher, TelnetConnection
from fibs_server.net.telnet_codec import TelnetCodec
from tests.fake_clock import FakeClock
from tests.waiting import until

WRITE_SECONDS = 20e-6  # each write busy-waits this long, as a real send() syscall takes
FAN_OUT = 1500  # connections: 30 ms of writing, several broadcast callbacks


class FakeTransport:
    """Each write takes WRITE_SECONDS: busy-waited, or with a fake `clock` (the batcher's),
    moved on by that much."""

    def __init__(self, clock: FakeClock | None = None) -> None:
        self.writes: list[tuple[float, bytes]] = []
        self.clock = clock

    def is_closing(self) -> bool:
        return False

    def get_write_buffer_size(self) -> int:
        return 0

    def get_extra_info(self, name: str) -> object:
        return ("127.0.0.1", 4321) if name == "peername" else None

    def write(self, data: bytes) -> None:
        if self.clock is not None:
            self.writes.append((self.clock.time(), data))
            self.clock.advance(WRITE_SECONDS)
            return
        started = time.perf_counter()
        while time.perf_counter() - started < WRITE_SECONDS:
            pass
        self.writes.append((started, data))


def connections(count: int, clock: FakeClock | None = None
                ) -> tuple[list[FakeTransport], list[TelnetConnection]]:
    batcher = OutputBatcher()
    transports = [FakeTransport(clock) for _ in range(count)]
    return transports, [TelnetConnection(t, TelnetCodec(), batcher) for t in transports]  # type: ignore[arg-type]


async def drain(transports: list[FakeTransport], writes_each: int) -> None:
    await until(lambda: all(len(t.writes) >= writes_each for t in transports),
                "the output drained")


async def test_a_round_of_broadcasts_is_one_write_per_connection_in_order():
    transports, conns = connections(FAN_OUT)
    for number in range(5):  # five logins' notices, say
        for connection in conns:
            connection.send(f"7 user{number} user{number} logs in.\r\n", broadcast=True)
    await drain(transports, 1)
    await until(lambda: conns[0].batcher.idle, "the batcher has nothing left to write")
    expected = b"".join(f"7 user{n} user{n} logs in.\r\n".encode() for n in range(5))
    assert all(t.writes == [(t.writes[0][0], expected)] for t in transports)


async def test_broadcast_callbacks_leave_the_loop_most_of_its_time(monkeypatch):
    # The writing time is the fake clock's (each write WRITE_SECONDS of it), which the batcher
    # measures its slices on: a test process losing its core in the middle of a callback
    # (a loaded machine) changes nothing. The waits between callbacks are the loop's.
    clock = FakeClock()
    monkeypatch.setattr(telnet, "flush_clock", clock.time)
    loop = asyncio.get_running_loop()
    # Each broadcast callback's span: on the fake clock (its writing), and on the loop's.
    spans: list[tuple[float, float, float, float]] = []
    flush_broadcast = OutputBatcher._flush_broadcast

    def recorded(batcher: OutputBatcher) -> None:
        started, loop_started = clock.time(), loop.time()
        flush_broadcast(batcher)
        spans.append((started, clock.time(), loop_started, loop.time()))
    monkeypatch.setattr(OutputBatcher, "_flush_broadcast", recorded)
    transports, conns = connections(FAN_OUT, clock)
    for connection in conns:
        connection.send("5 someone ...\r\n6\r\n", broadcast=True)
    await drain(transports, 1)
    assert len(spans) > 3
    for started, ended, _, _ in spans:  # the last write began in the callback's slice
        # (the next callback's first write begins when this one ended, on the fake clock)
        begun = [t.writes[0][0] for t in transports if started <= t.writes[0][0] < ended]
        assert begun and max(begun) - started < FLUSH_SLICE
    # From each callback's start on the loop's clock (the writing took no time of it, only the
    # fake clock's), not from its end: a process preempted after the batcher set the next
    # callback's time would otherwise seem to have waited less.
    for (started, ended, loop_started, _), (_, _, next_started, _) in zip(spans, spans[1:]):
        busy, pause = ended - started, next_started - loop_started
        assert pause >= busy * (1 / BROADCAST_SHARE - 1) - 1e-9, (busy, pause)


async def test_a_reply_does_not_wait_for_the_broadcast_pace_and_keeps_the_order():
    transports, conns = connections(FAN_OUT)
    for connection in conns:
        connection.send("7 bob bob logs in.\r\n", broadcast=True)
    last = conns[-1]  # in the last broadcast callback, which waits for the others
    await asyncio.sleep(0)  # the first batch runs
    last.send("12 bob hello\r\n")  # a tell: not a broadcast
    await asyncio.sleep(0)
    assert [data for _, data in transports[-1].writes] == [b"7 bob bob logs in.\r\n12 bob hello\r\n"]
    assert not transports[FAN_OUT // 2].writes  # later callbacks still wait their turn
    await drain(transports, 1)
    await until(lambda: conns[0].batcher.idle, "the batcher has nothing left to write")
    assert len(transports[-1].writes) == 1  # the broadcast round found nothing left to write


def record_broadcast_waits(monkeypatch: pytest.MonkeyPatch,
                           loop: asyncio.AbstractEventLoop) -> list[float]:
    """The seconds ahead of the loop's time for which each broadcast callback is set."""
    waits: list[float] = []
    call_at = loop.call_at

    def recorded(when, callback, *args, **kwargs):  # type: ignore[no-untyped-def]
        if getattr(callback, "__name__", "") == "_flush_broadcast":
            waits.append(when - loop.time())
        return call_at(when, callback, *args, **kwargs)
    monkeypatch.setattr(loop, "call_at", recorded)
    return waits


async def test_a_round_waits_by_the_last_rounds_size_and_rides_on_replies(monkeypatch):
    # Shorter than the server's per connection, so that the test waits milliseconds.
    monkeypatch.setattr(telnet, "BROADCAST_HOLD_PER_CONNECTION", 20e-6)
    waits = record_broadcast_waits(monkeypatch, asyncio.get_running_loop())
    transports, conns = connections(FAN_OUT)
    batcher = conns[0].batcher
    for connection in conns:
        connection.send("7 bob bob logs in.\r\n", broadcast=True)
    await drain(transports, 1)
    await until(lambda: batcher.idle, "the first round is over")
    assert waits[0] <= 0  # after no round, the first waits for nothing
    first_round_callbacks = len(waits)
    for connection in conns:
        connection.send("7 carol carol logs in.\r\n", broadcast=True)
    # The last round went to FAN_OUT connections: this one waits for FAN_OUT holds (30 ms),
    # or for the share's pause if that is longer.
    assert waits[first_round_callbacks] >= FAN_OUT * 20e-6 - 1e-3
    conns[0].send("12 bob hello\r\n")  # a tell before the round: the login notice rides on it
    await asyncio.sleep(0)
    assert transports[0].writes[1][1] == b"7 carol carol logs in.\r\n12 bob hello\r\n"
    assert not transports[1].writes[1:]  # the others wait for the round
    await drain(transports, 2)
    await until(lambda: batcher.idle, "the second round is over")
    assert len(transports[0].writes) == 2  # the round found nothing left for the first one
    assert all(t.writes[1][1] == b"7 carol carol logs in.\r\n" for t in transports[1:])


async def test_with_few_online_the_hold_is_milliseconds(monkeypatch):
    clock = FakeClock()  # the writing's time, so that the share's pause stays below the hold
    monkeypatch.setattr(telnet, "flush_clock", clock.time)
    waits = record_broadcast_waits(monkeypatch, asyncio.get_running_loop())
    transports, conns = connections(10, clock)
    for round_number in range(3):
        for connection in conns:
            connection.send(f"7 u{round_number} u{round_number} logs in.\r\n", broadcast=True)
        await drain(transports, round_number + 1)
        await until(lambda: conns[0].batcher.idle, "the round is over")
        assert all(len(t.writes) == round_number + 1 for t in transports)
    assert len(waits) == 3  # one callback a round
    assert waits[0] <= 0 and all(0 < wait <= 10 * telnet.BROADCAST_HOLD_PER_CONNECTION
                                 for wait in waits[1:])


async def test_bytes_sent_as_they_go_on_the_wire_keep_their_place_among_the_text():
    """The who-list a login gets is bytes prepared once (`send_wire`): written as they are,
    in order with the text around them, which is filtered as ever; one write."""
    transports, (connection,) = connections(1, FakeClock())
    connection.send("1 alice\x1b\r\n")
    connection.send_wire(b"5 bob - -\r\n5 carol - -\r\n")
    connection.send("6\r\n\u2603")
    await drain(transports, 1)
    assert [data for _, data in transports[0].writes] == [
        b"1 alice\r\n5 bob - -\r\n5 carol - -\r\n6\r\n?"]
    connection.send("7 dave\r\n")  # and text alone after it, as before
    await drain(transports, 2)
    assert transports[0].writes[1][1] == b"7 dave\r\n"


async def test_a_broadcast_prepared_once_is_written_as_it_is_to_every_connection():
    """A notice encoded once for everyone (`send_wire(..., broadcast=True)`) goes out in the
    broadcast round, the same bytes object to each connection (no copy, no encoding per
    connection); with text queued before it, in one write after that text."""
    transports, conns = connections(3, FakeClock())
    notice = b"7 dave dave logs in.\r\n5 dave - -\r\n6\r\n"
    conns[0].send("8 erin erin drops connection.\r\n", broadcast=True)
    for connection in conns:
        connection.send_wire(notice, broadcast=True)
    await drain(transports, 1)
    await until(lambda: conns[0].batcher.idle, "the batcher has nothing left to write")
    assert transports[0].writes[0][1] == b"8 erin erin drops connection.\r\n" + notice
    assert all(len(t.writes) == 1 and t.writes[0][1] is notice for t in transports[1:])
