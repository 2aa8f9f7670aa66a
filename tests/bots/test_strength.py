"""The strongest level beats the weakest clearly (at least 70 % of 60 one-point games: 49
at these seeds). The expert runs at its cheapest here, 1-ply (bgsage's bare network, gnubg's 0-ply),
to keep the test short; at 2-ply it is stronger still (bench/bot_decisions.py --strength)."""
from __future__ import annotations

import dataclasses
import random

from fibs_server.bots import BEGINNER, EXPERT
from fibs_server.rules.dice import SeededDice
from fibs_server.rules.match import Match

from .helpers import play_bots

GAMES = 60
CHEAPEST_EXPERT = dataclasses.replace(EXPERT, plies=1)


def test_the_expert_wins_at_least_70_percent_of_one_point_games_against_the_beginner():
    expert_wins = 0
    for game in range(GAMES):
        expert = game % 2  # each side half the time
        levels = (CHEAPEST_EXPERT, BEGINNER) if expert == 0 else (BEGINNER, CHEAPEST_EXPERT)
        match = Match(1, SeededDice(game))
        play_bots(match, levels, random.Random(game))
        expert_wins += match.score[expert] > match.score[1 - expert]
    assert expert_wins >= 0.7 * GAMES, expert_wins
