"""WebSocket visitors flooding commands: the attack of bench/abuse_rows.py's rows 3 and 4.

--connections WebSockets (aiohttp's client) from --addresses loopback addresses (127.0.0.2
and up) each log in as a visitor (`bot` at the login prompt; the bots may be off: the visitor
is in either way) and then send `who`, `board` and garbage as fast as they can until the
server closes them or the seconds are up: reading everything they are sent, or never reading
(their socket's reading paused once they are in, so the server's output piles up for them).
What they got: visitors admitted and refused, commands sent, bytes read, and how many the
server closed (with the pacing's goodbye, when they read it) and when.

    .venv/bin/python bench/abuse_rows.py --rows 3,4 --seconds 20
"""
from __future__ import annotations

import asyncio
import collections
import socket
import sys
import time
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import REPOSITORY  # noqa: E402

sys.path.insert(0, str(REPOSITORY))
from fibs_server.net.limits import TOO_MANY_COMMANDS  # noqa: E402

# One message: a few hundred commands, the way a script floods (a page's one line a message
# would be slower, not kinder).
FLOOD_MESSAGE = "who\r\nboard\r\nxyzzy plugh\r\n" * 100
WELCOME = "\r\n1 guest_"  # a visitor's CLIP welcome line
CONNECT_TIMEOUT = 30.0
WRITE_BUFFER = 1 << 16  # bytes the client holds for a connection, beyond the kernel's


async def flood(http_port: int, connections: int, addresses: int, reads: bool,
                seconds: float) -> dict[str, int | str]:
    counts: collections.Counter[str] = collections.Counter()
    closed_after: list[float] = []
    started = time.monotonic()
    deadline = started + seconds
    url = f"http://127.0.0.1:{http_port}/ws"

    async def read_until_closed(ws: aiohttp.ClientWebSocketResponse) -> None:
        tail = ""
        async for message in ws:
            if message.type is aiohttp.WSMsgType.TEXT:
                counts["bytes read"] += len(message.data)
                tail = (tail + message.data)[-200:]
        counts["told to slow down, then closed"] += TOO_MANY_COMMANDS in tail

    async def one(http: aiohttp.ClientSession) -> None:
        try:
            ws = await http.ws_connect(url)
        except aiohttp.ClientError:
            counts["connection refused"] += 1
            return
        await ws.send_str("bot")
        seen = ""
        while WELCOME not in seen:
            message = await ws.receive(timeout=CONNECT_TIMEOUT)
            if message.type is not aiohttp.WSMsgType.TEXT:
                counts["refused as visitors"] += 1
                return
            seen += message.data
        counts["visitors admitted"] += 1
        # The attacker hangs up at the end without a close handshake (which would wait for
        # the server to get through what it was sent).
        transport = ws._conn.transport  # type: ignore[union-attr]  # noqa: SLF001
        reading = asyncio.create_task(read_until_closed(ws) if reads else asyncio.sleep(0))
        if not reads:
            # Never read again: the socket's reading stops, its buffer small, so the server's
            # output waits on the server's side until its cap cuts the connection off.
            ws.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            transport.pause_reading()
        try:
            while time.monotonic() < deadline and not (reads and reading.done()):
                await asyncio.wait_for(ws.send_str(FLOOD_MESSAGE),
                                       max(0.01, deadline - time.monotonic()))
                counts["commands sent"] += 300
                while transport.get_write_buffer_size() > WRITE_BUFFER:
                    if transport.is_closing() or time.monotonic() >= deadline:
                        raise ConnectionError
                    await asyncio.sleep(0.1)  # the kernel holds megabytes: still ahead
        except (asyncio.TimeoutError, ConnectionError, aiohttp.ClientError):
            pass
        if time.monotonic() < deadline:  # the server closed it
            closed_after.append(time.monotonic() - started)
            await asyncio.wait([reading], timeout=1.0)  # its last words
        reading.cancel()
        transport.abort()

    sessions = [aiohttp.ClientSession(connector=aiohttp.TCPConnector(
        limit=0, local_addr=(f"127.0.0.{2 + number}", 0))) for number in range(addresses)]
    try:
        await asyncio.gather(*(one(sessions[number % addresses])
                               for number in range(connections)))
    finally:
        for http in sessions:
            await http.close()
    closed_after.sort()
    if closed_after:
        counts["closed by the server"] = len(closed_after)
    result: dict[str, int | str] = dict(counts)
    if closed_after:
        result["closed after (s), first/last"] = f"{closed_after[0]:.1f}/{closed_after[-1]:.1f}"
    return result
