"""Entrants flapping `tournament leave`/`join` in a full tournament while a bystander plays:
each change would be told to every entrant, so the work grows with the field, which pacing per
user and per address does not bound. The sign-up notices are coalesced (docs/TOURNAMENTS.md,
"Commands"): the bystander is answered within twice its quiet time, and a passive entrant
hears a summary a second, not a line per change."""
from __future__ import annotations

import asyncio
import math
import time

from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.lobby.ports.tournament_records import TournamentSpec
from fibs_server.rules.tournament import Entrant, Format, RoundTerms
from tests.e2e.client import FibsClient
from tests.hostile.bystander import (
    PROBE_INTERVAL,
    assert_unhurt,
    playing_a_match,
    time_answers_during,
    time_answers_quiet,
)
from tests.hostile.conftest import start_harness

FIELD = 128  # the entry cap's largest
FLAPPERS = 20
FLAPS = 20  # each flapper's leave-and-join pairs
SLOWDOWN = 2.0
WEEK = 7 * 24 * 3600  # seconds: the sign-up stays open while the test runs


async def logged_in(harness, name: str, source: str | None = None) -> FibsClient:
    """`harness.login_clip`, from `source`: each flapper an address of its own, so that the
    pacing per address does not hold them back together."""
    client = await harness.connect(name, source)
    await client.send(f"login testclient 1008 {name} secret")
    await client.skip_until("6")
    return client


async def drain(client: FibsClient, lines: list[int]) -> None:
    """`client`'s lines counted in `lines[0]` until its connection closes (read in large
    pieces: a passive entrant that stopped reading would be cut off, and told nothing more)."""
    while data := await client.telnet.read(65536):
        lines[0] += data.count(b"\n")


async def flap(client: FibsClient, tournament_id: int) -> None:
    for _ in range(FLAPS):
        for verb, told in (("leave", "left"), ("join", "joined")):
            await client.send(f"tournament {verb} {tournament_id}")
            await client.skip_until(f"Tournament {tournament_id}: {client.name} has {told}.")


async def test_entrants_flapping_their_sign_up_slow_nobody(tmp_path, tracebacks):
    limits = AbuseLimits()
    harness = await start_harness(tmp_path, abuse=limits)
    try:
        entrants = [f"entrant{number}" for number in range(FIELD)]
        for name in ("alice", "bob", "carol", *entrants):
            await harness.register(name)
        store = harness.server.store
        tournament = await store.create_tournament(TournamentSpec(
            creator="carol", format=Format.SWISS, swiss_rounds=5, terms=RoundTerms(),
            entry_cap=FIELD, starts_at=int(time.time()) + WEEK))
        tid = tournament.tournament_id
        for name in entrants:
            await store.add_entrant(tid, Entrant(name, 1500.0))
        flappers = [await logged_in(harness, name, f"127.0.0.{10 + number}")
                    for number, name in enumerate(entrants[:FLAPPERS])]
        # Twenty to an address: within the connections an address may hold.
        passive = [await logged_in(harness, name, f"127.0.1.{number // 20}")
                   for number, name in enumerate(entrants[FLAPPERS:])]
        lines = [[0] for _ in passive]
        reading = [asyncio.ensure_future(drain(client, count))
                   for client, count in zip(passive, lines, strict=True)]
        bystander, partner = await playing_a_match(harness)
        quiet = await time_answers_quiet(bystander, PROBE_INTERVAL)
        began, before = time.monotonic(), [count[0] for count in lines]
        flapping = asyncio.ensure_future(asyncio.gather(
            *(flap(client, tid) for client in flappers)))
        delays = await time_answers_during(bystander, flapping, PROBE_INTERVAL)
        flapping_seconds = time.monotonic() - began
        heard = [count[0] - earlier for count, earlier in zip(lines, before, strict=True)]
        for task in reading:
            task.cancel()
    finally:
        await harness.stop()

    print(f"{FLAPPERS} flappers, {FLAPS} leave/join pairs each, among {FIELD} entrants: "
          f"{flapping_seconds:.1f} s; a passive entrant was sent {heard[0]} lines "
          f"(at most {max(heard)})")
    # The burst told as it came, then a summary a second at most (one more: the last, held).
    assert max(heard) <= limits.tournament_notice_burst + math.ceil(
        limits.tournament_notices_per_second * flapping_seconds) + 1
    assert_unhurt(quiet, delays, f"{FLAPPERS} entrants of {FIELD} flapping their sign-up",
                  SLOWDOWN)
