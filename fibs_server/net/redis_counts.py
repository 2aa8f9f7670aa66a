"""The abuse limits' counts across nodes, in Redis (`lobby.shared_counts.SharedCounts`;
docs/SECURITY.md, "Across nodes").

Each count is one key, `<prefix>:count:<kind>:<key>` (the bus's prefix, so that several
lobbies and the tests share one Redis):

- a tally is a number: `INCR`, then `PEXPIRE` to the memory (forgotten that long after its
  latest);
- events are a sorted set of their times on Redis's own clock (`TIME`, so the nodes' clocks
  do not matter), counted and added by one script, atomically;
- open connections per address are a hash per address, a field per node
  (`RedisConnections`, for `net.limits.AddressCounter`).

One task sends the checks: those asked while a batch is in flight go together in the next
pipeline, so a check costs one round trip, or two behind a batch in flight, and a flood of
logins a round trip per batch.

Every count is kept on this node as well (`LocalCounts`), before Redis is asked, for when
Redis does not answer within `timeout` (down, cut off, slow): it is not waited for, the node's
own counts answer, the fallback is counted (`figures.local`) and logged once per outage, and
Redis is left alone for `retry_after` seconds, so a dead Redis costs a check two timeouts at
most, once per `retry_after`. Nothing fails open silently and nobody is refused for want of
Redis. When Redis answers, a tally is Redis's (a success on another node forgets a count
there, which this node's copy never hears of); events, never forgotten early, are the larger
of the two counts, so a Redis that lost its keys (restarted) lets no address register further
than this node alone would.
"""
from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
from collections.abc import Callable, Sequence
from typing import Any

from redis.asyncio.client import Pipeline
from redis.exceptions import RedisError

from fibs_server.lobby.limits.shared_counts import Key, LocalCounts
from fibs_server.net.redis_bus import unretried_client

log = logging.getLogger(__name__)

# Seconds a batch of checks waits for Redis before they take this node's counts: a login
# waits twice this at most for a dead Redis (the batch in flight, then its own), once per
# RETRY_AFTER.
COUNT_TIMEOUT = 0.5
RETRY_AFTER = 1.0  # seconds after Redis failed to answer during which it is not asked

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


# This node's open connections from one address (ARGV[2]; 0: none), kept in the address's
# hash, KEYS[1], under this node's id (ARGV[1]) with when it lapses (ARGV[3] ms from now,
# unless written again: a node that died stops counting then). Returns the other nodes'
# connections from the address, those lapsed deleted.
CONNECTIONS = """
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ttl = tonumber(ARGV[3])
if tonumber(ARGV[2]) > 0 then
    redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ' ' .. (now + ttl))
else
    redis.call('HDEL', KEYS[1], ARGV[1])
end
local others = 0
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
    if fields[i] ~= ARGV[1] then
        local count, lapses = string.match(fields[i + 1], '(%d+) (%d+)')
        if tonumber(lapses) < now then
            redis.call('HDEL', KEYS[1], fields[i])
        else
            others = others + tonumber(count)
        end
    end
end
if #fields > 0 then
    redis.call('PEXPIRE', KEYS[1], ttl)
end
return others
"""
# Seconds between this node's rewrites of its counts of every address with connections open;
# a count lapses three times that after it was last written (a node that died).
CONNECTIONS_REFRESH = 10.0
RECHECK_AFTER = 1.0  # seconds: an address refused for the others' count hears them again


@dataclasses.dataclass
class CountFigures:
    """For /metrics: checks answered with every node's counts (`shared`) or, Redis not
    answering, with this node's alone (`local`)."""
    shared: int = 0
    local: int = 0


Request = Callable[[Pipeline], object]  # puts a check's commands in a pipeline


class RedisCounts:
    """`SharedCounts` in Redis, with this node's own counts beside them (`local`). The checks
    asked while a pipeline is in flight go together in the next: a flood of logins costs a
    round trip per batch, not per check, and each waits for two round trips at most."""

    def __init__(self, url: str, *, prefix: str = "fibs", timeout: float = COUNT_TIMEOUT,
                 retry_after: float = RETRY_AFTER, local: LocalCounts | None = None) -> None:
        self.prefix = prefix
        self.timeout = timeout
        self.retry_after = retry_after
        self.local = LocalCounts() if local is None else local
        self.figures = CountFigures()
        self.reachable = True  # as of the latest batch: False while counting locally
        self._quiet_until = 0.0  # loop time before which Redis is not asked
        self._pending: list[tuple[Request, asyncio.Future[list[Any] | None]]] = []
        self._sender: asyncio.Task[None] | None = None
        # No retries inside redis-py, and waits bounded by the timeout: a check late is a
        # check that counts on this node.
        self.client = unretried_client(url, connect_timeout=timeout, timeout=timeout)

    def key(self, key: Key) -> str:
        kind, name = key
        return f"{self.prefix}:count:{kind}:{name}"

    async def tally(self, keys: Sequence[Key], memory: float) -> list[int]:
        counted = self.local.tally_now(keys, memory)
        memory_ms = max(1, round(memory * 1000))

        def request(pipe: Pipeline) -> None:
            for key in keys:
                pipe.incr(self.key(key))
                pipe.pexpire(self.key(key), memory_ms)
        replies = await self._ask(request)
        return counted if replies is None else [int(count) for count in replies[::2]]

    def untally(self, key: Key) -> None:
        self.local.untally(key)
        self._send(lambda pipe: pipe.eval(UNTALLY, 1, self.key(key)))

    def forget(self, key: Key) -> None:
        self.local.forget(key)
        self._send(lambda pipe: pipe.delete(self.key(key)))

    async def recent(self, key: Key, window: float) -> int:
        mine = self.local.recent_now(key, window)
        replies = await self._ask(self._take(key, -1, window))
        return mine if replies is None else max(mine, int(replies[0][1]))

    async def take(self, key: Key, limit: int, window: float) -> bool:
        if not self.local.take_now(key, limit, window):
            return False  # this node's count alone is over: so is every node's
        replies = await self._ask(self._take(key, limit, window))
        if replies is not None and not int(replies[0][0]):
            self.local.untake(key)  # refused: counted nowhere
            return False
        return True

    def _take(self, key: Key, limit: int, window: float) -> Request:
        member = secrets.token_hex(8)  # events at the same millisecond stay apart
        window_ms = max(1, round(window * 1000))
        return lambda pipe: pipe.eval(TAKE, 1, self.key(key), limit, window_ms, member)

    async def _ask(self, request: Request) -> list[Any] | None:
        """Redis's replies to `request`'s commands, or None: Redis did not answer in time
        (counted, and logged when an outage starts), or is left alone after such a failure."""
        replies = None
        if asyncio.get_running_loop().time() >= self._quiet_until:
            replies = await self._send(request)
        if replies is None:
            self.figures.local += 1
        else:
            self.figures.shared += 1
        return replies

    def _send(self, request: Request) -> asyncio.Future[list[Any] | None]:
        """Queue `request` for the next batch; its replies when they come (None: none)."""
        future: asyncio.Future[list[Any] | None] = asyncio.get_running_loop().create_future()
        if asyncio.get_running_loop().time() < self._quiet_until:
            future.set_result(None)
            return future
        self._pending.append((request, future))
        if self._sender is None or self._sender.done():
            self._sender = asyncio.get_running_loop().create_task(self._send_batches())
        return future

    async def _send_batches(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            pipe = self.client.pipeline(transaction=False)
            sizes = []
            for request, _ in batch:
                before = len(pipe.command_stack)
                request(pipe)
                sizes.append(len(pipe.command_stack) - before)
            try:
                replies = await asyncio.wait_for(pipe.execute(raise_on_error=False),
                                                 self.timeout)
            except (RedisError, OSError, TimeoutError) as error:
                self._unreachable(error)
                for _, future in batch + self._pending:
                    if not future.done():
                        future.set_result(None)
                self._pending = []
                return
            if not self.reachable:
                self.reachable = True
                log.warning("the abuse limits count across nodes again: Redis answers")
            start = 0
            for (_, future), size in zip(batch, sizes):
                mine = replies[start:start + size]
                start += size
                failed = any(isinstance(reply, Exception) for reply in mine)
                if not future.done():
                    future.set_result(None if failed else mine)

    def _unreachable(self, error: BaseException) -> None:
        self._quiet_until = asyncio.get_running_loop().time() + self.retry_after
        if self.reachable:
            self.reachable = False
            log.warning("the abuse limits count on this node alone: Redis did not answer "
                        "(%s: %s)", type(error).__name__, error)

    async def close(self) -> None:
        if self._sender is not None:
            self._sender.cancel()
            await asyncio.gather(self._sender, return_exceptions=True)
        for _, future in self._pending:
            if not future.done():
                future.set_result(None)
        with contextlib.suppress(Exception):
            await self.client.aclose()


class RedisConnections:
    """`net.limits.ConnectionsElsewhere` in Redis: the open connections of each address on
    each node, one hash per address, `<prefix>:count:connections:<address>`, a field per node
    (its count, and when that lapses). A node writes its count of an address whenever it
    changes (the latest count, so a lost write is made good by the next), and every
    `refresh` seconds for every address it has connections from; each write answers the
    other nodes' count, which accept reads. So what a node knows of an address's connections
    elsewhere is as of its own latest connection, close or refresh of that address, or of a
    refusal for the others' count (heard again at most once per `recheck_after`). Redis not
    answering: the node counts its own connections alone (`RedisCounts`' fallback, figures
    and log), and forgets what it heard."""

    def __init__(self, counts: RedisCounts, node_id: str, *,
                 refresh: float = CONNECTIONS_REFRESH,
                 recheck_after: float = RECHECK_AFTER) -> None:
        self.counts = counts
        self.node_id = node_id
        self.refresh = refresh
        self.recheck_after = recheck_after
        self._elsewhere: dict[str, int] = {}  # address -> the others' count, as last heard
        self._here: dict[str, int] = {}  # address -> this node's count, to be written
        self._rechecked: dict[str, float] = {}  # address -> loop time of its last recheck
        self._refreshing: asyncio.Task[None] | None = None
        self._writes: set[asyncio.Task[None]] = set()
        self._open_here: Callable[[], dict[str, int]] = dict  # until `start`

    def elsewhere(self, host: str) -> int:
        return self._elsewhere.get(host, 0)

    def changed(self, host: str, count: int) -> None:
        if host in self._here:  # a write is queued: it will carry this count
            self._here[host] = count
            return
        self._here[host] = count
        task = asyncio.get_running_loop().create_task(self._write(host))
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    def recheck(self, host: str) -> None:
        now = asyncio.get_running_loop().time()
        if now - self._rechecked.get(host, -self.recheck_after) < self.recheck_after:
            return
        if len(self._rechecked) >= 1024:  # only recent ones matter
            self._rechecked = {address: when for address, when in self._rechecked.items()
                               if now - when < self.recheck_after}
        self._rechecked[host] = now
        self.changed(host, self._count_here(host))

    def start(self, open_here: Callable[[], dict[str, int]]) -> None:
        """Rewrite this node's counts (`open_here()`) every `refresh` seconds."""
        self._open_here = open_here
        self._refreshing = asyncio.get_running_loop().create_task(self._refresh())

    async def stop(self) -> None:
        """This node's counts are gone from Redis (its connections are closed), as far as
        Redis answers: what it does not lapses by itself."""
        if self._refreshing is not None:
            self._refreshing.cancel()
            await asyncio.gather(self._refreshing, return_exceptions=True)
        await asyncio.gather(*self._writes, return_exceptions=True)
        await asyncio.gather(*(self._write(host, 0) for host in self._open_here()),
                             return_exceptions=True)

    def _count_here(self, host: str) -> int:
        return self._open_here().get(host, 0)

    async def _refresh(self) -> None:
        while True:
            await asyncio.sleep(self.refresh)
            open_here = self._open_here()
            # What was heard of an address with nothing open here is as old as its last
            # write: forgotten (the table holds the addresses open here, and the recent).
            self._elsewhere = {host: count for host, count in self._elsewhere.items()
                               if host in open_here}
            for host, count in open_here.items():
                self.changed(host, count)

    async def _write(self, host: str, count: int | None = None) -> None:
        ttl_ms = max(1, round(3 * self.refresh * 1000))
        key = self.counts.key(("connections", host))

        sent = False

        def request(pipe: Pipeline) -> None:
            nonlocal sent
            sent = True
            # The count as of the batch, not of the request: later changes ride along.
            written = self._here.pop(host, 0) if count is None else count
            pipe.eval(CONNECTIONS, 1, key, self.node_id, written, ttl_ms)
        replies = await self.counts._ask(request)
        if not sent and count is None:
            self._here.pop(host, None)  # Redis left alone: the next change writes again
        if replies is None:
            self._elsewhere.clear()  # this node's count alone: nobody refused for want of Redis
        elif replies[0]:
            self._elsewhere[host] = int(replies[0])
        else:
            self._elsewhere.pop(host, None)
