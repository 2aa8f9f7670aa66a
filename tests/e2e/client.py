"""A scripted telnet user for end-to-end tests: asyncio-telnet carries the bytes, this class
reads them as FIBS lines and prompts and fails loudly (with what it saw) on a mismatch."""
from __future__ import annotations

import asyncio
import re

from asyncio_telnet.asyncio_telnet import AsyncTelnet

from tests.waiting import DEADLINE

IAC, SB, SE, WILL, WONT, DO, DONT = 0xFF, 0xFA, 0xF0, 0xFB, 0xFC, 0xFD, 0xFE
# What a test waits for must come: the reads wait as long as `until` does. Only
# `expect_silence` waits briefly, for something that must not come.
TIMEOUT = DEADLINE
# `toggle ready`'s answer, after a telnet user's prompt if any.
READY = re.compile(r"(> )?\*\* You're now ready to invite or join someone\.")


class ExpectationFailed(AssertionError):
    pass


class FibsClient:
    def __init__(self, name: str = "?") -> None:
        self.name = name
        self.telnet = AsyncTelnet(timeout=TIMEOUT)
        self.buffer = b""
        self.telnet_commands = b""  # IAC sequences seen, in order

    async def connect(self, port: int, source: str | None = None) -> FibsClient:
        """`source`: another loopback address to connect from (127.0.0.2, ...): the server
        sees another address."""
        if source is None:
            await self.telnet.open("127.0.0.1", port)
        else:
            self.telnet.mode = None  # what `open` sets: plain writes
            self.telnet.reader, self.telnet.writer = await asyncio.open_connection(
                "127.0.0.1", port, local_addr=(source, 0))
        return self

    async def close(self) -> None:
        if self.telnet.writer is not None:
            self.telnet.writer.close()

    async def send(self, line: str) -> None:
        await self.telnet.write(line.encode("latin-1") + b"\r\n")

    async def send_raw(self, data: bytes) -> None:
        await self.telnet.write(data)

    async def _fill(self, timeout: float) -> bool:
        try:
            data = await asyncio.wait_for(self.telnet.read(65536), timeout)
        except asyncio.TimeoutError:
            return False
        if not data:
            raise ExpectationFailed(f"{self.name}: connection closed; unread: {self.buffer!r}")
        self.buffer += self._strip_telnet(data)
        return True

    def _strip_telnet(self, data: bytes) -> bytes:
        """Text without telnet commands (a command split across reads is not expected from
        our server, which writes each one whole)."""
        out = bytearray()
        i = 0
        while i < len(data):
            if data[i] != IAC:
                out.append(data[i])
                i += 1
                continue
            command = data[i + 1] if i + 1 < len(data) else None
            if command == IAC:
                out.append(IAC)
                end = i + 2
            elif command == SB:
                end = data.find(bytes([IAC, SE]), i) + 2
            elif command in (WILL, WONT, DO, DONT):
                end = i + 3
            else:
                end = i + 2
            self.telnet_commands += data[i:end]
            i = end
        return bytes(out)

    async def read_line(self, timeout: float = TIMEOUT) -> str:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while b"\r\n" not in self.buffer:
            if not await self._fill(max(0.0, deadline - loop.time())):
                raise ExpectationFailed(f"{self.name}: no complete line; have {self.buffer!r}")
        line, _, self.buffer = self.buffer.partition(b"\r\n")
        return line.decode("ascii")

    async def expect_prompt(self, prompt: str = "> ", timeout: float = TIMEOUT) -> None:
        """The buffer must start with exactly `prompt` (which has no line end)."""
        wanted = prompt.encode()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while len(self.buffer) < len(wanted):
            if not await self._fill(max(0.0, deadline - loop.time())):
                break
        if not self.buffer.startswith(wanted):
            raise ExpectationFailed(f"{self.name}: expected prompt {prompt!r}, got {self.buffer!r}")
        self.buffer = self.buffer[len(wanted):]

    async def lines_until_prompt(self, prompt: str = "> ", timeout: float = TIMEOUT
                                 ) -> list[str]:
        """The lines up to the next `prompt` (read too, and not returned): the whole of a reply
        whose length is not known."""
        wanted = prompt.encode()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        lines = []
        while True:
            if b"\r\n" in self.buffer:
                lines.append(await self.read_line())
            elif self.buffer.startswith(wanted):
                self.buffer = self.buffer[len(wanted):]
                return lines
            elif not await self._fill(max(0.0, deadline - loop.time())):
                raise ExpectationFailed(f"{self.name}: no prompt {prompt!r} after {lines!r}; "
                                        f"have {self.buffer!r}")

    async def expect_lines(self, *expected: str | re.Pattern) -> list[str]:
        """The next lines must be exactly these (strings) or match these (patterns)."""
        got = []
        for want in expected:
            line = await self.read_line()
            got.append(line)
            ok = want.fullmatch(line) if isinstance(want, re.Pattern) else line == want
            if not ok:
                raise ExpectationFailed(f"{self.name}: expected {want!r}, got {line!r} "
                                        f"(after {got[:-1]!r})")
        return got

    async def skip_until(self, wanted: str | re.Pattern, timeout: float = TIMEOUT) -> list[str]:
        """Read lines until one equals/matches `wanted`; return the lines before it."""
        skipped = []
        while True:
            line = await self.read_line(timeout)
            if (wanted.fullmatch(line) if isinstance(wanted, re.Pattern) else line == wanted):
                return skipped
            skipped.append(line)

    async def toggle_ready(self) -> None:
        """`toggle ready`, and its answer read (after a telnet user's prompt, if any): what
        another user's invitation needs has been done, not only sent."""
        await self.send("toggle ready")
        await self.skip_until(READY)

    async def expect_silence(self, seconds: float = 0.2) -> None:
        await self._fill(seconds)
        if self.buffer:
            raise ExpectationFailed(f"{self.name}: expected nothing, got {self.buffer!r}")

    async def expect_closed(self, timeout: float = TIMEOUT) -> bytes:
        """Read until the server closes; return what came before."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            try:
                data = await asyncio.wait_for(self.telnet.read(65536),
                                              max(0.0, deadline - loop.time()))
            except asyncio.TimeoutError:
                raise ExpectationFailed(f"{self.name}: still open; have {self.buffer!r}")
            if not data:
                rest, self.buffer = self.buffer, b""
                return rest
            self.buffer += self._strip_telnet(data)
