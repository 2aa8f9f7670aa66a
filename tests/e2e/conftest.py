"""The real server on an ephemeral port, on a fresh database (SQLite, and PostgreSQL when
configured), driven by scripted telnet users."""
from __future__ import annotations

import re
import time

import pytest

from fibs_server.app import FibsServer, ServerConfig
from fibs_server.bots.pool import WorkerPriority
from fibs_server.lobby.ports.accounts import Account
from fibs_server.lobby.services.bot_players import BotConfig
from fibs_server.rules.dice import Dice, ScriptedDice, SeededDice
from tests.e2e.client import FibsClient
from tests.fake_clock import FakeClock

LOW_BCRYPT_ROUNDS = 4  # the minimum bcrypt allows; production uses 12
LOCAL_HOST = "127.0.0.1"  # where every test client connects from
DATE_LINE = re.compile(r"[A-Z][a-z]+day, [A-Z][a-z]+ \d\d \d\d:\d\d:\d\d \S+   "
                       r"\( [A-Z][a-z]{2} [A-Z][a-z]{2} \d\d \d\d:\d\d:\d\d \d{4} UTC \)")


class ServerHarness:
    """The server with scripted dice: each new match takes the next source from `dice`
    (seeded dice once the list is used up); X in game 1 is always the invited player."""

    def __init__(self, database_url: str, idle_timeout: float = 3600.0) -> None:
        # The engine's processes at normal priority: the tests check what bots and analyses
        # decide, and beside other work idle-priority processes get no CPU (docs/TESTING.md).
        self.config = ServerConfig(host="127.0.0.1", port=0, database_url=database_url,
                                   bcrypt_rounds=LOW_BCRYPT_ROUNDS, idle_timeout=idle_timeout,
                                   worker_priority=WorkerPriority.NORMAL)
        self.server: FibsServer | None = None
        self.clients: list[FibsClient] = []
        self.dice: list[Dice] = []
        self.lobby_options: dict[str, object] = {}  # more LobbyConfig fields (a fake clock)

    def use_fake_clock(self) -> FakeClock:
        """The lobby's clock a fake one, and the time of day (the store's stamps, the
        tournaments' times) moved on with it."""
        clock = FakeClock()
        self.lobby_options["clock"] = clock
        self.lobby_options["wall_clock"] = clock.wall
        return clock

    def _next_dice(self) -> Dice:
        return self.dice.pop(0) if self.dice else SeededDice(1)

    def script_dice(self, *pairs: tuple[int, int]) -> None:
        """The dice of the next match: opening pairs are (inviter's die, joiner's die)."""
        self.dice.append(ScriptedDice(pairs))

    async def start(self) -> ServerHarness:
        self.server = FibsServer(self.config, new_dice=self._next_dice,
                                 choose_first_x=lambda: 1, **self.lobby_options)
        await self.server.start()
        return self

    async def stop(self) -> None:
        for client in self.clients:
            await client.close()
        self.clients.clear()
        if self.server is not None:
            await self.server.stop()
            self.server = None

    async def restart(self) -> None:
        await self.stop()
        await self.start()

    @property
    def url(self) -> str:
        """The web client's address, with `config.http_port` set (0: an ephemeral port)."""
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.http_port}/"

    async def connect(self, name: str = "?", source: str | None = None) -> FibsClient:
        assert self.server is not None
        client = await FibsClient(name).connect(self.server.port, source)
        self.clients.append(client)
        await client.skip_until(DATE_LINE)
        await client.expect_prompt("login: ")
        return client

    async def register(self, name: str, password: str = "secret", experience: int = 0) -> None:
        """Create an account straight in the store, as it stands after registering over telnet
        and typing `bye` (`register_by_dialogue`, which the tests of registration use): the
        server's own bcrypt (at LOW_BCRYPT_ROUNDS), registered, logged in and out from
        127.0.0.1 just now. No connection: a socket, a dialogue and a login cost an e2e test
        ~0.25 s a user before it starts."""
        assert self.server is not None and self.server.lobby is not None
        now = int(time.time())
        password_hash = await self.server.lobby.gatekeeper.hasher.hash(password)
        await self.server.lobby.accounts.create_account(Account(
            name=name, password_hash=password_hash, created_at=now, last_login_at=now,
            last_login_host=LOCAL_HOST, last_logout_at=now, experience=experience))

    async def register_by_dialogue(self, name: str, password: str = "secret") -> None:
        """Create an account through the guest dialogue, then disconnect."""
        client = await self.connect(name)
        await answer_guest_dialogue(client, name, password)
        await client.expect_lines("", "You are registered.")
        await client.send("bye")
        await client.expect_closed()
        self.clients.remove(client)

    async def login_clip(self, name: str, password: str = "secret",
                         client_name: str = "testclient") -> FibsClient:
        """Log in as a CLIP client and read the whole login block (up to `6`); then, as every
        client program does, ask for `board:` lines (new accounts start with boardstyle 2)."""
        client = await self.connect(name)
        await client.send(f"login {client_name} 1008 {name} {password}")
        await client.skip_until("6")
        await client.send("set boardstyle 3")
        # What a login hook sent meanwhile (waitfor notices, messages) stays to be read.
        before = await client.skip_until("Value of 'boardstyle' set to 3.")
        client.buffer = "".join(f"{line}\r\n" for line in before).encode() + client.buffer
        return client

    async def login_telnet(self, name: str, password: str = "secret") -> FibsClient:
        client = await self.connect(name)
        await client.send(name)
        await client.expect_prompt("password: ")
        await client.send(password)
        await client.skip_until(f"** User {name} authenticated.")
        await client.skip_until(re.compile(r"\+-+\+"))  # MOTD box: top
        await client.skip_until(re.compile(r"\+-+\+"))  # bottom
        await client.expect_prompt()
        return client


async def send_guest_name(client: FibsClient, name: str) -> None:
    """From `login: ` as `guest` to `name <name>` sent (its answer not yet read)."""
    await client.send("guest")
    await client.skip_until("ONE USERNAME PER PERSON ONLY!!!")
    await client.expect_prompt()
    await client.send(f"name {name}")


async def give_password(client: FibsClient, password: str) -> None:
    """After an accepted `name`: the password, up to the prompt to retype it."""
    await client.skip_until("Type in no password and hit Enter/Return if you want to change it now.")
    await client.expect_prompt("Please give your password: ")
    await client.send(password)
    await client.expect_lines("")
    await client.expect_prompt("Please retype your password: ")


async def answer_guest_dialogue(client: FibsClient, name: str, password: str) -> None:
    """From `login: ` as `guest` to the retyped password (the server answers next)."""
    await send_guest_name(client, name)
    await give_password(client, password)
    await client.send(password)


@pytest.fixture
async def harness(database_url):
    server = await ServerHarness(database_url).start()
    yield server
    await server.stop()


@pytest.fixture
async def bot_harness(database_url):
    """The server with its built-in bots, deciding at once (no think time)."""
    harness = ServerHarness(database_url)
    harness.config.bots = BotConfig(think_time=0, workers=1, time_budget=30)
    await harness.start()
    yield harness
    await harness.stop()
