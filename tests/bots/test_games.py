"""Whole matches with bots through the match engine: every decision is one the engine accepts
(an illegal one raises IllegalAction and fails the test)."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fibs_server.bots import BEGINNER, EXPERT, INTERMEDIATE, Action
from fibs_server.rules.dice import SeededDice
from fibs_server.rules.match import Match
from fibs_server.rules.variants import Variant

from .helpers import MAX_ACTIONS, bot_turn, finished, play_bots, random_action

match_options = st.fixed_dictionaries({
    "length": st.sampled_from([1, 3, 5, 7, None]),
    "variant": st.sampled_from(list(Variant)),
    "crawford": st.booleans(),
    "autodouble": st.booleans(),
    "max_redoubles": st.sampled_from([0, 1, None]),
})
quick_levels = st.sampled_from([BEGINNER, INTERMEDIATE])


@settings(max_examples=15)
@given(options=match_options, levels=st.tuples(quick_levels, quick_levels),
       seed=st.integers(0, 2**32))
def test_bots_finish_matches_of_every_kind(options, levels, seed):
    match = Match(dice=SeededDice(seed), **options)
    play_bots(match, levels, random.Random(seed))
    assert finished(match)


@settings(max_examples=25)
@given(options=match_options, level=quick_levels, seed=st.integers(0, 2**32))
def test_a_bot_answers_whatever_its_opponent_does(options, level, seed):
    """Against a player acting at random: doubles at any time, redoubles (beavers) of the
    bot's doubles, resignations of every size."""
    rng = random.Random(seed)
    match = Match(dice=SeededDice(seed), **options)
    match.start()
    for _ in range(MAX_ACTIONS):
        if finished(match):
            break
        assert bot_turn(match, 0, level, rng) or random_action(match, 1, rng)
    else:
        raise AssertionError("the match did not end")


@pytest.mark.parametrize("length", [1, 3, None])
def test_the_expert_plays_matches_of_each_length(length):
    match = Match(length, SeededDice(length or 0))
    decisions = play_bots(match, (EXPERT, INTERMEDIATE), random.Random(1))
    assert finished(match)
    assert Action.MOVE in {decision.action for decision in decisions}


def test_the_same_seeds_replay_the_same_match():
    def history(seed):
        match = Match(5, SeededDice(seed))
        play_bots(match, (INTERMEDIATE, BEGINNER), random.Random(seed))
        return match.history

    assert history(3) == history(3)
    assert history(3) != history(4)
