"""The telnet front end: an asyncio protocol per connection. `TelnetCodec` takes telnet
commands out of the byte stream; this module cuts the rest into 7-bit lines for the lobby and
writes the lobby's text back.

Nothing but text is sent on connect, as FIBS does: raw-socket CLIP clients must see nothing
else. The only option we speak is ECHO, around password prompts. A connection costs a
protocol, a transport and a session; a task exists only while it has lines to serve, so that
10,000 idle sessions stay small (docs/PERFORMANCE.md).
"""
from __future__ import annotations

import asyncio
import collections
import dataclasses
import logging
import time
from collections.abc import Coroutine
from typing import Any

from fibs_server.lobby.lobby import Lobby
from fibs_server.lobby.session import Session, Stage
from fibs_server.net.limits import (MAX_LINE_BYTES, MAX_UNREAD_BYTES, OUTPUT_BUFFER_CAP,
                                    TOO_MANY_CONNECTIONS, AddressCounter, NetLimits,
                                    peer_address, wire_bytes)
from fibs_server.net.telnet_codec import TelnetCodec

log = logging.getLogger(__name__)

READ_CHUNK = 4096  # bytes cut into lines at a time: a flood of short lines is not split at once
# Seconds of writing per batcher callback: a fixed 500 connections per callback took 8-17 ms
# when a login burst's bcrypt and client processes slowed every send() (docs/PERFORMANCE.md).
FLUSH_SLICE = 0.002
BROADCAST_SHARE = 0.25  # of the event loop's time, at most, spent writing broadcasts


def clean_line(raw: bytes) -> str:
    """FIBS is 7-bit: 8-bit bytes become `?`, control characters are dropped."""
    return "".join("?" if b > 126 else chr(b) for b in raw if b >= 32 or b == 9).replace("\t", " ")


class LineSplitter:
    """Cuts a byte stream into lines at LF (or the telnet NVT's CR NUL), bounding each line."""

    def __init__(self, max_bytes: int = MAX_LINE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._buffer = bytearray()
        self._discarding = False

    def feed(self, data: bytes) -> list[str | None]:
        """The complete lines in `data` (None for each line that was too long)."""
        self._buffer += data.replace(b"\r\x00", b"\n")
        lines: list[str | None] = []
        while True:
            end = self._buffer.find(b"\n")
            if end < 0:
                break
            raw = bytes(self._buffer[:end])
            del self._buffer[:end + 1]
            if self._discarding or len(raw) > self.max_bytes:
                self._discarding = False
                lines.append(None)
            else:
                lines.append(clean_line(raw))
        if len(self._buffer) > self.max_bytes:
            self._buffer.clear()
            self._discarding = True
        return lines


class OutputBatcher:
    """Writes text queued for connections other than the one being served (which
    `TelnetProtocol` flushes after each line), one write per connection however many lines it
    got meanwhile, in loop callbacks of at most FLUSH_SLICE seconds so that reading and
    replies interleave with a fan-out to 10,000 sessions.

    Two paces. Text for one user (a reply, an opponent's move, a tell) goes out at the loop's
    next turn: an opponent waiting for a move should not wait for a timer. Text that everyone
    gets (who-lines, login notices, match reports, shouts) goes out at a pace that keeps
    writing it to at most BROADCAST_SHARE of the loop's time: after each callback the next
    waits three times as long as that one took. At 10,000 online a burst of logins then costs
    each connection one write per round, not one per login; with few users the wait is
    microseconds. A connection's text is one queue in order; whichever pace comes first
    writes all of it."""

    def __init__(self) -> None:
        self._urgent: collections.deque[TelnetConnection] = collections.deque()
        self._broadcast: collections.deque[TelnetConnection] = collections.deque()
        self._broadcast_due = 0.0  # loop time before which no broadcast callback runs
        self._broadcast_scheduled = False

    def add(self, connection: TelnetConnection) -> None:
        if not self._urgent:
            asyncio.get_running_loop().call_soon(self._flush_urgent)
        self._urgent.append(connection)

    def add_broadcast(self, connection: TelnetConnection) -> None:
        self._broadcast.append(connection)
        if not self._broadcast_scheduled:
            self._broadcast_scheduled = True
            loop = asyncio.get_running_loop()
            loop.call_at(max(loop.time(), self._broadcast_due), self._flush_broadcast)

    def _flush_urgent(self) -> None:
        _flush_for_a_slice(self._urgent, "urgent_waiting")
        if self._urgent:
            asyncio.get_running_loop().call_soon(self._flush_urgent)

    def _flush_broadcast(self) -> None:
        loop = asyncio.get_running_loop()
        spent = _flush_for_a_slice(self._broadcast, "broadcast_waiting")
        self._broadcast_due = loop.time() + spent * (1 / BROADCAST_SHARE - 1)
        if self._broadcast:
            loop.call_at(self._broadcast_due, self._flush_broadcast)
        else:
            self._broadcast_scheduled = False


def _flush_for_a_slice(queue: collections.deque[TelnetConnection], waiting_flag: str) -> float:
    """Flush connections off `queue` (clearing the flag that marks them as in it) for at most
    FLUSH_SLICE seconds; the seconds spent."""
    started = time.perf_counter()
    deadline = started + FLUSH_SLICE
    while queue and time.perf_counter() < deadline:
        connection = queue.popleft()
        setattr(connection, waiting_flag, False)
        connection.flush()
    return time.perf_counter() - started


class TelnetConnection:
    """A lobby `Connection` over an asyncio transport. Text is queued and written by the
    batcher; telnet commands and closing write what is queued first, keeping the order."""

    __slots__ = ("transport", "codec", "batcher", "output_buffer_cap", "queued",
                 "urgent_waiting", "broadcast_waiting", "host")

    def __init__(self, transport: asyncio.Transport, codec: TelnetCodec, batcher: OutputBatcher,
                 output_buffer_cap: int = OUTPUT_BUFFER_CAP) -> None:
        self.transport = transport
        self.codec = codec
        self.batcher = batcher
        self.output_buffer_cap = output_buffer_cap
        self.queued: list[str] = []
        self.urgent_waiting = False  # in the batcher's queue for the next turn
        self.broadcast_waiting = False  # in its broadcast queue
        self.host = peer_address(transport)

    def send(self, text: str, broadcast: bool = False) -> None:
        # is_closing: true at once after abort(), and writes to an aborted transport would
        # only pile up asyncio warnings.
        if self.transport.is_closing():
            return
        # No cap here: the queue lasts one round of the batcher, and flush checks the peer.
        self.queued.append(text)
        if broadcast:
            if not (self.broadcast_waiting or self.urgent_waiting):
                self.broadcast_waiting = True
                self.batcher.add_broadcast(self)
        elif not self.urgent_waiting:
            self.urgent_waiting = True
            self.batcher.add(self)

    def flush(self) -> None:
        if self.queued and not self.transport.is_closing():
            # Cut off a peer that has not taken what was written before; not one that is
            # only about to get a lot at once (a who-list at 10,000 online is ~900 KB).
            if self.transport.get_write_buffer_size() > self.output_buffer_cap:
                self._cut_off()
                return
            text = "".join(self.queued)
            self.queued.clear()
            self.transport.write(wire_bytes(text))

    def send_telnet(self, command: bytes) -> None:
        self.flush()
        if not self.transport.is_closing():
            self.transport.write(command)

    def _cut_off(self) -> None:
        log.warning("closing %s: it stopped reading its output", self.host)
        self.queued.clear()
        self.transport.abort()  # connection_lost follows: the usual drop path saves the match

    def set_echo(self, server_echoes: bool) -> None:
        self.send_telnet(self.codec.echo(server_echoes))

    def close(self) -> None:
        self.flush()
        self.transport.close()


@dataclasses.dataclass
class FrontEnd:
    """What every connection of one listening server shares."""
    lobby: Lobby
    limits: NetLimits
    addresses: AddressCounter
    batcher: OutputBatcher = dataclasses.field(default_factory=OutputBatcher)
    # The running line-serving tasks: the event loop keeps only weak references.
    tasks: set[asyncio.Task] = dataclasses.field(default_factory=set)

    def run(self, work: Coroutine[Any, Any, None]) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task


class TelnetProtocol(asyncio.Protocol):
    """One peer: bytes in through the codec and the line splitter, lines served one at a time
    by a task that exists only while there are unread bytes; the session is told when the
    peer goes (after the line being served, if any)."""

    def __init__(self, front: FrontEnd) -> None:
        self.front = front
        self.session: Session | None = None  # None: refused, never a session
        self.unread = bytearray()
        self.worker: asyncio.Task | None = None
        self.lost = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        if not self.front.addresses.admit(peer_address(transport)):
            transport.write(wire_bytes(TOO_MANY_CONNECTIONS + "\r\n"))
            transport.close()
            return
        self.codec = TelnetCodec()
        self.splitter = LineSplitter(self.front.limits.max_line_bytes)
        self.connection = TelnetConnection(transport, self.codec, self.front.batcher,
                                           self.front.limits.output_buffer_cap)
        self.session = self.front.lobby.connect(self.connection)
        self.connection.flush()

    def data_received(self, data: bytes) -> None:
        if self.session is None or self.lost:
            return
        text, replies = self.codec.receive(data)
        if replies:
            self.connection.send_telnet(replies)
        if not text:
            return
        self.unread += text
        if len(self.unread) > MAX_UNREAD_BYTES:
            self.transport.pause_reading()  # resumed as the lines are served
        if self.worker is None:
            self.worker = self.front.run(self._serve_lines())

    async def _serve_lines(self) -> None:
        session = self.session
        assert session is not None
        try:
            while self.unread and not self.lost:
                chunk = bytes(self.unread[:READ_CHUNK])
                del self.unread[:READ_CHUNK]
                for line in self.splitter.feed(chunk):
                    # A peer that hung up gets no more work done: its queued lines (a flood
                    # of login attempts, say) are dropped with it.
                    if session.stage is Stage.CLOSED or self.transport.is_closing():
                        self.unread.clear()
                        break
                    if line is None:
                        session.line_too_long()
                    else:
                        await session.handle_line(line)
                self.connection.flush()  # the replies: without the batcher's delay
                if len(self.unread) <= MAX_UNREAD_BYTES // 2 and not self.transport.is_closing():
                    self.transport.resume_reading()
        finally:
            self.worker = None
            if self.lost:
                await self.front.lobby.disconnected(session)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.session is None:
            return
        self.lost = True
        self.unread.clear()
        self.front.addresses.release(self.connection.host)
        if self.worker is None:  # otherwise the worker does it after its line
            self.front.run(self.front.lobby.disconnected(self.session))


async def start_telnet_server(lobby: Lobby, host: str, port: int,
                              limits: NetLimits = NetLimits()) -> asyncio.Server:
    front = FrontEnd(lobby, limits, AddressCounter(limits.connections_per_address))
    return await asyncio.get_running_loop().create_server(
        lambda: TelnetProtocol(front), host, port)
