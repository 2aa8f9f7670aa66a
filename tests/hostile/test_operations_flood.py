"""The operator's endpoints flooded: /metrics and /readyz (each answer a scrape of the lobby or
a query of the store) asked as fast as kept-alive connections from three loopback addresses
can, while a telnet bystander's `time` is measured as in test_http_abuse.py. Each address
gets its burst and its pace, the rest 429 with Retry-After; the bystander stays fast."""
from __future__ import annotations

import asyncio
import json
import multiprocessing
import statistics

import aiohttp

from fibs_server.net.limits import NetLimits
from tests.hostile.test_floods import assert_few_slow, time_answers_during
from tests.hostile.test_http_abuse import (  # noqa: F401 (make_web is a fixture)
    counted,
    http_flood,
    make_web,
    p99,
    report,
    timed_login,
)

FLOODERS = ("127.0.0.2", "127.0.0.3", "127.0.0.4")
CONNECTIONS_PER_ADDRESS = 3
PATHS = ("/metrics", "/readyz")


async def test_a_flood_of_metrics_and_readyz_gets_429_and_the_bystander_stays_fast(
        make_web, tracebacks, tmp_path):  # noqa: F811 (make_web is a fixture)
    harness = await make_web(NetLimits(http_request_burst=20, http_requests_per_second=10))
    assert harness.server is not None
    bystander = await harness.login_clip("bystander")
    results = tmp_path / "flood.json"
    # In a process of its own: flooding threads here would take the server's GIL.
    flooder = multiprocessing.get_context("spawn").Process(
        target=http_flood, args=(harness.server.http_port, 2.0,
                                 [address for address in FLOODERS
                                  for _ in range(CONNECTIONS_PER_ADDRESS)],
                                 PATHS, str(results)))
    flooder.start()
    flooding = asyncio.ensure_future(asyncio.to_thread(flooder.join))
    delays = await time_answers_during(bystander, flooding)
    login = await timed_login(harness)
    flood = json.loads(results.read_text())
    print(report("/metrics and /readyz flood", delays), f"login {login * 1000:.0f} ms", flood)
    assert flood["without_retry_after"] == 0
    for address in FLOODERS:
        seen = flood["statuses"][address]
        answered, refused = counted(seen, 200), counted(seen, 429)
        assert set(seen) <= {f"{path} {status}" for path in PATHS for status in (200, 429)}
        # Each address: the burst and 10 a second over the flood's 2 s (and its start-up).
        assert 20 <= answered <= 20 + 10 * 6, (address, seen)
        # About one 429 per connection per Retry-After, not one per request it could parse.
        assert CONNECTIONS_PER_ADDRESS <= refused <= CONNECTIONS_PER_ADDRESS * 4, (address, seen)
    assert statistics.median(delays) < 0.1
    assert_few_slow(delays, share=1 / 20)
    assert login < 3.0
    # Another address is not held back by the flooders' buckets.
    async with aiohttp.ClientSession() as http_client:
        for path in PATHS:
            async with http_client.get(harness.url + path.lstrip("/")) as response:
                assert response.status == 200, path
