"""Redis for the tests of the bus between nodes (tests/net/test_redis_bus.py).

`redis_url`: a Redis the test may publish on but must not disturb (others share it): the one
`FIBS_TEST_REDIS_URL` names (`.ci/run` sets it to the machine's), else a private server. Each
test uses a channel prefix of its own. `private_redis`: a `redis-server` of the test's own on
a free port, in its temporary folder, which the test may kill and restart; never the
machine's, which other tests may be using. `master_replica_and_sentinel`: Redis without a
single point of failure, private likewise: a master, its replica and a sentinel watching them
(Debian's redis-server, in sentinel mode for the sentinel), reached with the sentinel's URL.
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
import redis.asyncio

from tests.conftest import skip_unless_ci
from tests.waiting import DEADLINE, until_async

REDIS_URL_VARIABLE = "FIBS_TEST_REDIS_URL"
REDIS_SERVER = "/usr/bin/redis-server"
SERVICE = "fibs"  # the master's name among the sentinel's (`sentinel monitor`)
STARTUP_SECONDS = DEADLINE


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serving_process(port: int) -> int | None:
    """The process id of the Redis answering on `port`, None if none answers yet."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"INFO server\r\n")
            reply = b""
            while b"process_id:" not in reply or not reply.endswith(b"\r\n"):
                more = sock.recv(4096)
                if not more:
                    return None
                reply += more
    except OSError:
        return None
    return int(reply.split(b"process_id:")[1].split(b"\r\n")[0])


class RedisProcess:
    """A private redis-server on a port picked free, on 127.0.0.1 only: started, it is the
    one answering there (`start_on_a_free_port`)."""

    def __init__(self, folder: pathlib.Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        raise NotImplementedError

    def start(self) -> None:
        self.process = subprocess.Popen(self.command(), stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + STARTUP_SECONDS
        # Ours, not another's: a port picked free can be taken by another test's redis-server
        # before this one binds it, and that one would answer for it.
        while (serving := serving_process(self.port)) != self.process.pid:
            if (serving is not None or self.process.poll() is not None
                    or time.monotonic() > deadline):
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.01)

    def kill(self) -> None:
        """As a crash: no goodbye to the clients."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None


class RedisServer(RedisProcess):
    """No persistence; a master or a replica."""

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def command(self) -> list[str]:
        return [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", str(self.folder),
                # A replica's first sync at once, not after the 5 s Redis waits for others.
                "--repl-diskless-sync-delay", "0"]


class Sentinel(RedisProcess):
    """A redis-server in sentinel mode watching `master`, failing it over after it has been
    silent `down_after` ms (`SENTINEL SET` changes it)."""

    def __init__(self, folder: pathlib.Path, master_port: int, down_after: int = 500) -> None:
        super().__init__(folder)
        self.master_port, self.down_after = master_port, down_after

    @property
    def url(self) -> str:
        return f"redis+sentinel://127.0.0.1:{self.port}/{SERVICE}/0"

    def command(self) -> list[str]:
        config = self.folder / "sentinel.conf"  # written anew for each port tried
        config.write_text(f"port {self.port}\nbind 127.0.0.1\n"
                          f"sentinel monitor {SERVICE} 127.0.0.1 {self.master_port} 1\n"
                          f"sentinel down-after-milliseconds {SERVICE} {self.down_after}\n"
                          f"sentinel failover-timeout {SERVICE} 5000\n")
        return [REDIS_SERVER, str(config), "--sentinel"]


def start_on_a_free_port(server: RedisProcess, tries: int = 3) -> None:
    """`server` started, on another free port if another process took its port first."""
    for _ in range(tries):
        try:
            server.start()
            return
        except RuntimeError:
            server.kill()
            server.port = free_port()
    pytest.fail("redis-server did not start")


def needs_redis_server() -> None:
    if not shutil.which(REDIS_SERVER):
        skip_unless_ci(f"needs {REDIS_SERVER} (apt-get install -y redis-server)")


@pytest.fixture
async def master_replica_and_sentinel(tmp_path):
    """The master, its replica in sync, and a sentinel that knows both, failing the master
    over after half a second of silence."""
    needs_redis_server()
    servers = []
    for name in ("master", "replica"):
        (tmp_path / name).mkdir()
        servers.append(RedisServer(tmp_path / name))
    master, replica = servers
    start_on_a_free_port(master)
    start_on_a_free_port(replica)
    sentinel = Sentinel(tmp_path, master.port)
    start_on_a_free_port(sentinel)
    replicating = redis.asyncio.Redis(port=replica.port)
    watching = redis.asyncio.Redis(port=sentinel.port)
    try:
        await replicating.replicaof("127.0.0.1", master.port)

        async def synced() -> bool:
            info = await replicating.info("replication")
            return info.get("master_link_status") == "up"
        await until_async(synced, "the replica in sync with the master")

        async def known() -> bool:
            try:
                return bool(await watching.execute_command("SENTINEL", "REPLICAS", SERVICE))
            except (redis.ConnectionError, redis.ResponseError):
                return False
        await until_async(known, "the sentinel knows the replica")
        yield master, replica, sentinel
    finally:
        for client in (replicating, watching):
            await client.aclose()
        sentinel.kill()
        for server in servers:
            server.kill()


@pytest.fixture
def private_redis(tmp_path):
    needs_redis_server()
    server = RedisServer(tmp_path)
    start_on_a_free_port(server)
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
