"""One user's state changes cannot flood everyone: the who-line broadcasts
about one user are paced by a token bucket, and the latest state always goes out."""
from __future__ import annotations

import time

import pytest

from fibs_server.lobby.throttle import AbuseLimits
from fibs_server.net.limits import NetLimits
from tests.e2e.client import ExpectationFailed

BURST, PER_SECOND = 3, 2.0
FLOOD_PAIRS = 1000


async def lines_until_quiet(client, quiet: float) -> list[str]:
    lines = []
    while True:
        try:
            lines.append(await client.read_line(quiet))
        except ExpectationFailed:
            return lines


@pytest.mark.parametrize("pair, last_reply, final, final_fields", [
    (b"away brb\r\nback\r\n", "Welcome back.", "away gone", {5: "1"}),
    (b"watch carol\r\nunwatch\r\n", "You stop watching carol.", "watch carol", {3: "carol"}),
])
async def test_a_flood_of_state_changes_reaches_bystanders_paced_with_the_final_state(
        make_harness, tracebacks, pair, last_reply, final, final_fields):
    # Commands themselves unpaced (tests/hostile/test_command_floods.py paces them): the
    # flood must reach the lobby for its broadcasts to be paced.
    harness = await make_harness(abuse=AbuseLimits(who_broadcast_burst=BURST,
                                                   who_broadcasts_per_second=PER_SECOND),
                                 net=NetLimits(commands_per_second=float("inf"),
                                               address_commands_per_second=float("inf")))
    for name in ("alice", "bob", "carol"):
        await harness.register(name)
    bob = await harness.login_clip("bob")
    await harness.login_clip("carol")
    alice = await harness.login_clip("alice")
    await lines_until_quiet(bob, 0.3)

    started = time.monotonic()
    for _ in range(FLOOD_PAIRS // 100):
        await alice.send_raw(pair * 100)
        for _ in range(100):
            await alice.skip_until(last_reply)
    await alice.send(final)
    flood_seconds = time.monotonic() - started
    seen = await lines_until_quiet(bob, 1.5)

    about_alice = [line.split() for line in seen if line.startswith("5 alice ")]
    # Before pacing: one line per change, 2,001 of them (~150 KB for each bystander).
    allowed = BURST + PER_SECOND * (flood_seconds + 1.5) + 1
    assert 1 <= len(about_alice) <= allowed, (len(about_alice), flood_seconds)
    assert sum(len(line) + 2 for line in seen) < 80 * allowed * 2
    assert all(about_alice[-1][index] == value for index, value in final_fields.items()), \
        seen[-6:]


async def test_state_changes_within_the_burst_go_out_at_once(make_harness, tracebacks):
    harness = await make_harness(abuse=AbuseLimits(who_broadcast_burst=BURST,
                                                   who_broadcasts_per_second=0.01))
    for name in ("alice", "bob"):
        await harness.register(name)
    bob = await harness.login_clip("bob")
    alice = await harness.login_clip("alice")
    await lines_until_quiet(bob, 0.3)
    for command in ("away brb", "back", "away again"):
        await alice.send(command)
        line = (await bob.read_line(0.5)).split()
        assert line[:2] == ["5", "alice"]
        await bob.expect_lines("6")
