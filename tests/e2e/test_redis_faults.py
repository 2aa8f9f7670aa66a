"""The operator's Redis faults, as a whole: three nodes on one PostgreSQL database, Redis
reached through a sentinel (a private master, its replica and the sentinel on loopback), and
three matches across the nodes (hosted on a, b and c, each joined from the next node), every
player a web page over a real WebSocket, scripted dice.

1. The master stalls (SIGSTOP) for `PAUSE`: every player is told their opponent is out of
   reach; once it answers again (SIGCONT) every match goes on by itself, no `invite`, and is
   played to its end; the results are the database's.
2. The master dies (SIGKILL) in the middle of three new matches: the sentinel promotes the
   replica, the nodes find the new master through the sentinel and subscribe there, and the
   matches go on to their end; presence is whole again (a logout on one node and a login on
   another while the bus was down known on every node, each node's `rawwho` naming every
   user online and only them).

The nodes keep in touch on production's `NodeTimes` divided by `SCALE` (10): a heartbeat of
half a second, out of reach after one, a node taken for dead after a silence of 1.5 s while
the bus carries, every node forgotten after an outage of 6 s. So the 3 s pause stands for
30 s in production (twice the silence), and the sentinel's half second before a failover for
5 s. For the pause the sentinel waits longer than it (a stall shorter than
`down-after-milliseconds` is no failover), for the kill it waits half a second. Without
PostgreSQL or redis-server: skipped with the reason (in CI they always run)."""
from __future__ import annotations

import asyncio
import dataclasses
import os
import re
import signal
import time
from collections.abc import Callable

import redis.asyncio

from fibs_server.lobby.nodes.directory import NodeTimes
from fibs_server.net.limits import NetLimits
from fibs_server.protocol.wording import match_texts
from fibs_server.rules.board.notation import format_play
from tests.e2e.conftest import ServerHarness
from tests.e2e.test_nodes import running_nodes
from tests.redis_server import (  # noqa: F401 (fixtures)
    SERVICE,
    RedisServer,
    master_replica_and_sentinel,
    prefix,
)
from tests.waiting import until, until_async
from tests.web.test_websocket import WebClient, clients, web_login  # noqa: F401 (a fixture)

SCALE = 10
PRODUCTION = NodeTimes()
TIMES = NodeTimes(heartbeat=PRODUCTION.heartbeat / SCALE,
                  out_of_reach=PRODUCTION.out_of_reach / SCALE,
                  silence=PRODUCTION.silence / SCALE,
                  outage_limit=PRODUCTION.outage_limit / SCALE)
PAUSE = 30.0 / SCALE
NO_FAILOVER_MS = 600_000  # for the pause: the sentinel does not take the master for dead
FAILOVER_MS = 500  # for the kill: 5 s in production terms
# A page answers the server's pings only while the test reads it, and the test reads one page
# at a time.
UNPINGED = NetLimits(websocket_ping_seconds=3600.0)


@dataclasses.dataclass
class Pairing:
    """A match hosted on `host`, whose player `inviter` invites `joiner` from the next node."""
    host: ServerHarness
    inviter: WebClient
    inviter_name: str
    joiner: WebClient
    joiner_name: str
    match_id: int = 0
    seen: list[str] = dataclasses.field(default_factory=list)  # what both pages were shown

    async def start(self) -> None:
        """Invited and joined; the inviter's opening 3-1 played; the joiner to move 6-5."""
        self.host.script_dice((3, 1), (6, 5), (4, 2))
        await self.inviter.send(f"invite {self.joiner_name} 1")
        await self.joiner.skip_until(f"Type 'join {self.inviter_name}' to accept.")
        await self.joiner.send(f"join {self.inviter_name}")
        await self.inviter.skip_until("It's your turn to move.")
        await self.inviter.send("move 8-5 6-5")
        self.seen += await self.joiner.skip_until("Please move 2 pieces.")
        store = self.host.server.store  # type: ignore[union-attr]
        record = await store.running_match(self.inviter_name, self.joiner_name)
        assert record is not None
        self.match_id = record.match_id

    async def told(self, says: Callable[[str], str]) -> None:
        """Each player shown `says(opponent)`."""
        self.seen += await self.inviter.skip_until(says(self.joiner_name))
        self.seen += await self.joiner.skip_until(says(self.inviter_name))

    async def finish(self) -> None:
        """The joiner's move, forwarded to the host; the inviter's resignation, accepted from
        the joiner's node; the joiner's win stored."""
        lobby = self.host.server.lobby  # type: ignore[union-attr]
        running = lobby.match_table.playing[self.joiner_name]
        play = format_play(running.match.legal_plays()[0], running.match.colour(1))
        await self.joiner.send(f"move {play}")
        self.seen += await self.inviter.skip_until(f"{self.joiner_name} moves {play} .")
        self.seen += await self.inviter.skip_until("Please move 2 pieces.")
        await self.inviter.send("resign n")
        self.seen += await self.joiner.skip_until(
            f"{self.inviter_name} wants to resign. You will win 1 point. "
            "Type 'accept' or 'reject'.")
        await self.joiner.send("accept")
        self.seen += await self.inviter.skip_until(
            f"{self.joiner_name} wins the 1 point match 1-0 .")
        store = self.host.server.store  # type: ignore[union-attr]
        record = await store.match_by_id(self.match_id)
        assert record is not None and record.finished and record.winner == self.joiner_name, \
            record

    def assert_no_player_left(self, players: list[str]) -> None:
        """Nobody dropped, and no player logged out, as the pages were told; whoever was told
        their opponent is out of reach was told as often that they are back."""
        assert not any("drops connection" in line
                       or (line.startswith("8 ") and line.split()[1] in players)
                       for line in self.seen), self.seen
        for name in (self.inviter_name, self.joiner_name):
            assert self.seen.count(match_texts.out_of_reach(name)) == \
                self.seen.count(match_texts.back_in_reach(name)), (name, self.seen)


async def test_three_nodes_outlive_a_redis_pause_and_a_failover(
        postgresql_url, master_replica_and_sentinel, prefix, clients):  # noqa: F811
    master, replica, sentinel = master_replica_and_sentinel
    watching = redis.asyncio.Redis(port=sentinel.port)
    try:
        await watching.execute_command("SENTINEL", "SET", SERVICE, "down-after-milliseconds",
                                       NO_FAILOVER_MS)
        async with running_nodes(postgresql_url, sentinel.url, prefix, ("a", "b", "c"),
                                 node_times=TIMES, http_port=0, net_limits=UNPINGED) as nodes:
            await play_through_faults(nodes, master, replica, watching, clients)
    finally:
        await watching.aclose()


async def play_through_faults(nodes: list[ServerHarness], master: RedisServer,
                              replica: RedisServer, watching: redis.asyncio.Redis,
                              clients: list[WebClient]) -> None:
    a, b, c = nodes
    names = {a: ("alice", "ann"), b: ("bob", "bea"), c: ("carol", "cid")}
    pages = {}
    for node, pair in names.items():
        for name in pair:
            await a.register(name)
            pages[name] = await web_login(node, clients, name)
    for page in pages.values():  # once all are in: the inviters hear it, not a login's list
        await page.send("toggle ready")
    everyone = sorted(pages)
    pairings = [Pairing(node, pages[names[node][0]], names[node][0],
                        pages[names[guest][1]], names[guest][1])
                for node, guest in ((a, b), (b, c), (c, a))]
    for pairing in pairings:  # the host knows the joiner is ready
        await pairing.inviter.skip_until(re.compile(rf"5 {pairing.joiner_name} - - 1 .*"))

    # 1. The master stalls for longer than the node silence.
    for pairing in pairings:
        await pairing.start()
    master_pid = master.process.pid
    os.kill(master_pid, signal.SIGSTOP)
    stopped_at = time.monotonic()
    try:
        for pairing in pairings:
            await pairing.told(match_texts.out_of_reach)
        await asyncio.sleep(max(0.0, stopped_at + PAUSE - time.monotonic()))  # the pause held
        for node in nodes:
            assert not node.server.bus.carrying, node.config.node_id
    finally:
        os.kill(master_pid, signal.SIGCONT)
    await until(lambda: all(node.server.bus.carrying
                            and not node.server.lobby.attendance.users.directory._unreached
                            for node in nodes), "every node's bus carrying, every node in reach")
    for pairing in pairings:
        await pairing.told(match_texts.back_in_reach)
    await asyncio.gather(*(pairing.finish() for pairing in pairings))
    assert await watching.execute_command(
        "SENTINEL", "GET-MASTER-ADDR-BY-NAME", SERVICE) == [b"127.0.0.1", str(master.port).encode()]

    # 2. The master dies in the middle of three new matches; the sentinel promotes the replica.
    # Meanwhile eve (node b) leaves and dave (node c) comes, which the other nodes may not hear.
    await watching.execute_command("SENTINEL", "SET", SERVICE, "down-after-milliseconds",
                                   FAILOVER_MS)
    for name in ("dave", "eve"):
        await a.register(name)
    eve = await web_login(b, clients, "eve")
    for pairing in pairings:
        await pairing.start()
    master.kill()
    await eve.send("bye")
    await web_login(c, clients, "dave")

    async def promoted() -> bool:
        address = await watching.execute_command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", SERVICE)
        return address == [b"127.0.0.1", str(replica.port).encode()]
    await until_async(promoted, "the sentinel promotes the replica")
    await until(lambda: all(node.server.bus.carrying
                            and not node.server.lobby.attendance.users.directory._unreached
                            for node in nodes), "every node subscribed to the new master")
    await asyncio.gather(*(pairing.finish() for pairing in pairings))
    for pairing in pairings:
        pairing.assert_no_player_left(everyone)

    # Presence repaired: every node knows dave and not eve, and every who-list says so.
    online = sorted([*pages, "dave"])
    await until(lambda: all(known(node) == online for node in nodes),
                "every node's users and directory: the players and dave")
    for node in nodes:
        assert sorted(await who_list(pages[names[node][0]])) == online, node.config.node_id


def known(node: ServerHarness) -> list[str]:
    attendance = node.server.lobby.attendance  # type: ignore[union-attr]
    return sorted([*attendance.users.online, *attendance.users.directory.users])


async def who_list(page: WebClient) -> list[str]:
    """The names in `rawwho`'s answer: the block of who-lines ended by `6` with more than one
    (a change told before it has one)."""
    await page.send("rawwho")
    while True:
        block = [line.split()[1] for line in await page.skip_until("6") if line.startswith("5 ")]
        if len(block) > 1:
            return block
