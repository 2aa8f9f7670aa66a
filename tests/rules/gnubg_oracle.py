"""GNU Backgammon as an oracle for legal plays, run as separate processes (never imported GPL code).

This file has two roles. Imported by the tests, `gnubg_results()` spreads (Position ID, dice)
queries over several `gnubg` processes. Run by gnubg itself (`gnubg -t -q -r -p THIS_FILE`,
with the query and answer files named in environment variables), it answers each query
with the gnubg Position IDs of every play gnubg's `hint` lists, after gnubg applies its
"use as many dice as possible, else the larger die" rules.

gnubg prints plays compressed (`24/16`, `13/5*(2)`); `gnubg.parsemove` turns them into
(from, to) steps, splitting at intermediate hits (`24/20*/16`), so applying each step with
"landing on a lone opposing checker hits it" reproduces gnubg's resulting position.
"""
from __future__ import annotations

import base64
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

GNUBG = Path("/usr/games/gnubg")
QUERIES_VARIABLE = "GNUBG_ORACLE_QUERIES"
ANSWERS_VARIABLE = "GNUBG_ORACLE_ANSWERS"

Query = tuple[str, int, int]  # (Position ID, die, die)


def position_id(not_on_roll, on_roll) -> str:
    """gnubg's Position ID, written independently of fibs_server's implementation."""
    bits = []
    for side in (not_on_roll, on_roll):
        for count in side:
            bits.extend([1] * count + [0])
    bits.extend([0] * (80 - len(bits)))
    packed = bytes(sum(bits[byte * 8 + bit] << bit for bit in range(8)) for byte in range(10))
    return base64.b64encode(packed).decode("ascii")[:14]


def gnubg_results(queries: list[Query], processes: int = 16) -> dict[Query, set[str]]:
    """The set of resulting Position IDs (mover still second, i.e. on roll) per query."""
    chunks = [queries[start::processes] for start in range(processes)]
    answers: dict[Query, set[str]] = {}
    with ThreadPoolExecutor(processes) as pool:
        for chunk_answers in pool.map(_ask_one_process, [chunk for chunk in chunks if chunk]):
            answers.update(chunk_answers)
    missing = set(queries) - answers.keys()
    if missing:
        raise RuntimeError(f"gnubg answered no result for {len(missing)} queries, "
                           f"e.g. {sorted(missing)[:3]}")
    return answers


def _ask_one_process(queries: list[Query]) -> dict[Query, set[str]]:
    from tests.gnubg_script import run_in_gnubg  # here: inside gnubg this file stands alone

    text = run_in_gnubg(__file__, inputs={QUERIES_VARIABLE: "".join(
        f"{pid} {a} {b}\n" for pid, a, b in queries)}, values={},
        output_variable=ANSWERS_VARIABLE, timeout=600)
    answers = {}
    for line in text.splitlines():
        pid, a, b, *results = line.split()
        answers[(pid, int(a), int(b))] = set(results)
    return answers


def _apply(board, steps):
    """Apply gnubg move steps to gnubg's board (not on roll, on roll), own numbering."""
    opponent, mover = (list(side) for side in board)
    for start, end in steps:
        mover[start - 1] -= 1
        if end > 0:
            mover[end - 1] += 1
            if opponent[24 - end] == 1:
                opponent[24 - end] = 0
                opponent[24] += 1
    return opponent, mover


def result_position_id(board, steps) -> str:
    """The Position ID after gnubg move steps on gnubg's board, the mover still on roll."""
    return position_id(*_apply(board, steps))


def _serve() -> None:
    """Inside gnubg: answer every query of the query file into the answer file."""
    import gnubg  # only exists inside gnubg's embedded Python

    # hint's default 2-ply look-ahead costs ~20 ms of CPU per query; only the listing matters.
    for command in ("set evaluation chequerplay evaluation plies 0",
                    "set evaluation chequerplay evaluation cubeful off",
                    "set player 0 human", "set player 1 human", "new game", "set turn 1"):
        gnubg.command(command)
    lines = []
    for line in Path(os.environ[QUERIES_VARIABLE]).read_text().splitlines():
        pid, a, b = line.split()
        gnubg.command(f"set board {pid}")
        gnubg.command(f"set dice {a} {b}")
        board = gnubg.board()
        hints = gnubg.hint(100000)["hint"]  # empty when no play is legal
        results = {position_id(*_apply(board, gnubg.parsemove(hint["move"]))) for hint in hints}
        lines.append(" ".join([pid, a, b, *sorted(results)]) + "\n")
    Path(os.environ[ANSWERS_VARIABLE]).write_text("".join(lines))


if __name__ == "__main__" and QUERIES_VARIABLE in os.environ:
    _serve()
