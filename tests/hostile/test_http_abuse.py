"""Abuse of the HTTP port: idle and half-sent connections (counted with telnet's, timed out),
a request flood (429 with Retry-After), pages of other origins, pings then a reset, and the
listening socket when the process is out of descriptors. A telnet bystander is measured
throughout, as in test_floods.py."""
from __future__ import annotations

import asyncio
import base64
import dataclasses
import errno
import http.client
import json
import logging
import multiprocessing
import multiprocessing.synchronize
import os
import socket
import struct
import threading
import time

import aiohttp
import pytest

from fibs_server.lobby.limits.read_limits import KeyedRateLimit
from fibs_server.net.http import RETRY_AFTER_TOO_MANY, STATIC
from fibs_server.net.limits import TOO_MANY_CONNECTIONS, NetLimits
from fibs_server.net.listening import BackingOffSocket, listening_socket, quiet_accept_failures
from tests.fake_clock import FakeClock
from tests.hostile.bystander import (
    CEILING,
    assert_logs_in_promptly,
    assert_unhurt,
    logged_in_quietly,
    time_answers_during,
)
from tests.waiting import until
from tests.web.conftest import WebHarness

ATTACKER = "127.0.0.2"
LEAST_REQUESTS = 10  # each flooding connection's, however long a loaded machine takes
START_UP = 4  # seconds of slack for a rate over a flood's time: its connections starting


@pytest.fixture
async def make_web(tmp_path):
    """`await make_web(NetLimits(...))`: the server with its web client, two users
    registered (bystander, latecomer)."""
    started: list[WebHarness] = []

    async def make(net: NetLimits) -> WebHarness:
        harness = WebHarness(f"sqlite:///{tmp_path / 'http-abuse.db'}")
        harness.config = dataclasses.replace(harness.config, net_limits=net)
        started.append(await harness.start())
        for name in ("bystander", "latecomer"):
            await harness.register(name)
        return harness

    yield make
    for harness in started:
        await harness.stop()


async def test_idle_http_connections_count_with_telnet_and_time_out(make_web, tracebacks):
    harness = await make_web(NetLimits(connections_per_address=20, http_header_timeout=1.0))
    assert harness.server is not None and harness.server.http_port is not None
    bystander, login, quiet = await logged_in_quietly(harness)
    port = harness.server.http_port
    attacking = asyncio.get_running_loop().create_future()

    async def attack() -> list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
        idle = []
        for number in range(30):  # 20 admitted: half send nothing, half half a request
            idle.append(await asyncio.open_connection("127.0.0.1", port,
                                                      local_addr=(ATTACKER, 0)))
            if number % 2:
                idle[-1][1].write(b"GET / HTTP/1.1\r\nHost: x\r\n")
        return idle

    async def attack_until_closed() -> None:
        idle = await attack()
        refused = [await reader.read() for reader, _ in idle[20:]]
        # Over the count: the first a 503 with the text, then closed; the others within the
        # silence after it closed without a word, unless they were accepted in the same turn
        # as the 20 (then refused as each is set up, with the 503).
        assert refused[0].startswith(b"HTTP/1.1 503")
        assert TOO_MANY_CONNECTIONS.encode() in refused[0]
        assert f"Retry-After: {RETRY_AFTER_TOO_MANY}".encode() in refused[0]
        assert all(answer in (b"", refused[0]) for answer in refused)
        # Telnet from the same address counts against the same 20.
        telnet, _ = await asyncio.open_connection("127.0.0.1", harness.server.port,
                                                  local_addr=(ATTACKER, 0))
        assert TOO_MANY_CONNECTIONS.encode() in await telnet.read()
        # Each admitted one, silent or half-sent, is closed at the header timeout.
        for reader, _ in idle[:20]:
            assert await asyncio.wait_for(reader.read(), CEILING) == b""
        for _, writer in idle:
            writer.close()
        attacking.set_result(None)

    attacker = asyncio.create_task(attack_until_closed())
    delays = await time_answers_during(bystander, attacking)
    await attacker
    assert_unhurt(quiet, delays, "idle HTTP connections")
    await assert_logs_in_promptly(harness.login_clip("latecomer"), login,
                                  "idle HTTP connections")
    # The address's count is back: it may connect again.
    again = await harness.connect("again", source=ATTACKER)
    await again.send("bye")


def http_flood(port: int, seconds: float, sources: list[str], paths: tuple[str, ...],
               results: str, stop: multiprocessing.synchronize.Event | None = None) -> None:
    """A kept-alive connection from each of `sources` (addresses, repeated for more than one
    each) asking for `paths` in turn as fast as it can for `seconds` (with `stop`: until it
    is set), and LEAST_REQUESTS times at least (a loaded machine asks fewer in that time);
    the statuses by address and "path status", the 429s without Retry-After and the seconds
    the flood took go to the file `results` (JSON)."""
    started = time.monotonic()
    deadline = started + seconds

    def going_on() -> bool:
        return time.monotonic() < deadline if stop is None else not stop.is_set()
    statuses: dict[str, dict[str, int]] = {}
    without_retry_after = 0
    lock = threading.Lock()

    def one(address: str) -> None:
        nonlocal without_retry_after
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=CEILING,
                                                source_address=(address, 0))
        asked = 0
        while going_on() or asked < LEAST_REQUESTS:
            path = paths[asked % len(paths)]
            asked += 1
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            with lock:
                seen = statuses.setdefault(address, {})
                key = f"{path} {response.status}"
                seen[key] = seen.get(key, 0) + 1
                if response.status == 429 and not response.getheader("Retry-After"):
                    without_retry_after += 1
        connection.close()

    workers = [threading.Thread(target=one, args=(address,)) for address in sources]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    with open(results, "w") as file:
        json.dump({"statuses": statuses, "without_retry_after": without_retry_after,
                   "seconds": time.monotonic() - started}, file)


def counted(seen: dict[str, int], status: int) -> int:
    """How many answers of `status` an address got (http_flood's "path status" counts)."""
    return sum(count for key, count in seen.items() if key.endswith(f" {status}"))


async def test_a_request_flood_gets_429_and_the_bystander_stays_fast(make_web, tracebacks,
                                                                     tmp_path):
    harness = await make_web(NetLimits(http_request_burst=20, http_requests_per_second=10))
    assert harness.server is not None
    bystander, login, quiet = await logged_in_quietly(harness)
    results = tmp_path / "flood.json"
    # In a process of its own: flooding threads here would take the server's GIL.
    flooder = multiprocessing.get_context("spawn").Process(
        target=http_flood, args=(harness.server.http_port, 2.0, [ATTACKER] * 8,
                                 ("/static/app.js",), str(results)))
    flooder.start()
    flooding = asyncio.ensure_future(asyncio.to_thread(flooder.join))
    delays = await time_answers_during(bystander, flooding)
    flood = json.loads(results.read_text())
    print(flood)
    seen = flood["statuses"][ATTACKER]
    assert counted(seen, 429) >= 8 and flood["without_retry_after"] == 0
    # The burst and 10 a second over the flood's time (and its start-up), no more.
    assert 20 <= counted(seen, 200) <= 20 + 10 * (flood["seconds"] + START_UP)
    # A connection told to retry after a second that asks at once waits that second out:
    # about one 429 per connection per second, not one per request it could parse.
    assert counted(seen, 429) <= 8 * (flood["seconds"] + START_UP)
    assert_unhurt(quiet, delays, "an HTTP request flood")
    await assert_logs_in_promptly(harness.login_clip("latecomer"), login,
                                  "an HTTP request flood")
    # Another address is not held back by the flooder's bucket.
    async with aiohttp.ClientSession() as http_client:
        async with http_client.get(harness.url + "static/app.js") as response:
            assert response.status == 200


def test_the_request_rate_is_a_burst_then_a_pace_per_address():
    clock = FakeClock()
    rate = KeyedRateLimit(burst=3, per_second=2.0, clock=clock.time)
    assert [rate.wait_before("a") for _ in range(3)] == [0, 0, 0]
    assert rate.wait_before("a") == pytest.approx(0.5)
    assert rate.wait_before("b") == 0
    clock.advance(0.25)
    assert rate.wait_before("a") == pytest.approx(0.25)
    clock.advance(0.25)
    assert rate.wait_before("a") == 0


def test_the_request_buckets_forget_addresses_that_are_quiet_again():
    clock = FakeClock()
    rate = KeyedRateLimit(burst=2, per_second=1.0, clock=clock.time)
    for number in range(5000):
        rate.wait_before(f"10.0.{number // 250}.{number % 250}")
        clock.advance(0.001)
    clock.advance(10)  # every bucket is full again
    rate.wait_before("10.9.9.9")
    assert len(rate) == 1


async def test_only_the_configured_page_origin_may_open_a_websocket(make_web, tracebacks):
    harness = await make_web(NetLimits())
    assert harness.server is not None
    own = f"127.0.0.1:{harness.server.http_port}"
    refused = {
        "another scheme, same host and port": (f"chrome-extension://{own}", own),
        "https on the same host and port": (f"https://{own}", own),
        "a rebound name (Host follows it)": (f"http://evil.example:{harness.server.http_port}",
                                             f"evil.example:{harness.server.http_port}"),
        "another port": ("http://127.0.0.1:1", own),
        "null": ("null", own),
    }
    async with aiohttp.ClientSession() as client:
        for what, (origin, host) in refused.items():
            with pytest.raises(aiohttp.WSServerHandshakeError) as refusal:
                await client.ws_connect(harness.url + "ws",
                                        headers={"Origin": origin, "Host": host})
            assert refusal.value.status == 403, what
        for origin in (f"http://{own}", f"http://localhost:{harness.server.http_port}"):
            socket_ = await client.ws_connect(harness.url + "ws", headers={"Origin": origin})
            await socket_.close()


async def test_static_files_answer_304_when_the_browser_has_them(make_web):
    harness = await make_web(NetLimits())
    async with aiohttp.ClientSession() as client:
        async with client.get(harness.url + "static/app.js") as first:
            assert first.status == 200
            etag, modified = first.headers["ETag"], first.headers["Last-Modified"]
            body = await first.read()
        assert body == (STATIC / "app.js").read_bytes()
        for headers in ({"If-None-Match": etag}, {"If-None-Match": f'"other", W/{etag}'},
                        {"If-Modified-Since": modified}):
            async with client.get(harness.url + "static/app.js", headers=headers) as again:
                assert again.status == 304, headers
                assert await again.read() == b""
        async with client.get(harness.url + "static/app.js",
                              headers={"If-None-Match": '"other"',
                                       "If-Modified-Since": modified}) as changed:
            assert changed.status == 200  # If-None-Match wins
        async with client.get(harness.url, headers={"If-None-Match": etag}) as index:
            assert index.status == 200 and "ETag" in index.headers
        async with client.get(harness.url + "static/nothing.js") as missing:
            assert missing.status == 404


def ping_then_reset(port: int, pings: int) -> None:
    """A WebSocket that sends pings without reading the pongs, then resets the connection."""
    def masked(opcode: int, payload: bytes) -> bytes:
        mask = os.urandom(4)
        return bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + bytes(
            byte ^ mask[i % 4] for i, byte in enumerate(payload))
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(f"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
    sock.recv(4096)
    sock.settimeout(1.0)
    ping = masked(9, b"p" * 125) * 100
    try:
        for _ in range(pings // 100):
            sock.sendall(ping)
    except OSError:
        pass  # the server stopped reading: its pongs are not being read either
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


async def test_pings_then_a_reset_are_one_log_line(make_web, tracebacks, caplog):
    harness = await make_web(NetLimits())
    assert harness.server is not None and harness.server.lobby is not None
    for _ in range(3):
        await asyncio.to_thread(ping_then_reset, harness.server.http_port, 100_000)
    lobby = harness.server.lobby
    await until(lambda: not lobby.attendance.users.connections, "the WebSockets are gone")
    lost = [r for r in caplog.records if "lost" in r.getMessage() and r.name.endswith("websocket")]
    assert len(lost) <= 3 and all(r.exc_info is None for r in lost)


async def test_out_of_descriptors_the_listening_socket_backs_off_and_logs_once(caplog):
    """asyncio's real accept loop over a listening socket whose accept fails with EMFILE
    (as at the process's limit): about one attempt a second, two log lines, no spin."""
    caplog.set_level(logging.INFO)
    listening = listening_socket("127.0.0.1", 0)
    attempts = 0
    exhausted = True
    real_accept = listening._accept

    def accept() -> tuple[int, object]:
        nonlocal attempts
        attempts += 1
        if exhausted:
            raise OSError(errno.EMFILE, os.strerror(errno.EMFILE))
        return real_accept()
    listening._accept = accept  # type: ignore[method-assign]
    loop = asyncio.get_running_loop()
    restore = quiet_accept_failures(loop)
    accepted = asyncio.Event()
    server = await loop.create_server(lambda: Accepted(accepted), sock=listening)
    try:
        client = socket.create_connection(listening.getsockname())
        await until(lambda: attempts >= 1, "the first accept attempt")
        started = time.monotonic()
        await asyncio.sleep(2.5)  # the back-off's own pace is what is measured here
        seconds = time.monotonic() - started
        assert attempts <= seconds + 2, f"{attempts} accept attempts in {seconds:.1f} s"
        exhausted = False
        await until(accepted.is_set, "the connection accepted once descriptors are back",
                    timeout=CEILING)
        client.close()
    finally:
        server.close()
        restore()
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 2, warnings
    assert "cannot accept" in warnings[0] and "again" in warnings[1]
    assert not [r for r in caplog.records if r.exc_info]
    assert isinstance(listening, BackingOffSocket)


class Accepted(asyncio.Protocol):
    def __init__(self, accepted: asyncio.Event) -> None:
        self.accepted = accepted

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.accepted.set()
        transport.close()
