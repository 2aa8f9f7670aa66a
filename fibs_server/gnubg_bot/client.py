"""The FIBS side of the bot: a CLIP connection over asyncio streams, the guest registration
and the CLIP login, and the bot itself, which keeps the who-list, accepts invitations,
invites someone if asked to, and hands every line of a match to a `GnubgPlayer`."""
from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
import time
from pathlib import Path
from typing import TextIO

from fibs_server.gnubg_bot.clip_lines import (
    BELL,
    MATCH_NEWS,
    MATCH_START,
    Invitation,
    MatchLengths,
    WhoLine,
    parse_invitation,
    parse_own_toggles,
    parse_who_line,
    toggles_to_send,
)
from fibs_server.gnubg_bot.external import GnubgConnection, GnubgEngine, GnubgGone
from fibs_server.gnubg_bot.player import NOT_REFUSALS, GnubgPlayer

log = logging.getLogger(__name__)

CLIP_VERSION = "1008"
LOGIN_PROMPT = "login: "
COMMAND_PROMPT = "> "
PASSWORD_PROMPT = "Please give your password: "
RETYPE_PROMPT = "Please retype your password: "
NAME_TAKEN = re.compile(r"\*\* Please use another name\. '\S+' is already used by someone else\.")
# The server checks its new accounts per address before the name: the account may exist.
TOO_MANY_NEW_ACCOUNTS = "** Too many new accounts from your address. Please try again later."
REPLY_TIMEOUT = 30.0  # seconds for the server to answer during login, registration and set-up
KEEPALIVE = 300.0  # seconds without a command of ours: a server's idle timeout counts input only
IAC, SB, SE, WILL, WONT, DO, DONT = 0xFF, 0xFA, 0xF0, 0xFB, 0xFC, 0xFD, 0xFE


class ConnectionClosed(Exception):
    pass


class LoginFailed(Exception):
    """The server refused the login or the registration."""


class InvitationRefused(LoginFailed):
    """The server refused the `--invite` the bot was started for (too long a match for the
    account's experience, say): waiting would be for ever, so the bot stops."""


# --- telnet commands --------------------------------------------------------------------------

def strip_telnet(data: bytes) -> tuple[bytes, bytes]:
    """The text in `data` without telnet commands (a server asks for ECHO around password
    prompts; a bot answers none), and an unfinished command at its end, to be completed by
    the next read."""
    text = bytearray()
    index = 0
    while index < len(data):
        if data[index] != IAC:
            text.append(data[index])
            index += 1
            continue
        if index + 1 >= len(data):
            return bytes(text), data[index:]
        command = data[index + 1]
        if command == IAC:
            text.append(IAC)
            end = index + 2
        elif command == SB:
            close = data.find(bytes([IAC, SE]), index + 2)
            if close < 0:
                return bytes(text), data[index:]
            end = close + 2
        elif command in (WILL, WONT, DO, DONT):
            if index + 2 >= len(data):
                return bytes(text), data[index:]
            end = index + 3
        else:
            end = index + 2
        index = end
    return bytes(text), b""


# --- the connection ---------------------------------------------------------------------------

class ClipConnection:
    """A FIBS server's text over asyncio streams: lines ending in CR LF (or LF alone), and the
    prompts that end without one. Every line in and out can go to a transcript (`< ` in,
    `> ` out)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 transcript: TextIO | None = None) -> None:
        self.reader, self.writer = reader, writer
        self.transcript = transcript
        self.buffer = b""
        self.telnet_rest = b""
        self.last_sent = time.monotonic()

    @classmethod
    async def open(cls, host: str, port: int, transcript: TextIO | None = None
                   ) -> ClipConnection:
        return cls(*await asyncio.open_connection(host, port), transcript=transcript)

    def close(self) -> None:
        self.writer.close()

    async def send(self, line: str, shown_as: str | None = None) -> None:
        """`shown_as`: the transcript's version of a line with a password in it."""
        self.note(f"> {line if shown_as is None else shown_as}")
        self.writer.write(line.encode("ascii", "replace") + b"\r\n")
        self.last_sent = time.monotonic()
        await self.writer.drain()

    def note(self, text: str) -> None:
        if self.transcript is not None:
            self.transcript.write(text + "\n")
            self.transcript.flush()

    async def _fill(self, deadline: float | None) -> None:
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        # Not wait_for: in Python 3.11 it loses a cancellation (the bot's stop) that comes
        # together with data, as a stop together with the opponent's logout does.
        async with asyncio.timeout(timeout):
            data = await self.reader.read(65536)
        if not data:
            raise ConnectionClosed("the server closed the connection")
        text, self.telnet_rest = strip_telnet(self.telnet_rest + data)
        self.buffer += text

    async def read_line(self, timeout: float | None = None,
                        prompts: tuple[str, ...] = ()) -> str:
        """The next line, or one of `prompts` if the server waits after it. TimeoutError
        after `timeout` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            line, newline, rest = self.buffer.partition(b"\n")
            if newline:
                self.buffer = rest
                text = line.removesuffix(b"\r").decode("ascii", "replace")
                self.note(f"< {text}")
                return text
            if self.buffer.decode("ascii", "replace") in prompts:
                prompt, self.buffer = self.buffer.decode("ascii"), b""
                self.note(f"< {prompt}")
                return prompt
            await self._fill(deadline)

    async def skip_to_prompt(self, prompt: str, timeout: float = REPLY_TIMEOUT) -> None:
        while await self.read_line(timeout, prompts=(prompt,)) != prompt:
            pass


# --- registration and login -------------------------------------------------------------------

async def register(host: str, port: int, name: str, password: str,
                   transcript: TextIO | None = None) -> None:
    """Create the account as a guest (`guest`, `name <name>`, the password twice), then leave
    as registering clients do; a name already taken is taken to be this bot's account, and
    when the address may register no more just now, the login that follows tells whether
    the account exists."""
    connection = await ClipConnection.open(host, port, transcript)
    try:
        await connection.skip_to_prompt(LOGIN_PROMPT)
        await connection.send("guest")
        await connection.skip_to_prompt(COMMAND_PROMPT)
        await connection.send(f"name {name}")
        while (line := await connection.read_line(
                REPLY_TIMEOUT, prompts=(PASSWORD_PROMPT, COMMAND_PROMPT))) != PASSWORD_PROMPT:
            if NAME_TAKEN.fullmatch(line):
                log.info("%s is registered already", name)
                await connection.send("bye")
                return
            if line == TOO_MANY_NEW_ACCOUNTS:
                log.warning("%s: the server registers no more accounts from this address "
                            "just now; logging in, as the account may exist", name)
                await connection.send("bye")
                return
            if line == COMMAND_PROMPT or line.startswith("** "):
                raise LoginFailed(f"cannot register {name}: {line}")
        await connection.send(password, shown_as="(password)")
        await answer_or_refusal(connection, RETYPE_PROMPT)
        await connection.send(password, shown_as="(password)")
        await answer_or_refusal(connection, "You are registered.")
        log.info("registered %s", name)
        await connection.send("bye")
    finally:
        connection.close()


async def answer_or_refusal(connection: ClipConnection, wanted: str) -> None:
    """Read up to the line or prompt `wanted`; any other prompt is the server's no."""
    others = (PASSWORD_PROMPT, COMMAND_PROMPT, RETYPE_PROMPT)
    before: list[str] = []
    while (line := await connection.read_line(REPLY_TIMEOUT, prompts=others)) != wanted:
        if line in others:
            raise LoginFailed(f"the server refused the registration: {' / '.join(before)}")
        before.append(line)


async def log_in(connection: ClipConnection, name: str, password: str,
                 client_name: str) -> list[str]:
    """The CLIP login; returns its lines up to the `6` that ends the who-list."""
    await connection.skip_to_prompt(LOGIN_PROMPT)
    await connection.send(f"login {client_name} {CLIP_VERSION} {name} {password}",
                          shown_as=f"login {client_name} {CLIP_VERSION} {name} (password)")
    lines: list[str] = []
    # Another user's login notice and who-lines (ending in `6`) may overtake the `1` welcome.
    welcomed = False
    in_motd = False  # the message of the day may hold any line, `6` too
    while True:
        line = await connection.read_line(REPLY_TIMEOUT, prompts=(LOGIN_PROMPT,))
        if line == LOGIN_PROMPT:
            raise LoginFailed(f"the server refused the login of {name}")
        welcomed = welcomed or line.startswith("1 ")
        in_motd = line == "3" or (in_motd and line != "4")
        if line == "6" and welcomed and not in_motd:
            return lines
        lines.append(line)


# --- the bot ----------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Challenge:
    """Whom to invite once they are ready, and to what length (a number or `unlimited`)."""
    name: str
    length: str


class GnubgBot:
    """Waits for invitations and plays every match it joins to the end, gnubg deciding.
    Whether it is playing it reads from its own who-line (its opponent field), which the
    server keeps up to date whatever ended a match."""

    def __init__(self, connection: ClipConnection, name: str, gnubg: GnubgConnection,
                 engine: GnubgEngine, lengths: MatchLengths, challenge: Challenge | None = None,
                 resign_hopeless: bool = True) -> None:
        self.connection = connection
        self.name = name
        self.gnubg = gnubg
        self.engine = engine
        self.lengths = lengths
        self.challenge = challenge
        self.resign_hopeless = resign_hopeless
        self.player = self.new_player()
        self.users: dict[str, WhoLine] = {}  # lower-case name -> the latest who-line
        self.busy = False
        self.set_up_done = False
        self.challenged = False
        self.invitation_unanswered = False  # sent `invite`, no confirmation or refusal yet

    def new_player(self) -> GnubgPlayer:
        return GnubgPlayer(self.connection, self.name, self.gnubg,
                           resign_hopeless=self.resign_hopeless)

    async def run(self, login_lines: list[str]) -> None:
        """Set up, then serve the server's lines until the connection closes."""
        toggles = next(filter(None, map(parse_own_toggles, login_lines)), None)
        if toggles is None:
            log.warning("no CLIP 2 line among the login lines: the toggles stay as they are")
        deferred = await self.set_up(toggles_to_send(toggles) if toggles else [])
        self.set_up_done = True
        for line in [line for line in login_lines if line.startswith("5 ")] + deferred:
            await self.handle_safely(line)
        while True:
            await self.handle_safely(await self.next_line())

    async def set_up(self, toggles: list[str]) -> list[str]:
        """`set boardstyle 3` and the toggles, each up to its answer; returns the other lines
        that came meanwhile."""
        deferred = []
        commands = [("set boardstyle 3", lambda line: line.startswith("Value of 'boardstyle'"))]
        commands += [(f"toggle {name}", lambda line: line.startswith("** ")) for name in toggles]
        for command, answers in commands:
            await self.connection.send(command)
            try:
                while not answers(line := await self.connection.read_line(REPLY_TIMEOUT)):
                    deferred.append(line)
            except TimeoutError:
                log.warning("%s: no answer to %r; going on", self.name, command)
        log.info("%s is set up: boardstyle 3, toggled %s", self.name,
                 ", ".join(toggles) or "nothing")
        return deferred

    async def next_line(self) -> str:
        while True:
            quiet_for = time.monotonic() - self.connection.last_sent
            if quiet_for >= KEEPALIVE:
                await self.connection.send(f"whois {self.name}")
                continue
            try:
                return await self.connection.read_line(KEEPALIVE - quiet_for)
            except TimeoutError:
                continue

    async def handle_safely(self, line: str) -> None:
        """A line the bot cannot handle is logged and passed over; only a gnubg that died (or
        a lost server, raised by the reading) stops the bot."""
        try:
            await self.handle(line)
        except InvitationRefused:
            raise
        except GnubgGone:
            if self.engine.process.poll() is not None:
                raise
            log.exception("%s: gnubg could not answer after %r; connecting to it anew",
                          self.name, line)
            self.gnubg.close()
            self.gnubg = self.player.gnubg = await GnubgConnection.open(self.engine)
        except Exception:
            log.exception("%s: could not handle %r", self.name, line)

    async def handle(self, line: str) -> None:
        line = line.lstrip(BELL)
        if self.invitation_unanswered and line.startswith("** "):
            self.invitation_unanswered = False
            if not NOT_REFUSALS.fullmatch(line):
                raise InvitationRefused(f"the server refused the invitation: {line}")
        if line.startswith("5 "):
            await self.who_changed(line)
            return
        if line.startswith("8 "):  # `8 name message`: logged out
            self.users.pop(line.split()[1].lower(), None)
            return
        invitation = parse_invitation(line)
        if invitation is not None:
            await self.invited(invitation)
            return
        if MATCH_START.fullmatch(line):
            log.info("%s: %s", self.name, line)
            self.player = self.new_player()
        elif MATCH_NEWS.fullmatch(line):
            log.info("%s: %s", self.name, line)
        await self.player.react(line)

    async def who_changed(self, line: str) -> None:
        who = parse_who_line(line)
        if who is None:
            return
        self.users[who.name.lower()] = who
        if who.name.lower() == self.name.lower():
            self.busy = who.opponent is not None
        await self.maybe_challenge()

    async def maybe_challenge(self) -> None:
        """Invite the challenged user once, as soon as both are free and they are ready."""
        if self.challenge is None or self.challenged or self.busy or not self.set_up_done:
            return
        who = self.users.get(self.challenge.name.lower())
        if who is None or not who.ready or who.opponent is not None:
            return
        self.challenged = True
        log.info("%s: inviting %s to a %s match", self.name, who.name,
                 self.challenge.length if self.challenge.length == "unlimited"
                 else f"{self.challenge.length} point")
        self.player.last_decision = f"invite {who.name}"  # names a refusal of it
        self.invitation_unanswered = True
        await self.connection.send(f"invite {who.name} {self.challenge.length}")

    async def invited(self, invitation: Invitation) -> None:
        if self.busy:
            log.info("%s: %s invites, but a match is running", self.name, invitation.inviter)
            return
        if invitation.length is not None and not self.lengths.accept(invitation.length):
            log.info("%s: %s invites to a match of length %s, which the bot does not play",
                     self.name, invitation.inviter, invitation.length)
            return
        log.info("%s: joining %s (%s)", self.name, invitation.inviter,
                 "a saved match" if invitation.length is None else f"length {invitation.length}")
        self.player.last_decision = f"join {invitation.inviter}"
        await self.connection.send(f"join {invitation.inviter}")


async def run_bot(host: str, port: int, name: str, password: str, engine: GnubgEngine, *,
                  client_name: str, register_first: bool, lengths: MatchLengths,
                  challenge: Challenge | None, resign_hopeless: bool,
                  transcript_path: Path | None) -> None:
    """Register if asked, log in, and play until the server closes the connection."""
    transcript = None if transcript_path is None else transcript_path.open("a", buffering=1)
    try:
        if register_first:
            await register(host, port, name, password, transcript)
        connection = await ClipConnection.open(host, port, transcript)
        gnubg = await GnubgConnection.open(engine)
        try:
            login_lines = await log_in(connection, name, password, client_name)
            # The server's spelling of the name, as its texts write it.
            name = next((line.split()[1] for line in login_lines if line.startswith("1 ")), name)
            log.info("%s logged in to %s:%d", name, host, port)
            bot = GnubgBot(connection, name, gnubg, engine, lengths, challenge, resign_hopeless)
            try:
                await bot.run(login_lines)
            except asyncio.CancelledError:
                await say_goodbye(connection)
                raise
        finally:
            gnubg.close()
            connection.close()
    finally:
        if transcript is not None:
            transcript.close()


async def say_goodbye(connection: ClipConnection) -> None:
    """`bye` when the bot is stopped; a running match is saved by the server either way."""
    try:
        async with asyncio.timeout(2.0):
            await connection.send("bye")
    except (OSError, TimeoutError):
        pass
