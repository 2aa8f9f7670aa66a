"""A TCP proxy between a browser and the server that a test can cut (every connection closed,
new ones closed at once) or black-hole (nothing forwarded either way and the connections kept
open, as a network that went silent). Chromium's offline mode does not close an open
WebSocket, so a page's reconnecting is tried through this instead."""
from __future__ import annotations

import asyncio
import contextlib
import enum


class Network(enum.Enum):
    UP = "up"
    CUT = "cut"
    BLACK_HOLE = "black hole"


class _Pair:
    """One browser connection and its connection to the server."""

    def __init__(self, client: asyncio.StreamWriter) -> None:
        self.client = client
        self.server: asyncio.StreamWriter | None = None
        self.silent = False  # black-holed: what either side sends is dropped

    def abort(self) -> None:
        for writer in (self.client, self.server):
            if writer is not None:
                writer.transport.abort()


class CuttingProxy:
    """Listens on 127.0.0.1 (`start`: its port) and forwards to `target_port` there."""

    def __init__(self) -> None:
        self.target_port: int | None = None
        self.network = Network.UP
        self.accepted = 0  # connections the browser opened, in any state of the network
        self.refused = 0  # of those, closed at once because the network was cut
        self._pairs: set[_Pair] = set()
        self._server: asyncio.Server | None = None

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        return self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        for pair in list(self._pairs):
            pair.abort()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    def cut(self) -> None:
        self.network = Network.CUT
        for pair in list(self._pairs):
            pair.abort()

    def black_hole(self) -> None:
        """From now on nothing goes through, on the open connections too (they stay silent
        after `restore`, as behind a router that lost their state)."""
        self.network = Network.BLACK_HOLE
        for pair in self._pairs:
            pair.silent = True

    def restore(self) -> None:
        self.network = Network.UP

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        if self.network is Network.CUT:
            self.refused += 1
            writer.transport.abort()
            return
        pair = _Pair(writer)
        pair.silent = self.network is Network.BLACK_HOLE
        self._pairs.add(pair)
        try:
            assert self.target_port is not None
            server_reader, pair.server = await asyncio.open_connection("127.0.0.1",
                                                                       self.target_port)
            await asyncio.gather(self._pump(reader, pair.server, pair),
                                 self._pump(server_reader, writer, pair))
        except (ConnectionError, OSError):
            pass
        finally:
            self._pairs.discard(pair)
            pair.abort()

    @staticmethod
    async def _pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter,
                    pair: _Pair) -> None:
        while data := await source.read(65536):
            if not pair.silent:
                sink.write(data)
                with contextlib.suppress(ConnectionError):
                    await sink.drain()
        pair.abort()  # one side closed: so does the other
