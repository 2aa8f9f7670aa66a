"""The ceiling for bench/load.py: a minimal asyncio line-echo server. It greets with
`login: ` like fibs_server and writes every line back, so the load harness can drive it with
the same clients and report fibs_server's figures as ratios to what plain asyncio does here.

    python bench/echo_server.py --port 0   # prints `echo_server listening on host:port`
"""
from __future__ import annotations

import argparse
import asyncio


class EchoProtocol(asyncio.Protocol):
    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.pending = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(b"login: ")

    def data_received(self, data: bytes) -> None:
        assert self.transport is not None
        data = self.pending + data
        end = data.rfind(b"\n") + 1
        self.pending = data[end:]
        if end:
            self.transport.write(data[:end])


async def serve(host: str, port: int) -> None:
    server = await asyncio.get_running_loop().create_server(EchoProtocol, host, port, backlog=4096)
    bound = server.sockets[0].getsockname()
    print(f"echo_server listening on {bound[0]}:{bound[1]}", flush=True)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    arguments = parser.parse_args()
    asyncio.run(serve(arguments.host, arguments.port))


if __name__ == "__main__":
    main()
