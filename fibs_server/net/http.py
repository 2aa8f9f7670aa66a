"""The HTTP side of the server (aiohttp, in the server's own event loop): the web client's
static files (fibs_server/web/static: plain ES modules, no build step), its WebSocket
(net/websocket.py) and a JSON endpoint for the rating plot.

Nothing here knows a user: no cookies, no tokens. A tab is whoever logs in on its WebSocket.
"""
from __future__ import annotations

import dataclasses
import math
import pathlib

from aiohttp import web

from fibs_server.net.telnet import FrontEnd
from fibs_server.net.websocket import serve_websocket

STATIC = pathlib.Path(__file__).resolve().parent.parent / "web" / "static"
RATING_HISTORY_MATCHES = 500  # the plot's points at most: the player's last rated matches
TOO_MANY_HISTORY_REQUESTS = "Too many rating history requests from this address: try again later."
SHUTDOWN_TIMEOUT = 5.0  # seconds a stop waits for requests still being answered

# The page loads its own files only; connect-src 'self' covers its WebSocket (CSP level 3).
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                               "object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}

FRONT = web.AppKey("front", FrontEnd)


@web.middleware
async def security_headers(request: web.Request, handler) -> web.StreamResponse:
    response = await handler(request)
    if not response.prepared:  # a WebSocket's handshake went out already
        response.headers.update(SECURITY_HEADERS)
    return response


async def index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC / "index.html")


async def websocket(request: web.Request) -> web.StreamResponse:
    return await serve_websocket(request, request.app[FRONT])


async def rating_history(request: web.Request) -> web.Response:
    """`/api/rating-history?name=alice`: alice's rating by her rated matches, oldest first.
    The store reads its sums, at most RATING_HISTORY_MATCHES rows of an index (its reads
    have connections of their own: the loop waits for none); an address asking too often
    is refused before anything is read."""
    lobby = request.app[FRONT].lobby
    wait = lobby.heavy_reads.by_address.wait_before(request.remote or "")
    if wait:
        raise web.HTTPTooManyRequests(text=TOO_MANY_HISTORY_REQUESTS,
                                      headers={"Retry-After": str(math.ceil(wait))})
    account = await lobby.accounts.find_account(request.query.get("name", ""))
    if account is None:
        raise web.HTTPNotFound(text="No such player.")
    changes = await lobby.matches.rating_history(account.name, RATING_HISTORY_MATCHES)
    return web.json_response({"name": account.name, "rating": account.rating,
                              "changes": [dataclasses.asdict(c) for c in changes]})


def web_application(front: FrontEnd) -> web.Application:
    application = web.Application(middlewares=[security_headers])
    application[FRONT] = front
    application.router.add_get("/", index)
    application.router.add_get("/ws", websocket)
    application.router.add_get("/api/rating-history", rating_history)
    application.router.add_static("/static", STATIC)
    return application


async def start_http_server(front: FrontEnd, host: str, port: int) -> web.AppRunner:
    """Serve the web client beside the telnet port, sharing its front end: the lobby, the
    limits, the per-address count and the output batcher."""
    runner = web.AppRunner(web_application(front), access_log=None,
                           shutdown_timeout=SHUTDOWN_TIMEOUT)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    return runner


async def stop_listening(runner: web.AppRunner) -> None:
    """No new connections; the open WebSockets stay for the lobby to say goodbye to and
    close (`runner.cleanup()` then waits for their handlers)."""
    for site in list(runner.sites):
        await site.stop()


def bound_port(runner: web.AppRunner) -> int:
    """The port the server listens on (the one the system chose for port 0)."""
    return runner.addresses[0][1]
