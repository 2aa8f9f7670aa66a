"""The HTTP side of the server (aiohttp, in the server's own event loop): the web client's
static files (fibs_server/web/static: plain ES modules, no build step), its WebSocket
(net/websocket.py) and a read-only JSON API of the archive (docs/WEB-API.md).

Nothing here knows a user: no cookies, no tokens. A tab is whoever logs in on its WebSocket.

Every connection counts against its address with the telnet port's (one AddressCounter: a
WebSocket is the HTTP connection it was upgraded from), must send its request head within
`http_header_timeout` and, kept alive, its next request within `http_keepalive_timeout`; each
address's requests are paced by a token bucket (429 with Retry-After beyond it; a
connection that asks again sooner waits that out first). The static
files are read and gzipped once, at start, and answered from memory with an ETag and
Last-Modified (304 when the browser has them already). The page asks for them under
`/static/<version>/`, the version a digest of all of them: a release's files are cached for
good, and the next release's page (never cached without asking) asks for new addresses. `/healthz`, `/readyz` and `/metrics` are for the operator
(docs/OPERATIONS.md); `/metrics` answers only the addresses `Operations.metrics_from` allows.
"""
from __future__ import annotations

import asyncio
import dataclasses
import datetime
import email.utils
import gzip
import hashlib
import ipaddress
import json
import math
import mimetypes
import pathlib
import socket
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, overload

from aiohttp import web

from fibs_server.lobby.commands.archive_commands import match_file
from fibs_server.lobby.commands.common import LARGEST_ID
from fibs_server.lobby.commands.user_commands import RATED_MIN_EXPERIENCE
from fibs_server.lobby.limits.read_limits import HeavyReadLimits, KeyedRateLimit
from fibs_server.lobby.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from fibs_server.lobby.play.public_reads import dice_statistics, match_games, open_record
from fibs_server.lobby.ports.accounts import AccountStore
from fibs_server.lobby.ports.analysis_records import AnalysisRecords, StoredPuzzle
from fibs_server.lobby.ports.match_records import MatchRecord, MatchStore
from fibs_server.lobby.services.analysis_queue import readable
from fibs_server.net.limits import TOO_MANY_CONNECTIONS, Network, allowed, peer_address
from fibs_server.net.limits import networks as networks  # where the callers find it
from fibs_server.net.listening import refuse_over_count_at_accept
from fibs_server.net.proxied import HeaderWait
from fibs_server.net.telnet import FrontEnd
from fibs_server.net.websocket import Origin, serve_websocket
from fibs_server.protocol.views.record_files import is_record_file
from fibs_server.protocol.wording.analysis_texts import below_resolution

STATIC = pathlib.Path(__file__).resolve().parent.parent / "web" / "static"
RATING_HISTORY_MATCHES = 500  # the plot's points at most: the player's last rated matches
TOO_MANY_HISTORY_REQUESTS = "Too many rating history requests from this address: try again later."
TOO_MANY_ANALYSIS_REQUESTS = "Too many analysis requests from this address: try again later."
TOO_MANY_ARCHIVE_REQUESTS = "Too many archive requests from this address: try again later."
LARGEST_PAGE = 100  # rows of a paged list at most
DEFAULT_PAGE = 20
NO_SUCH_PLAYER = "No such player."
NO_SUCH_MATCH = "No such finished rated match."
NO_SUCH_RECORD_FILE = "No such file in the open record."
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



@dataclasses.dataclass(frozen=True)
class WebReads:
    """What the pages' API reads, the lobby's owners (app.py gives them): the accounts, the
    stored matches and analyses, who is online here, and the heavy reads' limits."""
    accounts: AccountStore
    match_store: MatchStore
    analyses: AnalysisRecords | None
    online: Mapping[str, object]  # lower-case name -> their session (Attendance's `users.online`)
    heavy_reads: HeavyReadLimits


FRONT = web.AppKey("front", FrontEnd)
READS = web.AppKey("reads", WebReads)
ORIGINS = web.AppKey("origins", frozenset)
# The open record's folder (fibs_server/open_record.py), when the server keeps one.
RECORDS_FOLDER = web.AppKey("records_folder", pathlib.Path)

LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))
# A probe or a scrape must never be answered from a cache in between.
NOT_CACHED = {"Cache-Control": "no-store"}


@dataclasses.dataclass(frozen=True)
class Operations:
    """What the operator's endpoints ask of the server around the front end (the app
    gives them: net sees neither the store nor the bots)."""
    # None when the server is ready; else why not, in a few words.
    readiness: Callable[[], Awaitable[str | None]]
    metrics: Callable[[], Awaitable[str]]  # the exposition text
    # What is wrong but takes no node out (an outage every node shares), a line each.
    health: Callable[[], list[str]]
    metrics_from: tuple[Network, ...] = LOOPBACK


OPERATIONS = web.AppKey("operations", Operations)


# The browser asks each time (a cheap 304), so a new page is seen at once; a versioned file
# never changes under its address.
ASK_EACH_TIME = "no-cache"
KEEP_FOR_GOOD = "public, max-age=31536000, immutable"
INDEX = "index.html"
DICE_PAGE = "dice.html"


@dataclasses.dataclass(frozen=True)
class StaticFile:
    body: bytes
    gzipped: bytes | None  # the body gzipped, when that is smaller
    content_type: str
    etag: str  # quoted, as the header carries it
    modified: float  # seconds since the epoch, whole (as Last-Modified says it)

    @classmethod
    def of(cls, body: bytes, content_type: str, modified: float) -> StaticFile:
        gzipped = gzip.compress(body, compresslevel=9, mtime=0)
        return cls(body, gzipped if len(gzipped) < len(body) else None, content_type,
                   '"' + hashlib.sha256(body).hexdigest()[:20] + '"', modified)

    def etag_of(self, zipped: bool) -> str:
        """Each encoding's own tag, as a cache between must tell them apart."""
        return self.etag[:-1] + '-gzip"' if zipped else self.etag

    def headers(self, zipped: bool, cache_control: str) -> dict[str, str]:
        return {"ETag": self.etag_of(zipped), "Cache-Control": cache_control,
                "Last-Modified": email.utils.formatdate(self.modified, usegmt=True),
                "Vary": "Accept-Encoding"}


@dataclasses.dataclass(frozen=True)
class StaticFiles:
    """The page's files by name, and their version: the first characters of a digest of them
    all. The pages (index.html, dice.html) name the others under /static/<version>/ (the
    modules' own imports are relative, so they follow)."""
    files: dict[str, StaticFile]
    version: str


STATIC_FILES = web.AppKey("static_files", StaticFiles)


def load_static_files(folder: pathlib.Path = STATIC) -> StaticFiles:
    """The page's files (a few tens of kilobytes: read once, served from memory)."""
    read = {}
    digest = hashlib.sha256()
    for path in sorted(folder.iterdir()):
        if path.is_file():
            read[path.name] = (path.read_bytes(), float(int(path.stat().st_mtime)))
            digest.update(path.name.encode() + b"\0" + read[path.name][0] + b"\0")
    version = digest.hexdigest()[:16]
    files = {}
    for name, (body, modified) in read.items():
        if name.endswith(".html"):
            body = body.replace(b'"/static/', f'"/static/{version}/'.encode())
        kind = "text/javascript" if name.endswith((".js", ".mjs")) else (
            mimetypes.guess_type(name)[0] or "application/octet-stream")
        files[name] = StaticFile.of(body, kind, modified)
    return StaticFiles(files, version)


def accepts_gzip(request: web.Request) -> bool:
    """Accept-Encoding names gzip (or *), not with q=0."""
    for offer in request.headers.get("Accept-Encoding", "").split(","):
        coding, _, parameters = offer.partition(";")
        if coding.strip().lower() in ("gzip", "*"):
            weight = parameters.replace(" ", "").lower().removeprefix("q=")
            try:
                return float(weight or 1) > 0
            except ValueError:
                return False
    return False


def not_modified(request: web.Request, file: StaticFile) -> bool:
    """The browser's copy is current (If-None-Match wins over If-Modified-Since), in either
    encoding: the file is the same."""
    tags = request.headers.get("If-None-Match")
    if tags is not None:
        current = (file.etag, file.etag_of(True), "*")
        return any(tag.strip().removeprefix("W/") in current for tag in tags.split(","))
    since = request.if_modified_since
    return since is not None and since.timestamp() >= file.modified


def static_response(request: web.Request, file: StaticFile,
                    cache_control: str = ASK_EACH_TIME) -> web.Response:
    zipped = file.gzipped is not None and accepts_gzip(request)
    headers = file.headers(zipped, cache_control)
    if not_modified(request, file):
        return web.Response(status=304, headers=headers)
    if zipped:
        headers["Content-Encoding"] = "gzip"
    return web.Response(body=file.gzipped if zipped else file.body,
                        content_type=file.content_type, headers=headers)


# Requests per address: a token bucket each, as for the heavy reads.
RATE = web.AppKey("rate", KeyedRateLimit)


class HttpConnection(web.RequestHandler):
    """aiohttp's handler of one connection, counted against its address and closed when its
    first request head is not in within the header timeout (aiohttp's keep-alive timeout
    covers the wait for each later one, half-sent or not).

    A load balancer's connection (net/proxied.py) is counted only once its PROXY header is
    in, against the address it names; aiohttp's parser sees only what follows the header, and
    `peername` (what aiohttp's `request.remote` reads) is the player's from then on."""

    __slots__ = ("_front", "_host", "_head_timer", "refused_until", "_header", "_player")

    def __init__(self, server: web.Server, front: FrontEnd, **options: Any) -> None:
        super().__init__(server, loop=asyncio.get_running_loop(),
                         keepalive_timeout=front.limits.http_keepalive_timeout, **options)
        self._front = front
        self._host: str | None = None  # counted against its address
        self._head_timer: asyncio.TimerHandle | None = None
        self.refused_until = 0.0  # loop time: the Retry-After its last 429 gave
        self._header: HeaderWait | None = None  # a load balancer's PROXY header not yet in
        self._player: str | None = None  # the address that header named

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        host = peer_address(transport)
        if self._front.from_balancer(host):
            self._header = self._front.await_header(transport, self._proxied)
        elif not self._front.addresses.admit(host):
            transport.write(TOO_MANY_RESPONSE)
            transport.close()
            return
        else:
            self._host = host
        super().connection_made(transport)
        self._head_timer = asyncio.get_running_loop().call_later(
            self._front.limits.http_header_timeout, self.force_close)

    def _proxied(self, host: str, rest: bytes) -> None:
        """The header named `host`, and `rest` came after it."""
        self._header = None
        if not self._front.addresses.admit(host):
            assert self.transport is not None
            self.transport.write(TOO_MANY_RESPONSE)
            self.force_close()
            return
        self._host = self._player = host
        if rest:
            super().data_received(rest)

    @property
    def peername(self) -> Any:
        if self._player is not None:
            return (self._player, 0)
        return super().peername

    def data_received(self, data: bytes) -> None:
        if self._header is not None:
            self._header.feed(data)
        elif self._host is not None:
            super().data_received(data)

    def head_arrived(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def connection_lost(self, exc: BaseException | None) -> None:
        self.head_arrived()
        if self._header is not None:
            self._header.cancel()
            self._header = None
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
                                    self._front.limits.silent_refusal_seconds,
                                    exempt=self._front.from_balancer)
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
    return static_response(request, request.app[STATIC_FILES].files[INDEX])


async def dice_page(request: web.Request) -> web.Response:
    """The server's dice statistics by month (docs/FAIRNESS.md, "The open record")."""
    return static_response(request, request.app[STATIC_FILES].files[DICE_PAGE])


async def static(request: web.Request) -> web.Response:
    """A file by its unversioned address: asked for each time."""
    file = request.app[STATIC_FILES].files.get(request.match_info["name"])
    if file is None:
        raise web.HTTPNotFound()
    return static_response(request, file)


async def versioned_static(request: web.Request) -> web.Response:
    """A file of this release, kept by the browser for good. A page of an earlier release
    (open since before a restart) gets today's file, asked for each time."""
    static_files = request.app[STATIC_FILES]
    file = static_files.files.get(request.match_info["name"])
    if file is None:
        raise web.HTTPNotFound()
    current = request.match_info["version"] == static_files.version
    return static_response(request, file, KEEP_FOR_GOOD if current else ASK_EACH_TIME)


async def websocket(request: web.Request) -> web.StreamResponse:
    return await serve_websocket(request, request.app[FRONT], request.app[ORIGINS])


async def healthz(request: web.Request) -> web.Response:
    """The process answers (a liveness probe: always 200), with the shared services found down
    at the last check, if any: nothing is looked at now."""
    lines = ["ok", *request.app[OPERATIONS].health()]
    return web.Response(text="\n".join(lines) + "\n", headers=NOT_CACHED)


async def readyz(request: web.Request) -> web.Response:
    """200 once the server has started and while its store answers; 503 and the reason
    while it starts, stops, counts down to a shutdown or its store fails."""
    reason = await request.app[OPERATIONS].readiness()
    if reason is not None:
        return web.Response(status=503, text=reason + "\n", headers=NOT_CACHED)
    return web.Response(text="ready\n", headers=NOT_CACHED)


async def metrics(request: web.Request) -> web.Response:
    operations = request.app[OPERATIONS]
    if not allowed(request.remote, operations.metrics_from):
        raise web.HTTPForbidden(text="Metrics are not shown to your address.")
    return web.Response(body=(await operations.metrics()).encode(),
                        headers={**NOT_CACHED, "Content-Type": METRICS_CONTENT_TYPE})


def api_error(refusal: type[web.HTTPException], text: str,
              headers: dict[str, str] | None = None) -> web.HTTPException:
    """An /api/ refusal: `{"error": text}`, as JSON like every answer of the API."""
    return refusal(text=json.dumps({"error": text}), content_type="application/json",
                   headers=headers)


def refuse_heavy_reads_too_often(request: web.Request, refusal: str) -> None:
    """429 for an address that reads the archive's heavy answers too often (the lobby's
    `heavy_reads`, shared with `dicetest`), before anything is read."""
    wait = request.app[READS].heavy_reads.by_address.wait_before(request.remote or "")
    if wait:
        raise api_error(web.HTTPTooManyRequests, refusal,
                        {"Retry-After": str(math.ceil(wait))})


@overload
def count_parameter(request: web.Request, name: str, default: int, largest: int) -> int: ...


@overload
def count_parameter(request: web.Request, name: str, default: None,
                    largest: int) -> int | None: ...


def count_parameter(request: web.Request, name: str, default: int | None,
                    largest: int) -> int | None:
    """A whole number 0..largest from the query, `default` when it is not given, else 400
    (before anything is read: PostgreSQL would refuse an id beyond the column's range)."""
    typed = request.query.get(name)
    if typed is None:
        return default
    if not (typed.isdigit() and len(typed) <= len(str(largest)) and int(typed) <= largest):
        raise api_error(web.HTTPBadRequest, f"{name} must be a whole number 0 to {largest}.")
    return int(typed)


async def public_match(request: web.Request) -> MatchRecord:
    """The finished rated match the path names (public, as the archive is; the web has no
    login, so an unrated match is its players', over telnet only), else 404."""
    reads = request.app[READS]
    typed = request.match_info["match_id"]
    record = (await reads.match_store.match_by_id(int(typed))
              if typed.isdigit() and int(typed) <= LARGEST_ID else None)
    if record is None or not readable(record, ""):
        raise api_error(web.HTTPNotFound, NO_SUCH_MATCH)
    return record


async def rating_history(request: web.Request) -> web.Response:
    """`/api/rating-history?name=alice`: alice's rating by her rated matches, oldest first.
    The store reads its sums, at most RATING_HISTORY_MATCHES rows of an index (its reads
    have connections of their own: the loop waits for none); an address asking too often
    is refused before anything is read."""
    reads = request.app[READS]
    refuse_heavy_reads_too_often(request, TOO_MANY_HISTORY_REQUESTS)
    account = await reads.accounts.find_account(request.query.get("name", ""))
    if account is None:
        raise api_error(web.HTTPNotFound, NO_SUCH_PLAYER)
    changes = await reads.match_store.rating_history(account.name, RATING_HISTORY_MATCHES)
    return web.json_response({"name": account.name, "rating": account.rating,
                              "changes": [dataclasses.asdict(c) for c in changes]})


async def match_analysis(request: web.Request) -> web.Response:
    """`/api/matches/12/analysis`: the stored analysis of a finished rated match: `analysis`
    is `MatchAnalysis.to_dict()`, or null with the request's `status` (queued, running,
    failed; null: never asked for); `below_resolution`, per player, whether their error rate
    is below what the judge can see (`analysis_texts.below_resolution`)."""
    reads = request.app[READS]
    refuse_heavy_reads_too_often(request, TOO_MANY_ANALYSIS_REQUESTS)
    if reads.analyses is None:
        raise api_error(web.HTTPNotFound, NO_SUCH_MATCH)
    record = await public_match(request)
    stored = await reads.analyses.analysis_of(record.match_id)
    answer = {"match_id": record.match_id, "players": [record.player_a, record.player_b],
              "length": record.length}
    if stored is None:
        request_now = await reads.analyses.analysis_request(record.match_id)
        return web.json_response({**answer, "status": None if request_now is None
                                  else request_now.status.value, "analysis": None})
    # Worked out on reading, so that analyses stored before the mark existed carry it too.
    unseen = [below_resolution(player) for player in stored.analysis["players"]]
    return web.json_response({**answer, "status": "done", "analysed_at": stored.analysed_at,
                              "analysis": stored.analysis, "below_resolution": unseen})


async def match_moves(request: web.Request) -> web.Response:
    """`/api/matches/12`: a finished rated match's result and every game's actions
    (`public_reads.match_games`). The replay of its history is the one CPU-bound part of the
    API: in a thread, so the loop goes on between the interpreter's switches."""
    refuse_heavy_reads_too_often(request, TOO_MANY_ARCHIVE_REQUESTS)
    record = await public_match(request)
    return web.json_response(await asyncio.to_thread(match_games, record))


async def match_record(request: web.Request) -> web.Response:
    """`/api/matches/12/record`: a finished rated match as the open record publishes it
    (`public_reads.open_record`): `/api/matches/12`'s answer with its start, both ratings
    and the analysis's summary (null before it is analysed)."""
    reads = request.app[READS]
    refuse_heavy_reads_too_often(request, TOO_MANY_ARCHIVE_REQUESTS)
    record = await public_match(request)
    analysis = (None if reads.analyses is None
                else await reads.analyses.analysis_of(record.match_id))
    return web.json_response(await asyncio.to_thread(open_record, record, analysis))


async def match_mat(request: web.Request) -> web.Response:
    """`/api/matches/12/mat`: a finished rated match as a `.mat` file to download (a replay
    of its history, in a thread as `match_moves`'s)."""
    refuse_heavy_reads_too_often(request, TOO_MANY_ARCHIVE_REQUESTS)
    record = await public_match(request)
    return web.Response(text=await asyncio.to_thread(match_file, record), headers={
        "Content-Disposition": f'attachment; filename="fibs-{record.match_id}.mat"'})


def record_months(folder: pathlib.Path) -> list[dict[str, Any]]:
    """Every month's statistics file in the open record's folder, the latest first."""
    return [json.loads(path.read_text())
            for path in sorted(folder.glob("fibs-*.dice.json"), reverse=True)]


async def records(request: web.Request) -> web.Response:
    """`/api/records`: the open record's months, the latest first, each as its `.dice.json`
    (its matches, its files and its dice statistics); none when the server keeps no record."""
    refuse_heavy_reads_too_often(request, TOO_MANY_ARCHIVE_REQUESTS)
    folder = request.app.get(RECORDS_FOLDER)
    months = [] if folder is None else await asyncio.to_thread(record_months, folder)
    return web.json_response({"months": months})


async def record_file(request: web.Request) -> web.FileResponse:
    """`/records/fibs-2026-11.jsonl.gz` (and the month's other files, README.txt): a file of
    the open record, sent from the disk as it is."""
    refuse_heavy_reads_too_often(request, TOO_MANY_ARCHIVE_REQUESTS)
    folder = request.app.get(RECORDS_FOLDER)
    name = request.match_info["name"]
    if folder is None or not is_record_file(name):
        raise api_error(web.HTTPNotFound, NO_SUCH_RECORD_FILE)
    return web.FileResponse(folder / name)  # 404 when it is not there (yet)


async def ratings(request: web.Request) -> web.Response:
    """`/api/ratings?offset=0&limit=20`: the `ratings` command's list (experience above 50,
    best first), one page of it."""
    refuse_heavy_reads_too_often(request, TOO_MANY_ARCHIVE_REQUESTS)
    offset = count_parameter(request, "offset", 0, LARGEST_ID)
    limit = count_parameter(request, "limit", DEFAULT_PAGE, LARGEST_PAGE)
    total, accounts = await request.app[READS].accounts.ratings_page(
        RATED_MIN_EXPERIENCE, offset, limit)
    return web.json_response({"total": total, "offset": offset, "ratings": [
        {"rank": rank, "name": account.name, "rating": account.rating,
         "experience": account.experience}
        for rank, account in enumerate(accounts, offset + 1)]})


async def player(request: web.Request) -> web.Response:
    """`/api/players/alice`: what `whois` tells anyone, less the host and the address."""
    reads = request.app[READS]
    refuse_heavy_reads_too_often(request, TOO_MANY_ARCHIVE_REQUESTS)
    account = await reads.accounts.find_account(request.match_info["name"])
    if account is None:
        raise api_error(web.HTTPNotFound, NO_SUCH_PLAYER)
    played, won = await reads.match_store.rated_match_counts(account.name)
    return web.json_response({
        "name": account.name, "rating": account.rating, "experience": account.experience,
        "online": account.name.lower() in reads.online,
        "last_login_at": account.last_login_at,
        "rated_matches": played, "rated_matches_won": won})


async def player_matches(request: web.Request) -> web.Response:
    """`/api/players/alice/matches?before=12&limit=20`: alice's finished rated matches,
    newest first; `next_before` asks for the page after."""
    reads = request.app[READS]
    refuse_heavy_reads_too_often(request, TOO_MANY_ARCHIVE_REQUESTS)
    before = count_parameter(request, "before", None, LARGEST_ID)
    limit = count_parameter(request, "limit", DEFAULT_PAGE, LARGEST_PAGE)
    account = await reads.accounts.find_account(request.match_info["name"])
    if account is None:
        raise api_error(web.HTTPNotFound, NO_SUCH_PLAYER)
    matches = await reads.match_store.rated_matches(account.name, before, limit)
    analysed = (await reads.analyses.analysed_among([m.match_id for m in matches])
                if reads.analyses is not None else set())
    rows = []
    for match in matches:
        first = match.player_a == account.name
        rows.append({
            "match_id": match.match_id,
            "opponent": match.player_b if first else match.player_a,
            "length": match.length, "winner": match.winner,
            "score": (None if match.score is None
                      else match.score if first else match.score[::-1]),
            "finished_at": match.finished_at, "rating_before": match.rating_before,
            "rating_after": match.rating_after, "analysed": match.match_id in analysed})
    return web.json_response({
        "name": account.name, "matches": rows,
        "next_before": rows[-1]["match_id"] if len(rows) == limit and rows else None})


NO_SUCH_PUZZLE = "No such puzzle."


def puzzle_json(stored: StoredPuzzle) -> dict[str, Any]:
    """A puzzle without its answer (that comes with an answer: `puzzle <id> <answer>`),
    from the decider's side: its Position ID has the decider's checkers first."""
    asked, decider = stored.puzzle, stored.puzzle.player
    owner = asked.cube_owner
    return {"puzzle_id": stored.puzzle_id, "match_id": stored.match_id,
            "players": list(stored.players), "length": stored.length, "game": asked.game,
            "turn": asked.turn, "decider": stored.players[decider], "question": asked.question,
            "position_id": asked.position_id,
            "dice": list(asked.dice) if asked.dice else None, "cube": asked.cube,
            "cube_owner": None if owner is None else "player" if owner == decider else "opponent",
            "score": {"player": asked.score[decider], "opponent": asked.score[1 - decider]},
            "rating": round(stored.rating, 1), "attempts": stored.attempts,
            "solved": stored.solved}


async def puzzle_records(request: web.Request) -> AnalysisRecords:
    """The stored puzzles (the analyses' records), the address's heavy-read token taken."""
    reads = request.app[READS]
    refuse_heavy_reads_too_often(request, TOO_MANY_ARCHIVE_REQUESTS)
    if reads.analyses is None:
        raise api_error(web.HTTPNotFound, NO_SUCH_PUZZLE)
    return reads.analyses


async def daily_puzzle(request: web.Request) -> web.Response:
    """`/api/puzzles/daily`: the day's puzzle (UTC), the same for everyone all day."""
    day = datetime.datetime.now(datetime.timezone.utc).date()
    stored = await (await puzzle_records(request)).daily_puzzle(day)
    if stored is None:
        raise api_error(web.HTTPNotFound, NO_SUCH_PUZZLE)
    return web.json_response({"date": day.isoformat(), **puzzle_json(stored)})


async def next_puzzle(request: web.Request) -> web.Response:
    """`/api/puzzles/next?name=alice`: a puzzle alice has not tried, the nearest to her
    puzzle rating (public, as her rating is)."""
    records = await puzzle_records(request)
    name = request.query.get("name", "")
    rating = await records.puzzle_rating(name)
    stored = await records.next_puzzle(name, rating.rating)
    if stored is None:
        raise api_error(web.HTTPNotFound, NO_SUCH_PUZZLE)
    return web.json_response(puzzle_json(stored))


async def puzzle(request: web.Request) -> web.Response:
    """`/api/puzzles/7`: that puzzle."""
    records = await puzzle_records(request)
    typed = request.match_info["puzzle_id"]
    stored = (await records.puzzle(int(typed))
              if typed.isdigit() and int(typed) <= LARGEST_ID else None)
    if stored is None:
        raise api_error(web.HTTPNotFound, NO_SUCH_PUZZLE)
    return web.json_response(puzzle_json(stored))


async def player_puzzles(request: web.Request) -> web.Response:
    """`/api/players/alice/puzzles`: alice's puzzle rating, tries and solves."""
    records = await puzzle_records(request)
    account = await request.app[READS].accounts.find_account(request.match_info["name"])
    if account is None:
        raise api_error(web.HTTPNotFound, NO_SUCH_PLAYER)
    rating = await records.puzzle_rating(account.name)
    return web.json_response({"name": account.name, "rating": round(rating.rating, 1),
                              "attempts": rating.attempts, "solved": rating.solved})


async def dice(request: web.Request) -> web.Response:
    """`/api/dice?name=alice`: what `dicetest` shows: the server's rolls, and alice's when a
    name is given (the store's sums: a few rows whatever the archive's size)."""
    reads = request.app[READS]
    refuse_heavy_reads_too_often(request, TOO_MANY_ARCHIVE_REQUESTS)
    name = request.query.get("name")
    account = None if name is None else await reads.accounts.find_account(name)
    if name is not None and account is None:
        raise api_error(web.HTTPNotFound, NO_SUCH_PLAYER)
    server = dice_statistics(await reads.match_store.roll_tally(None))
    own = (None if account is None
           else dice_statistics(await reads.match_store.roll_tally(account.name)))
    return web.json_response({"server": server, "name": None if account is None
                              else account.name, "player": own})


def web_application(front: FrontEnd, reads: WebReads, files: StaticFiles,
                    origins: frozenset[Origin], operations: Operations,
                    records_folder: pathlib.Path | None = None) -> web.Application:
    application = web.Application(middlewares=[security_headers, paced])
    if records_folder is not None:
        application[RECORDS_FOLDER] = records_folder
    application[FRONT] = front
    application[READS] = reads
    application[STATIC_FILES] = files
    application[ORIGINS] = origins
    application[OPERATIONS] = operations
    application[RATE] = KeyedRateLimit(front.limits.http_request_burst,
                                       front.limits.http_requests_per_second)
    application.router.add_get("/", index)
    application.router.add_get("/ws", websocket)
    application.router.add_get("/api/rating-history", rating_history)
    application.router.add_get("/api/matches/{match_id}/analysis", match_analysis)
    application.router.add_get("/api/matches/{match_id}/record", match_record)
    application.router.add_get("/api/matches/{match_id}/mat", match_mat)
    application.router.add_get("/api/records", records)
    application.router.add_get("/records/{name}", record_file)
    application.router.add_get("/dice", dice_page)
    application.router.add_get("/api/matches/{match_id}", match_moves)
    application.router.add_get("/api/ratings", ratings)
    application.router.add_get("/api/players/{name}", player)
    application.router.add_get("/api/players/{name}/matches", player_matches)
    application.router.add_get("/api/dice", dice)
    application.router.add_get("/api/puzzles/daily", daily_puzzle)
    application.router.add_get("/api/puzzles/next", next_puzzle)
    application.router.add_get("/api/puzzles/{puzzle_id}", puzzle)
    application.router.add_get("/api/players/{name}/puzzles", player_puzzles)
    application.router.add_get("/static/{name}", static)
    application.router.add_get("/static/{version}/{name}", versioned_static)
    application.router.add_get("/healthz", healthz)
    application.router.add_get("/readyz", readyz)
    application.router.add_get("/metrics", metrics)
    return application


async def start_http_server(front: FrontEnd, reads: WebReads, listening: socket.socket,
                            origins: frozenset[Origin], operations: Operations,
                            records_folder: pathlib.Path | None = None) -> web.AppRunner:
    """Serve the web client on `listening` beside the telnet port, sharing its front end: the
    lobby, the limits, the per-address count and the output batcher; the API reads `reads`.
    Only pages from `origins` may open a WebSocket; the open record's files are served from
    `records_folder`."""
    files = await asyncio.to_thread(load_static_files)
    runner = web.AppRunner(web_application(front, reads, files, origins, operations,
                                           records_folder),
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
