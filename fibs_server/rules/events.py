"""What a match reports after each action: small immutable event records.

Players are match indices (0 = inviter, 1 = joiner). The same events make up a match's
per-game history, so every event converts to and from a plain JSON-able dict.
"""
from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Iterator
from typing import Any, get_args

Steps = tuple[tuple[int, int], ...]


class WinKind(enum.IntEnum):
    """How big a win is; the value is the multiplier of the cube (a resignation's size too)."""

    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


@dataclasses.dataclass(frozen=True)
class GameStarted:
    game_number: int
    x_player: int  # the player who plays X in this game
    score: tuple[int, int]  # before this game
    crawford: bool  # this is the Crawford game


@dataclasses.dataclass(frozen=True)
class OpeningRoll:
    die_0: int  # player 0's die
    die_1: int  # player 1's die
    starter: int | None  # None on a tie, which is rolled again


@dataclasses.dataclass(frozen=True)
class CubeAutoDoubled:
    cube: int  # the centred cube's new value after an opening tie


@dataclasses.dataclass(frozen=True)
class Rolled:
    player: int
    dice: tuple[int, int]


@dataclasses.dataclass(frozen=True)
class CannotMove:
    player: int


@dataclasses.dataclass(frozen=True)
class Moved:
    player: int
    steps: Steps  # (from, to) in the mover's own numbering, 25 = bar, 0 = off


@dataclasses.dataclass(frozen=True)
class Doubled:
    player: int
    cube: int  # the value offered


@dataclasses.dataclass(frozen=True)
class Redoubled:
    """An instant redouble by the doubled player (unlimited matches only)."""

    player: int
    cube: int  # the value offered
    number: int  # 1 = beaver, 2 = raccoon, 3 = otter, ...


@dataclasses.dataclass(frozen=True)
class DoubleAccepted:
    player: int
    cube: int


@dataclasses.dataclass(frozen=True)
class DoubleRejected:
    player: int
    winner: int
    points: int


@dataclasses.dataclass(frozen=True)
class ResignOffered:
    player: int
    kind: WinKind
    points: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", WinKind(self.kind))


@dataclasses.dataclass(frozen=True)
class ResignAccepted:
    player: int  # the player who accepted, and so won
    points: int


@dataclasses.dataclass(frozen=True)
class ResignRejected:
    player: int


@dataclasses.dataclass(frozen=True)
class GameOver:
    winner: int
    points: int
    kind: WinKind
    score: tuple[int, int]  # after this game

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", WinKind(self.kind))


@dataclasses.dataclass(frozen=True)
class MatchOver:
    winner: int
    score: tuple[int, int]


@dataclasses.dataclass(frozen=True)
class Forfeited:
    """`player` gave up the whole match (a third expired clock, an abandoned match): the
    opponent gets the points they lacked."""

    player: int
    points: int  # what the opponent got
    score: tuple[int, int]  # after it


@dataclasses.dataclass(frozen=True)
class JoinedNextGame:
    """A player is ready for the next game; the other has not joined yet."""

    player: int


Event = (GameStarted | OpeningRoll | CubeAutoDoubled | Rolled | CannotMove | Moved | Doubled
         | Redoubled | DoubleAccepted | DoubleRejected | ResignOffered | ResignAccepted
         | ResignRejected | GameOver | Forfeited | MatchOver | JoinedNextGame)

_EVENT_TYPES: dict[str, type[Event]] = {cls.__name__: cls for cls in get_args(Event)}


def with_dice(game: Iterable[Event]) -> Iterator[tuple[Event, tuple[int, int] | None]]:
    """A game's events, each `Moved` and `CannotMove` paired with the roll it played (the
    opening dice, the starter's die first, or the mover's last `Rolled`); others with None."""
    rolls: dict[int, tuple[int, int]] = {}
    for event in game:
        if isinstance(event, OpeningRoll) and event.starter is not None:
            rolls[event.starter] = ((event.die_0, event.die_1) if event.starter == 0
                                    else (event.die_1, event.die_0))
        elif isinstance(event, Rolled):
            rolls[event.player] = event.dice
        yield event, (rolls.get(event.player) if isinstance(event, (Moved, CannotMove))
                      else None)


def event_to_dict(event: Event) -> dict[str, Any]:
    fields = {field.name: _plain(getattr(event, field.name))
              for field in dataclasses.fields(event)}
    return {"event": type(event).__name__, **fields}


def event_from_dict(data: dict[str, Any]) -> Event:
    fields = {name: _tuples(value) for name, value in data.items() if name != "event"}
    return _EVENT_TYPES[data["event"]](**fields)


def _plain(value: Any) -> Any:
    # Tuples, not lists: JSON writes both as arrays, and a dict holding only numbers, strings
    # and tuples of them drops out of the cyclic garbage collector's sight (see `Match`).
    if isinstance(value, tuple):
        return tuple(_plain(item) for item in value)
    if isinstance(value, enum.IntEnum):
        return int(value)
    return value


def _tuples(value: Any) -> Any:
    """JSON turns tuples into lists; every sequence in an event is a tuple."""
    if isinstance(value, list):
        return tuple(_tuples(item) for item in value)
    return value
