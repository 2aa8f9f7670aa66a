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
