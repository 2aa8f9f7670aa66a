"""The FIBS rating formula (`help formula`).

Only matches of a fixed length are rated; unlimited matches never change ratings.
Everyone starts at 1500 with experience 0; experience grows by the match length.
"""
from __future__ import annotations

import dataclasses
import math

INITIAL_RATING = 1500.0


@dataclasses.dataclass(frozen=True)
class PlayerRating:
    rating: float = INITIAL_RATING
    experience: int = 0


@dataclasses.dataclass(frozen=True)
class RatingCalculation:
    """Every value of FIBS's rating calculation block, and the players' new ratings."""

    difference: float  # D = |r1 - r2|
    match_length: int  # N
    upset_probability: float  # Pu, the probability that the underdog wins
    probability: float  # P = 1 - Pu if the underdog won, Pu if the favourite won
    winner_k: float
    loser_k: float
    winner_change: float  # positive
    loser_change: float  # negative
    winner_after: PlayerRating
    loser_after: PlayerRating


def experience_factor(experience: int) -> float:
    """K = max(1, -experience/100 + 5), with the experience before the match."""
    return max(1.0, -experience / 100 + 5)


def rate_match(winner: PlayerRating, loser: PlayerRating, match_length: int) -> RatingCalculation:
    if match_length < 1:
        raise ValueError(f"only matches of 1 or more points are rated, not {match_length}")
    difference = abs(winner.rating - loser.rating)
    root_length = math.sqrt(match_length)
    upset_probability = 1 / (10 ** (difference * root_length / 2000) + 1)
    underdog_won = winner.rating < loser.rating
    probability = 1 - upset_probability if underdog_won else upset_probability
    winner_k = experience_factor(winner.experience)
    loser_k = experience_factor(loser.experience)
    winner_change = 4 * winner_k * root_length * probability
    loser_change = -4 * loser_k * root_length * probability
    return RatingCalculation(
        difference=difference, match_length=match_length,
        upset_probability=upset_probability, probability=probability,
        winner_k=winner_k, loser_k=loser_k,
        winner_change=winner_change, loser_change=loser_change,
        winner_after=PlayerRating(winner.rating + winner_change,
                                  winner.experience + match_length),
        loser_after=PlayerRating(loser.rating + loser_change, loser.experience + match_length),
    )


def fibs_expectation(rating: float, opponent: float, match_length: int) -> float:
    """E, the probability FIBS's formula gives a player of `rating` of winning a match of
    `match_length` against one of `opponent`: 1 / (10^((opponent - rating) * sqrt(N) / 2000) + 1)
    (the upset probability Pu is this of the underdog)."""
    return 1 / (10 ** ((opponent - rating) * math.sqrt(match_length) / 2000) + 1)


@dataclasses.dataclass(frozen=True)
class SettledRating:
    """A match settled rather than won (docs/FAIRNESS.md, "Abandoned matches"): each player
    is rated with their share of it, the fraction of a win it is."""

    match_length: int  # N
    shares: tuple[float, float]  # S, each player's share: the first's fraction f, and 1 - f
    expectations: tuple[float, float]  # E of each player (`fibs_expectation`)
    changes: tuple[float, float]
    after: tuple[PlayerRating, PlayerRating]


def rate_settled(first: PlayerRating, second: PlayerRating, match_length: int,
                 fraction: float) -> SettledRating:
    """The two players' new ratings when `first` is given `fraction` of the match (0 to 1)
    and `second` the rest. Each player's change is 4 * K * sqrt(N) * (S - E): FIBS's own
    formula (`rate_match`) written with S = 1 for a win and 0 for a loss, here with S their
    share. So a fraction of 1 rates as a win, 0 as a loss, and any other as the same mix of
    the two (f times a win's change plus (1 - f) times a loss's); the changes divided by each
    player's K sum to zero; and experience grows by N for both, as after any rated match."""
    if match_length < 1:
        raise ValueError(f"only matches of 1 or more points are rated, not {match_length}")
    if not 0.0 <= fraction <= 1.0:  # (NaN too)
        raise ValueError(f"a share of a match is from 0 to 1, not {fraction}")
    players = (first, second)
    shares = (fraction, 1.0 - fraction)
    expected = fibs_expectation(first.rating, second.rating, match_length)
    expectations = (expected, 1.0 - expected)
    root_length = math.sqrt(match_length)
    changes = tuple(4 * experience_factor(player.experience) * root_length * (share - expectation)
                    for player, share, expectation in zip(players, shares, expectations))
    after = tuple(PlayerRating(player.rating + change, player.experience + match_length)
                  for player, change in zip(players, changes))
    return SettledRating(match_length, shares, expectations, (changes[0], changes[1]),
                         (after[0], after[1]))
