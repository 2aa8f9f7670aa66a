"""Redis for the tests of the bus between nodes (tests/net/test_redis_bus.py).

`redis_url`: a Redis the test may publish on but must not disturb (others share it): the one
`FIBS_TEST_REDIS_URL` names (`.ci/run` sets it to the machine's), else a private server. Each
test uses a channel prefix of its own. `private_redis`: a `redis-server` of the test's own on
a free port, in its temporary folder, which the test may kill and restart; never the
machine's, which other tests may be using.
"""
from __future__ import annotations

import os
import pathlib
import shutil
import socket
import subprocess
import time
import uuid

import pytest

from tests.conftest import skip_unless_ci
from tests.waiting import DEADLINE

REDIS_URL_VARIABLE = "FIBS_TEST_REDIS_URL"
REDIS_SERVER = "/usr/bin/redis-server"
STARTUP_SECONDS = DEADLINE


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer:
    """A private redis-server: no persistence, on 127.0.0.1 only."""

    def __init__(self, folder: pathlib.Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + STARTUP_SECONDS
        while not answers_ping(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.01)

    def kill(self) -> None:
        """As a crash: no goodbye to the clients."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None


@pytest.fixture
def private_redis(tmp_path):
    if not shutil.which(REDIS_SERVER):
        skip_unless_ci(f"needs {REDIS_SERVER} (apt-get install -y redis-server)")
    server = RedisServer(tmp_path)
    for _ in range(3):  # another process may take the free port before redis-server does
        try:
            server.start()
            break
        except RuntimeError:
            server.kill()
            server.port = free_port()
    else:
        pytest.fail("redis-server did not start")
    yield server
    server.kill()


@pytest.fixture
def redis_url(request, tmp_path):
    url = os.environ.get(REDIS_URL_VARIABLE)
    if url:
        yield url
        return
    yield request.getfixturevalue("private_redis").url


@pytest.fixture
def prefix() -> str:
    return f"fibs-test-{uuid.uuid4().hex[:12]}"
