"""The telnet front end: telnetlib3 parses telnet commands out of the byte stream; this module
cuts the rest into 7-bit lines for the lobby and writes the lobby's text back.

We use telnetlib3's `BaseServer`, which starts no option negotiation of its own: FIBS sends
nothing but text on connect, and raw-socket CLIP clients must see nothing else. The only option
we speak is ECHO, around password prompts.
"""
from __future__ import annotations

import asyncio
import collections
import logging

import telnetlib3
from telnetlib3.server_base import BaseServer
from telnetlib3.telopt import ECHO, WILL, WONT

from fibs_server.lobby.lobby import Lobby
from fibs_server.lobby.session import Stage
from fibs_server.net.limits import (MAX_LINE_BYTES, OUTPUT_BUFFER_CAP, TOO_MANY_CONNECTIONS,
                                    AddressCounter, NetLimits, peer_address, wire_bytes)

log = logging.getLogger(__name__)

READ_CHUNK = 4096
FLUSH_BATCH = 500  # connections written per loop callback: a broadcast to 10,000 never stalls it


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
    serve_connection flushes after each line): at the event loop's next turn, one write per
    connection however many lines it got meanwhile (every login sends a line to every CLIP
    session), at most FLUSH_BATCH connections per loop callback so that reading and replies
    interleave with a fan-out to 10,000 sessions. Not later than that: an opponent waiting
    for a move should not wait for a timer."""

    def __init__(self) -> None:
        self._waiting: collections.deque[TelnetConnection] = collections.deque()

    def add(self, connection: TelnetConnection) -> None:
        if not self._waiting:
            asyncio.get_running_loop().call_soon(self._flush_some)
        self._waiting.append(connection)

    def _flush_some(self) -> None:
        for _ in range(min(FLUSH_BATCH, len(self._waiting))):
            connection = self._waiting.popleft()
            connection.batched = False
            connection.flush()
        if self._waiting:
            asyncio.get_running_loop().call_soon(self._flush_some)


class TelnetConnection:
    """A lobby `Connection` over a telnetlib3 writer. Text is queued and written by the
    batcher; telnet commands and closing write what is queued first, keeping the order."""

    output_buffer_cap = OUTPUT_BUFFER_CAP  # serve_connection sets the server's own

    def __init__(self, writer: telnetlib3.TelnetWriter, batcher: OutputBatcher) -> None:
        self.writer = writer
        self.batcher = batcher
        self.queued: list[str] = []
        self.queued_size = 0
        self.batched = False  # waiting in the batcher
        self.host = peer_address(writer)

    def send(self, text: str) -> None:
        # is_closing, not connection_closed: true at once after abort(), and writes to an
        # aborted transport would only pile up asyncio warnings.
        if self.writer.is_closing():
            return
        # The transport's own buffer grows only in flush, which checks it: here the queue.
        self.queued_size += len(text)
        if self.queued_size > self.output_buffer_cap:
            self._cut_off()
            return
        if not self.batched:
            self.batched = True
            self.batcher.add(self)
        self.queued.append(text)

    def flush(self) -> None:
        if self.queued and not self.writer.is_closing():
            transport = self.writer.transport
            if (transport is not None and transport.get_write_buffer_size() + self.queued_size
                    > self.output_buffer_cap):
                self._cut_off()
                return
            text = "".join(self.queued)
            self.queued.clear()
            self.queued_size = 0
            self.writer.write(wire_bytes(text))

    def _cut_off(self) -> None:
        log.warning("closing %s: it stopped reading its output", self.host)
        self.queued.clear()
        self.queued_size = 0
        transport = self.writer.transport
        if transport is not None:
            transport.abort()  # the reader sees EOF: the usual drop path saves the match

    def set_echo(self, server_echoes: bool) -> None:
        self.flush()
        if server_echoes:
            # A peer that never answered the last WILL ECHO leaves it pending; ask again anyway.
            self.writer.pending_option[WILL + ECHO] = False
            self.writer.iac(WILL, ECHO)
        else:
            self.writer.iac(WONT, ECHO)

    def close(self) -> None:
        self.flush()
        self.writer.close()


async def serve_connection(lobby: Lobby, batcher: OutputBatcher,
                           reader: telnetlib3.TelnetReader,
                           writer: telnetlib3.TelnetWriter,
                           limits: NetLimits = NetLimits()) -> None:
    connection = TelnetConnection(writer, batcher)
    session = lobby.connect(connection)
    session.connection.output_buffer_cap = limits.output_buffer_cap
    splitter = LineSplitter(limits.max_line_bytes)
    try:
        connection.flush()
        while session.stage is not Stage.CLOSED:
            data = await reader.read(READ_CHUNK)
            if not data:
                break
            for line in splitter.feed(data):
                # A peer that hung up gets no more work done: its queued lines (a flood of
                # login attempts, say) are dropped with it.
                if session.stage is Stage.CLOSED or writer.is_closing():
                    break
                if line is None:
                    session.line_too_long()
                else:
                    await session.handle_line(line)
            connection.flush()  # the replies: without the batcher's delay
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        await lobby.disconnected(session)


async def start_telnet_server(lobby: Lobby, host: str, port: int,
                              limits: NetLimits = NetLimits()) -> telnetlib3.Server:
    addresses = AddressCounter(limits.connections_per_address)
    batcher = OutputBatcher()

    async def shell(reader: telnetlib3.TelnetReader, writer: telnetlib3.TelnetWriter) -> None:
        peer = peer_address(writer)
        if not addresses.admit(peer):
            writer.write(wire_bytes(TOO_MANY_CONNECTIONS + "\r\n"))
            writer.close()
            return
        # No SLC simulation (FIBS has no line editing): telnetlib3 then finds IAC bytes with
        # bytes.find instead of a Python loop over every byte, which garbage floods from a
        # few peers could keep busy for seconds.
        writer.slc_simulated = False
        try:
            await serve_connection(lobby, batcher, reader, writer, limits)
        finally:
            addresses.release(peer)

    return await telnetlib3.create_server(
        host, port, protocol_factory=BaseServer, shell=shell, encoding=False,
        connect_maxwait=0.0)
