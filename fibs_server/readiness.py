"""Readiness that balances (`/readyz`, docs/OPERATIONS.md): a node is taken out of the balancer
for what is wrong with it alone, never for an outage that every node shares, since taking every
node out at once helps nobody.

A node's two shared services, the store (PostgreSQL) and the bus (Redis), witness for each
other. Every `WITNESS_EVERY` seconds a node notes in Redis that its store answers, and in the
store that its bus is subscribed, each on the witness's own clock (so the nodes' clocks do not
matter). A node that finds one of its links down asks the other service whether another node
found that link working *since* this node first found it down, and within the last
`WITNESS_WINDOW` seconds (on that service's clock):

- yes: the fault is this node's alone (cut off, a broken pool): not ready, as before;
- no (or there is no other node): every node has it, so this one stays ready, and the outage
  is reported on `/healthz` and in `/metrics` (`fibs_link_down{link,scope}`);
- both links down here, or no witness to ask (one node without a bus): not ready.

A shared outage stays shared for as long as no other node gets the link back; the first node
whose link comes back is a witness against the others from then on. A node that noticed a
shared outage later than this one, and noted its link working meanwhile, makes this one not
ready for `WITNESS_WINDOW` seconds at most; a fault of this node alone is found within
`WITNESS_EVERY` seconds of the first check that sees it (the other nodes' next note).
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Literal, Protocol

import redis.asyncio

from fibs_server.net.redis_bus import unretried_client

log = logging.getLogger(__name__)

Link = Literal["store", "bus"]
Scope = Literal["node", "shared"]
LINKS: tuple[Link, ...] = ("store", "bus")

WITNESS_EVERY = 2.0  # seconds between a node's checks of its links, and notes of them
WITNESS_TIMEOUT = 2.0  # seconds a witness has to answer (else: no witness)
# Seconds a node's note counts: a node that noted a link just before finding it down too
# (it noticed the outage later than this one) is no witness for longer than this.
WITNESS_WINDOW = 3 * WITNESS_EVERY
# How long a witness keeps a node's note (a node gone for longer is no witness).
WITNESS_MEMORY_MS = 60_000


class Witness(Protocol):
    """A shared service that records which nodes found a link working, on its own clock."""

    async def note_link(self, link: str, node: str) -> None: ...

    async def witness_time(self) -> float: ...

    async def links_noted_since(self, link: str, since: float, other_than: str) -> int: ...


class RedisWitness:
    """The store's witness in Redis: a sorted set per link, `<prefix>:links:<link>`, of the
    nodes that found it working, scored by Redis's own clock (`TIME`)."""

    NOTE = """
local time = redis.call('TIME')
redis.call('ZADD', KEYS[1], tonumber(time[1]) + tonumber(time[2]) / 1000000, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 0
"""

    def __init__(self, url: str, prefix: str, client: redis.asyncio.Redis | None = None) -> None:
        self.client = client or unretried_client(url, connect_timeout=WITNESS_TIMEOUT,
                                                 timeout=WITNESS_TIMEOUT)
        self._prefix = prefix
        self._note = self.client.register_script(self.NOTE)

    def _key(self, link: str) -> str:
        return f"{self._prefix}:links:{link}"

    async def note_link(self, link: str, node: str) -> None:
        await self._note(keys=[self._key(link)], args=[node, WITNESS_MEMORY_MS])

    async def witness_time(self) -> float:
        seconds, microseconds = await self.client.time()
        return seconds + microseconds / 1_000_000

    async def links_noted_since(self, link: str, since: float, other_than: str) -> int:
        nodes = await self.client.zrangebyscore(self._key(link), f"({since!r}", "+inf")
        return sum(1 for node in nodes if node != other_than.encode())

    async def close(self) -> None:
        await self.client.aclose()


class Readiness:
    """This node's links checked, judged alone or shared, and noted for the other nodes."""

    def __init__(self, node: str, store_fault: Callable[[], Awaitable[str | None]],
                 bus_fault: Callable[[], str | None], witnesses: dict[Link, Witness]) -> None:
        self._node = node
        self._store_fault = store_fault  # None: the store answers; else why not
        self._bus_fault = bus_fault  # None: subscribed, or no bus; else why not
        # link -> the service that witnesses it: the store's is Redis, the bus's the store.
        self._witnesses = witnesses
        self.outages: dict[Link, Scope] = {}  # as last found (/healthz, /metrics)
        self._down_since: dict[Link, float] = {}  # first found down, on its witness's clock

    async def check(self) -> str | None:
        """None when this node is ready; else why not. Keeps `outages`."""
        faults: dict[Link, str | None] = {"store": await self._store_fault(),
                                          "bus": self._bus_fault()}
        down = {link: why for link, why in faults.items() if why is not None}
        for link in LINKS:
            if link not in down:
                self._down_since.pop(link, None)
        outages: dict[Link, Scope] = {}
        reason = None
        for link, why in down.items():
            outages[link] = "shared" if len(down) == 1 and await self._shared(link) else "node"
            if outages[link] == "node":
                reason = reason or why
        self.outages = outages
        return reason

    async def _shared(self, link: Link) -> bool:
        """Whether no other node found `link` working since this node found it down (False
        when the witness cannot tell)."""
        witness = self._witnesses.get(link)
        if witness is None:
            return False
        try:
            async with asyncio.timeout(WITNESS_TIMEOUT):
                now = await witness.witness_time()
                since = max(self._down_since.setdefault(link, now), now - WITNESS_WINDOW)
                return await witness.links_noted_since(link, since, self._node) == 0
        except Exception:  # down, slow or refusing: it tells nothing
            log.debug("the witness of the %s did not answer", link, exc_info=True)
            return False

    async def note(self) -> None:
        """Check the links, and note those working with their witnesses."""
        await self.check()
        for link, witness in self._witnesses.items():
            if link in self.outages:
                continue
            with contextlib.suppress(Exception):
                async with asyncio.timeout(WITNESS_TIMEOUT):
                    await witness.note_link(link, self._node)

    async def run(self) -> None:
        while True:
            await self.note()
            await asyncio.sleep(WITNESS_EVERY)

    def health_lines(self) -> list[str]:
        """`/healthz`'s lines after `ok`: each link down, and for whom."""
        return [f"{link} down ({'every node' if scope == 'shared' else 'this node'})"
                for link, scope in self.outages.items()]
