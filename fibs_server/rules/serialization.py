"""A match as plain JSON-able data and back: the form stored after every action.

`Match.to_dict` and `Match.from_dict` are the way in; this module reads and sets the match's
private state as the match's own methods would.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Protocol, TypeVar

from .board.position import Position
from .dice import Dice, Roll
from .events import WinKind, event_from_dict, event_to_dict
from .moments import DoubleOffer, Phase, Resignation
from .variants import Variant


class SavedMatch(Protocol):
    """What is saved of a match: rules.match_state.MatchState (or Match), which imports this
    module, has all of it."""

    def __init__(self, length: int | None, dice: Dice, *, variant: Variant = ...,
                 crawford: bool = ..., autodouble: bool = ..., max_redoubles: int | None = ...,
                 first_x_player: int = ..., lower_die_starts: bool = ...,
                 cube: bool = ...) -> None: ...

    length: int | None
    variant: Variant
    crawford_rule: bool
    autodouble: bool
    max_redoubles: int | None
    first_x_player: int
    lower_die_starts: bool
    cube_used: bool
    score: list[int]
    game_number: int
    _phase: Phase
    turn: int
    dice: Roll | None
    cube: int
    cube_owner: int | None
    double_offer: DoubleOffer | None
    resignation: Resignation | None
    is_crawford_game: bool
    _crawford_played: bool
    joined: set[int]
    _position: Position
    _plain_history: list[list[dict[str, Any]]]


AnyMatch = TypeVar("AnyMatch", bound=SavedMatch)


def match_to_dict(match: SavedMatch) -> dict[str, Any]:
    """The whole match (the dice source is not part of it)."""
    return {
        "length": match.length,
        "variant": match.variant.value,
        "crawford_rule": match.crawford_rule,
        "autodouble": match.autodouble,
        "max_redoubles": match.max_redoubles,
        "first_x_player": match.first_x_player,
        "lower_die_starts": match.lower_die_starts,
        "cube_used": match.cube_used,
        "score": list(match.score),
        "game_number": match.game_number,
        "phase": match._phase.value,
        "turn": match.turn,
        "dice": list(match.dice) if match.dice else None,
        "cube": match.cube,
        "cube_owner": match.cube_owner,
        "double_offer": dataclasses.asdict(match.double_offer) if match.double_offer else None,
        "resignation": ({"player": match.resignation.player,
                         "kind": int(match.resignation.kind),
                         "points": match.resignation.points} if match.resignation else None),
        "is_crawford_game": match.is_crawford_game,
        "crawford_played": match._crawford_played,
        "joined": sorted(match.joined),
        "position": match._position.position_id(),
        "history": [list(game) for game in match._plain_history],
    }


def match_from_dict(match_class: type[AnyMatch], data: dict[str, Any],
                    dice: Dice) -> AnyMatch:
    """The match `match_to_dict` gave `data` for, rolling with `dice` from now on."""
    match = match_class(data["length"], dice, variant=Variant(data["variant"]),
                        crawford=data["crawford_rule"], autodouble=data["autodouble"],
                        max_redoubles=data["max_redoubles"],
                        first_x_player=data["first_x_player"],
                        lower_die_starts=data["lower_die_starts"],
                        cube=data.get("cube_used", True))  # saved before `nocube` existed
    match.score = list(data["score"])
    match.game_number = data["game_number"]
    match._phase = Phase(data["phase"])
    match.turn = data["turn"]
    match.dice = tuple(data["dice"]) if data["dice"] else None
    match.cube = data["cube"]
    match.cube_owner = data["cube_owner"]
    offer = data["double_offer"]
    match.double_offer = DoubleOffer(**offer) if offer else None
    resignation = data["resignation"]
    match.resignation = (Resignation(resignation["player"], WinKind(resignation["kind"]),
                                     resignation["points"]) if resignation else None)
    match.is_crawford_game = data["is_crawford_game"]
    match._crawford_played = data["crawford_played"]
    match.joined = set(data["joined"])
    match._position = Position.from_position_id(data["position"],
                                                match.variant.checkers_per_side)
    # Through the events and back: JSON gave lists where the saved form keeps tuples.
    match._plain_history = [[event_to_dict(event_from_dict(event)) for event in game]
                            for game in data["history"]]
    return match
