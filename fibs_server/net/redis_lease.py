"""Leases across nodes in Redis (`lobby.leases.Lease`; docs/NODES.md, "Leases").

A lease is one key, `<prefix>:lease:<name>`, whose value is its holder's node id and which
expires after the time to live: `SET key node NX PX ttl` takes it when nobody holds it; a
script that compares the value with this node's id renews it (PEXPIRE) or releases it (DEL),
so that a node never renews or deletes a lease another node took after it lost it.
"""
from __future__ import annotations

import contextlib

from fibs_server.net.redis_bus import unretried_client

RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
"""


class RedisLeases:
    """The leases of one node of a lobby: one connection pool for all of them. `ttl`: each
    lease's time to live, in seconds; `prefix`: the lobby's, as the bus's."""

    def __init__(self, url: str, node_id: str, ttl: float, *, prefix: str = "fibs") -> None:
        self.node_id = node_id
        self.ttl = ttl
        self.prefix = prefix
        # No retries inside redis-py: a renewal retried past the lease's margin would be
        # worse than one that failed (the keeper tries again on its own schedule).
        timeout = max(0.1, ttl / 3)
        self.client = unretried_client(url, connect_timeout=timeout, timeout=timeout)
        self.renew_script = self.client.register_script(RENEW)
        self.release_script = self.client.register_script(RELEASE)

    def __call__(self, name: str) -> RedisLease:
        return RedisLease(self, name)

    def key(self, name: str) -> str:
        return f"{self.prefix}:lease:{name}"

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.client.aclose()


class RedisLease:
    expires = True

    def __init__(self, leases: RedisLeases, name: str) -> None:
        self.name = name
        self._leases = leases
        self._key = leases.key(name)

    @property
    def _ttl_ms(self) -> int:
        return max(1, round(self._leases.ttl * 1000))

    async def acquire_or_renew(self) -> bool:
        leases = self._leases
        if await leases.renew_script(keys=[self._key], args=[leases.node_id, self._ttl_ms]):
            return True
        return bool(await leases.client.set(self._key, leases.node_id, nx=True,
                                            px=self._ttl_ms))

    async def release(self) -> None:
        await self._leases.release_script(keys=[self._key], args=[self._leases.node_id])

    async def is_held(self) -> bool:
        return await self.holder() == self._leases.node_id

    async def holder(self) -> str | None:
        """The node holding the lease, as Redis says now (None: nobody)."""
        value = await self._leases.client.get(self._key)
        return value.decode() if isinstance(value, bytes) else value
