"""Our cube decisions against GNU Backgammon's cube analysis, one position at a time: each
of a fixed set of positions at fixed scores of a 7-point match (money play and its beavers
left out: the server's analysis is judged on matches here), judged by ours at its default
level (bgsage's 2-ply, as `analyse_match` judges a no double) and by gnubg's `hint` at its
1-ply (the same look-ahead). The agreement and the differences: docs/ANALYSIS.md."""
from __future__ import annotations

import dataclasses
import re

import pytest

from fibs_server.bots import engine
from fibs_server.bots.analysis import DEFAULT_PLIES, DOUBTFUL, VERY_BAD
from fibs_server.rules.board.position import Position

from ..conftest import skip_unless_ci
from ..gnubg_script import GNUBG, run_gnubg_commands
from .helpers import self_play_positions

LENGTH = 7
NO_CUBE = "no cube"  # the Crawford game
NO_DOUBLE, TOO_GOOD, DOUBLE_TAKE, DOUBLE_PASS = (
    "no double", "too good", "double, take", "double, pass")
_GNUBG_ACTIONS = ((re.compile(r"^(no|never) (re)?double"), NO_DOUBLE),
                  (re.compile(r"^too good"), TOO_GOOD),
                  (re.compile(r"^(re)?double, take"), DOUBLE_TAKE),
                  (re.compile(r"^(re)?double, pass"), DOUBLE_PASS))
_GNUBG_EQUITY = re.compile(r"^\d\. (No double|No redouble|Double, take|Redouble, take|"
                           r"Double, pass|Redouble, pass)\s+([-+]?\d+\.\d+)")


@dataclasses.dataclass(frozen=True)
class Setting:
    """The score and the cube, from the side on roll."""

    name: str
    score: tuple[int, int]  # points won: the side on roll's, its opponent's
    cube: int
    owner: str  # bgsage's: "centered" or "player" (the side on roll)
    crawford: bool = False

    @property
    def engine_cube(self) -> engine.Cube:
        return engine.Cube(self.cube, self.owner, (LENGTH - self.score[0],
                                                   LENGTH - self.score[1]), self.crawford)


SETTINGS = [
    Setting("0-0", (0, 0), 1, "centered"),
    Setting("3 away, 5 away", (4, 2), 1, "centered"),
    Setting("5 away, 3 away", (2, 4), 1, "centered"),
    Setting("3 away, 3 away, redouble", (4, 4), 2, "player"),
    Setting("post-Crawford trailer", (3, 6), 1, "centered"),
    Setting("Crawford", (2, 6), 1, "centered", crawford=True),
]


@dataclasses.dataclass(frozen=True)
class Verdict:
    action: str
    # gnubg's cubeful equities for the side on roll (EMG); None where the cube is dead.
    equities: dict[str, float] | None = None

    def cost(self, action: str) -> float:
        """What `action` loses by these equities against the best one: the doubler's part
        (doubling or not) and the taker's (taking or passing)."""
        assert self.equities is not None
        no_double, take, drop = (self.equities[key] for key in ("nd", "dt", "dp"))
        doubled = min(take, drop)
        best_double = max(no_double, doubled)
        doubles = action in (DOUBLE_TAKE, DOUBLE_PASS)
        takes = action in (NO_DOUBLE, DOUBLE_TAKE)
        return ((best_double - (doubled if doubles else no_double))
                + ((take if takes else drop) - doubled))


def our_verdict(position: Position, setting: Setting) -> str:
    cube = setting.engine_cube
    if not engine.can_double_match(*cube.away, cube.value, cube.owner, cube.is_crawford):
        return NO_CUBE
    equities = engine.cube_equities_in_depth(engine.board_of(position), cube, DEFAULT_PLIES)
    if min(equities.take, equities.drop) > equities.no_double:
        return DOUBLE_TAKE if equities.take <= equities.drop else DOUBLE_PASS
    return NO_DOUBLE if equities.take <= equities.drop else TOO_GOOD


def gnubg_commands(cases: list[tuple[Position, Setting]]) -> str:
    commands = ["set player 0 human", "set player 1 human", f"new match {LENGTH}",
                f"set evaluation cubedecision evaluation plies {DEFAULT_PLIES - 1}",
                f"set evaluation chequerplay evaluation plies {DEFAULT_PLIES - 1}"]
    for position, setting in cases:
        mine, theirs = setting.score
        owner = "centre" if setting.owner == "centered" else "owner 1"
        # gnubg's player 1 is on roll; the Position ID is from the side on roll.
        commands += [f"set score {theirs} {mine}",
                     f"set crawford {'on' if setting.crawford else 'off'}", "set turn 1",
                     f"set board {position.position_id()}"]
        # The Crawford game: gnubg says there is no doubling as the game is set (a cube
        # decision is not looked at then, and `hint` answers nothing on its output).
        if not setting.crawford:
            commands += [f"set cube value {setting.cube}", f"set cube {owner}", "hint"]
    return "\n".join(commands) + "\n"


def gnubg_verdicts(cases: list[tuple[Position, Setting]]) -> list[Verdict]:
    output = run_gnubg_commands(gnubg_commands(cases), timeout=600)
    verdicts: list[Verdict] = []
    equities: dict[str, float] = {}
    for line in output.splitlines():
        if "This game is the Crawford game (no doubling allowed)" in line:
            verdicts.append(Verdict(NO_CUBE))
        elif found := _GNUBG_EQUITY.match(line):
            words = found[1].lower()
            key = "nd" if words.startswith("no") else "dt" if words.endswith("take") else "dp"
            equities[key] = float(found[2])
        elif line.startswith("Proper cube action:"):
            words = line.removeprefix("Proper cube action:").strip().lower()
            action = next(action for pattern, action in _GNUBG_ACTIONS if pattern.match(words))
            verdicts.append(Verdict(action, equities))
            equities = {}
    assert len(verdicts) == len(cases), output[-3000:]
    return verdicts


def cases() -> list[tuple[Position, Setting]]:
    """Positions of random games (lopsided ones among them, where a cube is too good or a
    pass), each at every setting; and those of them nearest the take/pass point at 0-0 by
    bgsage's bare network."""
    pool = self_play_positions(1200, seed=11)
    spread = pool[::60]
    start = SETTINGS[0].engine_cube

    def take_margin(position: Position) -> float:
        _, take_gain = engine.cube_margins(engine.board_of(position), start, 1)
        return abs(take_gain)

    near_the_take_point = sorted(pool[1::7], key=take_margin)[:10]
    return [(position, setting) for position in spread + near_the_take_point
            for setting in SETTINGS]


@pytest.mark.gnubg
def test_cube_decisions_agree_with_gnubgs_one_by_one():
    if not GNUBG.exists():
        skip_unless_ci(f"needs GNU Backgammon at {GNUBG} (apt-get install -y gnubg)")
    judged = cases()
    theirs = gnubg_verdicts(judged)
    agreed, costs = 0, []
    for (position, setting), verdict in zip(judged, theirs, strict=True):
        ours = our_verdict(position, setting)
        if setting.crawford or verdict.action == NO_CUBE:
            assert ours == verdict.action == NO_CUBE, (position.position_id(), setting)
            continue
        if ours == verdict.action:
            agreed += 1
        else:
            costs.append((verdict.cost(ours), ours, verdict, position.position_id(), setting))
    judged_with_a_cube = agreed + len(costs)
    print(f"cube decisions: {agreed} of {judged_with_a_cube} as gnubg's")
    for cost in sorted(costs, key=lambda item: item[0]):
        print(cost)
    # 132 of 150 when written (docs/ANALYSIS.md): the networks differ near the boundaries.
    assert agreed >= 0.85 * judged_with_a_cube
    # Too good or double/pass: the gammon chances near the cash point, worth little either way.
    assert all(cost <= DOUBTFUL for cost, ours, verdict, *_ in costs
               if {ours, verdict.action} == {TOO_GOOD, DOUBLE_PASS})
    # By gnubg's own equities a difference is rarely very bad (the take point, where the two
    # networks see the gammons differently).
    assert sum(cost > VERY_BAD for cost, *_ in costs) <= judged_with_a_cube / 50
