"""An address over its connection count that reconnects as fast as it can: each connection is
refused at accept(), before asyncio makes a transport and a protocol for it, with the
refusal's text once and then, for `silent_refusal_seconds`, without a word."""
from __future__ import annotations

import asyncio
import dataclasses
import errno
import socket

import pytest

from fibs_server.net.http import RETRY_AFTER_TOO_MANY
from fibs_server.net.limits import TOO_MANY_CONNECTIONS, AddressCounter, NetLimits
from fibs_server.net.listening import (
    REFUSALS_PER_ACCEPT,
    BackingOffSocket,
    RefusalAtAccept,
    listening_socket,
)
from fibs_server.net.telnet import TelnetProtocol
from tests.fake_clock import FakeClock
from tests.hostile.bystander import assert_unhurt, time_answers_during, time_answers_quiet
from tests.waiting import until
from tests.web.conftest import WebHarness

ATTACKER, BYSTANDER = "127.0.0.2", "127.0.0.3"
REFUSAL = b"go away\r\n"


def over_count_socket(clock: FakeClock, backlog: int = 100
                      ) -> tuple[BackingOffSocket, RefusalAtAccept]:
    """A listening socket whose ATTACKER already has its one connection."""
    listening = listening_socket("127.0.0.1", 0, backlog)
    addresses = AddressCounter(1)
    assert addresses.admit(ATTACKER)
    listening.refuse_at_accept = RefusalAtAccept(addresses, REFUSAL, 1.0, clock.time)
    return listening, listening.refuse_at_accept


def dial(listening: socket.socket, source: str) -> socket.socket:
    """A connection made (in the kernel's accept queue once this returns)."""
    return socket.create_connection(listening.getsockname(), timeout=5,
                                    source_address=(source, 0))


def everything(client: socket.socket) -> bytes:
    received = b""
    while chunk := client.recv(1024):
        received += chunk
    client.close()
    return received


def test_an_address_over_its_count_is_told_once_then_closed_without_a_word():
    clock = FakeClock()
    listening, refusal = over_count_socket(clock)
    with listening:
        told, silenced = dial(listening, ATTACKER), dial(listening, ATTACKER)
        with pytest.raises(BlockingIOError):  # both refused: nothing for asyncio
            listening.accept()
        assert everything(told) == REFUSAL and everything(silenced) == b""
        clock.advance(1.0)  # the silence is over: the next is told again
        told_again = dial(listening, ATTACKER)
        with pytest.raises(BlockingIOError):
            listening.accept()
        assert everything(told_again) == REFUSAL
        # Another address is accepted as a plain socket would accept it.
        other = dial(listening, BYSTANDER)
        accepted, address = listening.accept()
        assert address[0] == BYSTANDER and isinstance(accepted, socket.socket)
        accepted.close()
        other.close()
        assert (refusal.told, refusal.silenced) == (2, 1)
        with pytest.raises(BlockingIOError) as nothing_waiting:
            listening.accept()
        assert nothing_waiting.value.errno == errno.EAGAIN


def test_one_accept_refuses_at_most_its_share_then_gives_the_loop_a_turn():
    clock = FakeClock()
    listening, refusal = over_count_socket(clock, backlog=4 * REFUSALS_PER_ACCEPT)
    with listening:
        storm = [dial(listening, ATTACKER) for _ in range(REFUSALS_PER_ACCEPT + 20)]
        with pytest.raises(BlockingIOError):
            listening.accept()
        assert refusal.told + refusal.silenced == REFUSALS_PER_ACCEPT
        with pytest.raises(BlockingIOError):
            listening.accept()
        assert (refusal.told, refusal.silenced) == (1, REFUSALS_PER_ACCEPT + 19)
        for client in storm:
            client.close()


def test_the_table_of_refused_addresses_forgets_those_past_their_silence():
    clock = FakeClock()
    refusal = RefusalAtAccept(AddressCounter(0), REFUSAL, 1.0, clock.time)
    for number in range(3000):
        reading, writing = socket.socketpair()
        assert refusal.refused(writing.detach(), f"10.0.{number // 250}.{number % 250}")
        reading.close()
        clock.advance(0.01)
    assert refusal.told == 3000 and len(refusal._told_at) <= 2048


def storm(port: int, source: str, connections: int, answers: list[bytes]) -> None:
    """`connections` connections from `source`, one after another, each read to its end."""
    for _ in range(connections):
        try:
            client = socket.create_connection(("127.0.0.1", port), timeout=10,
                                              source_address=(source, 0))
            answers.append(everything(client))
        except ConnectionResetError:
            answers.append(b"reset")


async def test_a_reconnect_storm_never_reaches_asyncio_and_slows_no_one(
        make_harness, tracebacks, monkeypatch):
    # A silence longer than the test: exactly one refusal is told, whatever the machine's pace.
    harness = await make_harness(net=NetLimits(connections_per_address=2,
                                               silent_refusal_seconds=600.0))
    await harness.register("bystander")
    protocols = 0
    made = TelnetProtocol.__init__

    def counted(self, front) -> None:
        nonlocal protocols
        protocols += 1
        made(self, front)

    monkeypatch.setattr(TelnetProtocol, "__init__", counted)
    bystander = await harness.login_clip("bystander")
    quiet = await time_answers_quiet(bystander)
    held = [await harness.connect(f"held{n}", source=ATTACKER) for n in range(2)]
    before = protocols
    answers: list[bytes] = []
    storming = asyncio.ensure_future(asyncio.to_thread(
        storm, harness.server.port, ATTACKER, 2000, answers))
    delays = await time_answers_during(bystander, storming)
    told = (TOO_MANY_CONNECTIONS + "\r\n").encode()
    assert answers.count(told) == 1 and answers[0] == told
    assert answers.count(b"") + answers.count(b"reset") == 1999
    assert protocols == before  # not one protocol (nor transport) was made for them
    assert_unhurt(quiet, delays, f"a reconnect storm ({len(answers)} refused)")
    # The address's own connections are untouched, and another address gets in.
    await held[0].send("bye")
    await held[0].expect_closed()
    harness.clients.remove(held[0])
    latecomer = await harness.connect("latecomer", source=BYSTANDER)
    await latecomer.send("bye")


async def test_the_http_port_refuses_over_the_count_with_the_503_then_silently(tmp_path):
    harness = WebHarness(f"sqlite:///{tmp_path / 'storm.db'}")
    harness.config = dataclasses.replace(harness.config, net_limits=NetLimits(
        connections_per_address=1, silent_refusal_seconds=600.0))
    await harness.start()
    try:
        assert harness.server is not None and harness.server.http_port is not None
        port, front = harness.server.http_port, harness.server._front
        _, holder = await asyncio.open_connection("127.0.0.1", port, local_addr=(ATTACKER, 0))
        await until(lambda: front.addresses.full(ATTACKER), "the holder is counted")
        answers: list[bytes] = []
        await asyncio.to_thread(storm, port, ATTACKER, 20, answers)
        refused = answers[0]
        assert refused.startswith(b"HTTP/1.1 503") and TOO_MANY_CONNECTIONS.encode() in refused
        assert f"Retry-After: {RETRY_AFTER_TOO_MANY}".encode() in refused
        assert answers.count(b"") + answers.count(b"reset") == 19
        # The telnet port tells the address once too: each port keeps its own silence.
        telnet: list[bytes] = []
        await asyncio.to_thread(storm, harness.server.port, ATTACKER, 2, telnet)
        assert telnet[0] == (TOO_MANY_CONNECTIONS + "\r\n").encode() and telnet[1] == b""
        holder.close()
    finally:
        await harness.stop()
