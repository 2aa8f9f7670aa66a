"""WebSocket sessions beside telnet ones: --sessions CLIP sessions on the telnet
port and as many on the web client's WebSocket, against one server process. Reuses
bench/load.py's accounts, server process, client processes and telnet sessions.

Phases: the telnet sessions log in (server RSS per telnet session), then the WebSocket ones
(RSS per WebSocket session); then every session of both kinds sends `set boardstyle 3` every
--command-interval seconds for --duration seconds, and the report compares the p99 of the
two kinds' replies (the goal: WebSocket within 20 % of telnet). The WebSocket sessions open
`/ws?events=1`, as the page does: they get the typed messages (presence of every login, and
the rest) beside the CLIP lines; `--lines-only` opens plain `/ws`.

    .venv/bin/python bench/web_load.py --sessions 2000 --duration 30
"""
from __future__ import annotations

import argparse
import asyncio
import random
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import (  # noqa: E402
    LOGIN_CONCURRENCY,
    PASSWORD,
    REPLY_TIMEOUT,
    Clients,
    ServerProcess,
    Worker,
    client_process,
    create_accounts,
    p99,
    percentiles,
    raise_file_limit,
    report,
)


class WebSession:
    """One WebSocket session: a task reads its messages and resolves what `expect` waits for
    (each message is whole lines, so a line never straddles two)."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.socket = socket
        self.marker = ""
        self.found: asyncio.Future[float] | None = None
        self.reader = asyncio.get_running_loop().create_task(self._read())

    def expect(self, marker: str) -> asyncio.Future[float]:
        self.marker = marker
        self.found = asyncio.get_running_loop().create_future()
        return self.found

    async def _read(self) -> None:
        async for message in self.socket:
            if self.found is not None and not self.found.done() and \
                    self.marker in "\n" + message.data:
                self.found.set_result(time.monotonic())
        if self.found is not None and not self.found.done():
            self.found.set_exception(ConnectionError("closed"))


class WebWorker(Worker):
    """Worker's telnet sessions, and WebSocket ones."""

    def __init__(self, target) -> None:
        super().__init__(target)
        self.web_sessions: dict[str, WebSession] = {}
        self.http: aiohttp.ClientSession | None = None

    async def close(self) -> None:
        if self.http is not None:
            await self.http.close()

    async def web_log_in(self, url: str, names: list[str], concurrency: int) -> dict:
        # No pool limit: each WebSocket holds its connection for good.
        self.http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        limit = asyncio.Semaphore(concurrency)
        latencies: list[float] = []
        failures: dict[str, int] = {}

        async def one(name: str) -> None:
            async with limit:
                try:
                    started = time.monotonic()
                    socket = await self.http.ws_connect(url, max_msg_size=0)
                    session = WebSession(socket)
                    await asyncio.wait_for(session.expect("login: "), REPLY_TIMEOUT)
                    reply = session.expect(f"\n2 {name} ")
                    await socket.send_str(f"login bench 1008 {name} {PASSWORD}")
                    latencies.append(await asyncio.wait_for(reply, REPLY_TIMEOUT) - started)
                    self.web_sessions[name] = session
                except (OSError, asyncio.TimeoutError, aiohttp.ClientError) as error:
                    failures[type(error).__name__] = failures.get(type(error).__name__, 0) + 1

        started = time.monotonic()
        await asyncio.gather(*(one(name) for name in names))
        return {"latencies": latencies, "failures": failures,
                "started": started, "finished": time.monotonic()}

    async def both_commands(self, duration: float, interval: float) -> dict:
        """Every session of both kinds: `set boardstyle 3` every `interval` seconds."""
        samples: dict[str, list[float]] = {"telnet": [], "websocket": []}
        timeouts = {"telnet": 0, "websocket": 0}
        reply = self.target.command_reply

        async def one(kind: str, session: Any) -> None:
            deadline = time.monotonic() + duration
            await asyncio.sleep(random.uniform(0, interval))
            while time.monotonic() < deadline:
                if kind == "telnet":
                    answered = session.expect(reply.encode())
                    sent = session.send("set boardstyle 3")
                else:
                    answered = session.expect(reply)
                    sent = time.monotonic()
                    await session.socket.send_str("set boardstyle 3")
                try:
                    samples[kind].append(await asyncio.wait_for(answered, REPLY_TIMEOUT) - sent)
                except (asyncio.TimeoutError, ConnectionError):
                    timeouts[kind] += 1
                    return
                await asyncio.sleep(max(0.0, sent + interval - time.monotonic()))

        await asyncio.gather(*(one("telnet", s) for s in self.sessions.values()),
                             *(one("websocket", s) for s in self.web_sessions.values()))
        return {"samples": samples, "timeouts": timeouts}


def web_client_process(connection: Any, target_kind: str) -> None:
    client_process(connection, target_kind, WebWorker)


def free_port() -> int:
    """A port for the web client (the server's `--http-port 0` means none)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=2000, help="of each kind")
    parser.add_argument("--duration", type=float, default=30.0)
    parser.add_argument("--command-interval", type=float, default=10.0)
    parser.add_argument("--settle", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=3)
    parser.add_argument("--lines-only", action="store_true",
                        help="WebSocket sessions without the typed messages")
    arguments = parser.parse_args()
    raise_file_limit()
    print(f"{time.strftime('%Y-%m-%d %H:%M')}  {' '.join(sys.argv)}", flush=True)
    telnet_names = [f"t{i:05d}" for i in range(arguments.sessions)]
    web_names = [f"w{i:05d}" for i in range(arguments.sessions)]
    every = str(2 * arguments.sessions + 100)
    with tempfile.TemporaryDirectory() as directory:
        database_url = f"sqlite:///{Path(directory) / 'web-load.db'}"
        create_accounts(database_url, telnet_names + web_names, 4)
        http_port = free_port()
        server = ServerProcess([
            sys.executable, "-m", "fibs_server", "--host", "127.0.0.1", "--port", "0",
            "--http-port", str(http_port), "--database-url", database_url,
            "--bcrypt-rounds", "4", "--log-level", "WARNING",
            # every bench client comes from 127.0.0.1: the per-address limits are lifted
            # (HTTP requests and commands too: else most WebSocket handshakes got 429)
            "--connections-per-address", every, "--address-free-failures", every,
            "--hash-checks-per-address", every, "--hash-checks-waiting", every,
            "--http-request-burst", every, "--http-requests-per-second", every,
            "--address-command-burst", every, "--address-commands-per-second", every])
        clients = Clients(arguments.clients, "fibs", web_client_process)
        try:
            def share(names: list[str]) -> list[list[str]]:
                return [names[i::arguments.clients] for i in range(arguments.clients)]

            web_url = f"http://127.0.0.1:{http_port}/ws" + (
                "" if arguments.lines_only else "?events=1")
            time.sleep(1.0)
            rss = {"start": server.rss_kib()}
            for kind, names, method, where in (
                    ("telnet", telnet_names, "log_in", server.port),
                    ("websocket", web_names, "web_log_in", web_url)):
                results = clients.run_all(method, [(where, part, LOGIN_CONCURRENCY)
                                                   for part in share(names)])
                logged_in = sum(len(r["latencies"]) for r in results)
                report(f"{kind} logins", f"{logged_in}, failed: "
                       f"{[r['failures'] for r in results]}; latency "
                       f"{percentiles([x for r in results for x in r['latencies']])}")
                time.sleep(arguments.settle)
                before = rss[list(rss)[-1]]
                rss[kind] = server.rss_kib()
                report(f"server RSS +{kind}", f"{rss[kind]} KiB = "
                       f"{(rss[kind] - before) / max(1, logged_in):.1f} KiB per {kind} session")
            cpu = server.cpu_seconds()
            results = clients.run_all("both_commands", [(arguments.duration,
                                                         arguments.command_interval)]
                                      * arguments.clients)
            figures = {}
            for kind in ("telnet", "websocket"):
                values = [x for r in results for x in r["samples"][kind]]
                figures[kind] = p99(values)
                report(f"commands {kind}", f"{percentiles(values)}, "
                       f"{sum(r['timeouts'][kind] for r in results)} timeouts")
            report("server CPU", f"{(server.cpu_seconds() - cpu) / arguments.duration * 100:.0f}%"
                   f", clients CPU {sum(r['cpu'] for r in results) / arguments.duration * 100:.0f}%")
            report("p99 websocket / telnet", f"{figures['websocket']:.1f} / "
                   f"{figures['telnet']:.1f} ms = {figures['websocket'] / figures['telnet']:.2f}")
        finally:
            server.stop()
            clients.stop()


if __name__ == "__main__":
    main()
