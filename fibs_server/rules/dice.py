"""Dice sources for the match engine.

A match never rolls by itself: it asks an injected `Dice` source. Production uses `SecureDice`
(the `secrets` module, so nobody can predict rolls from earlier ones); tests use `SeededDice`
(reproducible pseudo-random play) or `ScriptedDice` (exactly the rolls a test needs).
"""
from __future__ import annotations

import abc
import random
import secrets
from collections.abc import Callable, Iterable
from typing import Protocol

Roll = tuple[int, int]


class Dice(Protocol):
    def roll(self) -> Roll:
        """A player's roll: two dice."""

    def opening(self) -> Roll:
        """An opening roll: (die of player 0, die of player 1)."""


class _IndependentDice(abc.ABC):
    """Rolls and opening rolls are two independent dice each; subclasses supply one die."""

    @abc.abstractmethod
    def die(self) -> int:
        """One die, 1 to 6."""

    def roll(self) -> Roll:
        return self.die(), self.die()

    def opening(self) -> Roll:
        return self.die(), self.die()


class SecureDice(_IndependentDice):
    """Cryptographically strong dice, for production."""

    def die(self) -> int:
        return secrets.randbelow(6) + 1


class SeededDice(_IndependentDice):
    """Reproducible dice: the same seed gives the same sequence of dice."""

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def die(self) -> int:
        return self._random.randint(1, 6)


class ScriptedDice:
    """Dice from a script: each `roll()` and each `opening()` takes the next pair, in order.

    Opening pairs are (die of player 0, die of player 1); a tie is followed in the script by
    the re-roll, exactly as the match asks for it.
    """

    def __init__(self, pairs: Iterable[Roll]) -> None:
        self._pairs = [tuple(pair) for pair in pairs]
        for pair in self._pairs:
            if len(pair) != 2 or not all(1 <= die <= 6 for die in pair):
                raise ValueError(f"not a pair of dice: {pair!r}")
        self._next = 0

    @property
    def remaining(self) -> int:
        return len(self._pairs) - self._next

    def roll(self) -> Roll:
        if self._next == len(self._pairs):
            raise IndexError("the dice script is exhausted")
        pair = self._pairs[self._next]
        self._next += 1
        return pair

    opening = roll


class ReplayableDice:
    """Dice that remember what they gave, so that an undo gives the same dice again.

    `drawn` marks a point in the sequence; `rewind(mark)` goes back to it, and the dice drawn
    after it come again, in order, while the same kind (roll or opening roll) is asked for.
    A different kind forgets the rest and draws afresh from `source`."""

    def __init__(self, source: Dice) -> None:
        self._source = source
        self._given: list[tuple[str, Roll]] = []
        self.drawn = 0

    def roll(self) -> Roll:
        return self._take("roll", self._source.roll)

    def opening(self) -> Roll:
        return self._take("opening", self._source.opening)

    def rewind(self, mark: int) -> None:
        self.drawn = mark

    def _take(self, kind: str, draw: Callable[[], Roll]) -> Roll:
        if self.drawn < len(self._given) and self._given[self.drawn][0] == kind:
            pair = self._given[self.drawn][1]
        else:
            del self._given[self.drawn:]
            pair = draw()
            self._given.append((kind, pair))
        self.drawn += 1
        return pair
