"""The web client's transport over real sockets, without a browser: the page and its files,
a WebSocket session as one more CLIP client of the lobby, the telnet port's limits on it,
the Origin check, the rating history endpoint, and abuse (garbage and huge frames, floods)
that leaves the server and every other session alone."""
from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import re

import aiohttp
import pytest
import pytest_asyncio

from fibs_server.lobby.ports.accounts import Account
from fibs_server.net.http import RETRY_AFTER_TOO_MANY, STATIC
from fibs_server.net.limits import TOO_MANY_CONNECTIONS, NetLimits
from fibs_server.protocol import texts
from fibs_server.protocol.views import web_events
from fibs_server.protocol.wording import server_texts
from fibs_server.rules.dice import VerifiableDice
from tests.e2e.client import READY
from tests.protocol.test_web_events import VALIDATOR
from tests.waiting import DEADLINE, until
from tests.web.conftest import WebHarness

TIMEOUT = DEADLINE  # what a test waits for must come


class WebClient:
    """A WebSocket user reading the server's lines (each message is whole lines and perhaps
    a prompt, as the page reads them)."""

    def __init__(self, session: aiohttp.ClientSession, socket: aiohttp.ClientWebSocketResponse):
        self.http = session
        self.socket = socket
        self.lines: list[str] = []
        self.prompt: str | None = None

    @classmethod
    async def connect(cls, harness: WebHarness, **options) -> WebClient:
        http = aiohttp.ClientSession()
        try:
            socket = await http.ws_connect(harness.url + "ws", **options)
        except BaseException:
            await http.close()
            raise
        return cls(http, socket)

    async def close(self) -> None:
        await self.socket.close()
        await self.http.close()

    async def send(self, line: str) -> None:
        await self.socket.send_str(line)

    async def _receive(self) -> None:
        message = await self.socket.receive(timeout=TIMEOUT)
        if message.type is not aiohttp.WSMsgType.TEXT:
            raise ConnectionError(f"the server closed: {message!r}; read: {self.lines[-5:]}")
        *lines, self.prompt = message.data.split("\r\n")
        self.lines += lines

    async def skip_until(self, wanted: str | re.Pattern) -> list[str]:
        """Read lines until one equals or matches `wanted` (the prompt counts as one); return
        the lines before it."""
        skipped = []
        while True:
            while self.lines:
                line = self.lines.pop(0)
                if line == wanted or (isinstance(wanted, re.Pattern) and wanted.fullmatch(line)):
                    return skipped
                skipped.append(line)
            if self.prompt == wanted:
                self.prompt = None
                return skipped
            await self._receive()

    async def toggle_ready(self) -> None:
        """`toggle ready`, and its answer read, as `FibsClient.toggle_ready`."""
        await self.send("toggle ready")
        await self.skip_until(READY)

    async def closed(self) -> aiohttp.WSMessage:
        """What the server sends until it closes: the close message."""
        while True:
            message = await self.socket.receive(timeout=TIMEOUT)
            if message.type is not aiohttp.WSMsgType.TEXT:
                return message
            self.lines += message.data.split("\r\n")


@pytest_asyncio.fixture(loop_scope="session")
async def clients():
    opened: list[WebClient] = []
    yield opened
    for client in opened:
        await client.close()


async def web_login(harness: WebHarness, clients: list, name: str, **options) -> WebClient:
    client = await WebClient.connect(harness, **options)
    clients.append(client)
    await client.skip_until("login: ")
    await client.send(f"login web 1008 {name} secret")
    await client.skip_until(re.compile(rf"1 {name} \d+ \S+"))
    await client.skip_until("6")  # the who block ends the login
    return client


async def test_the_page_and_its_files_come_with_a_strict_content_policy(web):
    async with aiohttp.ClientSession() as http:
        async with http.get(web.url) as page:
            assert page.status == 200
            assert re.search(r'<script type="module" src="/static/[0-9a-f]+/app.js">',
                             await page.text())
            assert page.headers["Content-Security-Policy"].startswith("default-src 'self'")
            assert page.headers["X-Content-Type-Options"] == "nosniff"
            assert "Set-Cookie" not in page.headers
        for module in sorted(path.name for path in STATIC.iterdir() if path.is_file()):
            async with http.get(f"{web.url}static/{module}") as answer:
                assert answer.status == 200, module
        async with http.get(f"{web.url}static/..%2f..%2fapp.py") as answer:
            assert answer.status in (403, 404)


async def test_a_websocket_user_is_a_clip_client_of_the_same_lobby(web, clients):
    await web.register("alice")
    await web.register("bob")
    alice = await web_login(web, clients, "alice")
    bob = await web.login_telnet("bob")
    await bob.send("tell alice hello <there>")
    await alice.skip_until("12 bob hello <there>")
    await alice.send("tell bob hi")
    await alice.skip_until("16 bob hi")
    await bob.skip_until(re.compile(r"(> )?alice says: hi"))
    await alice.send("who")
    await alice.skip_until(re.compile(r"5 bob - - 0 0 1500\.00 0 \d+ \d+ 127\.0\.0\.1 - -"))
    await bob.send("rawwho alice")
    await bob.skip_until(re.compile(r"(> )?5 alice - - 0 0 1500\.00 0 \d+ \d+ 127\.0\.0\.1 web -"))
    await alice.send("bye")
    closing = await alice.closed()
    assert closing.type is aiohttp.WSMsgType.CLOSE and closing.data == 1000
    await bob.skip_until(re.compile(r"(> )?8 alice alice logs out\.|(> )?alice logs out\."))


async def test_registration_and_a_visit_start_as_clip_clients_too(web_with_bots, clients):
    harness = web_with_bots
    carol = await WebClient.connect(harness)
    clients.append(carol)
    await carol.skip_until("login: ")
    for line, answer in (("guest", "> "), ("name carol", "Please give your password: "),
                         ("secret", "Please retype your password: "), ("secret", "You are registered.")):
        await carol.send(line)
        await carol.skip_until(answer)
    await carol.skip_until(re.compile(r"1 carol \d+ \S+"))
    visitor = await WebClient.connect(harness)
    clients.append(visitor)
    await visitor.skip_until("login: ")
    await visitor.send("bot beginner 1")
    await visitor.skip_until(re.compile(r"1 guest_[a-z]{5} \d+ \S+"))
    await visitor.skip_until("** Player bot_beginner has joined you for a 1 point match.")


async def test_a_page_from_another_site_may_not_open_a_websocket(web, clients):
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await WebClient.connect(web, origin="http://evil.example")
    assert refused.value.status == 403
    own = await WebClient.connect(web, origin=web.url.rstrip("/"))
    clients.append(own)
    await own.skip_until("login: ")


async def test_connections_per_address_count_telnet_and_websockets_together(tmp_path, clients):
    harness = WebHarness(f"sqlite:///{tmp_path / 'fibs-web.db'}")
    # Every refusal told (no silence after the first): this test reads each one's text.
    harness.config.net_limits = NetLimits(connections_per_address=2, silent_refusal_seconds=0.0)
    await harness.start()
    try:
        await harness.connect()
        first = await WebClient.connect(harness)
        clients.append(first)
        await first.skip_until("login: ")
        # Refused as an HTTP connection, before its handshake is read: 503 and the text.
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await WebClient.connect(harness)
        assert refused.value.status == 503
        assert refused.value.headers["Retry-After"] == str(RETRY_AFTER_TOO_MANY)
        reader, writer = await asyncio.open_connection("127.0.0.1", harness.server.http_port)
        assert TOO_MANY_CONNECTIONS.encode() in await reader.read()
        writer.close()
        await first.close()  # its count goes with it
        again = await WebClient.connect(harness)
        clients.append(again)
        await again.skip_until("login: ")
    finally:
        await harness.stop()


async def test_a_long_line_is_refused_and_a_huge_message_closes_only_its_connection(web, clients):
    await web.register("alice")
    await web.register("bob")
    alice = await web_login(web, clients, "alice")
    bob = await web.login_telnet("bob")
    await alice.send("x" * 5000)
    await alice.skip_until(texts.LINE_TOO_LONG)
    await alice.send("tell alice still here")
    await alice.skip_until("You say to yourself: still here")
    await alice.send("x" * 200_000)  # over MAX_UNREAD_BYTES: aiohttp closes with 1009
    closing = await alice.closed()
    assert closing.type is aiohttp.WSMsgType.CLOSE and closing.data == 1009
    await bob.skip_until(re.compile(r"(> )?alice drops connection\."))
    await bob.send("tell bob still here")
    await bob.skip_until(re.compile(r"(> )?You say to yourself: still here"))


def raw_handshake(port: int) -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    return (f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n").encode()


def masked_frame(opcode: int, payload: bytes, fin: bool = True) -> bytes:
    mask = os.urandom(4)
    size = len(payload)
    header = bytes([(0x80 if fin else 0) | opcode])
    if size < 126:
        header += bytes([0x80 | size])
    elif size < 1 << 16:
        header += bytes([0x80 | 126]) + size.to_bytes(2, "big")
    else:
        header += bytes([0x80 | 127]) + size.to_bytes(8, "big")
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


GARBAGE = {
    "not a frame": os.urandom(4096),
    "unmasked": bytes([0x81, 5]) + b"hello",
    "reserved opcode": masked_frame(0x3, b"what"),
    "continuation without a start": masked_frame(0x0, b"orphan"),
    "a frame claiming 2**62 bytes": bytes([0x82, 0xFF]) + (1 << 62).to_bytes(8, "big") + b"\0" * 8,
    "invalid UTF-8 text": masked_frame(0x1, b"\xff\xfe\xfd"),
}


@pytest.mark.parametrize("garbage", list(GARBAGE), ids=list(GARBAGE))
async def test_garbage_closes_only_its_own_connection(web, clients, garbage):
    await web.register("alice")
    alice = await web_login(web, clients, "alice")
    reader, writer = await asyncio.open_connection("127.0.0.1", web.server.http_port)
    writer.write(raw_handshake(web.server.http_port))
    assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 101")
    writer.write(GARBAGE[garbage])
    writer.write(masked_frame(0x1, b"who"))  # whatever is still read after it
    await writer.drain()
    await reader.readuntil(b"login: ")  # the banner came, whatever the garbage does
    writer.close()
    await alice.send("tell alice fine")
    await alice.skip_until("You say to yourself: fine")


async def test_floods_of_messages_and_binary_garbage_leave_other_sessions_answered(web, clients):
    await web.register("alice")
    await web.register("mallory")
    alice = await web_login(web, clients, "alice")
    mallory = await web_login(web, clients, "mallory")

    async def flood() -> None:
        for round_number in range(200):
            await mallory.socket.send_str("\n" * 1000)
            await mallory.socket.send_bytes(os.urandom(2048))
            await mallory.socket.send_str("who\nshout spam\nboard")
    flooding = asyncio.create_task(flood())

    async def drain() -> None:
        while True:
            await mallory._receive()
            mallory.lines.clear()
    draining = asyncio.create_task(drain())
    try:
        # Answered, each within the reads' ceiling; how long a bystander waits under a
        # flood, against its own wait without one, is tests/hostile/test_websocket_floods.py's.
        for number in range(20):
            await alice.send(f"tell alice probe {number}")
            await alice.skip_until(f"You say to yourself: probe {number}")
        await flooding
    finally:
        draining.cancel()
        flooding.cancel()
    await alice.send("tell alice after")
    await alice.skip_until("You say to yourself: after")


async def test_the_rating_history_endpoint_reads_the_stored_matches(web):
    store = web.server.store
    for name in ("alice", "bob"):
        await store.create_account(Account(name=name, password_hash=b"x"))
    match_id = await store.create_match("alice", "bob", 1, {})
    await store.finish_match(match_id, {"ratings": {"alice": [1500.0, 1507.5],
                                                    "bob": [1500.0, 1492.5]}}, "alice", [])
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{web.url}api/rating-history", params={"name": "ALICE"}) as answer:
            assert answer.status == 200
            history = await answer.json()
        assert history["name"] == "alice"
        assert [(c["before"], c["after"]) for c in history["changes"]] == [(1500.0, 1507.5)]
        async with http.get(f"{web.url}api/rating-history", params={"name": "nobody"}) as answer:
            assert answer.status == 404


async def test_a_graceful_stop_tells_a_websocket_user_and_closes_the_connection(tmp_path):
    harness = await WebHarness(f"sqlite:///{tmp_path / 'fibs-web.db'}").start()
    clients: list[WebClient] = []
    try:
        await harness.register("alice")
        alice = await web_login(harness, clients, "alice")
        await harness.stop()
        await alice.skip_until(server_texts.SHUTTING_DOWN)
        closing = await alice.closed()
        assert closing.type is aiohttp.WSMsgType.CLOSE and closing.data == 1000
    finally:
        for client in clients:
            await client.close()
        await harness.stop()


async def test_the_web_page_gets_the_extensions_a_classic_session_asks_for(web, clients):
    """The dice commitment at a match's start and the saved-match counts in `whois` come to
    the web page unasked; a telnet session sees FIBS's lines only (docs/PROTOCOL.md)."""
    seed = bytes(range(32))
    web.dice.append(VerifiableDice(seed))
    await web.register("alice")
    await web.register("bob")
    alice = await web_login(web, clients, "alice")
    bob = await web.login_telnet("bob")
    await alice.toggle_ready()
    await bob.toggle_ready()
    await alice.send("whois bob")
    await alice.skip_until("  Saved matches waiting: 0. Matches abandoned: 0.")
    await bob.send("invite alice 1")
    await alice.skip_until("Type 'join bob' to accept.")
    await alice.send("join bob")
    await alice.skip_until("** You are now playing a 1 point match with bob")
    commitment = VerifiableDice(seed).commitment
    await alice.skip_until(f"Dice commitment for this match: {commitment}. Type 'help fairdice'.")
    before = await bob.skip_until(re.compile(r"(> )?Starting a new game with alice\."))
    assert not any("commitment" in line for line in before)


async def test_a_page_that_asks_for_events_gets_them_in_order_with_the_lines(web, clients):
    """`/ws?events=1`: a hello first, then each typed message a line of its own starting with
    `{` beside FIBS's lines; a line of ours that would start so gets a blank in front; the
    telnet user meanwhile sees FIBS's lines only (docs/WEB-PROTOCOL.md)."""
    await web.register("alice")
    await web.register("bob")
    assert web.server is not None and web.server.lobby is not None
    lobby = web.server.lobby
    motd, lobby.motd = lobby.motd, ("{not an event}",)
    alice = await WebClient.connect(web, params={"events": "1"})
    clients.append(alice)
    await alice._receive()
    hello = json.loads(alice.lines[0])
    VALIDATOR.validate(hello)
    assert hello == {"type": "hello", "version": 1, "variants": web_events.hello()["variants"],
                     "connection": {"heartbeat_seconds": 2.5, "silent_heartbeats": 3,
                                    "retry_first_seconds": 0.5, "retry_most_seconds": 10.0}}
    await alice.skip_until("login: ")
    await alice.send("login web 1008 alice secret")
    await alice.skip_until(" {not an event}")
    await alice.skip_until("6")
    while not alice.lines:
        await alice._receive()
    logged_in = json.loads(alice.lines.pop(0))  # after the who block: who the page is
    assert (logged_in["type"], logged_in["name"], logged_in["visitor"]) == (
        "logged_in", "alice", False)
    while not alice.lines:
        await alice._receive()
    welcome = json.loads(alice.lines.pop(0))  # then who is online
    assert (welcome["type"], welcome["name"], welcome["online"]) == ("presence", "alice", True)
    lobby.motd = motd
    bob = await web.login_telnet("bob")
    await alice.skip_until(re.compile(r'\{"type":"presence","name":"bob","online":true.*'))
    await bob.send("tell alice hello {there}")
    await alice.skip_until("12 bob hello {there}")
    while not alice.lines:
        await alice._receive()
    said = json.loads(alice.lines.pop(0))
    VALIDATOR.validate(said)
    assert said == {"type": "chat", "kind": "tell", "from": "bob", "to": "alice",
                    "text": "hello {there}"}
    await alice.send("tell bob hi")
    before = await bob.skip_until(re.compile(r"(> )?alice says: hi"))
    assert not any(line.lstrip("> ").startswith("{") for line in before)


async def test_a_page_gets_the_login_dialogues_refusals_as_messages_too(web, clients):
    """Before any login: a wrong password is answered with the login prompt alone, as FIBS
    does, and for a page that asked, its `refusal` on a line of its own before it."""
    await web.register("alice")
    page = await WebClient.connect(web, params={"events": "1"})
    clients.append(page)
    await page.skip_until("login: ")
    await page.send("login web 1008 alice wrong")
    assert await typed_message(page, "refusal") == {
        "type": "refusal", "code": "wrong_login", "params": {}, "text": "login:"}
    await page.skip_until("login: ")


async def test_a_page_that_asks_for_an_events_version_we_do_not_speak_is_refused(web):
    async with aiohttp.ClientSession() as http:
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            await http.ws_connect(web.url + "ws", params={"events": "2"})
    assert refused.value.status == 400


async def test_a_dropped_page_resumes_its_timed_match_with_its_session_token(web, clients):
    """A web page's connection drops in the middle of a timed match; a new connection that
    presents the session token within the hold takes the session over: the same match goes
    on, its opponent sees no drop, and the token is renewed."""
    web.script_dice((3, 1), (6, 4))
    await web.register("alice")
    await web.register("bob")
    alice = await web_login(web, clients, "alice", params={"events": "1"})
    alice_token = await session_token(alice)
    bob = await web.login_telnet("bob")
    await bob.toggle_ready()
    await alice.send("toggle ready")
    await alice.send("invite bob 3 timer 60")
    await bob.skip_until(re.compile(r"(> )?Type 'join alice' to accept\."))
    await bob.send("join alice")
    await alice.skip_until("It's your turn to move.")
    lobby = web.server.lobby
    running = lobby.match_table.match_of(lobby.attendance.users.online["alice"])
    assert running is not None and running.timer is not None

    await alice.socket.close()  # no `bye`: a reload, or a network gone
    page = await WebClient.connect(web, params={"events": "1"})
    clients.append(page)
    await page.skip_until("login: ")
    await page.send(f"resume {alice_token}")
    await page.skip_until(re.compile(r"1 alice \d+ \S+"))
    renewed = await session_token(page)
    assert renewed != alice_token
    board = await typed_message(page, "board")
    assert board["player"]["name"] == "alice" and board["clock"]["side"] == "player"
    assert (board["phase"], board["turn"]) == ("move", "player")
    await page.send("move 8-5 6-5")
    await bob.skip_until(re.compile(r"(> )?alice moves 8-5 6-5 \."))
    assert lobby.match_table.match_of(lobby.attendance.users.online["alice"]) is running
    await bob.send("tell bob checked")
    told = await bob.skip_until(re.compile(r"(> )?You say to yourself: checked"))
    assert not any("drops connection" in line or "logs" in line for line in told)

    await page.send(f"resume {alice_token}")  # once used, the old token is no more
    await page.send("bye")
    await page.closed()
    again = await WebClient.connect(web, params={"events": "1"})
    clients.append(again)
    await again.skip_until("login: ")
    await again.send(f"resume {renewed}")  # revoked by `bye`
    assert await typed_message(again, "session") == {"type": "session", "token": None}
    await again.skip_until("login: ")


async def session_token(client: WebClient) -> str:
    message = await typed_message(client, "session")
    assert isinstance(message["token"], str)
    return message["token"]


async def typed_message(client: WebClient, kind: str) -> dict:
    """The next typed message of `kind`, valid by the schema (the lines before it skipped)."""
    while True:
        while client.lines:
            line = client.lines.pop(0)
            if line.startswith("{"):
                message = json.loads(line)
                VALIDATOR.validate(message)
                if message["type"] == kind:
                    return message
        await client._receive()


async def test_a_pages_heartbeat_is_answered_below_the_lobby(web, clients):
    """An empty binary message, answered at once with an empty binary one: no command and no
    activity, so the user's idle time goes on."""
    await web.register("alice")
    alice = await web_login(web, clients, "alice")
    session = web.server.lobby.attendance.users.online["alice"]
    active = session.who.last_active
    for _ in range(3):
        await alice.socket.send_bytes(b"")
        answer = await alice.socket.receive(timeout=TIMEOUT)
        assert (answer.type, answer.data) == (aiohttp.WSMsgType.BINARY, b"")
    assert session.who.last_active == active
    await alice.send("tell alice still here")
    await alice.skip_until("You say to yourself: still here")


async def test_a_websocket_that_answers_no_ping_is_taken_for_gone_and_its_session_held(
        tmp_path, clients):
    """The server pings a WebSocket that sent nothing for `websocket_ping_seconds` (10 s)
    and takes one that sends nothing within half as long again for gone, without waiting
    for TCP: its page's session is held for the page to come back. A peer that answers
    (aiohttp's client does by itself while it reads) stays, however long it sends nothing
    else: bob, silent since before alice logged in, was pinged before her and answered.
    The default's times, not shorter: the answer's 5 s is a bound a loaded machine must
    meet (at load 15, 0.15 s after a ping of 0.3 s was missed, and bob taken for gone)."""
    harness = WebHarness(f"sqlite:///{tmp_path / 'fibs-web.db'}")
    await harness.start()
    try:
        await harness.register("alice")
        await harness.register("bob")
        bob = await web_login(harness, clients, "bob", params={"events": "1"})
        bob_reads = asyncio.ensure_future(bob.skip_until("no such line"))  # answering pings
        alice = await web_login(harness, clients, "alice", params={"events": "1"})
        await session_token(alice)  # a page's session, which the server holds when it drops
        lobby = harness.server.lobby
        session = lobby.attendance.users.online["alice"]
        # From here alice reads nothing, so her pings go unanswered.
        await until(lambda: lobby.held.is_held(session), "alice's silent page taken for gone")
        assert not bob_reads.done()
        assert not lobby.held.is_held(lobby.attendance.users.online["bob"])
        bob_reads.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await bob_reads
        await bob.send("tell bob still here")
        await bob.skip_until("You say to yourself: still here")
    finally:
        await harness.stop()


async def page_resumed(web: WebHarness, clients: list, token: str) -> WebClient:
    """A new page that resumes the session of `token`."""
    page = await WebClient.connect(web, params={"events": "1"})
    clients.append(page)
    await page.skip_until("login: ")
    await page.send(f"resume {token}")
    return page


async def test_the_opponent_and_the_watchers_hear_that_a_page_dropped_and_came_back(web, clients):
    """While the server holds a page's session, the pages of its opponent and of the watchers
    of the match are told that its connection dropped, and then that it came back; a classic
    session hears nothing new (it sees the takeover's who-line, as on FIBS)."""
    for name in ("alice", "bob", "carol", "dave"):
        await web.register(name)
    alice = await web_login(web, clients, "alice", params={"events": "1"})
    alice_token = await session_token(alice)
    bob = await web_login(web, clients, "bob", params={"events": "1"})
    bob_token = await session_token(bob)
    carol = await web_login(web, clients, "carol", params={"events": "1"})
    dave = await web.login_telnet("dave")
    await alice.send("toggle ready")
    await bob.toggle_ready()  # before alice's invitation, which comes on another connection
    await alice.send("invite bob 1")
    await bob.skip_until(re.compile(r"Type 'join alice' to accept\."))
    await bob.send("join alice")
    await bob.skip_until(re.compile(r"Starting a new game with alice\."))
    await carol.send("watch alice")
    await typed_message(carol, "board")
    await dave.send("watch bob")
    await dave.skip_until(re.compile(r"(> )?You're now watching bob\."))

    await alice.socket.close()  # no `bye`: a reload, or a network gone
    dropped = {"type": "player_connection", "name": "alice", "connected": False}
    assert await typed_message(bob, "player_connection") == dropped
    assert await typed_message(carol, "player_connection") == dropped
    # bob's page goes away too and comes back: it hears again that alice's is still away.
    await bob.socket.close()
    bob = await page_resumed(web, clients, bob_token)
    await typed_message(bob, "match_started")
    assert await typed_message(bob, "player_connection") == dropped
    assert [await typed_message(carol, "player_connection") for _ in range(2)] == [
        {"type": "player_connection", "name": "bob", "connected": connected}
        for connected in (False, True)]
    await page_resumed(web, clients, alice_token)
    back = {"type": "player_connection", "name": "alice", "connected": True}
    assert await typed_message(bob, "player_connection") == back
    assert await typed_message(carol, "player_connection") == back
    await dave.send("tell dave checked")
    told = await dave.skip_until(re.compile(r"(> )?You say to yourself: checked"))
    assert not any("connection" in line for line in told)
