"""Many abandoned rated matches settled by their chances in one sweep (`--forfeit-abandoned
chances`): every match's chances are computed in the bots' worker, one after the other, so a
bystander asking the time meanwhile is not hurt, and each match is settled once
(docs/SECURITY.md, "Settling abandoned matches")."""
from __future__ import annotations

import asyncio
import dataclasses
import itertools
import random
import time

from fibs_server.lobby.services.bot_players import BotConfig
from fibs_server.rules.dice import SeededDice
from fibs_server.rules.match import Match, Phase
from tests.e2e.conftest import ServerHarness
from tests.hostile.bystander import assert_unhurt, time_answers_during, time_answers_quiet

PLAYERS = 6  # every pair of them has an abandoned match: 15
MORE_SWEEPS = 5  # after the first, for chances that came late


def left_midgame(seed: int) -> dict:
    """A 5-point match some turns into its first game, as stored."""
    rng = random.Random(seed)
    match = Match(5, SeededDice(seed))
    match.start()
    for _ in range(rng.randrange(1, 30)):
        if match.phase is Phase.MOVE:
            match.move(match.turn, rng.choice(match.legal_plays()))
        elif match.phase is Phase.ROLL_OR_DOUBLE:
            match.roll(match.turn)
    return match.to_dict()


async def test_a_sweep_settling_many_abandoned_matches_hurts_no_bystander(tmp_path,
                                                                          tracebacks):
    harness = ServerHarness(f"sqlite:///{tmp_path / 'settle.db'}")
    harness.config = dataclasses.replace(harness.config, forfeit_abandoned=True,
                                         settle_by_chances=True,
                                         bots=BotConfig(think_time=0, workers=1))
    await harness.start()
    try:
        store, lobby = harness.server.store, harness.server.lobby
        names = [f"player{number}" for number in range(PLAYERS)]
        for name in names:
            await harness.register(name)
        pairs = list(itertools.combinations(names, 2))
        for seed, (first, second) in enumerate(pairs):
            match_id = await store.create_match(first, second, 5, left_midgame(seed))
            await store.mark_left(match_id, first)
        await harness.register("bystander")
        bystander = await harness.login_clip("bystander")
        quiet = await time_answers_quiet(bystander)
        lobby.config.wall_clock = lambda: time.time() + lobby.config.abandon_after + 60
        sweep = asyncio.ensure_future(lobby.matches.saved.close_abandoned())
        delays = await time_answers_during(bystander, sweep)
        settled = sweep.result()
        # On a busy machine a match's chances may come later than their budget: that sweep
        # leaves it to the next one (docs/FAIRNESS.md), which settles it, and none twice.
        for _ in range(MORE_SWEEPS):
            if settled == len(pairs):
                break
            settled += await lobby.matches.saved.close_abandoned()
        assert settled == len(pairs)
        for match_id in range(1, len(pairs) + 1):
            record = await store.match_by_id(match_id)
            assert record.finished and record.winner is None and "settled" in record.state
        assert await lobby.matches.saved.close_abandoned() == 0
        assert_unhurt(quiet, delays, "a sweep settling abandoned matches by their chances")
    finally:
        await harness.stop()
