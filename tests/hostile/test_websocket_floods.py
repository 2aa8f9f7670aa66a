"""Commands per second on the WebSocket: visitors from a few addresses who send `who`, `board`
and garbage (or a page's heartbeats) as fast as they can, reading what they get or never
reading it. They are paced,
then closed with TOO_MANY_COMMANDS, as telnet and CLIP floods are (test_command_floods.py);
what a cut-off one left behind is not served; a bystander playing a match stays answered and
a login stays prompt."""
from __future__ import annotations

import asyncio
import dataclasses
import multiprocessing
import socket
import time
from collections.abc import Callable

import aiohttp

from fibs_server.net.limits import NetLimits
from tests.hostile.bystander import (
    assert_logs_in_promptly,
    time_answers_during,
    time_answers_quiet,
)
from tests.hostile.conftest import count_cut_offs, count_lines_served
from tests.hostile.test_command_floods import (
    ADDRESSES,
    FLOOD_DEADLINE,
    LIMITS,
    PROBE_INTERVAL,
    FloodRun,
    assert_paced_then_closed,
    assert_prompt,
    stop_when,
)
from tests.hostile.test_heavy_reads import bystander_playing
from tests.web.conftest import WebHarness

VISITORS = 15  # three an address: each gets a third of its address's rate, more than its own
FLOOD_MESSAGE = "who\r\nboard\r\nxyzzy plugh\r\n" * 100
# A page's heartbeat: an empty binary message, as a client writes it (masked, here with a key
# of zeros); a turn's written at once, so that the flooder's own CPU does not set its pace.
HEARTBEAT_FRAME = bytes((0x82, 0x80, 0, 0, 0, 0))
HEARTBEATS_A_TURN = 300
# Seconds a heartbeat flood lasts. Paced at its user's rate it may never fall behind for the
# backlog's second in a row (a loop busy for a moment resets it), so it is not always closed:
# what counts is that it is answered at the rate at most and that the bystander is not hurt.
HEARTBEAT_FLOOD_SECONDS = 10.0


async def visitors_flooding(url: str, reads: bool, heartbeats: bool) -> int:
    """VISITORS WebSockets from ADDRESSES in turn, each in as a visitor (`bot` at the login
    prompt) and then sending FLOOD_MESSAGE until the server closes it (or HEARTBEATS_A_TURN
    heartbeats at a time for HEARTBEAT_FLOOD_SECONDS); how many heartbeats were answered."""
    deadline = time.monotonic() + (HEARTBEAT_FLOOD_SECONDS if heartbeats else FLOOD_DEADLINE)
    answered = 0

    async def one(http: aiohttp.ClientSession) -> None:
        ws = await http.ws_connect(url)
        await ws.send_str("bot")
        welcome = ""
        while "\r\n1 guest_" not in welcome:  # the visitor's CLIP welcome line
            welcome += (await ws.receive(timeout=FLOOD_DEADLINE)).data
        transport = ws._conn.transport  # type: ignore[union-attr]  # noqa: SLF001

        async def read() -> None:
            nonlocal answered
            async for message in ws:
                answered += message.type is aiohttp.WSMsgType.BINARY
        if reads:
            reading = asyncio.create_task(read())
        else:  # the server's output stays on its side, until its cap cuts the connection off
            ws.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            transport.pause_reading()
        try:
            while time.monotonic() < deadline and not transport.is_closing():
                if heartbeats:
                    transport.write(HEARTBEAT_FRAME * HEARTBEATS_A_TURN)
                else:
                    await ws.send_str(FLOOD_MESSAGE)
                await asyncio.sleep(0)  # the reader's turn
                # The server is not reading: wait, as a blocking socket would, rather than
                # spin a core that the server and the bystander need.
                while transport.get_write_buffer_size() > 1 << 16 and not transport.is_closing():
                    await asyncio.sleep(0.05)
        except (ConnectionError, aiohttp.ClientError):
            pass  # closed by the server
        if reads:
            if heartbeats:
                reading.cancel()  # what it was answered by now
            await asyncio.wait([reading], timeout=FLOOD_DEADLINE)
        transport.abort()

    sessions = [aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(address, 0)))
                for address in ADDRESSES]
    try:
        await asyncio.gather(*(one(sessions[number % len(sessions)])
                               for number in range(VISITORS)))
    finally:
        for http in sessions:
            await http.close()
    return answered


def flood(url: str, reads: bool, heartbeats: bool, answered: multiprocessing.Value) -> None:
    answered.value = asyncio.run(visitors_flooding(url, reads, heartbeats))


async def web_harness(tmp_path, net: NetLimits) -> WebHarness:
    harness = WebHarness(f"sqlite:///{tmp_path / 'websocket-floods.db'}")
    harness.config = dataclasses.replace(harness.config, net_limits=net)
    await harness.start()
    for name in ("alice", "bob", "latecomer"):
        await harness.register(name)
    return harness


async def run_flood(harness: WebHarness, reads: bool, heartbeats: bool = False,
                    over: Callable[[], bool] | None = None) -> tuple[FloodRun, int]:
    """alice's answer delays while she plays bob, before the flood and during it; and how
    many heartbeats the flooders were answered. With `over`, the flood is over once it is
    true, whether or not the flooders have noticed."""
    bystander, login = await bystander_playing(harness)
    quiet = await time_answers_quiet(bystander, PROBE_INTERVAL)
    context = multiprocessing.get_context("spawn")
    # No lock: the flooder writes it once, and one terminated while holding a lock would
    # leave this process waiting for it forever.
    answered = context.Value("i", 0, lock=False)
    # In a process of its own: flooding here would take the server's loop and GIL.
    flooder = context.Process(target=flood, args=(harness.url + "ws", reads, heartbeats, answered))
    started = time.monotonic()
    flooder.start()
    flooding = asyncio.ensure_future(asyncio.to_thread(flooder.join))
    if over is not None:
        stopping = asyncio.ensure_future(stop_when(over, flooder))
    delays = await time_answers_during(bystander, flooding, PROBE_INTERVAL)
    if over is not None:
        await stopping
    return FloodRun(login, quiet, delays, time.monotonic() - started), answered.value


async def test_websocket_visitors_flooding_commands_are_paced_then_closed(
        tmp_path, tracebacks, monkeypatch, caplog):
    harness = await web_harness(tmp_path, LIMITS)
    try:
        served = count_lines_served(monkeypatch)
        run, _ = await run_flood(harness, reads=True)
        await assert_paced_then_closed(harness, caplog, served, VISITORS, run,
                                       "WebSocket visitors flooding commands")
    finally:
        await harness.stop()


async def test_websocket_visitors_flooding_heartbeats_are_paced_then_closed(
        tmp_path, tracebacks, monkeypatch, caplog):
    """A heartbeat is answered below the lobby, but paced as a command: a flood of them is
    answered at its users' and addresses' rates at most, and the bystander is not hurt."""
    harness = await web_harness(tmp_path, LIMITS)
    try:
        run, answered = await run_flood(harness, reads=True, heartbeats=True)
        what = "WebSocket visitors flooding heartbeats"
        assert_prompt(run, what)
        assert 0 < answered <= len(ADDRESSES) * (LIMITS.address_command_burst
                                                 + LIMITS.address_commands_per_second
                                                 * run.seconds)
        await assert_logs_in_promptly(harness.login_clip("latecomer"), run.login, what)
    finally:
        await harness.stop()


async def test_what_a_cut_off_websocket_sent_is_not_served(tmp_path, tracebacks, monkeypatch,
                                                           small_send_buffers):
    # Unpaced, so that the output cap cuts them off, with their input still queued.
    harness = await web_harness(tmp_path, NetLimits(
        output_buffer_cap=4096, commands_per_second=float("inf"),
        address_commands_per_second=float("inf")))
    try:
        served = count_lines_served(monkeypatch)
        cut_off = count_cut_offs(monkeypatch)
        run, _ = await run_flood(harness, reads=False,
                                 over=lambda: cut_off["connections"] == VISITORS)
        assert_prompt(run, "unpaced WebSocket visitors flooding commands, never reading",
                      paced=False)
        assert served["cut off"] == 0
        assert sorted(harness.server.lobby.attendance.users.online) == ["alice", "bob"]
    finally:
        await harness.stop()
