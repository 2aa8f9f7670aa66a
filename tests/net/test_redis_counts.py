"""The abuse limits' counts across nodes, over real Redis (net/redis_counts.py; docs/SECURITY.md,
"Across nodes"): two nodes' counts of one address add up, for the registration limit and the
login throttle alike; another lobby's prefix counts apart; with Redis gone a node counts on
its own, says so once, and counts across nodes again when Redis is back; a Redis that does not
answer is not asked again before `retry_after`."""
from __future__ import annotations

import asyncio
import logging

from fibs_server.lobby.limits.throttle import (
    ACCOUNTS,
    ADDRESSES,
    AbuseLimits,
    LoginThrottle,
    RegistrationLimit,
)
from fibs_server.net.limits import AddressCounter
from fibs_server.net.redis_counts import RedisConnections, RedisCounts
from tests.hostile.test_throttle import FakeClock, failing
from tests.redis_server import prefix, private_redis, redis_url  # noqa: F401 (fixtures)
from tests.waiting import until

# What the tests that count over a live Redis give it to answer: the server's own
# COUNT_TIMEOUT (0.5 s) is for a Redis that is down or cut off, and a loaded machine's first
# connection can take longer (the node then counts alone, which is not what they test). Only
# the test of a silent Redis uses a short one.
ANSWERED = 30.0


def live_counts(redis_url: str, prefix: str, **options: float) -> RedisCounts:
    return RedisCounts(redis_url, prefix=prefix, timeout=ANSWERED, **options)


LIMITS = AbuseLimits(account_free_failures=2, address_free_failures=4, login_delay=1.0,
                     max_login_delay=8.0, failure_memory=600.0, registrations_per_hour=3)


async def test_two_nodes_count_one_address_together(redis_url, prefix):
    a, b = live_counts(redis_url, prefix), live_counts(redis_url, prefix)
    other_lobby = live_counts(redis_url, prefix + "-other")
    try:
        assert await a.tally([ADDRESS, ACCOUNT], 60) == [1, 1]
        assert await b.tally([ADDRESS], 60) == [2]
        assert await other_lobby.tally([ADDRESS], 60) == [1]
        a.untally(ADDRESS)
        b.forget(ACCOUNT)
        await until(lambda: all(node._sender is None or node._sender.done() for node in (a, b)),
                    "the writes answered")
        assert await b.tally([ADDRESS, ACCOUNT], 60) == [2, 1]
        key = ("registrations", "10.0.0.1")
        taken = [await node.take(key, 3, 3600) for node in (a, b, a, b, a)]
        assert taken == [True, True, True, False, False]
        assert await a.recent(key, 3600) == await b.recent(key, 3600) == 3
        assert await other_lobby.recent(key, 3600) == 0
        assert a.figures.local == b.figures.local == 0 and a.reachable and b.reachable
    finally:
        for counts in (a, b, other_lobby):
            await counts.close()


ADDRESS = ("login-address", "10.0.0.1")
ACCOUNT = ("login-account", "alice")


async def test_registrations_split_over_two_nodes_stop_at_the_shared_limit(redis_url, prefix):
    a, b = live_counts(redis_url, prefix), live_counts(redis_url, prefix)
    try:
        nodes = [RegistrationLimit(LIMITS, a), RegistrationLimit(LIMITS, b)]
        assert [await nodes[n % 2].take("10.0.0.1") for n in range(4)] == [
            True, True, True, False]
        assert not await nodes[0].allows("10.0.0.1") and not await nodes[1].allows("10.0.0.1")
        assert await nodes[1].allows("10.0.0.2")
    finally:
        await a.close()
        await b.close()


async def test_failed_logins_on_two_nodes_earn_the_delays_together(redis_url, prefix):
    """Failures of one address alternating between two nodes: the delays start after the
    free failures of both together, as on one node."""
    a, b = live_counts(redis_url, prefix), live_counts(redis_url, prefix)
    try:
        clock = FakeClock()
        nodes = [LoginThrottle(LIMITS, clock=clock, sleep=clock.sleep, counts=counts)
                 for counts in (a, b)]
        for number in range(8):
            assert not await nodes[number % 2].attempt(f"user{number}", "10.0.0.1", False,
                                                       failing)
        assert clock.slept == [0, 0, 0, 0, 1, 2, 4, 8]  # as one node's (test_throttle.py)
        assert await b.tally([(ADDRESSES, "10.0.0.1")], 600) == [9]
        # The account's count too: alice guessed on a holds back alice guessed on b.
        for node in nodes:
            await node.attempt("alice", "10.0.0.1", False, failing)
        assert await a.tally([(ACCOUNTS, "alice")], 600) == [3]
    finally:
        await a.close()
        await b.close()


async def test_with_redis_gone_a_node_counts_alone_and_says_so_once(private_redis, prefix,
                                                                    caplog):
    caplog.set_level(logging.WARNING, "fibs_server.net.redis_counts")
    counts = live_counts(private_redis.url, prefix, retry_after=0.0)
    try:
        assert await counts.tally([ADDRESS], 60) == [1]
        assert await counts.take(("registrations", "h"), 2, 3600)
        private_redis.kill()
        # This node's own counts answer: nobody is let further than this node alone allows.
        assert await counts.tally([ADDRESS], 60) == [2]
        assert await counts.tally([ADDRESS], 60) == [3]
        assert await counts.take(("registrations", "h"), 2, 3600)
        assert not await counts.take(("registrations", "h"), 2, 3600)
        assert counts.figures.local == 3 and not counts.reachable
        alone = [r for r in caplog.records if "on this node alone" in r.getMessage()]
        assert len(alone) == 1  # once for the outage, not once a check
        private_redis.start()  # empty: the counts start again from the node's next
        assert await counts.tally([ADDRESS], 60) == [1]
        assert counts.reachable
        assert any("across nodes again" in r.getMessage() for r in caplog.records)
    finally:
        await counts.close()


async def test_a_redis_that_does_not_answer_is_not_asked_again_before_retry_after(prefix):
    accepted: list[asyncio.StreamWriter] = []

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(writer)  # reads nothing, answers nothing

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    counts = RedisCounts(f"redis://127.0.0.1:{port}/0", prefix=prefix, timeout=0.1,
                         retry_after=3600.0)
    try:
        assert await counts.tally([ADDRESS], 60) == [1]
        assert await counts.tally([ADDRESS], 60) == [2]
        assert await counts.take(("registrations", "h"), 1, 3600)
        assert not await counts.take(("registrations", "h"), 1, 3600)
        assert len(accepted) == 1  # the first check only: the rest were not sent
        assert counts.figures.local == 3 and counts.figures.shared == 0
    finally:
        await counts.close()
        for writer in accepted:
            writer.close()
        server.close()
        await server.wait_closed()


def counters(redis_url: str, prefix: str, limit: int, **options: float
             ) -> tuple[list[AddressCounter], list[RedisConnections], RedisCounts]:
    """Two nodes' connection counts of one lobby (one RedisCounts: the nodes differ by id)."""
    counts = live_counts(redis_url, prefix, retry_after=0.0)
    shares = [RedisConnections(counts, node, **options) for node in ("a", "b")]
    nodes = [AddressCounter(limit, share) for share in shares]
    for node, share in zip(nodes, shares):
        share.start(node.open_here)
    return nodes, shares, counts


async def test_an_address_is_capped_over_both_nodes_as_last_heard(redis_url, prefix):
    (a, b), (share_a, share_b), counts = counters(redis_url, prefix, 4, recheck_after=0.0)
    host = "10.0.0.1"
    try:
        assert all(a.admit(host) for _ in range(3))
        assert b.admit(host)  # b had heard of none: its write hears a's three
        await until(lambda: share_b.elsewhere(host) == 3, "b hears a's connections")
        assert b.full(host) and not b.admit(host)
        assert b.admit("10.0.0.2")  # another address is free
        # a closes two (and so hears b's one): b, refused on what it heard before, hears
        # again and admits one more.
        a.release(host)
        a.release(host)
        await until(lambda: share_a.elsewhere(host) == 1, "a hears b's")
        await until(lambda: not share_a._writes, "a's closes written")
        assert b.full(host)  # stale: as last heard; the refusal asked again
        await until(lambda: share_b.elsewhere(host) == 1, "b hears the closes")
        assert b.admit(host)
    finally:
        for share in (share_a, share_b):
            await share.stop()
        await counts.close()


async def test_a_dead_nodes_connections_lapse(redis_url, prefix):
    (a, b), (share_a, share_b), counts = counters(redis_url, prefix, 2, refresh=0.1,
                                                  recheck_after=0.0)
    host = "10.0.0.1"
    try:
        assert a.admit(host) and a.admit(host)
        assert share_a._refreshing is not None
        share_a._refreshing.cancel()  # a "dies": it writes nothing more, deletes nothing
        await until(lambda: not share_a._writes, "a's counts written")
        # b refuses while a's counts stand, and admits once they lapsed (3 x refresh).
        await until(lambda: b.admit(host), "a's connections lapsed")
        assert share_b.elsewhere(host) == 0
    finally:
        await share_b.stop()
        await counts.close()


async def test_with_redis_gone_each_node_caps_its_own_connections(private_redis, prefix):
    (a, b), (share_a, share_b), counts = counters(private_redis.url, prefix, 2,
                                                  recheck_after=0.0)
    host = "10.0.0.1"
    try:
        assert a.admit(host) and a.admit(host) and b.admit(host)
        await until(lambda: share_b.elsewhere(host) == 2, "b hears a's")
        assert not b.admit(host)
        private_redis.kill()
        # b's recheck finds Redis gone: it forgets what it heard and counts its own alone.
        await until(lambda: b.admit(host), "b counts alone")
        assert not b.admit(host) and not a.admit(host)  # each node's own cap still holds
        assert not counts.reachable and counts.figures.local > 0
    finally:
        for share in (share_a, share_b):
            await share.stop()
        await counts.close()
