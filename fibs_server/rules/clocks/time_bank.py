"""A time bank: seconds per decision plus a reserve per match (docs/FAIRNESS.md, "Time bank").

Each player has a reserve, `reserve_per_point` seconds for each point of the match's length
(a longer match, a longer reserve, as tournament clocks and Backgammon Galaxy scale it). Each
decision gets `move_seconds` besides, in one of three ways (`BankMode`):

- delay (the default): the decision's first `move_seconds` cost nothing; then the reserve
  runs;
- Bronstein: the reserve runs from the start, and what the decision took, up to
  `move_seconds`, is given back after it (the same reserve after a decision as the delay,
  but the decision may use only what the reserve holds);
- Fischer: the reserve runs from the start, and `move_seconds` are added to it after every
  decision (a quick player's reserve grows).

A player whose decision takes all the time it has (`TimeBank.available`) loses the match on
time. Pure arithmetic on seconds: the lobby's turn clock (lobby/play/turn_clock.py) measures
and owns the time.
"""
from __future__ import annotations

import dataclasses
import enum

MOVE_SECONDS = range(1, 121)  # the seconds a decision may be given
RESERVE_PER_POINT = range(1, 601)  # the reserve's seconds a point of the match's length (a flat
# clock with no reserve is `timer`)


class BankMode(enum.Enum):
    """How a decision's own seconds are given (the word that chooses it is its value)."""

    DELAY = "delay"
    BRONSTEIN = "bronstein"
    FISCHER = "fischer"


@dataclasses.dataclass(frozen=True)
class BankTerms:
    """A time bank as a match's terms state it (`bank 12 60 fischer`)."""

    move_seconds: int
    reserve_per_point: int
    mode: BankMode = BankMode.DELAY

    def reserve(self, length: int) -> float:
        """Each player's reserve at the start of a `length`-point match."""
        return float(self.reserve_per_point * length)

    def fields(self) -> dict[str, object]:
        """As JSON: in match terms, stored states and messages."""
        return {"move_seconds": self.move_seconds, "reserve_per_point": self.reserve_per_point,
                "mode": self.mode.value}

    @classmethod
    def from_fields(cls, fields: dict[str, object]) -> BankTerms:
        """The terms `fields` gave; ValueError or TypeError if these are not."""
        move, per_point = fields["move_seconds"], fields["reserve_per_point"]
        if type(move) is not int or move not in MOVE_SECONDS:
            raise ValueError(f"not a decision's seconds: {move!r}")
        if type(per_point) is not int or per_point not in RESERVE_PER_POINT:
            raise ValueError(f"not a reserve per point: {per_point!r}")
        return cls(move, per_point, BankMode(fields["mode"]))


@dataclasses.dataclass(frozen=True)
class TimeBank:
    """Both players' reserves (seconds, [0] the inviter's) under `terms`."""

    terms: BankTerms
    reserves: tuple[float, float]

    @classmethod
    def start(cls, terms: BankTerms, length: int) -> TimeBank:
        reserve = terms.reserve(length)
        return cls(terms, (reserve, reserve))

    def available(self, player: int) -> float:
        """The seconds `player`'s next decision may take before it loses the match."""
        reserve = self.reserves[player]
        if self.terms.mode is BankMode.DELAY:
            return self.terms.move_seconds + reserve
        return reserve

    def shown_reserve(self, player: int, elapsed: float) -> float:
        """`player`'s reserve `elapsed` seconds into their decision (their clock as shown)."""
        reserve, move = self.reserves[player], self.terms.move_seconds
        spent = max(0.0, elapsed - move) if self.terms.mode is BankMode.DELAY else elapsed
        return max(0.0, reserve - spent)

    def after_decision(self, player: int, elapsed: float) -> TimeBank:
        """The bank after `player` took a decision in `elapsed` seconds (at most `available`:
        a decision that took longer lost the match instead)."""
        move = self.terms.move_seconds
        left = self.shown_reserve(player, elapsed)
        if self.terms.mode is BankMode.BRONSTEIN:
            left = min(self.reserves[player], left + min(elapsed, move))
        elif self.terms.mode is BankMode.FISCHER:
            left += move
        reserves = list(self.reserves)
        reserves[player] = left
        return TimeBank(self.terms, (reserves[0], reserves[1]))

    def fields(self) -> dict[str, object]:
        """As stored with the match's state (a resume keeps each side's reserve)."""
        return {**self.terms.fields(), "reserves": list(self.reserves)}

    @classmethod
    def from_fields(cls, fields: dict[str, object]) -> TimeBank:
        reserves = fields["reserves"]
        if not (isinstance(reserves, list) and len(reserves) == 2
                and all(isinstance(value, (int, float)) and value >= 0 for value in reserves)):
            raise ValueError(f"not two reserves: {reserves!r}")
        return cls(BankTerms.from_fields(fields), (float(reserves[0]), float(reserves[1])))


def minutes_and_seconds(seconds: float) -> str:
    """`4:05`: a reserve as clocks show it (whole seconds, rounded up while any is left)."""
    whole = int(-(-seconds // 1))
    return f"{whole // 60}:{whole % 60:02d}"
