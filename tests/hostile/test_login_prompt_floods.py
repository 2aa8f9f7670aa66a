"""WebSockets that never log in: 150 from 5 addresses, each answering the login prompt with `who`
again and again (a name, then a password, then a name...), as fast as it is answered. Each
line is paced as a logged-in user's would be, the failed logins go through the login throttle,
and a bystander playing a match stays within twice its own quiet p99; what such a connection
costs the server in memory is measured (docs/SECURITY.md)."""
from __future__ import annotations

import asyncio
import multiprocessing

import aiohttp

from tests.hostile.bystander import (
    assert_unhurt,
    time_answers_during,
    time_answers_quiet,
)
from tests.hostile.test_command_floods import ADDRESSES, PROBE_INTERVAL
from tests.hostile.test_heavy_reads import bystander_playing
from tests.web.conftest import WebHarness

CONNECTIONS = 150
FLOOD_SECONDS = 5.0
SLOWDOWN = 2.0


async def never_logging_in(url: str, connected: multiprocessing.Event,
                           sent: multiprocessing.Value) -> None:
    """CONNECTIONS WebSockets from ADDRESSES in turn; once all are at the login prompt,
    `connected` is set, and each sends `who` for every prompt it gets, FLOOD_SECONDS long,
    connecting again whenever the server closes it (`sent`: the lines sent)."""
    sessions = [aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(address, 0)))
                for address in ADDRESSES]
    ready = asyncio.Event()
    at_prompt = 0

    async def at_login(http: aiohttp.ClientSession) -> aiohttp.ClientWebSocketResponse:
        ws = await http.ws_connect(url)
        text = ""
        while "login: " not in text:
            text += (await ws.receive(timeout=60)).data
        return ws

    async def one(http: aiohttp.ClientSession) -> None:
        nonlocal at_prompt
        ws = await at_login(http)
        at_prompt += 1
        if at_prompt == CONNECTIONS:
            ready.set()
        await ready.wait()
        try:
            # Over when the time is, answered or not: the login throttle delays a failed
            # address's attempts for up to a minute.
            async with asyncio.timeout(FLOOD_SECONDS):
                while True:
                    if ws.closed:  # the same refused answer too often: closed
                        ws = await at_login(http)
                    await ws.send_str("who")
                    sent.value += 1
                    text = ""
                    while not ws.closed and not text.endswith(("login: ", "password: ")):
                        message = await ws.receive()
                        if message.type is aiohttp.WSMsgType.TEXT:
                            text += message.data
        except (TimeoutError, ConnectionError, aiohttp.ClientError):
            pass
        finally:
            await ws.close()

    try:
        waiting = asyncio.create_task(ready.wait())
        flood = asyncio.gather(*(one(sessions[number % len(sessions)])
                                 for number in range(CONNECTIONS)))
        await waiting
        connected.set()
        await flood
    finally:
        for http in sessions:
            await http.close()


def flood(url: str, connected: multiprocessing.Event, sent: multiprocessing.Value) -> None:
    asyncio.run(never_logging_in(url, connected, sent))


def resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


async def test_websockets_answering_the_login_prompt_with_who_cost_a_bystander_little(
        tmp_path, tracebacks):
    harness = WebHarness(f"sqlite:///{tmp_path / 'login-prompt-floods.db'}")
    await harness.start()
    try:
        for name in ("alice", "bob"):
            await harness.register(name)
        bystander, _ = await bystander_playing(harness)
        quiet = await time_answers_quiet(bystander, PROBE_INTERVAL)
        context = multiprocessing.get_context("spawn")
        connected, sent = context.Event(), context.Value("i", 0)
        before = resident_bytes()
        # In a process of its own: its connections' work would take the server's loop.
        flooder = context.Process(target=flood, args=(harness.url + "ws", connected, sent))
        flooder.start()
        await asyncio.to_thread(connected.wait, 60)
        per_connection = (resident_bytes() - before) / CONNECTIONS
        delays = await time_answers_during(bystander, asyncio.ensure_future(
            asyncio.to_thread(flooder.join)), PROBE_INTERVAL)
        print(f"server memory per connection at the login prompt: {per_connection / 1024:.0f} "
              f"KiB; lines sent by the flood: {sent.value}")
        assert flooder.exitcode == 0
        assert_unhurt(quiet, delays, f"{CONNECTIONS} WebSockets answering login: with who",
                      slowdown=SLOWDOWN)
    finally:
        await harness.stop()
