"""Connections per address, and the output cap: a client that stops reading is cut off through
the normal drop path (its match saved) while the server's memory stays flat."""
from __future__ import annotations

import asyncio
import gc
import re
import socket
import tracemalloc

from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.net.limits import TOO_MANY_CONNECTIONS, NetLimits
from tests.waiting import DEADLINE

SMALL_BUFFER = 4096
DROPPED = "alice drops connection. The game was saved."


async def test_connections_per_address_are_capped_and_released(make_harness, tracebacks):
    harness = await make_harness(net=NetLimits(connections_per_address=3))
    first, _, _ = [await harness.connect(str(n)) for n in range(3)]
    reader, writer = await asyncio.open_connection("127.0.0.1", harness.server.port)
    refused = await asyncio.wait_for(reader.read(), DEADLINE)  # up to EOF: the server hangs up
    assert refused == (TOO_MANY_CONNECTIONS + "\r\n").encode()
    writer.close()
    await first.send("bye")
    await first.expect_closed()
    harness.clients.remove(first)
    await harness.connect("a fourth, now that one left")


async def open_non_reader(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection with a tiny receive window, so unread output backs up in the server."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SMALL_BUFFER)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    return await asyncio.open_connection(sock=sock)


async def test_a_client_that_stops_reading_is_cut_off_and_its_match_saved(
        make_harness, tracebacks, caplog):
    cap = 16 * 1024
    # Unpaced who-lines and commands (docs/SECURITY.md): this test needs a broadcast flood
    # to pile up.
    harness = await make_harness(net=NetLimits(output_buffer_cap=cap,
                                               commands_per_second=float("inf"),
                                               address_commands_per_second=float("inf")),
                                 abuse=AbuseLimits(who_broadcasts_per_second=1e9))
    await harness.register("alice")
    await harness.register("bob")
    bob = await harness.login_clip("bob")
    _, alice = await open_non_reader(harness.server.port)
    alice.write(b"login slowclient 1008 alice secret\r\ntoggle ready\r\n")
    await bob.skip_until("7 alice alice logs in.")
    # Her `toggle ready` served (her who-line says ready) before bob invites her: otherwise
    # she refuses games.
    await bob.skip_until(re.compile(r"5 alice - - 1 .*"))
    lobby = harness.server.lobby
    server_side = lobby.attendance.users.online["alice"].connection.transport.get_extra_info("socket")
    server_side.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SMALL_BUFFER)
    await bob.send("toggle ready")
    await bob.send("invite alice 3")
    await bob.skip_until("** You invited alice to a 3 point match.")
    alice.write(b"join bob\r\n")
    await bob.skip_until("** Player alice has joined you for a 3 point match.")

    gc.collect()
    tracemalloc.start()
    try:
        baseline = tracemalloc.get_traced_memory()[0]
        # Every `away`/`back` of bob's is broadcast to alice (a CLIP client) as `5 ...` `6`.
        # alice may be cut off in the middle of a burst: bob hears of it among its replies.
        # (Only whether he did is kept: the lines would count in the memory measured.)
        dropped_heard = False
        for burst in range(200):
            await bob.send_raw(b"away brb\r\nback\r\n" * 10)
            for _ in range(10):  # bob reads everything: only alice lags
                dropped_heard |= DROPPED in await bob.skip_until("Welcome back.")
            if "alice" not in lobby.attendance.users.online:
                break
        if not dropped_heard:
            await bob.skip_until(DROPPED)
        gc.collect()
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert burst < 199, "alice was never cut off"
    assert "alice" not in lobby.attendance.users.online and not lobby.match_table.playing
    assert current - baseline < 256 * 1024, f"{current - baseline} bytes kept"
    assert peak - baseline < 2 * 1024 * 1024, f"peak {peak - baseline} bytes over the baseline"
    assert [r.getMessage() for r in caplog.records if "stopped reading" in r.getMessage()] == [
        "closing 127.0.0.1: it stopped reading its output"]
    await bob.send("show savedcount")
    await bob.skip_until("bob has 1 saved game.")
    alice.close()


async def test_a_who_list_bigger_than_the_output_cap_is_not_mistaken_for_a_slow_reader(
        make_harness, tracebacks):
    """The cap is on output the peer has not taken, not on one big answer: at 10,000 online a
    CLIP login's who-list is ~900 KB, more than the default cap."""
    cap = 1024
    harness = await make_harness(net=NetLimits(output_buffer_cap=cap),
                                 abuse=AbuseLimits(registrations_per_hour=100))
    names = [f"user{chr(97 + n)}" for n in range(25)]  # names are letters only
    for name in names:
        await harness.register(name)
        await harness.login_clip(name)
    latecomer = await harness.connect()
    await latecomer.send(f"login testclient 1008 {names[0]} secret")
    await latecomer.skip_until("4")
    await latecomer.expect_lines("")
    who = await latecomer.skip_until("6")
    # usera logged in again: now last in login order.
    assert len("\r\n".join(who)) > cap
    assert [line.split()[1] for line in who] == names[1:] + names[:1]
    assert not tracebacks()
