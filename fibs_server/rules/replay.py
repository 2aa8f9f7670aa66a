"""Replaying a game from its history: the board before each move, with the roll and the cube
it was played with (`oldboard`, the `.mat` export and the match analysis read games so)."""
from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import assert_never

from . import events as ev
from .board.position import Play, Position


@dataclasses.dataclass(frozen=True)
class PlayedRoll:
    """One move of a game with what it was played from."""
    moved: ev.Moved
    dice: tuple[int, int]  # the mover's roll
    before: Position  # the board before the move, the mover as checkers[0]
    play: Play  # the move's steps, hits and result
    cube: int  # the cube's value when the move was made
    cube_owner: int | None


def played_rolls(game: list[ev.Event], start: Position) -> Iterator[PlayedRoll]:
    """Replay one game's history from its starting position."""
    position, seen_by = start, 0
    cube, owner = 1, None
    for event, dice in ev.with_dice(game):
        match event:
            case ev.CubeAutoDoubled(cube=value):
                cube = value
            case ev.DoubleAccepted(player=p, cube=value):
                cube, owner = value, p
            case ev.Moved(player=p, steps=steps):
                if seen_by != p:
                    position, seen_by = position.swap(), p
                play = position.apply(steps)
                assert dice is not None  # with_dice pairs each move with its roll
                yield PlayedRoll(event, dice, position, play, cube, owner)
                position = play.result
            case (ev.GameStarted() | ev.OpeningRoll() | ev.Rolled() | ev.CannotMove()
                  | ev.Doubled() | ev.Redoubled() | ev.DoubleRejected() | ev.ResignOffered()
                  | ev.ResignAccepted() | ev.ResignRejected() | ev.GameOver() | ev.Forfeited()
                  | ev.MatchOver() | ev.JoinedNextGame()):
                pass  # the board and the cube stay as they are
            case _:
                assert_never(event)
