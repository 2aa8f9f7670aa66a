"""GNU Backgammon's own analysis of a `.mat` match: the independent judge of our bots' strength
(bench/bot_strength.py) and of our match analysis (tests/bots/test_analysis_vs_gnubg.py,
bench/analysis_vs_gnubg.py).

`gnubg_analysis(mat_file, names, plies)` has gnubg import the match, analyse it at `plies`
(gnubg's: 0 is its bare network) with our marks' thresholds, and returns both players'
`show statistics match` figures and every decision gnubg marked (from `export match text`).
"""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from fibs_server.bots.analysis import (
    BAD,
    DOUBTFUL,
    VERY_BAD,
    Decision,
    Kind,
    MatchAnalysis,
    PlayerSummary,
)
from tests.gnubg_script import run_gnubg_commands

# The rows of `show statistics match` read here, in the order they come: chequer play, cube
# and overall each have an error total; the counts come before them. Two columns: the
# players of the `.mat` file's left and right columns.
_NUMBER = r"([-+]?\d+(?:\.\d+)?)"
_TOTAL_MOVES = re.compile(rf"^Total moves\s+{_NUMBER}\s+{_NUMBER}")
_UNFORCED = re.compile(rf"^Unforced moves\s+{_NUMBER}\s+{_NUMBER}")
_CLOSE_CUBE = re.compile(rf"^Close or actual cube decisions\s+{_NUMBER}\s+{_NUMBER}")
_ERROR_TOTAL = re.compile(rf"^Error total EMG \(MWC\)\s+{_NUMBER} \([^)]*\)\s+{_NUMBER}")
_LUCK_TOTAL = re.compile(rf"^Luck total EMG \(MWC\)\s+{_NUMBER} \([^)]*\)\s+{_NUMBER}")
# `export match text`: one block per decision, then what gnubg says of it.
_MOVE_BLOCK = re.compile(r"^Move number \d+:\s+(\S+) to play (\d)(\d)")
_DOUBLE_BLOCK = re.compile(r"^Move number \d+:\s+(\S+) on roll, cube decision\?")
_ANSWER_BLOCK = re.compile(r"^Move number \d+:\s+(\S+) doubles to \d+")
_ALERT = re.compile(r"^Alert: (?:(?:doubtful|bad|very bad) (move)|(missed double|wrong double"
                    r"|wrong take|wrong pass)) \(\s*([-+]?\d+\.\d+)\)")


@dataclasses.dataclass(frozen=True)
class GnubgFigures:
    """One player's `show statistics match`; errors as positive EMG."""
    moves: int
    unforced_moves: int
    close_cube_decisions: int
    checker_error: float
    cube_error: float
    luck: float

    @property
    def unforced_decisions(self) -> int:
        return self.unforced_moves + self.close_cube_decisions

    @property
    def error_rate(self) -> float:
        """mEMG per unforced move and close cube decision (gnubg's overall rate)."""
        count = self.unforced_decisions
        return 1000 * (self.checker_error + self.cube_error) / count if count else 0.0


@dataclasses.dataclass(frozen=True)
class GnubgDecision:
    """A decision as gnubg's export numbers it: the `ordinal`-th of its kind ("move": a roll
    played; "no double": the cube before that roll; "double"; "answer": take or pass) of
    `player` in game `game` (1, 2, ...); `error` is what gnubg says it lost, 0 unmarked."""
    game: int
    player: int
    kind: str
    ordinal: int
    dice: tuple[int, int] | None
    error: float


@dataclasses.dataclass(frozen=True)
class GnubgAnalysis:
    players: tuple[GnubgFigures, GnubgFigures]
    decisions: list[GnubgDecision]


def gnubg_commands(mat_file: Path, plies: int, export: Path | None) -> str:
    """What gnubg runs: the analysis level, our thresholds, the match, its statistics."""
    return (f"set analysis chequerplay evaluation plies {plies}\n"
            f"set analysis cubedecision evaluation plies {plies}\n"
            f"set analysis threshold doubtful {DOUBTFUL}\n"
            f"set analysis threshold bad {BAD}\n"
            f"set analysis threshold verybad {VERY_BAD}\n"
            f"import mat {mat_file}\nanalyse match\n"
            + (f"export match text {export}\n" if export else "")
            + "show statistics match\n")


def run_gnubg(mat_file: Path, plies: int, export: Path | None = None) -> str:
    """gnubg's output from `show statistics match` on."""
    output = run_gnubg_commands(gnubg_commands(mat_file, plies, export), timeout=3600)
    return output[output.index("Chequerplay statistics"):]


def gnubg_statistics(mat_file: Path, plies: int) -> str:
    """gnubg's `show statistics match` of the match in `mat_file`."""
    return run_gnubg(mat_file, plies)


def parse_statistics(statistics: str) -> tuple[GnubgFigures, GnubgFigures]:
    rows: dict[str, list[tuple[float, float]]] = {}
    for line in statistics.splitlines():
        for name, pattern in (("total", _TOTAL_MOVES), ("unforced", _UNFORCED),
                              ("close", _CLOSE_CUBE), ("error", _ERROR_TOTAL),
                              ("luck", _LUCK_TOTAL)):
            if found := pattern.match(line):
                rows.setdefault(name, []).append((float(found[1]), float(found[2])))
    if len(rows.get("error", ())) != 3 or len(rows.get("unforced", ())) != 1:
        raise RuntimeError(f"gnubg's statistics are not as expected:\n{statistics}")

    def figures(side: int) -> GnubgFigures:
        return GnubgFigures(
            moves=int(rows["total"][0][side]), unforced_moves=int(rows["unforced"][0][side]),
            close_cube_decisions=int(rows["close"][0][side]),
            checker_error=-rows["error"][0][side], cube_error=-rows["error"][1][side],
            luck=rows["luck"][0][side] if "luck" in rows else 0.0)
    return figures(0), figures(1)


def parse_export(texts: list[str], names: tuple[str, str]) -> list[GnubgDecision]:
    """Every decision of each game's `export match text` (one text per game)."""
    decisions: list[GnubgDecision] = []
    for game, text in enumerate(texts, start=1):
        counts: dict[tuple[int, str], int] = {}
        block: dict[str, GnubgDecision] = {}

        def add(player: int, kind: str, dice: tuple[int, int] | None) -> GnubgDecision:
            counts[player, kind] = ordinal = counts.get((player, kind), 0) + 1
            return GnubgDecision(game, player, kind, ordinal, dice, 0.0)

        for line in text.splitlines():
            if found := _MOVE_BLOCK.match(line):
                decisions.extend(block.values())
                player = names.index(found[1])
                block = {"move": add(player, "move", (int(found[2]), int(found[3])))}
                # gnubg shows the cube before the roll in the same block; its count is the
                # roll's, so that a missed double finds the roll it came before.
                block["no double"] = dataclasses.replace(block["move"], kind="no double",
                                                         dice=None)
            elif found := _DOUBLE_BLOCK.match(line):
                decisions.extend(block.values())
                block = {"double": add(names.index(found[1]), "double", None)}
            elif found := _ANSWER_BLOCK.match(line):
                decisions.extend(block.values())
                block = {"answer": add(1 - names.index(found[1]), "answer", None)}
            elif found := _ALERT.match(line):
                kind = "move" if found[1] else {"missed double": "no double",
                                                "wrong double": "double"}.get(found[2], "answer")
                if kind in block:
                    block[kind] = dataclasses.replace(block[kind], error=-float(found[3]))
        decisions.extend(decision for decision in block.values())
    # The "no double" entries of rolls without a cube decision carry no error: keep only the
    # marked ones, which is all a comparison of marks needs.
    return [decision for decision in decisions
            if decision.kind != "no double" or decision.error > 0]


def gnubg_analysis(mat_file: Path, names: tuple[str, str], plies: int) -> GnubgAnalysis:
    export = mat_file.with_suffix(".txt")
    statistics = run_gnubg(mat_file, plies, export)
    texts = [export.read_text()]
    for number in range(2, 1000):  # gnubg writes game n to FILE_00n.txt
        path = export.with_name(f"{export.stem}_{number:03d}{export.suffix}")
        if not path.exists():
            break
        texts.append(path.read_text())
    return GnubgAnalysis(parse_statistics(statistics), parse_export(texts, names))


@dataclasses.dataclass
class Tally:
    """gnubg's figures for one player (the `.mat` file's left column: 0), summed over
    matches."""
    player: int = 0
    matches: int = 0
    unforced_moves: int = 0
    cube_decisions: int = 0
    checker_error: float = 0.0  # EMG, positive
    cube_error: float = 0.0

    def add(self, statistics: str) -> None:
        figures = parse_statistics(statistics)[self.player]
        self.matches += 1
        self.unforced_moves += figures.unforced_moves
        self.cube_decisions += figures.close_cube_decisions
        self.checker_error += figures.checker_error
        self.cube_error += figures.cube_error

    def rates(self) -> tuple[float, float, float]:
        """mEMG per unforced move, per cube decision, per decision (gnubg's three rates)."""
        def rate(error: float, count: int) -> float:
            return 1000 * error / count if count else 0.0
        return (rate(self.checker_error, self.unforced_moves),
                rate(self.cube_error, self.cube_decisions),
                rate(self.checker_error + self.cube_error,
                     self.unforced_moves + self.cube_decisions))


# --- our analysis against gnubg's ------------------------------------------------------------

RATE_TOLERANCE = 0.25  # of gnubg's error rate, or
RATE_FLOOR = 1.5  # mEMG per decision, whichever is larger
BLUNDERS_FOUND = 0.8  # of gnubg's very bad decisions, marked at least bad by ours


@dataclasses.dataclass(frozen=True)
class Comparison:
    """Our analysis of one match beside gnubg's: each player's error rate by both, and
    gnubg's blunders (very bad) with the error ours gives the same decision."""
    ours: tuple[PlayerSummary, PlayerSummary]
    gnubg: tuple[GnubgFigures, GnubgFigures]
    blunders: list[tuple[GnubgDecision, float]]

    @property
    def blunders_found(self) -> int:
        return sum(error > BAD for _, error in self.blunders)


def rates_agree(ours: float, gnubg: float) -> bool:
    return abs(ours - gnubg) <= max(RATE_TOLERANCE * gnubg, RATE_FLOOR)


def gnubg_keys(analysis: MatchAnalysis) -> dict[tuple[int, int, str, int], Decision]:
    """Our decisions under the keys gnubg's export gives the same decisions."""
    keys = {}
    counts: dict[tuple[int, int, str], int] = {}
    for decision in analysis.decisions:
        kind = {Kind.MOVE: "move", Kind.NO_DOUBLE: "no double", Kind.DOUBLE: "double",
                Kind.TAKE: "answer", Kind.DROP: "answer"}.get(decision.kind)
        if kind is None:
            continue
        counted = "move" if kind == "no double" else kind  # a roll's cube: the roll's count
        ordinal = counts.get((decision.game, decision.player, counted), 0) + 1
        if kind != "no double":
            counts[decision.game, decision.player, counted] = ordinal
        keys[decision.game, decision.player, kind, ordinal] = decision
    return keys


def compare(analysis: MatchAnalysis, theirs: GnubgAnalysis) -> Comparison:
    keys = gnubg_keys(analysis)
    blunders = []
    for decision in theirs.decisions:
        if decision.error < VERY_BAD:
            continue
        mine = keys[decision.game, decision.player, decision.kind, decision.ordinal]
        assert decision.dice is None or sorted(decision.dice) == sorted(mine.dice or ()), (
            decision, mine)
        blunders.append((decision, mine.error))
    return Comparison(ours=analysis.players, gnubg=theirs.players, blunders=blunders)
