"""Dice sources for the match engine.

A match never rolls by itself: it asks an injected `Dice` source. Every source counts the
pairs it has given (`drawn`) and can go back to an earlier count (`rewind`): the pair number
n is the same whenever it is drawn, so an `undo` against a bot brings the same dice again by
construction.

Production uses `VerifiableDice`: pair n comes from a secret per-match seed through
HMAC-SHA256, so that the server can commit to the seed (its SHA-256) before the first roll and
anyone can recompute every roll once the seed is revealed; each player may add a salt after
seeing the commitment, which enters every pair drawn after it arrived, so that the server
cannot have picked the seed for those rolls (docs/FAIRNESS.md). Tests use
`SeededDice` (reproducible pseudo-random play) or `ScriptedDice` (exactly the rolls a test
needs).
"""
from __future__ import annotations

import abc
import dataclasses
import hashlib
import hmac
import itertools
import random
import re
import secrets
from collections.abc import Iterable, Iterator
from typing import Any, Protocol

Roll = tuple[int, int]

SEED_BYTES = 32
# The largest multiple of 6 that fits in a byte: bytes from 252 on are skipped, so that each
# face has exactly 42 of the 252 byte values (no modulo bias).
_UNBIASED_BYTES = 252
# A player's salt: what a person can type and a program can send (hex, base64, words).
_SALT = re.compile(r"[A-Za-z0-9._:+/=-]{1,64}")


def valid_salt(text: str) -> bool:
    return _SALT.fullmatch(text) is not None


@dataclasses.dataclass(frozen=True)
class PlayerSalt:
    """A player's salt and the number of the first pair it enters (the pairs drawn when it
    arrived: it cannot change a pair drawn before)."""
    text: str
    from_pair: int

    def to_list(self) -> list[str | int]:
        return [self.text, self.from_pair]

    @classmethod
    def from_list(cls, stored: list[str | int]) -> PlayerSalt:
        text, from_pair = stored
        return cls(str(text), int(from_pair))


# Player 0's (the inviter's) and player 1's salt; None: none sent.
Salts = tuple[PlayerSalt | None, PlayerSalt | None]
NO_SALTS: Salts = (None, None)


def salts_to_lists(salts: Salts) -> list[list[str | int] | None]:
    """The salts as stored and sent (`salts_from_lists` reads them back)."""
    return [None if salt is None else salt.to_list() for salt in salts]


def salts_from_lists(stored: list[list[str | int] | None] | None) -> Salts:
    """The salts as stored (`PlayerSalt.to_list` or None each); no list: a match without."""
    if stored is None:
        return NO_SALTS
    first, second = (None if salt is None else PlayerSalt.from_list(salt) for salt in stored)
    return first, second


class Dice(Protocol):
    drawn: int  # pairs given so far (rolls and opening rolls alike)

    def roll(self) -> Roll:
        """A player's roll: two dice."""

    def opening(self) -> Roll:
        """An opening roll: (die of player 0, die of player 1)."""

    def rewind(self, mark: int) -> None:
        """Go back to when `mark` pairs had been drawn: the same pairs come again."""


class _PairsByNumber(abc.ABC):
    """Rolls and opening rolls alike take pair number `drawn` and count it."""

    def __init__(self) -> None:
        self.drawn = 0

    @abc.abstractmethod
    def pair(self, number: int) -> Roll:
        """Pair number `number` (from 0) of this source, the same each time it is asked."""

    def roll(self) -> Roll:
        pair = self.pair(self.drawn)
        self.drawn += 1
        return pair

    opening = roll

    def rewind(self, mark: int) -> None:
        self.drawn = mark


def commitment_of(seed: bytes) -> str:
    """What the server shows before the first roll: the seed's SHA-256, in hex."""
    return hashlib.sha256(seed).hexdigest()


def verifiable_pair(seed: bytes, number: int, salts: Salts = NO_SALTS) -> Roll:
    """Pair `number` (from 0, in the order the match drew them) of the match with `seed`:
    the first two bytes below 252 of HMAC-SHA256(seed, message), block 0, 1, ..., each byte b
    giving the die b % 6 + 1. The message: number as 8 bytes big-endian + block as 4 bytes
    big-endian; then, once either salt enters (`PlayerSalt.from_pair` <= number), each
    player's salt in ASCII after its length as one byte (length 0: none yet), player 0's
    first."""
    entered = [salt.text.encode("ascii") if salt is not None and salt.from_pair <= number
               else b"" for salt in salts]
    suffix = (b"".join(len(text).to_bytes(1, "big") + text for text in entered)
              if any(entered) else b"")
    dice = itertools.islice(
        (byte % 6 + 1 for byte in _stream(seed, number, suffix) if byte < _UNBIASED_BYTES), 2)
    first, second = dice
    return first, second


def _stream(seed: bytes, number: int, suffix: bytes) -> Iterator[int]:
    for block in itertools.count():
        message = number.to_bytes(8, "big") + block.to_bytes(4, "big") + suffix
        yield from hmac.new(seed, message, hashlib.sha256).digest()


class VerifiableDice(_PairsByNumber):
    """The dice of one match, from its secret `seed` and the players' `salts`, `drawn` pairs
    drawn already."""

    def __init__(self, seed: bytes, drawn: int = 0, salts: Salts = NO_SALTS) -> None:
        super().__init__()
        self.seed = seed
        self.drawn = drawn
        self.salts = salts

    def add_salt(self, player: int, text: str) -> PlayerSalt:
        """`player`'s salt, from the next pair drawn on: a pair drawn already stays as it
        was. A player salts once (ValueError)."""
        if self.salts[player] is not None:
            raise ValueError(f"player {player} has salted already")
        salt = PlayerSalt(text, self.drawn)
        self.salts = (salt, self.salts[1]) if player == 0 else (self.salts[0], salt)
        return salt

    def remove_salt(self, player: int) -> None:
        """Back to no salt from `player` (a salt the store could not keep)."""
        self.salts = (None, self.salts[1]) if player == 0 else (self.salts[0], None)

    @classmethod
    def fresh(cls) -> VerifiableDice:
        """A new match's dice: a seed from the operating system's secure random numbers."""
        return cls(secrets.token_bytes(SEED_BYTES))

    @property
    def commitment(self) -> str:
        return commitment_of(self.seed)

    def pair(self, number: int) -> Roll:
        return verifiable_pair(self.seed, number, self.salts)


def first_wrong_pair(seed: bytes, pairs: Iterable[Roll], salts: Salts = NO_SALTS) -> int | None:
    """The number of the first of a match's `pairs` (in the order drawn) that `seed` and
    `salts` do not give, or None if they give them all."""
    for number, pair in enumerate(pairs):
        if tuple(pair) != verifiable_pair(seed, number, salts):
            return number
    return None


class _RememberedPairs(_PairsByNumber):
    """Pairs of independent dice, each made once and remembered, to give it again."""

    def __init__(self) -> None:
        super().__init__()
        self._made: list[Roll] = []

    @abc.abstractmethod
    def die(self) -> int:
        """A new die, 1 to 6."""

    def pair(self, number: int) -> Roll:
        while len(self._made) <= number:
            self._made.append((self.die(), self.die()))
        return self._made[number]


class SecureDice(_RememberedPairs):
    """Dice from the operating system's secure random numbers, for a match stored before its
    dice were verifiable: it goes on as it began."""

    def die(self) -> int:
        return secrets.randbelow(6) + 1


class SeededDice(_RememberedPairs):
    """Reproducible dice: the same seed gives the same sequence of dice."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self._random = random.Random(seed)

    def die(self) -> int:
        return self._random.randint(1, 6)


class ScriptedDice(_PairsByNumber):
    """Dice from a script: each `roll()` and each `opening()` takes the next pair, in order.

    Opening pairs are (die of player 0, die of player 1); a tie is followed in the script by
    the re-roll, exactly as the match asks for it.
    """

    def __init__(self, pairs: Iterable[Roll]) -> None:
        super().__init__()
        self._pairs: list[Roll] = []
        for pair in pairs:
            dice = tuple(pair)
            if len(dice) != 2 or not all(1 <= die <= 6 for die in dice):
                raise ValueError(f"not a pair of dice: {dice!r}")
            self._pairs.append((dice[0], dice[1]))

    @property
    def remaining(self) -> int:
        return len(self._pairs) - self.drawn

    def pair(self, number: int) -> Roll:
        if number >= len(self._pairs):
            raise IndexError("the dice script is exhausted")
        return self._pairs[number]


def drawn_pairs(history: Iterable[Iterable[dict[str, Any]]]) -> list[tuple[int | None, Roll]]:
    """Every pair a match drew, in order, from its history in the stored form (each game a
    list of event dicts, `Match.to_dict()["history"]`): (the player who rolled it, the dice)
    for a roll, (None, (die of player 0, die of player 1)) for an opening roll, ties too."""
    pairs: list[tuple[int | None, Roll]] = []
    for game in history:
        for event in game:
            if event["event"] == "OpeningRoll":
                pairs.append((None, (event["die_0"], event["die_1"])))
            elif event["event"] == "Rolled":
                first, second = event["dice"]
                pairs.append((event["player"], (first, second)))
    return pairs
