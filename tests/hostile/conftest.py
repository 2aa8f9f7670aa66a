"""Hostile-input tests: the real server with small limits (SQLite only: the limits live above
the store), a log watch that fails a test on any traceback, and an in-process session driver
for fast fuzzing through the lobby's real command dispatch."""
from __future__ import annotations

import collections
import dataclasses
import gc
import logging
import re
import socket

import pytest

from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.lobby.lobby import Lobby
from fibs_server.lobby.presence.session import Incoming, Session, Stage
from fibs_server.net.limits import NetLimits
from fibs_server.net.telnet import QueuedConnection
from tests.e2e.conftest import ServerHarness, harness  # noqa: F401 (a fixture for these tests)

# What a reply may contain: printable ASCII, CR LF line ends, the bell; nothing else.
WELL_FORMED_OUTPUT = re.compile(r"(?:[\x20-\x7e\x07]|\r\n)*")
SERVER_FAILURE = "** Sorry, the server could not do that."


@pytest.fixture(autouse=True)
def heap_of_its_own():
    """This test's garbage collections go through what it made, not the heap the worker
    process kept from the tests before it: there a full collection took 0.3 s of the loop's
    CPU on a quiet machine (~250,000 objects late in a run) and over a second at load, a stall
    of the test process (the server in it, the bystander's clock) that a server of its own
    does not have. Given back at the end, for the collections after it."""
    gc.freeze()
    yield
    gc.unfreeze()


async def start_harness(tmp_path, net: NetLimits = NetLimits(),
                        abuse: AbuseLimits = AbuseLimits(), **options) -> ServerHarness:
    harness = ServerHarness(f"sqlite:///{tmp_path / 'hostile.db'}", **options)
    harness.config = dataclasses.replace(harness.config, net_limits=net, abuse_limits=abuse)
    return await harness.start()


@pytest.fixture
async def make_harness(tmp_path):
    """`await make_harness(net=NetLimits(...), abuse=AbuseLimits(...))`: a started server."""
    started: list[ServerHarness] = []

    async def make(**limits) -> ServerHarness:
        started.append(await start_harness(tmp_path, **limits))
        return started[-1]

    yield make
    for server in started:
        await server.stop()


@pytest.fixture
def tracebacks(caplog):
    """The log records of this test that carry a traceback or are errors (checked at the end
    of every test that asks for it: there must be none)."""
    caplog.set_level(logging.DEBUG)
    yield lambda: [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    bad = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not bad, "\n".join(caplog.text.splitlines()[-40:])


class RecordingConnection:
    """A lobby Connection that keeps what the server sent."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self.output: list[str] = []
        self.closed = False

    def send(self, text: str, broadcast: bool = False) -> None:
        self.output.append(text)

    def send_wire(self, data: bytes, broadcast: bool = False) -> None:
        self.output.append(data.decode("ascii"))

    def set_echo(self, server_echoes: bool) -> None:
        pass

    def close(self) -> None:
        self.closed = True

    def take(self) -> str:
        text = "".join(self.output)
        self.output.clear()
        return text


async def log_in_process(lobby: Lobby, name: str, password: str = "secret"
                         ) -> tuple[Session, RecordingConnection]:
    """A CLIP session logged in through the real login dialogue, without a socket."""
    connection = RecordingConnection()
    session = lobby.connect(connection)
    await session.incoming.handle_line(f"login fuzzclient 1008 {name} {password}")
    assert session.stage is Stage.ONLINE, connection.take()
    connection.take()
    return session, connection


def count_lines_served(monkeypatch) -> collections.Counter[str]:
    """Lines served from now on, by the peer's address; "all" for every line, "cut off"
    for the lines of a connection that was cut off for not reading."""
    served: collections.Counter[str] = collections.Counter()
    handle_line = Incoming.handle_line

    async def counting(incoming: Incoming, line: str) -> None:
        session = incoming.session
        served[session.connection.host] += 1
        served["all"] += 1
        if getattr(session.connection, "cut_off", False):
            served["cut off"] += 1
        await handle_line(incoming, line)
    monkeypatch.setattr(Incoming, "handle_line", counting)
    return served


def count_cut_offs(monkeypatch) -> collections.Counter[str]:
    """"connections": how many were cut off for not reading, from now on."""
    cut_offs: collections.Counter[str] = collections.Counter()
    cut_off = QueuedConnection._cut_off

    def counting(connection: QueuedConnection) -> None:
        cut_off(connection)
        cut_offs["connections"] += 1
    monkeypatch.setattr(QueuedConnection, "_cut_off", counting)
    return cut_offs


SMALL_KERNEL_BUFFER = 4096  # bytes


@pytest.fixture
def small_send_buffers(monkeypatch) -> None:
    """The server's kernel send buffer of every connection opened from now on kept small.
    Otherwise the kernel takes megabytes of a peer that stops reading (loopback's send
    buffer grows to tcp_wmem's maximum) before the output cap can see it fall behind: making
    them costs CPU that a busy machine gives slowly (a cut-off test took 35-220 s beside
    other tests instead of seconds), and they are not what a cut-off test is about."""
    made = QueuedConnection.__init__

    def small(connection: QueuedConnection, transport, *args, **options) -> None:
        made(connection, transport, *args, **options)
        server_side = transport.get_extra_info("socket")
        if server_side is not None:
            server_side.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SMALL_KERNEL_BUFFER)
    monkeypatch.setattr(QueuedConnection, "__init__", small)


async def answers_to(client, commands: list[str], answer: re.Pattern[str]) -> list[str]:
    """Each command sent in turn, and its answer: the first line after it that `answer`
    matches whole (the notices between are skipped)."""
    answers = []
    for command in commands:
        await client.send(command)
        while not answer.fullmatch(line := await client.read_line()):
            pass
        answers.append(line)
    return answers
