"""GNU Backgammon reads bgsage's boards: the independent check of `engine.board_of`.

bgsage's board is gnubg's "simple" board (bgsage's own gnubg bridge writes `set board
simple` as [25], [1..24], [0] of it). Imported by the tests, `gnubg_position_ids()` has gnubg
read each board and answers gnubg's Position ID of it; run by gnubg (`gnubg -t -q -r -p
THIS_FILE`, the files named in environment variables), it does the reading.
"""
from __future__ import annotations

import os
from pathlib import Path

GNUBG = Path("/usr/games/gnubg")
BOARDS_VARIABLE = "GNUBG_BOARDS"
IDS_VARIABLE = "GNUBG_POSITION_IDS"


def gnubg_position_ids(boards: list[list[int]]) -> list[str]:
    from tests.gnubg_script import run_in_gnubg  # here: inside gnubg this file stands alone

    return run_in_gnubg(__file__, inputs={BOARDS_VARIABLE: "".join(
        " ".join(map(str, [board[25], *board[1:25], board[0]])) + "\n" for board in boards)},
        values={}, output_variable=IDS_VARIABLE, timeout=120).split()


def _serve() -> None:
    import gnubg  # only exists inside gnubg's embedded Python

    for command in ("set player 0 human", "set player 1 human", "new game", "set turn 1"):
        gnubg.command(command)
    ids = []
    for line in Path(os.environ[BOARDS_VARIABLE]).read_text().splitlines():
        gnubg.command(f"set board simple {line}")
        ids.append(gnubg.positionid(gnubg.board()) + "\n")
    Path(os.environ[IDS_VARIABLE]).write_text("".join(ids))


if __name__ == "__main__" and BOARDS_VARIABLE in os.environ:
    _serve()
