"""A check of `board:` lines that tests share."""
from __future__ import annotations

from fibs_server.protocol.views.board import parse_board_line


def assert_checker_counts(line: str, checkers_per_side: int = 15) -> None:
    """Raise AssertionError unless the board line is well formed and each side has
    `checkers_per_side` checkers, counting points, bar and borne-off fields."""
    try:
        parse_board_line(line, checkers_per_side)
    except ValueError as error:
        raise AssertionError(f"{error} in {line}") from None
