"""The browser's transport: a WebSocket (served by aiohttp, net/http.py) that carries command
lines in and CLIP lines out. The browser is one more CLIP client of the same lobby: its
session is made by `Lobby.connect` like a telnet one and starts as a CLIP client
(`login_dialogue.WEB_PAGE`), and every limit of the telnet port applies: the address's
connections (one count shared with telnet), the login throttle and bcrypt queue (the lobby's,
by the same address), the line cap and the output cap.

Output goes the telnet way too (`QueuedConnection`, the shared batcher): each flush writes one
text frame straight onto the transport, synchronously, so a broadcast to thousands of browsers
costs one write each and no task; aiohttp's own writer, whose sends are coroutines, only
sends and answers pings and closes (each frame one write, so they never split one of ours). Input: each message is one line or several (LF between them), cut
and cleaned by the telnet port's `LineSplitter`; a message over MAX_UNREAD_BYTES makes aiohttp
close the connection (1009), a line over `max_line_bytes` is refused with the telnet text.
"""
from __future__ import annotations

import asyncio
import logging
import struct
import time
import urllib.parse

from aiohttp import WSMsgType, web

from fibs_server.lobby.presence.session import Session, Stage
from fibs_server.net import telnet
from fibs_server.net.limits import LOST_PEER_GRACE, MAX_UNREAD_BYTES
from fibs_server.net.pacing import BYTES_PER_COMMAND
from fibs_server.net.telnet import (
    SERVE_SLICE,
    FrontEnd,
    LineSplitter,
    QueuedConnection,
    fold_empty_lines,
)
from fibs_server.protocol.login_dialogue import WEB_PAGE
from fibs_server.protocol.views import web_events

log = logging.getLogger(__name__)

_TEXT_FRAME = 0x81  # FIN and opcode 1 (text); a server's frames are never masked
_CLOSE_FRAME = 0x88  # FIN and opcode 8 (close)
_NORMAL_CLOSURE = 1000
# An empty binary frame (FIN, opcode 2, no payload): the answer to a page's heartbeat.
HEARTBEAT_ANSWER = bytes((0x82, 0))


def text_frame(payload: bytes) -> bytes:
    """One unfragmented, unmasked WebSocket text frame (RFC 6455 §5.2) carrying `payload`."""
    size = len(payload)
    if size < 126:
        header = struct.pack("!BB", _TEXT_FRAME, size)
    elif size < 1 << 16:
        header = struct.pack("!BBH", _TEXT_FRAME, 126, size)
    else:
        header = struct.pack("!BBQ", _TEXT_FRAME, 127, size)
    return header + payload


# A page's origin: scheme, host and port (RFC 6454), as `origin_of` reads them.
Origin = tuple[str, str, int]
_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_of(url: str) -> Origin | None:
    """The origin of an http(s) URL, None for anything else (`null`, other schemes)."""
    parts = urllib.parse.urlsplit(url.strip())
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        return None
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    return scheme, parts.hostname.lower(), port or _DEFAULT_PORTS[scheme]


def origin_allowed(origin: str | None, allowed: frozenset[Origin]) -> bool:
    """Browsers send `Origin` with every WebSocket handshake: only our own page (its scheme,
    host and port, as configured: never the request's `Host`, which a rebound DNS name
    controls) may open one, so no other site or extension can use a visitor's browser (and
    address) to talk to the server. A program that is no browser sends none and may connect,
    as it may on the telnet port."""
    return origin is None or origin_of(origin) in allowed


class WebSocketConnection(QueuedConnection):
    """A lobby `Connection` on a WebSocket."""

    __slots__ = ()

    def frame(self, data: bytes) -> bytes:
        return text_frame(data)

    def set_echo(self, server_echoes: bool) -> None:
        """Nothing to do: the page's password fields never show what is typed."""

    def close(self) -> None:
        self.flush()
        if not self.transport.is_closing():
            self.transport.write(struct.pack("!BBH", _CLOSE_FRAME, 2, _NORMAL_CLOSURE))
            self.transport.close()


class EventsConnection(WebSocketConnection):
    """The connection of a page that asked for typed messages (`/ws?events=1`): each is a
    line of its own that starts with `{`, in order with FIBS's lines, none of which may then
    start so: a line of ours that would (a message of the day) gets a blank in front."""

    __slots__ = ()

    def send(self, text: str, broadcast: bool = False) -> None:
        if "{" in text:
            text = (" " if text.startswith("{") else "") + text.replace("\n{", "\n {")
        super().send(text, broadcast)

    def send_wire(self, data: bytes, broadcast: bool = False) -> None:
        # As text: a line may need the blank in front.
        self.send(data.decode("ascii"), broadcast)

    def send_event(self, line: str, broadcast: bool = False) -> None:
        super().send(line + "\r\n", broadcast)


def events_version(request: web.Request) -> int | None:
    """The version of the typed messages the page asks for (`?events=1`), None for none;
    one this server does not speak refuses the handshake, rather than sending what the page
    cannot read."""
    asked = request.query.get("events")
    if asked is None:
        return None
    if asked != str(web_events.VERSION):
        raise web.HTTPBadRequest(text=f"This server speaks events version {web_events.VERSION}.")
    return web_events.VERSION


async def serve_websocket(request: web.Request, front: FrontEnd,
                          origins: frozenset[Origin]) -> web.StreamResponse:
    """One browser tab, from the handshake to its session's end (its connection is counted
    against its address by net/http.py, as an HTTP connection)."""
    if not origin_allowed(request.headers.get("Origin"), origins):
        raise web.HTTPForbidden(text="This server's WebSocket serves its own page only.")
    with_events = events_version(request) is not None
    # aiohttp pings a peer from which nothing came for `websocket_ping_seconds` and drops it
    # when nothing comes within half as long again: a network gone silent closes no socket
    # for minutes. Anything the peer sends (a pong, a page's heartbeat) counts.
    socket = web.WebSocketResponse(compress=False, max_msg_size=MAX_UNREAD_BYTES,
                                   heartbeat=front.limits.websocket_ping_seconds or None)
    await socket.prepare(request)
    host = request.remote or "-"
    transport = request.transport
    assert transport is not None  # prepared: the connection is open
    connection = (EventsConnection if with_events else WebSocketConnection)(
        transport, front.batcher, front.limits.output_buffer_cap, host)
    if isinstance(connection, EventsConnection):
        # Before the banner.
        connection.send_event(web_events.encode(web_events.hello(front.limits.page_pace())))
    session = front.lobby.connect(connection, WEB_PAGE)
    if isinstance(connection, EventsConnection):
        session.out.event_sink = connection.send_event
    connection.flush()
    serving = asyncio.current_task()
    assert serving is not None
    front.tasks.add(serving)  # a shutdown cancels it like a telnet line worker
    try:
        await _serve_messages(socket, session, connection, front)
    except ConnectionError as lost:
        # A peer that resets while aiohttp answers its pings: one line, not aiohttp's
        # 40-line traceback per connection.
        log.info("WebSocket from %s lost: %s", host, lost)
    finally:
        front.tasks.discard(serving)
        await front.lobby.disconnected(session)
    return socket


def _one_empty_line_a_run(data: bytes) -> bytes:
    """`data` (a message, ending with LF) with each run of empty lines cut to one."""
    data = fold_empty_lines(data)
    return b"\n" + data.lstrip(b"\n") if data.startswith(b"\n\n") else data


async def _serve_messages(socket: web.WebSocketResponse, session: Session,
                          connection: WebSocketConnection, front: FrontEnd) -> None:
    """Each message's lines in order, paced as the telnet port's (net/pacing.py), giving
    the loop a turn every SERVE_SLICE; the next message is read only when this one is served
    (aiohttp stops reading the socket while 64 KiB wait), so a flood waits in the peer's
    buffers, not ours. A run of empty lines in a message is served as one. Once the peer is
    gone, what aiohttp holds of it is served as on the telnet port: within its burst, for
    LOST_PEER_GRACE; nothing once it was cut off for not reading."""
    splitter = LineSplitter(front.limits.max_line_bytes)
    pace = front.pacer.pace(connection.host)
    lost_at: float | None = None
    slice_ends = time.perf_counter() + SERVE_SLICE
    while True:
        message = await socket.receive()
        if message.type is WSMsgType.TEXT:
            data = message.data.encode()
        elif message.type is WSMsgType.BINARY:
            data = message.data
            if not data:  # a page's heartbeat, paced as a command
                if not await pace.take_turn(session, connection, 1,
                                            gone=connection.transport.is_closing):
                    return
                connection.flush()  # what waits for the batcher first, in order
                if not connection.transport.is_closing():
                    connection.transport.write(HEARTBEAT_ANSWER)
                continue
        else:
            if message.type is WSMsgType.ERROR:  # unanswered pings among others
                log.info("WebSocket from %s taken for gone: %s", connection.host, message.data)
            break
        if not data.endswith(b"\n"):
            data += b"\n"  # a message ends its last line
        if lost_at is None and connection.transport.is_closing():
            lost_at = telnet.serving_clock()
        if not await pace.take_turn(session, connection, len(data) / BYTES_PER_COMMAND,
                                    gone=connection.transport.is_closing):
            return
        for line in splitter.feed(_one_empty_line_a_run(data)):
            if session.stage is Stage.CLOSED or connection.cut_off or (
                    lost_at is not None
                    and telnet.serving_clock() > lost_at + LOST_PEER_GRACE):
                return
            if not await pace.take_turn(session, connection, 1,
                                        gone=connection.transport.is_closing):
                return
            if line is None:
                session.incoming.line_too_long()
            else:
                await session.incoming.handle_line(line)
            if time.perf_counter() >= slice_ends:
                connection.flush()
                await asyncio.sleep(0)
                slice_ends = time.perf_counter() + SERVE_SLICE
        connection.flush()  # the replies: without the batcher's delay
