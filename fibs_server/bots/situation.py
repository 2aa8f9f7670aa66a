"""What a bot decides from, and what it decides.

A `Situation` is a small picklable snapshot of a match as one player sees it, built in the
event loop (`situation_for`) and sent to wherever the decision is computed (a worker
process). A `Decision` comes back and is applied to the match like a player's command
(`Decision.apply`).
"""
from __future__ import annotations

import dataclasses
import enum

from fibs_server.rules.board.position import Play, Position
from fibs_server.rules.dice import Roll
from fibs_server.rules.events import Event, ResignOffered, ResignRejected, WinKind
from fibs_server.rules.match import Match, Phase
from fibs_server.rules.variants import Variant


class CubeOwner(enum.Enum):
    CENTRED = "centred"
    BOT = "bot"
    OPPONENT = "opponent"


@dataclasses.dataclass(frozen=True)
class Situation:
    """A match as the bot sees it, when it has something to decide."""

    phase: Phase  # ROLL_OR_DOUBLE, MOVE, DOUBLE_OFFERED, RESIGN_OFFERED or BETWEEN_GAMES
    position: Position  # the bot's checkers are checkers[0], whoever is on roll
    bot_on_roll: bool  # whose turn it is: the bot's, or its opponent's
    dice: Roll | None  # the roll being played, by the side on roll; None before the roll
    cube: int
    cube_owner: CubeOwner
    may_double: bool  # the engine lets the bot double now
    offered_cube: int | None  # phase DOUBLE_OFFERED: the cube's value if the bot takes
    offered_resignation: WinKind | None  # phase RESIGN_OFFERED: what the opponent would lose
    score: tuple[int, int]  # the bot's, its opponent's
    length: int | None  # None: an unlimited match, played for money
    is_crawford_game: bool
    is_post_crawford: bool
    variant: Variant
    refused_resignation: WinKind | None  # the largest resignation of the bot refused this game

    @property
    def is_money(self) -> bool:
        return self.length is None

    @property
    def away(self) -> tuple[int, int]:
        """Points the bot and its opponent still need (match play only)."""
        assert self.length is not None
        return self.length - self.score[0], self.length - self.score[1]


def situation_for(match: Match, player: int) -> Situation | None:
    """What `player` must decide now, or None when it is not that player's decision (the
    other player's turn, an offer of its own pending, the match not started or over)."""
    phase = match.phase
    if phase is Phase.BETWEEN_GAMES:
        if player in match.joined:
            return None
    elif match.to_act != player:
        return None
    owner, offer, resignation = match.cube_owner, match.double_offer, match.resignation
    return Situation(
        phase=phase,
        position=match.position_seen_by(player),
        bot_on_roll=match.turn == player,
        dice=match.dice,
        cube=match.cube,
        cube_owner=(CubeOwner.CENTRED if owner is None
                    else CubeOwner.BOT if owner == player else CubeOwner.OPPONENT),
        may_double=phase is Phase.ROLL_OR_DOUBLE and match.may_double(player),
        offered_cube=offer.cube if phase is Phase.DOUBLE_OFFERED and offer else None,
        offered_resignation=(resignation.kind if phase is Phase.RESIGN_OFFERED and resignation
                             else None),
        score=(match.score[player], match.score[1 - player]),
        length=match.length,
        is_crawford_game=match.is_crawford_game,
        is_post_crawford=match.is_post_crawford,
        variant=match.variant,
        refused_resignation=(_refused_resignation(match, player)
                             if phase in (Phase.ROLL_OR_DOUBLE, Phase.MOVE) else None),
    )


def _refused_resignation(match: Match, player: int) -> WinKind | None:
    """The largest resignation `player` offered in the current game and saw rejected: a bot
    offers only a larger one afterwards, instead of asking again every turn."""
    refused = None
    offered = None
    for event in match.game_events_of(-1, ResignOffered, ResignRejected):
        if isinstance(event, ResignOffered):
            offered = event.kind if event.player == player else None
        elif isinstance(event, ResignRejected) and offered is not None:
            refused = max(refused or offered, offered)
            offered = None
    return refused


class Action(enum.Enum):
    ROLL = "roll"
    DOUBLE = "double"
    TAKE = "take"  # accept the opponent's double
    DROP = "drop"  # reject it, and lose the game at the cube's current value
    MOVE = "move"
    RESIGN = "resign"
    ACCEPT_RESIGNATION = "accept resignation"
    REJECT_RESIGNATION = "reject resignation"
    JOIN = "join"  # ready for the next game


@dataclasses.dataclass(frozen=True)
class Decision:
    action: Action
    play: Play | None = None  # MOVE: one of the match's legal plays
    resignation: WinKind | None = None  # RESIGN: the size offered

    def apply(self, match: Match, player: int) -> list[Event]:
        """Carry the decision out on the match, as `player`; returns the engine's events."""
        action = self.action
        if action is Action.ROLL:
            return match.roll(player)
        if action is Action.DOUBLE:
            return match.double(player)
        if action in (Action.TAKE, Action.ACCEPT_RESIGNATION):
            return match.accept(player)
        if action in (Action.DROP, Action.REJECT_RESIGNATION):
            return match.reject(player)
        if action is Action.MOVE:
            assert self.play is not None  # `move` gives every MOVE its play
            return match.move(player, self.play)
        if action is Action.RESIGN:
            assert self.resignation is not None  # and `resign` every RESIGN its size
            return match.resign(player, self.resignation)
        return match.join(player)


ROLL = Decision(Action.ROLL)
DOUBLE = Decision(Action.DOUBLE)
TAKE = Decision(Action.TAKE)
DROP = Decision(Action.DROP)
ACCEPT_RESIGNATION = Decision(Action.ACCEPT_RESIGNATION)
REJECT_RESIGNATION = Decision(Action.REJECT_RESIGNATION)
JOIN = Decision(Action.JOIN)


def move(play: Play) -> Decision:
    return Decision(Action.MOVE, play=play)


def resign(kind: WinKind) -> Decision:
    return Decision(Action.RESIGN, resignation=kind)
