"""Random-play soak: two bots choosing random legal plays finish 25 matches of mixed
lengths over real sockets, on seeded dice, without a single refused play; every board line
they see is checked for 52 fields and 15 checkers per side (see tests/e2e/bot.py)."""
from __future__ import annotations

import asyncio
import dataclasses
import os
import re
import tempfile

import pytest

from fibs_server.net.limits import NetLimits
from fibs_server.rules.dice import SeededDice
from tests.e2e.bot import Bot
from tests.e2e.conftest import ServerHarness

# 25 keep CI within its 10 minutes (60 took 78 s on a slow 2-core machine beside the other
# workers, 40 took 37 s on a slower one, where CI was over 9 minutes); every length comes up
# five times, and the engine's own random play is covered further by the hypothesis
# properties and gnubg self-play.
MATCHES = 25
LENGTHS = (1, 3, 5, 2, 7)
MATCH_END = re.compile(r"(You win|\S+ wins) the \d+ point match \d+-\d+ \.")


@pytest.fixture
async def sqlite_harness():
    # In memory-backed /dev/shm where there is one: every action is a synchronous commit,
    # and 20,000 disk fsyncs would make the soak measure the disk instead of the server.
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryDirectory(dir=shm) as folder:
        harness = ServerHarness(f"sqlite:///{folder}/soak.db")
        # Unpaced: two bots on loopback play ~650 lines a second each, far beyond any client
        # over a network (the pacer's defaults, docs/SECURITY.md); the soak is about the engine.
        harness.config = dataclasses.replace(harness.config, net_limits=NetLimits(
            commands_per_second=float("inf"), address_commands_per_second=float("inf")))
        await harness.start()
        yield harness
        await harness.stop()


async def test_two_random_bots_finish_25_matches(sqlite_harness):
    harness = sqlite_harness
    await harness.register("alice")
    await harness.register("bob")
    alice = await harness.login_clip("alice")
    bob = await harness.login_clip("bob")
    for client in (alice, bob):
        # No board after every move (autoboard off): the bots read the board `moreboards`
        # sends after their own roll, which halves the boards to render and parse.
        for toggle in ("ready", "moreboards", "automove", "greedy", "autoboard"):
            await client.send(f"toggle {toggle}")
    alice_bot, bob_bot = Bot(alice, "alice", seed=1), Bot(bob, "bob", seed=2, doubles=True)
    for number in range(MATCHES):
        harness.dice.append(SeededDice(number))
        length = LENGTHS[number % len(LENGTHS)]
        await alice.send(f"invite bob {length}")
        await bob_bot.play_until(lambda line: line == "Type 'join alice' to accept.")
        await bob.send("join alice")
        endings = await asyncio.gather(alice_bot.play_until(MATCH_END.fullmatch),
                                       bob_bot.play_until(MATCH_END.fullmatch))
        assert all(f"{length} point match" in ending for ending in endings)
    assert alice_bot.refusals == [] and bob_bot.refusals == []
    assert alice_bot.boards_seen > MATCHES * 10
