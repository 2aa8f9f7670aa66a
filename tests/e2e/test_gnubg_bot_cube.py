"""`fibs-gnubg-bot` answers doubles as gnubg's own analysis does.

A test set of pending doubles comes from matches between two bgsage players (every double
either of them offered, at match scores of 3- to 9-point matches, cubes and redoubles
included). Each is sent to gnubg's `external` interface as the FIBS board the doubled player
gets, through the bot's own translation (`external.for_gnubg`); gnubg's analysis of the same
position (`double`, then `hint`, in a gnubg set up by its own commands: the score, the cube,
the doubler on roll) is the judge. Both at gnubg's 0-ply, the bot's level.
"""
from __future__ import annotations

import dataclasses
import random
import re

import pytest

from fibs_server.bots import Level, decide, situation_for
from fibs_server.bots.engine import board_of
from fibs_server.gnubg_bot.external import GNUBG, GnubgConnection, GnubgEngine
from fibs_server.protocol.views.board import board_line
from fibs_server.protocol.views.match_views import board_view
from fibs_server.rules.dice import SeededDice
from fibs_server.rules.match import Match, Phase
from fibs_server.rules.moments import Moment
from tests.conftest import skip_unless_ci
from tests.gnubg_script import run_gnubg_commands

NETWORK = Level("network", plies=1, noise=0.0)  # bgsage's 1-ply is gnubg's 0-ply
MATCHES = [(length, seed) for seed in range(8) for length in (3, 5, 7, 9)]
NAMES = ("doubled", "doubler")
# gnubg's verdict, e.g. "Proper cube action: No double, take (43.5%)" or "Double, pass".
PROPER_ACTION = re.compile(r"^Proper cube action: (.*?)(?: \(|$)", re.MULTILINE)
DOUBLE_PROPER = re.compile(r"(Re)?[dD]ouble, ")  # not "No double", "Too good to double"
EVERY_NTH_ROLL = 8
AGREEMENT_REQUIRED = 0.95


@dataclasses.dataclass(frozen=True)
class CubeDecision:
    """A moment of a cube decision: a double to answer, or a roll that may be doubled."""
    length: int
    moment: Moment
    doubler: int  # who doubled, or who may double now
    board: str  # what the deciding player's bot is sent

    def gnubg_commands(self) -> str:
        """Set gnubg up at this moment, player 1 the doubler on roll, and ask its analysis:
        of the double once it is offered, or of the cube before the roll."""
        moment, other = self.moment, 1 - self.doubler
        board = board_of(moment.position_seen_by(self.doubler))
        owner = {None: "centre", self.doubler: "owner 1", other: "owner 0"}[moment.cube_owner]
        return "\n".join([
            f"new match {self.length}",
            f"set score {moment.score[other]} {moment.score[self.doubler]}",
            *(["set crawford off", "set postcrawford on"] if moment.is_post_crawford else []),
            f"set cube value {moment.cube}", f"set cube {owner}", "set turn 1",
            "set board simple " + " ".join(map(str, [board[25], *board[1:25], board[0]])),
            *(["double"] if moment.double_offer else []), "hint", ""])


def cube_decisions() -> tuple[list[CubeDecision], list[CubeDecision]]:
    """From MATCHES: every double offered, with the board the doubled player is sent; and every
    EVERY_NTH_ROLL-th moment a player on roll may double, with the board its bot is sent."""
    doubles, rolls, may_double_seen = [], [], 0
    for length, seed in MATCHES:
        match, rng = Match(length, SeededDice(seed)), random.Random(seed)
        match.start()
        while not match.is_over:
            for player in (0, 1):
                situation = situation_for(match, player)
                if situation is None:
                    continue
                if (situation.phase is Phase.ROLL_OR_DOUBLE and situation.may_double
                        and situation.cube < length - situation.score[0]):  # gnubg: a live cube
                    may_double_seen += 1
                    if may_double_seen % EVERY_NTH_ROLL == 0:
                        rolls.append(_decision(match, length, player, player))
                decide(situation, NETWORK, rng).apply(match, player)
                offer = match.moment().double_offer
                if match.phase is Phase.DOUBLE_OFFERED and offer is not None:
                    doubles.append(_decision(match, length, offer.offered_by,
                                             1 - offer.offered_by))
    return doubles, rolls


def _decision(match: Match, length: int, doubler: int, deciding: int) -> CubeDecision:
    moment = match.moment()
    view = board_view(match, NAMES, moment, deciding, as_you=True)
    return CubeDecision(length, moment, doubler, board_line(view))


def gnubg_proper_actions(decisions: list[CubeDecision]) -> list[str]:
    """gnubg's proper cube action at each moment, e.g. `No double, take`."""
    commands = ["set confirm new off", "set beavers 0", "set player 0 human",
                "set player 1 human", "set evaluation cubedecision evaluation plies 0", ""]
    output = run_gnubg_commands(
        "\n".join(commands) + "".join(d.gnubg_commands() for d in decisions), timeout=300)
    actions = PROPER_ACTION.findall(output)
    assert len(actions) == len(decisions), output[-3000:]
    return actions


async def bot_answers(boards: list[str]) -> list[str]:
    """What the bot's gnubg answers to each board."""
    engine = GnubgEngine(plies=0)
    try:
        connection = await GnubgConnection.open(engine)
        try:
            return [await connection.decision(board) for board in boards]
        finally:
            connection.close()
    finally:
        engine.stop()


def assert_agreement(decisions: list[CubeDecision], given: list[str], proper: list[str]) -> None:
    agreeing = sum(map(str.__eq__, given, proper))
    assert agreeing >= AGREEMENT_REQUIRED * len(decisions), (
        f"{agreeing} of {len(decisions)}: "
        f"{[(d.board, g, p) for d, g, p in zip(decisions, given, proper) if g != p]}")


@pytest.fixture(scope="module")
def decisions() -> tuple[list[CubeDecision], list[CubeDecision]]:
    if not GNUBG.exists():
        skip_unless_ci(f"needs GNU Backgammon at {GNUBG} (apt-get install -y gnubg)")
    return cube_decisions()


@pytest.mark.gnubg
async def test_the_bot_takes_and_passes_as_gnubgs_analysis_does(decisions):
    doubles = decisions[0]
    proper = [answer.rsplit(", ", 1)[1].split()[0] for answer in gnubg_proper_actions(doubles)]
    proper = ["drop" if answer == "pass" else "take" for answer in proper]
    given = ["take" if answer == "beaver" else answer
             for answer in await bot_answers([double.board for double in doubles])]
    assert len(doubles) >= 100 and 0 < proper.count("drop") < len(doubles)
    assert_agreement(doubles, given, proper)


@pytest.mark.gnubg
async def test_the_bot_doubles_when_gnubgs_analysis_does(decisions):
    rolls = decisions[1]
    proper = ["double" if DOUBLE_PROPER.match(answer) else "roll"
              for answer in gnubg_proper_actions(rolls)]
    given = await bot_answers([roll.board for roll in rolls])
    assert len(rolls) >= 100 and 0 < proper.count("double") < len(rolls)
    assert_agreement(rolls, given, proper)
