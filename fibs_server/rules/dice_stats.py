"""How far counted rolls are from what fair dice give: the 21 different rolls, the faces and
the doubles, and Pearson's chi-square over the 21 rolls (`dicetest`)."""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from typing import Any

from .dice import Roll, drawn_pairs

# The 21 different rolls, higher die first: 11, 21, 22, 31, 32, 33, ... 66.
ROLLS: tuple[Roll, ...] = tuple((high, low) for high in range(1, 7) for low in range(1, high + 1))
_INDEX = {roll: index for index, roll in enumerate(ROLLS)}
# Below this many rolls some of the 21 expect fewer than 5: the chi-square figure means little.
FEWEST_FOR_CHI_SQUARE = 180
UNUSUAL_BELOW = 0.01  # fair dice spread this far or further in fewer than 1 in 100 samples
# What fair dice move on average a roll: each of the 36 pairs once, a double's four moves.
FAIR_PIPS_PER_ROLL = sum((high + low) * (2 if high == low else 1)
                         for high in range(1, 7) for low in range(1, 7)) / 36


def empty_tally() -> list[int]:
    return [0] * len(ROLLS)


def add_to_tally(tally: list[int], pairs: Iterable[Roll]) -> list[int]:
    """`tally` (counts by the index of `ROLLS`) with `pairs` counted in, in either order."""
    for first, second in pairs:
        tally[_INDEX[(max(first, second), min(first, second))]] += 1
    return tally


def chance(roll: Roll) -> float:
    """How often fair dice give `roll` (either order): 1/36 a double, 2/36 any other."""
    return (1 if roll[0] == roll[1] else 2) / 36


def chi_square_tail(chi_square: float) -> float:
    """The chi-square distribution's upper tail for 20 degrees of freedom (the 21 rolls less
    one); for an even number of degrees the tail is a finite sum."""
    half = chi_square / 2
    return math.exp(-half) * sum(half ** i / math.factorial(i) for i in range(10))


@dataclasses.dataclass(frozen=True)
class DiceStatistics:
    by_roll: tuple[int, ...]  # counts in the order of ROLLS

    @classmethod
    def of(cls, tally: Iterable[int]) -> DiceStatistics:
        return cls(tuple(tally))

    @property
    def rolls(self) -> int:
        return sum(self.by_roll)

    @property
    def faces(self) -> tuple[int, ...]:
        """How often each face 1..6 came up, counting both dice of each roll."""
        counts = [0] * 6
        for (high, low), count in zip(ROLLS, self.by_roll):
            counts[high - 1] += count
            counts[low - 1] += count
        return tuple(counts)

    @property
    def doubles(self) -> int:
        return sum(count for (high, low), count in zip(ROLLS, self.by_roll) if high == low)

    @property
    def pips(self) -> int:
        """The pips the rolls gave, a double counted four times its face."""
        return sum((high + low) * (2 if high == low else 1) * count
                   for (high, low), count in zip(ROLLS, self.by_roll))

    @property
    def chi_square(self) -> float:
        """Pearson's chi-square of the 21 rolls against fair dice (20 degrees of freedom)."""
        total = self.rolls
        if total == 0:
            return 0.0
        return sum((count - total * chance(roll)) ** 2 / (total * chance(roll))
                   for roll, count in zip(ROLLS, self.by_roll))

    @property
    def p_value(self) -> float:
        """The chance that fair dice spread at least this far."""
        return chi_square_tail(self.chi_square)

    @property
    def enough_rolls(self) -> bool:
        return self.rolls >= FEWEST_FOR_CHI_SQUARE

    @property
    def unusual(self) -> bool:
        return self.enough_rolls and self.p_value < UNUSUAL_BELOW


class RollTally:
    """A match's rolls counted for `dicetest` at every save: player 0's, player 1's and the
    opening rolls, each by the index of ROLLS. Each save counts only what is new: a finished
    game's rolls never change, so each is counted once, and the game being played from the
    event after the last one counted (a long match's history has thousands of events, and
    a save comes with every action)."""

    def __init__(self) -> None:
        self._games = 0  # the games counted in `_finished`
        self._finished = [empty_tally() for _ in range(3)]
        self._counted = 0  # how many events of the game being played `_current` counts
        self._last_counted: dict[str, Any] | None = None  # the last of them
        self._current = [empty_tally() for _ in range(3)]

    def of(self, history: list[list[dict[str, Any]]]) -> list[list[int]]:
        """The tally of a match's whole history, in the stored form."""
        finished = max(len(history) - 1, 0)
        same_game = finished == self._games
        if finished < self._games:  # an undo went back into a game counted as finished
            self._games, self._finished = 0, [empty_tally() for _ in range(3)]
        self._count(self._finished, history[self._games:finished])
        self._games = finished
        game = history[finished] if finished < len(history) else []
        if not (same_game and self._goes_on(game)):  # another game, or an undo went back
            self._counted, self._current = 0, [empty_tally() for _ in range(3)]
        self._count(self._current, [game[self._counted:]])
        self._counted = len(game)
        self._last_counted = game[-1] if game else None
        return [[done + now for done, now in zip(finished_row, current_row)]
                for finished_row, current_row in zip(self._finished, self._current)]

    def _goes_on(self, game: list[dict[str, Any]]) -> bool:
        """Whether the game being played is the one counted so far, grown: a rewound match's
        history is made of new event objects, so the last event counted is found in place
        only if nothing before it changed."""
        return (0 < self._counted <= len(game)
                and game[self._counted - 1] is self._last_counted)

    @staticmethod
    def _count(tally: list[list[int]], games: list[list[dict[str, Any]]]) -> None:
        for roller, pair in drawn_pairs(games):
            add_to_tally(tally[2 if roller is None else roller], [pair])
