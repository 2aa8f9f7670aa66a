"""GNU Backgammon's own evaluation of positions: the independent judge of the bots'
resignations.

Imported by the tests, `gnubg_chances(boards)` answers, for each of bgsage's boards (the side
on roll first, as `engine.board_of` makes them), gnubg's cubeless chances of the side on roll
before its roll: (win, win gammon, win backgammon, lose gammon, lose backgammon), at 0-ply
(gnubg's network alone). Run by gnubg (`gnubg -t -q -r -p THIS_FILE`, the files named in
environment variables), it does the evaluating.
"""
from __future__ import annotations

import os
from pathlib import Path

BOARDS_VARIABLE = "GNUBG_EVALUATION_BOARDS"
CHANCES_VARIABLE = "GNUBG_CHANCES"
_CUBELESS_0_PLY = {"cubeful": 0, "plies": 0, "deterministic": 1, "prune": 0, "noise": 0.0}


def gnubg_chances(boards: list[list[int]]) -> list[tuple[float, ...]]:
    from tests.gnubg_script import run_in_gnubg  # here: inside gnubg this file stands alone

    answer = run_in_gnubg(__file__, inputs={BOARDS_VARIABLE: "".join(
        " ".join(map(str, [board[25], *board[1:25], board[0]])) + "\n" for board in boards)},
        values={}, output_variable=CHANCES_VARIABLE, timeout=120)
    return [tuple(map(float, line.split())) for line in answer.splitlines()]


def _serve() -> None:
    import gnubg  # only exists inside gnubg's embedded Python

    for command in ("set player 0 human", "set player 1 human", "new game", "set turn 1"):
        gnubg.command(command)
    lines = []
    for line in Path(os.environ[BOARDS_VARIABLE]).read_text().splitlines():
        gnubg.command(f"set board simple {line}")
        chances = gnubg.evaluate(gnubg.board(), gnubg.cubeinfo(), _CUBELESS_0_PLY)[:5]
        lines.append(" ".join(f"{chance:.6f}" for chance in chances) + "\n")
    Path(os.environ[CHANCES_VARIABLE]).write_text("".join(lines))


if __name__ == "__main__" and BOARDS_VARIABLE in os.environ:
    _serve()
