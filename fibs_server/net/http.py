"""The HTTP side of the server (aiohttp, in the server's own event loop): the web client's
static files (fibs_server/web/static: plain ES modules, no build step), its WebSocket
(net/websocket.py) and a JSON endpoint for the rating plot.

Nothing here knows a user: no cookies, no tokens. A tab is whoever logs in on its WebSocket.

Every connection counts against its address with the telnet port's (one AddressCounter: a
WebSocket is the HTTP connection it was upgraded from), must send its request head within
`http_header_timeout` and, kept alive, its next request within `http_keepalive_timeout`; each
address's requests are paced by a token bucket (429 with Retry-After beyond it; a
connection that asks again sooner waits that out first). The static
files are read once, at start, and answered from memory with an ETag and Last-Modified (304
when the browser has them already).
"""
from __future__ import annotations

import asyncio
import dataclasses
import email.utils
import hashlib
import math
import mimetypes
import pathlib
import socket
from typing import Any

from aiohttp import web

from fibs_server.lobby.analysis_queue import readable
from fibs_server.lobby.fair_commands import LARGEST_ID
from fibs_server.lobby.read_limits import KeyedRateLimit
from fibs_server.net.limits import TOO_MANY_CONNECTIONS, peer_address
from fibs_server.net.listening import refuse_over_count_at_accept
from fibs_server.net.telnet import FrontEnd
from fibs_server.net.websocket import Origin, serve_websocket

STATIC = pathlib.Path(__file__).resolve().parent.parent / "web" / "static"
RATING_HISTORY_MATCHES = 500  # the plot's points at most: the player's last rated matches
TOO_MANY_HISTORY_REQUESTS = "Too many rating history requests from this address: try again later."
TOO_MANY_ANALYSIS_REQUESTS = "Too many analysis requests from this address: try again later."
SHUTDOWN_TIMEOUT = 5.0  # seconds a stop waits for requests still being answered
# Seconds a connection refused for its address's count is told to wait.
RETRY_AFTER_TOO_MANY = 10

# The page loads its own files only; connect-src 'self' covers its WebSocket (CSP level 3).
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                               "object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
# One write and a close: what a connection over its address's count gets, before any parsing.
_TOO_MANY_TEXT = (TOO_MANY_CONNECTIONS + "\r\n").encode()
TOO_MANY_RESPONSE = (f"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
                     f"Content-Length: {len(_TOO_MANY_TEXT)}\r\n"
                     f"Retry-After: {RETRY_AFTER_TOO_MANY}\r\nConnection: close\r\n\r\n"
                     ).encode() + _TOO_MANY_TEXT

FRONT = web.AppKey("front", FrontEnd)
FILES = web.AppKey("files", dict)
ORIGINS = web.AppKey("origins", frozenset)


@dataclasses.dataclass(frozen=True)
class StaticFile:
    body: bytes
    content_type: str
    etag: str  # quoted, as the header carries it
    modified: float  # seconds since the epoch, whole (as Last-Modified says it)

    @property
    def headers(self) -> dict[str, str]:
        # no-cache: the browser asks each time (a cheap 304), so a new page is seen at once.
        return {"ETag": self.etag, "Last-Modified": email.utils.formatdate(self.modified,
                                                                           usegmt=True),
                "Cache-Control": "no-cache"}


def load_static_files(folder: pathlib.Path = STATIC) -> dict[str, StaticFile]:
    """The page's files by name (a few tens of kilobytes: read once, served from memory)."""
    files = {}
    for path in sorted(folder.iterdir()):
        if not path.is_file():
            continue
        body = path.read_bytes()
        kind = "text/javascript" if path.suffix in (".js", ".mjs") else (
            mimetypes.guess_type(path.name)[0] or "application/octet-stream")
        files[path.name] = StaticFile(
            body, kind, '"' + hashlib.sha256(body).hexdigest()[:20] + '"',
            float(int(path.stat().st_mtime)))
    return files


def not_modified(request: web.Request, file: StaticFile) -> bool:
    """The browser's copy is current (If-None-Match wins over If-Modified-Since)."""
    tags = request.headers.get("If-None-Match")
    if tags is not None:
        return any(tag.strip().removeprefix("W/") in (file.etag, "*") for tag in tags.split(","))
    since = request.if_modified_since
    return since is not None and since.timestamp() >= file.modified


def static_response(request: web.Request, file: StaticFile) -> web.Response:
    if not_modified(request, file):
        return web.Response(status=304, headers=file.headers)
    return web.Response(body=file.body, content_type=file.content_type, headers=file.headers)


# Requests per address: a token bucket each, as for the heavy reads.
RATE = web.AppKey("rate", KeyedRateLimit)


class HttpConnection(web.RequestHandler):
    """aiohttp's handler of one connection, counted against its address and closed when its
    first request head is not in within the header timeout (aiohttp's keep-alive timeout
    covers the wait for each later one, half-sent or not)."""

    __slots__ = ("_front", "_host", "_head_timer", "refused_until")

    def __init__(self, server: web.Server, front: FrontEnd, **options: Any) -> None:
        super().__init__(server, loop=asyncio.get_running_loop(),
                         keepalive_timeout=front.limits.http_keepalive_timeout, **options)
        self._front = front
        self._host: str | None = None  # counted against its address
        self._head_timer: asyncio.TimerHandle | None = None
        self.refused_until = 0.0  # loop time: the Retry-After its last 429 gave

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        host = peer_address(transport)
        if not self._front.addresses.admit(host):
            assert isinstance(transport, asyncio.Transport)
            transport.write(TOO_MANY_RESPONSE)
            transport.close()
            return
        self._host = host
        super().connection_made(transport)
        self._head_timer = asyncio.get_running_loop().call_later(
            self._front.limits.http_header_timeout, self.force_close)

    def head_arrived(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def connection_lost(self, exc: BaseException | None) -> None:
        self.head_arrived()
        if self._host is not None:
            self._front.addresses.release(self._host)
            self._host = None
        super().connection_lost(exc)


class CountedSite(web.SockSite):
    """A site whose connections are `HttpConnection`s."""

    __slots__ = ("_front",)

    def __init__(self, runner: web.AppRunner, listening: socket.socket,
                 front: FrontEnd) -> None:
        super().__init__(runner, listening)
        self._front = front

    async def start(self) -> None:
        await web.BaseSite.start(self)
        refuse_over_count_at_accept(self._sock, self._front.addresses, TOO_MANY_RESPONSE,
                                    self._front.limits.silent_refusal_seconds)
        server = self._runner.server
        assert server is not None
        self._server = await asyncio.get_running_loop().create_server(
            lambda: HttpConnection(server, self._front, access_log=None), sock=self._sock)


@web.middleware
async def paced(request: web.Request, handler) -> web.StreamResponse:
    """The head is in: no header timeout; the address's bucket has a token, or 429.

    A request on a connection that was told to retry after some seconds, and did not wait,
    waits them out here before it is looked at: a flood on kept-alive connections then costs
    one 429 per connection per Retry-After, not one per request it can parse."""
    connection = request.protocol
    loop = asyncio.get_running_loop()
    if isinstance(connection, HttpConnection):
        connection.head_arrived()
        if connection.refused_until > loop.time():
            await asyncio.sleep(connection.refused_until - loop.time())
    wait = request.app[RATE].wait_before(request.remote or "-")
    if wait:
        retry_after = math.ceil(wait)
        if isinstance(connection, HttpConnection):
            connection.refused_until = loop.time() + retry_after
        raise web.HTTPTooManyRequests(text="Too many requests from your address.",
                                      headers={"Retry-After": str(retry_after)})
    return await handler(request)


@web.middleware
async def security_headers(request: web.Request, handler) -> web.StreamResponse:
    try:
        response = await handler(request)
    except web.HTTPException as refusal:
        refusal.headers.update(SECURITY_HEADERS)
        raise
    if not response.prepared:  # a WebSocket's handshake went out already
        response.headers.update(SECURITY_HEADERS)
    return response


async def index(request: web.Request) -> web.Response:
    return static_response(request, request.app[FILES]["index.html"])


async def static(request: web.Request) -> web.Response:
    file = request.app[FILES].get(request.match_info["name"])
    if file is None:
        raise web.HTTPNotFound()
    return static_response(request, file)


async def websocket(request: web.Request) -> web.StreamResponse:
    return await serve_websocket(request, request.app[FRONT], request.app[ORIGINS])


async def rating_history(request: web.Request) -> web.Response:
    """`/api/rating-history?name=alice`: alice's rating by her rated matches, oldest first.
    The store reads its sums, at most RATING_HISTORY_MATCHES rows of an index (its reads
    have connections of their own: the loop waits for none); an address asking too often
    is refused before anything is read."""
    lobby = request.app[FRONT].lobby
    refuse_heavy_reads_too_often(request, TOO_MANY_HISTORY_REQUESTS)
    account = await lobby.accounts.find_account(request.query.get("name", ""))
    if account is None:
        raise web.HTTPNotFound(text="No such player.")
    changes = await lobby.matches.rating_history(account.name, RATING_HISTORY_MATCHES)
    return web.json_response({"name": account.name, "rating": account.rating,
                              "changes": [dataclasses.asdict(c) for c in changes]})


def refuse_heavy_reads_too_often(request: web.Request, refusal: str) -> None:
    """429 for an address that reads the archive's heavy answers too often (the lobby's
    `heavy_reads`, shared with `dicetest`), before anything is read."""
    wait = request.app[FRONT].lobby.heavy_reads.by_address.wait_before(request.remote or "")
    if wait:
        raise web.HTTPTooManyRequests(text=refusal,
                                      headers={"Retry-After": str(math.ceil(wait))})


async def match_analysis(request: web.Request) -> web.Response:
    """`/api/matches/12/analysis`: the stored analysis of a finished rated match (public, as
    the archive is; the web has no login, so an unrated match's is its players', over telnet
    only): `analysis` is `MatchAnalysis.to_dict()`, or null with the request's `status`
    (queued, running, failed; null: never asked for)."""
    lobby = request.app[FRONT].lobby
    refuse_heavy_reads_too_often(request, TOO_MANY_ANALYSIS_REQUESTS)
    typed = request.match_info["match_id"]
    record = (await lobby.matches.match_by_id(int(typed))
              if typed.isdigit() and int(typed) <= LARGEST_ID else None)
    if record is None or lobby.analyses is None or not readable(record, ""):
        raise web.HTTPNotFound(text="No such finished rated match.")
    stored = await lobby.analyses.analysis_of(record.match_id)
    answer = {"match_id": record.match_id, "players": [record.player_a, record.player_b],
              "length": record.length}
    if stored is None:
        request_now = await lobby.analyses.analysis_request(record.match_id)
        return web.json_response({**answer, "status": None if request_now is None
                                  else request_now.status.value, "analysis": None})
    return web.json_response({**answer, "status": "done", "analysed_at": stored.analysed_at,
                              "analysis": stored.analysis})


def web_application(front: FrontEnd, files: dict[str, StaticFile],
                    origins: frozenset[Origin]) -> web.Application:
    application = web.Application(middlewares=[security_headers, paced])
    application[FRONT] = front
    application[FILES] = files
    application[ORIGINS] = origins
    application[RATE] = KeyedRateLimit(front.limits.http_request_burst,
                                       front.limits.http_requests_per_second)
    application.router.add_get("/", index)
    application.router.add_get("/ws", websocket)
    application.router.add_get("/api/rating-history", rating_history)
    application.router.add_get("/api/matches/{match_id}/analysis", match_analysis)
    application.router.add_get("/static/{name}", static)
    return application


async def start_http_server(front: FrontEnd, listening: socket.socket,
                            origins: frozenset[Origin]) -> web.AppRunner:
    """Serve the web client on `listening` beside the telnet port, sharing its front end: the
    lobby, the limits, the per-address count and the output batcher. Only pages from
    `origins` may open a WebSocket."""
    files = await asyncio.to_thread(load_static_files)
    runner = web.AppRunner(web_application(front, files, origins),
                           shutdown_timeout=SHUTDOWN_TIMEOUT)
    await runner.setup()
    await CountedSite(runner, listening, front).start()
    return runner


async def stop_listening(runner: web.AppRunner) -> None:
    """No new connections; the open WebSockets stay for the lobby to say goodbye to and
    close (`runner.cleanup()` then waits for their handlers)."""
    for site in list(runner.sites):
        await site.stop()


def bound_port(runner: web.AppRunner) -> int:
    """The port the server listens on (the one the system chose for port 0)."""
    return runner.addresses[0][1]
