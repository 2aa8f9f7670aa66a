"""What a match is made of at one point in time: its phase, a pending double or resignation,
and the `Moment` a board is drawn from; and how a finished match ended."""
from __future__ import annotations

import dataclasses
import enum

from .board.position import Position
from .dice import Roll
from .events import WinKind


class Phase(enum.Enum):
    NOT_STARTED = "not started"
    ROLL_OR_DOUBLE = "roll or double"
    MOVE = "move"
    DOUBLE_OFFERED = "double offered"
    RESIGN_OFFERED = "resign offered"
    BETWEEN_GAMES = "between games"
    MATCH_OVER = "match over"


@dataclasses.dataclass(frozen=True)
class DoubleOffer:
    offered_by: int
    cube: int  # the value if accepted
    redoubles: int  # instant redoubles in this chain so far (0 = a plain double)


@dataclasses.dataclass(frozen=True)
class Resignation:
    player: int
    kind: WinKind
    points: int


@dataclasses.dataclass(frozen=True)
class Outcome:
    """How a match ended (`Match.outcome()`)."""

    winner: int
    score: tuple[int, int]  # final, surplus points included

    @property
    def loser(self) -> int:
        return 1 - self.winner


def player_to_act(phase: Phase, turn: int, double_offer: DoubleOffer | None,
                  resignation: Resignation | None) -> int | None:
    """Who must act next: the player on turn, or the one who must answer an offer;
    None before the match, between games and after the match."""
    if phase in (Phase.BETWEEN_GAMES, Phase.MATCH_OVER, Phase.NOT_STARTED):
        return None
    if resignation is not None:
        return 1 - resignation.player
    if double_offer is not None:
        return 1 - double_offer.offered_by
    return turn


@dataclasses.dataclass(frozen=True)
class Moment:
    """The match as it stood right after one event: what a board drawn at that point shows.
    A server tells an action's events one by one, and each board it sends with them must show
    its own moment, not the state after the automatic steps that followed (a roll made for
    the next player, a turn passed for want of a legal play)."""

    phase: Phase
    turn: int
    dice: Roll | None
    position: Position  # the player on turn is checkers[0]
    score: tuple[int, int]
    x_player: int
    cube: int
    cube_owner: int | None
    double_offer: DoubleOffer | None
    resignation: Resignation | None
    is_crawford_game: bool
    is_post_crawford: bool
    pieces_to_move: int

    def position_seen_by(self, player: int) -> Position:
        return self.position if player == self.turn else self.position.swap()

    def colour(self, player: int) -> str:
        return "X" if player == self.x_player else "O"

    @property
    def to_act(self) -> int | None:
        """Who must act next (`player_to_act`)."""
        return player_to_act(self.phase, self.turn, self.double_offer, self.resignation)
