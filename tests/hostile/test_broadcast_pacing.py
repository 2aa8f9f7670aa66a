"""One user's state changes cannot flood everyone: the who-line broadcasts
about one user are paced by a token bucket, and the latest state always goes out."""
from __future__ import annotations

import time

import pytest

from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.net.limits import NetLimits
from fibs_server.protocol.wording.user_texts import YOU_ARE_AWAY
from tests.hostile.bystander import CEILING
from tests.waiting import until

BURST, PER_SECOND = 3, 2.0
FLOOD_PAIRS = 1000


async def lines_until_told(teller, client, mark: str) -> list[str]:
    """`client`'s lines up to `teller`'s `tell` of `mark`: everything sent to it before."""
    await teller.send(f"tell {client.name} {mark}")
    return (await client.skip_until(f"12 {teller.name} {mark}", timeout=CEILING))[:-1]


@pytest.mark.parametrize("pair, last_reply, final, final_reply, final_fields", [
    (b"away brb\r\nback\r\n", "Welcome back.", "away gone", YOU_ARE_AWAY, {5: "1"}),
    (b"watch carol\r\nunwatch\r\n", "You stop watching carol.", "watch carol",
     "You're now watching carol.", {3: "carol"}),
])
async def test_a_flood_of_state_changes_reaches_bystanders_paced_with_the_final_state(
        make_harness, tracebacks, pair, last_reply, final, final_reply, final_fields):
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
    await lines_until_told(alice, bob, "before")
    held = harness.server.lobby.attendance.who_pacing._held

    started = time.monotonic()
    for _ in range(FLOOD_PAIRS // 100):
        await alice.send_raw(pair * 100)
        for _ in range(100):
            await alice.skip_until(last_reply)
    await alice.send(final)
    await alice.skip_until(final_reply)
    # The latest state, held back for a token, goes out when one is due.
    await until(lambda: not held, "the who-line held back about alice sent",
                timeout=CEILING)
    flood_seconds = time.monotonic() - started
    seen = await lines_until_told(alice, bob, "after")

    about_alice = [line.split() for line in seen if line.startswith("5 alice ")]
    # Before pacing: one line per change, 2,001 of them (~150 KB for each bystander).
    allowed = BURST + PER_SECOND * flood_seconds + 1
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
    await lines_until_told(alice, bob, "before")
    for command in ("away brb", "back", "away again"):
        await alice.send(command)
        # Paced, the second would come 100 s later: far beyond the wait.
        line = (await bob.read_line(CEILING)).split()
        assert line[:2] == ["5", "alice"]
        await bob.expect_lines("6")
