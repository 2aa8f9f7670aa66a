"""Greedy bear-off (FIBS's `off` command and `toggle greedy`)."""
from __future__ import annotations

from .position import Play, Position


def greedy_bearoff(position: Position, dice: tuple[int, int]) -> Play | None:
    """The legal play that bears off the most checkers of the side on roll, or None when no
    legal play bears off any. Among equally greedy plays, the one leaving the lowest pip count
    (then the first generated) wins, so the choice is deterministic."""
    already_off = position.borne_off(0)
    best = min(position.legal_plays(dice),
               key=lambda play: (-play.result.borne_off(0), play.result.pip_count(0)),
               default=None)
    if best is None or best.result.borne_off(0) == already_off:
        return None
    return best
