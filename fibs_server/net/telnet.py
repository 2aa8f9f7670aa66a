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
import re
import socket
import time
from collections.abc import Callable, Coroutine
from typing import Any

from fibs_server.lobby.clock import Clock, LoopClock
from fibs_server.lobby.lobby import Lobby
from fibs_server.lobby.presence.session import Session, Stage, wire_bytes
from fibs_server.net.limits import (
    LOST_PEER_GRACE,
    MAX_LINE_BYTES,
    MAX_UNREAD_BYTES,
    OUTPUT_BUFFER_CAP,
    TOO_MANY_CONNECTIONS,
    AddressCounter,
    ConnectionsElsewhere,
    NetLimits,
    Network,
    allowed,
    peer_address,
)
from fibs_server.net.listening import refuse_over_count_at_accept
from fibs_server.net.pacing import BYTES_PER_COMMAND, CommandPacer
from fibs_server.net.proxied import BalancerHeaders, HeaderWait
from fibs_server.net.telnet_codec import TelnetCodec

log = logging.getLogger(__name__)

STOP_SERVING_TIMEOUT = 5.0  # seconds a shutdown waits for cancelled line-serving tasks
READ_CHUNK = 4096  # bytes decoded and cut into lines at a time, whatever one read brought
# Seconds a connection's line worker serves before giving the loop a turn: lines that need no
# I/O (empty, unknown commands) would otherwise be served 64 KiB at a time.
SERVE_SLICE = 0.002
# What a line worker's slices and a lost peer's grace are measured on (tests put a fake clock
# here: tests/net/test_telnet_protocol.py).
serving_clock: Callable[[], float] = time.monotonic
# Seconds of writing per batcher callback: a fixed 500 connections per callback took 8-17 ms
# when a login burst's bcrypt and client processes slowed every send() (docs/PERFORMANCE.md).
FLUSH_SLICE = 0.002
# What the batcher's slices are measured on (tests put a fake clock here).
flush_clock: Callable[[], float] = time.perf_counter
BROADCAST_SHARE = 0.25  # of the event loop's time, at most, spent writing broadcasts
# A broadcast round starts this long after the first text for it, per connection the last
# round went to, and at most BROADCAST_HOLD_MAX seconds: meanwhile its text rides on the
# writes connections get for their own (a move, a reply) and later broadcasts join it. A
# write is ~5 us, so at 2,000 online a match's end (three notices to everyone) no longer
# costs the loop 10 ms of writes each time; with a few online the hold is milliseconds.
BROADCAST_HOLD_PER_CONNECTION = 0.0005
BROADCAST_HOLD_MAX = 1.0


# What clean_line drops (control characters but tab), and how it maps the rest.
_CONTROLS = bytes(b for b in range(32) if b != 9)
_SEVEN_BIT = bytes(32 if b == 9 else 63 if b > 126 else b for b in range(256))
_CONTROLS_BUT_LF = _CONTROLS.replace(b"\n", b"")
_EMPTY_LINES = re.compile(rb"\n\n+")


def clean_line(raw: bytes) -> str:
    """FIBS is 7-bit: 8-bit bytes become `?`, control characters are dropped."""
    return raw.translate(_SEVEN_BIT, _CONTROLS).decode("ascii")


def fold_empty_lines(text: bytes) -> bytes:
    """`text` with each run of lines that are empty once cleaned cut to one empty line (and
    control characters dropped, as clean_line would): a flood of them costs one line, in C."""
    text = text.replace(b"\r\x00", b"\n").translate(None, _CONTROLS_BUT_LF)
    return _EMPTY_LINES.sub(b"\n\n", text)


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

    @property
    def at_line_start(self) -> bool:
        """Nothing of the next line has come yet."""
        return not self._buffer and not self._discarding


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
    microseconds. A round waits before its first callback in proportion to the last round's
    size (BROADCAST_HOLD_PER_CONNECTION), so that what a busy connection is sent anyway carries
    it. A connection's text is one queue in order; whichever pace comes first writes all of
    it."""

    def __init__(self) -> None:
        self._urgent: collections.deque[QueuedConnection] = collections.deque()
        self._broadcast: collections.deque[QueuedConnection] = collections.deque()
        self._broadcast_due = 0.0  # loop time before which no broadcast callback runs
        self._broadcast_scheduled = False
        self._round_size = 0  # connections the broadcast round under way has gone to
        self._last_round_size = 0

    @property
    def idle(self) -> bool:
        """Nothing queued and no callback to come: no write follows."""
        return not (self._urgent or self._broadcast or self._broadcast_scheduled)

    def add(self, connection: QueuedConnection) -> None:
        if not self._urgent:
            asyncio.get_running_loop().call_soon(self._flush_urgent)
        self._urgent.append(connection)

    def add_broadcast(self, connection: QueuedConnection) -> None:
        self._broadcast.append(connection)
        if not self._broadcast_scheduled:
            self._broadcast_scheduled = True
            loop = asyncio.get_running_loop()
            hold = min(BROADCAST_HOLD_MAX, self._last_round_size * BROADCAST_HOLD_PER_CONNECTION)
            loop.call_at(max(loop.time() + hold, self._broadcast_due), self._flush_broadcast)

    def _flush_urgent(self) -> None:
        _flush_for_a_slice(self._urgent, "urgent_waiting")
        if self._urgent:
            asyncio.get_running_loop().call_soon(self._flush_urgent)

    def _flush_broadcast(self) -> None:
        loop = asyncio.get_running_loop()
        waiting = len(self._broadcast)
        spent = _flush_for_a_slice(self._broadcast, "broadcast_waiting")
        self._round_size += waiting - len(self._broadcast)
        self._broadcast_due = loop.time() + spent * (1 / BROADCAST_SHARE - 1)
        if self._broadcast:
            loop.call_at(self._broadcast_due, self._flush_broadcast)
        else:
            self._broadcast_scheduled = False
            self._last_round_size, self._round_size = self._round_size, 0


def _flush_for_a_slice(queue: collections.deque[QueuedConnection], waiting_flag: str) -> float:
    """Flush connections off `queue` (clearing the flag that marks them as in it) for at most
    FLUSH_SLICE seconds; the seconds spent."""
    started = flush_clock()
    deadline = started + FLUSH_SLICE
    while queue and flush_clock() < deadline:
        connection = queue.popleft()
        setattr(connection, waiting_flag, False)
        connection.flush()
    return flush_clock() - started


class QueuedConnection:
    """A lobby `Connection`'s output over an asyncio transport: text is queued and written by
    the batcher, one write of everything queued, framed by `frame` (telnet: as is; the
    WebSocket: one text frame). A peer that stops reading is cut off, and what it sent
    is no longer served (`cut_off`)."""

    __slots__ = ("transport", "batcher", "output_buffer_cap", "queued", "has_wire",
                 "urgent_waiting", "broadcast_waiting", "host", "cut_off")

    def __init__(self, transport: asyncio.Transport, batcher: OutputBatcher,
                 output_buffer_cap: int = OUTPUT_BUFFER_CAP, host: str | None = None) -> None:
        self.transport = transport
        self.batcher = batcher
        self.output_buffer_cap = output_buffer_cap
        self.queued: list[str | bytes] = []  # text, or bytes as `send_wire` gives them
        self.has_wire = False  # bytes among them
        self.urgent_waiting = False  # in the batcher's queue for the next turn
        self.broadcast_waiting = False  # in its broadcast queue
        self.host = peer_address(transport) if host is None else host
        self.cut_off = False

    def frame(self, data: bytes) -> bytes:
        """The bytes that carry `data` (7-bit text) on this transport."""
        return data

    def send(self, text: str, broadcast: bool = False) -> None:
        # is_closing: true at once after abort(), and writes to an aborted transport would
        # only pile up asyncio warnings.
        if self.transport.is_closing():
            return
        self._queue(text, broadcast)

    def send_wire(self, data: bytes, broadcast: bool = False) -> None:
        if not self.transport.is_closing():
            self.has_wire = True
            self._queue(data, broadcast)

    def _queue(self, text: str | bytes, broadcast: bool) -> None:
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
            queued = self.queued
            if self.has_wire:
                # Most often one part: a notice or broadcast encoded once for everyone, written
                # as it is (the same object to thousands of connections).
                first = queued[0]
                data = first if len(queued) == 1 and isinstance(first, bytes) else b"".join(
                    part if isinstance(part, bytes) else wire_bytes(part) for part in queued)
                self.has_wire = False
            else:
                data = wire_bytes("".join(queued))  # type: ignore[arg-type]
            queued.clear()
            self.transport.write(self.frame(data))

    def _cut_off(self) -> None:
        log.warning("closing %s: it stopped reading its output", self.host)
        self.cut_off = True
        self.queued.clear()
        self.has_wire = False
        self.transport.abort()  # connection_lost follows: the usual drop path saves the match

    def close(self) -> None:
        self.flush()
        self.transport.close()


class TelnetConnection(QueuedConnection):
    """A lobby `Connection` on the telnet port. Telnet commands write what is queued first,
    keeping the order."""

    __slots__ = ("codec",)

    def __init__(self, transport: asyncio.Transport, codec: TelnetCodec, batcher: OutputBatcher,
                 output_buffer_cap: int = OUTPUT_BUFFER_CAP, host: str | None = None) -> None:
        super().__init__(transport, batcher, output_buffer_cap, host)
        self.codec = codec

    def send_telnet(self, command: bytes) -> None:
        self.flush()
        if not self.transport.is_closing():
            self.transport.write(command)

    def set_echo(self, server_echoes: bool) -> None:
        self.send_telnet(self.codec.echo(server_echoes))


@dataclasses.dataclass
class FrontEnd:
    """What every connection of one listening server shares."""
    lobby: Lobby
    limits: NetLimits
    addresses: AddressCounter
    # The load balancers whose connections begin with a PROXY header (net/proxied.py).
    proxy_from: tuple[Network, ...] = ()
    batcher: OutputBatcher = dataclasses.field(default_factory=OutputBatcher)
    # The running line-serving tasks: the event loop keeps only weak references.
    tasks: set[asyncio.Task] = dataclasses.field(default_factory=set)
    pacer: CommandPacer = dataclasses.field(init=False)
    # What times PROXY headers: the lobby's clock (a test's fake one), or the loop's.
    clock: Clock = dataclasses.field(default_factory=LoopClock)
    balancer_headers: BalancerHeaders = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        self.pacer = CommandPacer(self.limits)
        self.balancer_headers = BalancerHeaders(self.clock)

    def from_balancer(self, host: str) -> bool:
        return bool(self.proxy_from) and allowed(host, self.proxy_from)

    def await_header(self, transport: asyncio.Transport,
                     arrived: Callable[[str, bytes], None]) -> HeaderWait:
        return HeaderWait(transport, self.clock, self.limits.proxy_header_timeout,
                          self.balancer_headers, arrived)

    def run(self, work: Coroutine[Any, Any, None]) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def stop_serving(self, timeout: float = STOP_SERVING_TIMEOUT) -> None:
        """At shutdown, once everyone is logged out: cancel the line-serving tasks still
        running (a registration waiting for its hash, say) and wait for them, so that none
        outlives the store it would write to (it would wait for it forever)."""
        for task in self.tasks:
            task.cancel()
        if self.tasks:
            await asyncio.wait(set(self.tasks), timeout=timeout)


class TelnetProtocol(asyncio.Protocol):
    """One peer: bytes in through the codec and the line splitter, served one line at a time
    by a task that exists only while there are unread bytes. Reads are only queued: the
    worker decodes them a chunk at a time and gives the loop a turn every SERVE_SLICE, so no
    flood holds the loop; the pacer (net/pacing.py) paces chunks and lines. When the peer
    goes, what it sent before is still served (a bot's `leave` and `bye` written just before
    it closes), within its burst and for LOST_PEER_GRACE seconds at most; then the session is
    told."""

    def __init__(self, front: FrontEnd) -> None:
        self.front = front
        self.session: Session | None = None  # None: refused, never a session
        self.header: HeaderWait | None = None  # a load balancer's header not yet in
        self.unread = bytearray()  # as read: telnet commands not yet decoded
        self.worker: asyncio.Task | None = None
        self.lost_at: float | None = None  # when the peer went, on serving_clock
        # The last line served was empty and nothing has come since in this read: more empty
        # lines continue its run.
        self.in_empty_lines = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        host = peer_address(transport)
        if self.front.from_balancer(host):
            self.header = self.front.await_header(transport, self._start)
        else:
            self._start(host, b"")

    def _start(self, host: str, rest: bytes) -> None:
        """The connection is `host`'s (the peer's, or the player a PROXY header named, with
        `rest` read after the header): counted, or refused at its count."""
        self.header = None
        if not self.front.addresses.admit(host):
            self.transport.write(wire_bytes(TOO_MANY_CONNECTIONS + "\r\n"))
            self.transport.close()
            return
        self.codec = TelnetCodec()
        self.splitter = LineSplitter(self.front.limits.max_line_bytes)
        self.connection = TelnetConnection(self.transport, self.codec, self.front.batcher,
                                           self.front.limits.output_buffer_cap, host)
        self.pace = self.front.pacer.pace(host)
        self.session = self.front.lobby.connect(self.connection)
        self.connection.flush()
        if rest:
            self.data_received(rest)

    def data_received(self, data: bytes) -> None:
        if self.header is not None:
            self.header.feed(data)
            return
        if self.session is None:
            return
        self.unread += data
        self.in_empty_lines = False  # a user's every Enter gets its answer; a flood's, one a read
        if len(self.unread) > MAX_UNREAD_BYTES:
            self.transport.pause_reading()  # resumed as the lines are served
        if self.worker is None:
            self.worker = self.front.run(self._serve_lines())

    async def _serve_lines(self) -> None:
        session = self.session
        assert session is not None
        slice_ends = serving_clock() + SERVE_SLICE
        try:
            while self.unread:
                chunk = bytes(self.unread[:READ_CHUNK])
                del self.unread[:READ_CHUNK]
                if not await self._take_turn(session, len(chunk) / BYTES_PER_COMMAND):
                    self.unread.clear()
                    break
                text, replies = self.codec.receive(chunk)
                if replies:
                    self.connection.send_telnet(replies)
                for line in self.splitter.feed(self._fold_empty_lines(text)):
                    if not (self._serves(session) and await self._take_turn(session, 1)):
                        self.unread.clear()
                        break
                    if line is None:
                        session.incoming.line_too_long()
                    else:
                        await session.incoming.handle_line(line)
                    slice_ends = await self._give_the_loop_a_turn_if_due(slice_ends)
                self.connection.flush()  # the replies: without the batcher's delay
                if len(self.unread) <= MAX_UNREAD_BYTES // 2 and not self.transport.is_closing():
                    self.transport.resume_reading()
                slice_ends = await self._give_the_loop_a_turn_if_due(slice_ends)
        finally:
            self.worker = None
            if self.lost_at is not None:
                await self._part()

    def _serves(self, session: Session) -> bool:
        """Whether the next line is served: not after `bye` or once cut off for not reading,
        and after a hang-up only for a while (a flood of throttled login attempts would take
        hours)."""
        if session.stage is Stage.CLOSED or self.connection.cut_off:
            return False
        return (self.lost_at is None
                or serving_clock() <= self.lost_at + LOST_PEER_GRACE)

    async def _take_turn(self, session: Session, cost: float) -> bool:
        return await self.pace.take_turn(session, self.connection, cost,
                                         gone=lambda: self.lost_at is not None)

    async def _give_the_loop_a_turn_if_due(self, slice_ends: float) -> float:
        """Once SERVE_SLICE is used up, flush the replies and let the loop run the others;
        when the next slice ends."""
        if serving_clock() < slice_ends:
            return slice_ends
        self.connection.flush()
        await asyncio.sleep(0)
        return serving_clock() + SERVE_SLICE

    def _fold_empty_lines(self, text: bytes) -> bytes:
        """`text` with runs of empty lines cut to one, across the chunks of a read too."""
        text = fold_empty_lines(text)
        at_line_start = self.splitter.at_line_start
        if at_line_start and text.startswith(b"\n"):
            text = text.lstrip(b"\n")
            if not self.in_empty_lines:
                text = b"\n" + text
        if text:
            self.in_empty_lines = text.endswith(b"\n\n") or (text == b"\n" and at_line_start)
        return text

    def connection_lost(self, exc: Exception | None) -> None:
        if self.header is not None:
            self.header.cancel()
        if self.session is None:
            return
        self.lost_at = serving_clock()
        if self.worker is None:  # otherwise the worker does it after the lines it has
            self.front.run(self._part())

    async def _part(self) -> None:
        """The peer is gone and its lines served. Its address counts it until now, so that
        hanging up cannot multiply the work one address gets done."""
        assert self.session is not None
        self.front.addresses.release(self.connection.host)
        await self.front.lobby.disconnected(self.session)


async def start_telnet_server(lobby: Lobby, listening: socket.socket,
                              limits: NetLimits = NetLimits(),
                              proxy_from: tuple[Network, ...] = (),
                              connections_elsewhere: ConnectionsElsewhere | None = None
                              ) -> tuple[asyncio.Server, FrontEnd]:
    """Serve telnet on `listening` (net/listening.py: it backs off when out of descriptors);
    connections from `proxy_from` begin with a PROXY header (net/proxied.py). With
    `connections_elsewhere` (several nodes) an address's connections are capped over all."""
    front = FrontEnd(lobby, limits, AddressCounter(limits.connections_per_address,
                                                   connections_elsewhere),
                     proxy_from, clock=lobby.config.clock)
    refuse_over_count_at_accept(listening, front.addresses,
                                wire_bytes(TOO_MANY_CONNECTIONS + "\r\n"),
                                limits.silent_refusal_seconds, exempt=front.from_balancer)
    server = await asyncio.get_running_loop().create_server(
        lambda: TelnetProtocol(front), sock=listening)
    return server, front
