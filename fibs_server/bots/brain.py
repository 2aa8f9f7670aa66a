"""Bot decisions: pure functions from a `Situation` to a `Decision`, at a level.

No I/O and no clock: the same situation, level and seed give the same decision. `BotPool`
(pool.py) runs them in worker processes, off the event loop.
"""
from __future__ import annotations

import dataclasses
import random

from fibs_server.rules.match import Phase

from . import engine, heuristic
from .situation import JOIN, Decision, Situation


@dataclasses.dataclass(frozen=True)
class Level:
    name: str
    # 0: our own rules of thumb (heuristic.py); n >= 1: bgsage with n-ply look-ahead (XG's
    # numbering, bgsage's: 1-ply is the bare network, what gnubg calls 0-ply).
    plies: int
    # Standard deviation of the noise added to each candidate's value (each play, each cube
    # decision): in pips for the rules of thumb, in equity for bgsage.
    noise: float


# Each level's noise is set to play at its target error rate as gnubg's analysis measures it
# (docs/BOTS.md, bench/bot_strength.py): the beginner about 30 mEMG per decision (gnubg's
# "Beginner"), the intermediate about 12, the expert 4 at most.
BEGINNER = Level("beginner", plies=1, noise=0.085)
INTERMEDIATE = Level("intermediate", plies=1, noise=0.04)
EXPERT = Level("expert", plies=2, noise=0.0)
# Not a bot's level: what any bot plays when the engine is late or fails, and in a variant
# bgsage does not know (hypergammon).
RULES_OF_THUMB = Level("rules of thumb", plies=0, noise=0.0)
LEVELS = {level.name: level for level in (BEGINNER, INTERMEDIATE, EXPERT)}
# Each level's error rate, mEMG per unforced decision, as GNU Backgammon's analysis measured
# it over 20 five-point matches against the bare network (docs/BOTS.md, "Strength, as gnubg
# measures it").
MEASURED_ERROR_RATES = {"beginner": 28.6, "intermediate": 12.5, "expert": 2.1}


def needs_engine(situation: Situation, level: Level) -> bool:
    """Whether `decide` asks bgsage (milliseconds to a second), not only our rules of thumb
    (about a millisecond at most)."""
    return (situation.phase is not Phase.BETWEEN_GAMES and level.plies > 0
            and situation.variant.facts.bgsage)


def decide(situation: Situation, level: Level, rng: random.Random) -> Decision:
    """What the bot does in `situation`; `rng` draws the level's noise."""
    if situation.phase is Phase.BETWEEN_GAMES:
        return JOIN
    if needs_engine(situation, level):
        return engine.decide(situation, level.plies, level.noise, rng)
    return heuristic.decide(situation, level.noise if level.plies == 0 else 0.0, rng)


def decide_seeded(situation: Situation, level: Level, seed: int) -> Decision:
    """`decide` with a fresh generator: what a worker process runs (the caller's generator
    would not come back with its state advanced)."""
    return decide(situation, level, random.Random(seed))


def fallback(situation: Situation) -> Decision:
    """A legal decision at once, without bgsage: when the engine is late or fails."""
    return decide(situation, RULES_OF_THUMB, random.Random(0))


def warm_up() -> None:
    """Load bgsage's networks for every level now, not at the first decision."""
    for level in LEVELS.values():
        if level.plies:
            engine.analyzer(level.plies)
