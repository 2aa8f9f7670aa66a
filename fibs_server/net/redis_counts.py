"""The abuse limits' counts across nodes, in Redis (`lobby.shared_counts.SharedCounts`;
docs/SECURITY.md, "Across nodes").

Each count is one key, `<prefix>:count:<kind>:<key>` (the bus's prefix, so that several
lobbies and the tests share one Redis):

- a tally is a number: `INCR`, then `PEXPIRE` to the memory (forgotten that long after its
  latest), every key of one check in one pipeline, one round trip;
- events are a sorted set of their times on Redis's own clock (`TIME`, so the nodes' clocks
  do not matter), counted and added by one script, atomically, one round trip.

Every count is kept on this node as well (`LocalCounts`), before Redis is asked, for when
Redis does not answer within `timeout` (down, cut off, slow): it is not waited for, the node's
own count answers, the fallback is counted (`figures.local`) and logged once per outage, and
Redis is left alone for `retry_after` seconds, so a dead Redis costs a check one timeout per
`retry_after` at most. Nothing fails open silently and nobody is refused for want of Redis.
When Redis answers, a tally is Redis's (a success on another node forgets a count there, which
this node's copy never hears of); events, never forgotten early, are the larger of the two
counts, so a Redis that lost its keys (restarted) lets no address register further than this
node alone would.
"""
from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import redis.asyncio
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from fibs_server.lobby.shared_counts import Key, LocalCounts

log = logging.getLogger(__name__)

T = TypeVar("T")

# Seconds a check waits for Redis before it takes this node's count: a login waits this much
# at most for a dead Redis, once per RETRY_AFTER.
COUNT_TIMEOUT = 0.25
RETRY_AFTER = 1.0  # seconds after Redis failed to answer during which it is not asked
MAX_CONNECTIONS = 16  # to Redis, for the checks in flight; more wait for one (timeout above)

# Events of KEYS[1] within ARGV[2] ms; one more (member ARGV[3]) if fewer than ARGV[1]
# (ARGV[1] = -1: count only). Returns {counted (0/1), events in the window with it}.
TAKE = """
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (now - window))
local events = redis.call('ZCARD', KEYS[1])
local limit = tonumber(ARGV[1])
if limit < 0 or events >= limit then
    return {0, events}
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return {1, events + 1}
"""

# One less for KEYS[1], never below 0, if it is still kept (its time to live unchanged).
UNTALLY = """
if redis.call('EXISTS', KEYS[1]) == 1 and redis.call('DECR', KEYS[1]) < 0 then
    redis.call('SET', KEYS[1], 0, 'KEEPTTL')
end
return 0
"""


@dataclasses.dataclass
class CountFigures:
    """For /metrics: checks answered with every node's counts (`shared`) or, Redis not
    answering, with this node's alone (`local`)."""
    shared: int = 0
    local: int = 0


class RedisCounts:
    """`SharedCounts` in Redis, with this node's own counts beside them (`local`)."""

    def __init__(self, url: str, *, prefix: str = "fibs", timeout: float = COUNT_TIMEOUT,
                 retry_after: float = RETRY_AFTER, local: LocalCounts | None = None) -> None:
        self.prefix = prefix
        self.timeout = timeout
        self.retry_after = retry_after
        self.local = LocalCounts() if local is None else local
        self.figures = CountFigures()
        self.reachable = True  # as of the latest check: False while counting locally
        self._quiet_until = 0.0  # loop time before which Redis is not asked
        self._writes: set[asyncio.Task[object]] = set()  # untally and forget, in flight
        # No retries inside redis-py, and waits bounded by the timeout: a check late is a
        # check that counts on this node.
        pool = redis.asyncio.BlockingConnectionPool.from_url(
            url, max_connections=MAX_CONNECTIONS, timeout=timeout,
            retry=Retry(NoBackoff(), 0), socket_connect_timeout=timeout,
            socket_timeout=timeout, health_check_interval=0)
        self.client = redis.asyncio.Redis.from_pool(pool)
        self.take_script = self.client.register_script(TAKE)
        self.untally_script = self.client.register_script(UNTALLY)

    def key(self, key: Key) -> str:
        kind, name = key
        return f"{self.prefix}:count:{kind}:{name}"

    async def tally(self, keys: Sequence[Key], memory: float) -> list[int]:
        counted = self.local.tally_now(keys, memory)
        memory_ms = max(1, round(memory * 1000))

        async def ask() -> list[int]:
            pipe = self.client.pipeline(transaction=False)
            for key in keys:
                pipe.incr(self.key(key))
                pipe.pexpire(self.key(key), memory_ms)
            replies = await pipe.execute()
            return [int(count) for count in replies[::2]]
        shared = await self._ask(ask)
        return counted if shared is None else shared

    def untally(self, key: Key) -> None:
        self.local.untally(key)
        self._write(lambda: self.untally_script(keys=[self.key(key)]))

    def forget(self, key: Key) -> None:
        self.local.forget(key)
        self._write(lambda: self.client.delete(self.key(key)))

    async def recent(self, key: Key, window: float) -> int:
        mine = self.local.recent_now(key, window)
        shared = await self._ask(lambda: self._take(key, -1, window))
        return mine if shared is None else max(mine, shared[1])

    async def take(self, key: Key, limit: int, window: float) -> bool:
        if not self.local.take_now(key, limit, window):
            return False  # this node's count alone is over: so is every node's
        shared = await self._ask(lambda: self._take(key, limit, window))
        if shared is not None and not shared[0]:
            self.local.untake(key)  # refused: counted nowhere
            return False
        return True

    async def _take(self, key: Key, limit: int, window: float) -> tuple[bool, int]:
        member = secrets.token_hex(8)  # events at the same millisecond stay apart
        counted, events = await self.take_script(
            keys=[self.key(key)], args=[limit, max(1, round(window * 1000)), member])
        return bool(counted), int(events)

    async def _ask(self, request: Callable[[], Awaitable[T]]) -> T | None:
        """Redis's answer to `request`, or None: it did not answer in time (counted, and
        logged when an outage starts), or it is being left alone after such a failure."""
        now = asyncio.get_running_loop().time()
        if now < self._quiet_until:
            self.figures.local += 1
            return None
        try:
            answer = await asyncio.wait_for(request(), self.timeout)
        except (RedisError, OSError, TimeoutError) as error:
            self._quiet_until = asyncio.get_running_loop().time() + self.retry_after
            self.figures.local += 1
            if self.reachable:
                self.reachable = False
                log.warning("the abuse limits count on this node alone: Redis did not "
                            "answer (%s: %s)", type(error).__name__, error)
            return None
        self.figures.shared += 1
        if not self.reachable:
            self.reachable = True
            log.warning("the abuse limits count across nodes again: Redis answers")
        return answer

    def _write(self, request: Callable[[], Awaitable[object]]) -> None:
        """Send `request` without waiting for it: after a success, which waits for nobody."""
        task = asyncio.get_running_loop().create_task(self._ask(request))
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    async def close(self) -> None:
        for task in list(self._writes):
            task.cancel()
        await asyncio.gather(*self._writes, return_exceptions=True)
        with contextlib.suppress(Exception):
            await self.client.aclose()
