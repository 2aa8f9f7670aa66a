"""One user flooding `tournament create`, `show` and `list` while a bystander plays: beyond
the limits each is refused with the documented text (two open tournaments a creator; the
reads paced like `dicetest`), and the bystander is answered as fast as ever."""
from __future__ import annotations

import asyncio
import math
import re
import time

from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.lobby.ports.tournament_records import TournamentSpec
from fibs_server.protocol.wording import tournament_texts
from fibs_server.rules.tournament import Entrant, Format, RoundTerms
from tests.hostile.bystander import (
    PROBE_INTERVAL,
    assert_unhurt,
    playing_a_match,
    time_answers_during,
    time_answers_quiet,
)
from tests.hostile.conftest import answers_to, start_harness

ROUNDS = 300  # each a create, a show of the big tournament and a list
FIELD = 128  # entrants of the tournament shown
ANSWER = re.compile(r"(\*\* )?(Tournament \d+: |Tournaments \(|You have|Too many|There are).*")


async def flood(client, tournament_id: int) -> list[str]:
    return await answers_to(client, ["tournament create knockout",
                                     f"tournament show {tournament_id}",
                                     "tournament list"] * ROUNDS, ANSWER)


async def test_a_flood_of_tournament_commands_is_bounded_and_slows_nobody(tmp_path,
                                                                          tracebacks):
    limits = AbuseLimits()
    harness = await start_harness(tmp_path, abuse=limits)
    try:
        for name in ("flooder", "alice", "bob"):
            await harness.register(name)
        store = harness.server.store
        big = await store.create_tournament(TournamentSpec(
            creator="alice", format=Format.SWISS, swiss_rounds=5, terms=RoundTerms(),
            entry_cap=FIELD, starts_at=10**9))
        for number in range(FIELD):
            await store.add_entrant(big.tournament_id, Entrant(f"player{number}", 1500.0))
        flooder = await harness.login_clip("flooder")
        bystander, partner = await playing_a_match(harness)
        quiet = await time_answers_quiet(bystander, PROBE_INTERVAL)
        began = time.monotonic()
        flooding = asyncio.ensure_future(flood(flooder, big.tournament_id))
        delays = await time_answers_during(bystander, flooding, PROBE_INTERVAL)
        flood_seconds = time.monotonic() - began
        answers = flooding.result()
    finally:
        await harness.stop()

    created = [answer for answer in answers if answer.endswith("created. Type 'tournament "
                                                               f"join {answer.split()[1][:-1]}' "
                                                               "to enter it.")]
    assert len(created) == limits.open_tournaments_per_creator
    refused = [answer for answer in answers if answer.startswith("** ")]
    assert {answer for answer in refused if "open tournaments" in answer} == {
        tournament_texts.too_many_open(limits.open_tournaments_per_creator)}
    assert all(answer.startswith("** Too many tournaments read: try again in ")
               for answer in refused if "open tournaments" not in answer)
    reads = [answer for answer in answers if not answer.startswith("** ")
             and answer not in created]
    # The heavy reads' burst, then about one a second while the flood lasts.
    assert limits.heavy_read_burst <= len(reads) <= limits.heavy_read_burst + math.ceil(
        limits.heavy_reads_per_second * flood_seconds)
    print(f"reads served {len(reads)} of {2 * ROUNDS} in {flood_seconds:.1f} s")
    assert_unhurt(quiet, delays, "a flood of tournament commands")
