"""An administrator entered in a running Swiss of 128 floods `tournament withdraw` and
`tournament reinstate` of themself from a process of its own, while a bystander plays. Each
such command reads the tournament whole and, when it changes it, makes the director read it
whole again: they are paced with the tournament reads (docs/SECURITY.md, "Tournaments"), so
beyond their burst about one a second is served, the rest refused with the pacing's text,
and the bystander is answered as fast as ever."""
from __future__ import annotations

import asyncio
import math
import multiprocessing
import re
import socket
import time

from fibs_server.__main__ import set_admin
from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.lobby.ports.tournament_records import TournamentSpec
from fibs_server.rules import tournament as rules
from fibs_server.rules.tournament import Entrant, Format, RoundTerms
from tests.hostile.bystander import (
    PROBE_INTERVAL,
    assert_unhurt,
    playing_a_match,
    time_answers_during,
    time_answers_quiet,
)
from tests.hostile.conftest import start_harness

FIELD = 128
ROUNDS = 50  # each a withdraw and a reinstate
ANSWER = re.compile(rb"Tournament \d+: flooder (withdraws|is reinstated).*|\*\* (Too many "
                    rb"tournaments read: try again|You play no later|flooder has not withdrawn).*")
DEADLINE = 60.0


def flood(port: int, tournament_id: int, answers: multiprocessing.Queue) -> None:
    """Log in as the flooder, send every command and read an answer to each; the answers
    go to `answers`, one list."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE)
    sock.sendall(b"login flooder 1008 flooder secret\r\n")
    commands = [f"tournament withdraw {tournament_id}\r\n",
                f"tournament reinstate {tournament_id} flooder\r\n"] * ROUNDS
    got: list[str] = []
    reader = sock.makefile("rb")
    for command in commands:
        sock.sendall(command.encode())
        while True:
            line = reader.readline()
            if not line:
                raise ConnectionError("the server closed the flooder")
            line = line.rstrip(b"\r\n").removeprefix(b"> ")
            if ANSWER.fullmatch(line):
                got.append(line.decode())
                break
    answers.put(got)
    sock.close()


async def test_a_flood_of_withdrawals_is_paced_and_slows_nobody(tmp_path, tracebacks):
    limits = AbuseLimits()
    harness = await start_harness(tmp_path, abuse=limits)
    try:
        for name in ("flooder", "alice", "bob"):
            await harness.register(name)
        assert await set_admin(harness.config.database_url, "flooder", True) == 0
        store = harness.server.store
        field = [Entrant("flooder", 1500.0), *(Entrant(f"player{n}", 1500.0)
                                               for n in range(FIELD - 1))]
        spec = TournamentSpec(creator="alice", format=Format.SWISS, swiss_rounds=5,
                              terms=RoundTerms(), entry_cap=FIELD, start_when=FIELD)
        tid = (await store.create_tournament(spec)).tournament_id
        for entrant in field:
            assert await store.add_entrant(tid, entrant) is None
        assert await store.start_tournament(tid, rules.start(Format.SWISS, field, 5),
                                            int(time.time()))
        bystander, _partner = await playing_a_match(harness)
        quiet = await time_answers_quiet(bystander, PROBE_INTERVAL)
        queue: multiprocessing.Queue = multiprocessing.get_context("spawn").Queue()
        flooder = multiprocessing.get_context("spawn").Process(
            target=flood, args=(harness.server.port, tid, queue), daemon=True)
        began = time.monotonic()
        flooder.start()
        flooding = asyncio.ensure_future(asyncio.to_thread(queue.get, True, DEADLINE))
        delays = await time_answers_during(bystander, flooding, PROBE_INTERVAL)
        flood_seconds = time.monotonic() - began
        answers = flooding.result()
        flooder.join(DEADLINE)
    finally:
        await harness.stop()

    assert len(answers) == 2 * ROUNDS
    served = [answer for answer in answers if "try again" not in answer]
    # The heavy reads' burst, then about one a second while the flood lasts.
    assert limits.heavy_read_burst <= len(served) <= limits.heavy_read_burst + math.ceil(
        limits.heavy_reads_per_second * flood_seconds)
    assert any(answer.endswith("flooder withdraws and plays no later round.")
               for answer in served), served
    print(f"withdrawals served {len(served)} of {2 * ROUNDS} in {flood_seconds:.1f} s")
    assert_unhurt(quiet, delays, "a flood of tournament withdrawals")
