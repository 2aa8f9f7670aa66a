"""Decisions in clear cases, at each level that makes them."""
from __future__ import annotations

import random

import pytest

from fibs_server.bots import (
    BEGINNER,
    EXPERT,
    INTERMEDIATE,
    RULES_OF_THUMB,
    Action,
    decide,
    situation_for,
)
from fibs_server.bots.situation import Decision
from fibs_server.rules.board.position import Position
from fibs_server.rules.events import WinKind
from fibs_server.rules.match import Match
from fibs_server.rules.variants import Variant

from ..rules.match_helpers import OPENING_31, POINT_MAKING_31, arranged, side, started
from .helpers import self_play_positions

ENGINE_LEVELS = [BEGINNER, INTERMEDIATE, EXPERT]
ALL_LEVELS = [RULES_OF_THUMB, *ENGINE_LEVELS]

# Races: the side on roll has 10 checkers on its points 1..5 (5 borne off), the other needs
# about three more rolls (no gammons either way).
WINNING_RACE = Position((side({1: 2, 2: 2, 3: 2, 4: 2, 5: 2}), side({4: 2, 5: 2, 6: 3, 7: 3})))
# The other side bears its last checker off next turn, whatever the side on roll does: a single
# game lost (checkers off already), a gammon (none off, none in the other's home board) or a
# backgammon (all in the other's home board).
LOST_SINGLE = Position((side({1: 2, 2: 2, 3: 2, 4: 2, 5: 2}), side({1: 1})))
LOST_GAMMON = Position((side({12: 15}), side({1: 1})))
LOST_BACKGAMMON = Position((side({20: 15}), side({1: 1})))


def bots_decision(match: Match, level, seed: int = 1) -> Decision:
    return decide(situation_for(match, 0), level, random.Random(seed))


def doubled_by_opponent(position_of_doubler: Position, length: int | None = None) -> Match:
    match = arranged(position_of_doubler, turn=1, length=length)
    match.double(1)
    return match


def resigned_by_opponent(position_of_resigner: Position, kind: WinKind,
                         length: int | None = None, score=(0, 0)) -> Match:
    match = arranged(position_of_resigner, turn=1, length=length)
    match.score = list(score)
    match.resign(1, kind)
    return match


@pytest.mark.parametrize("level", ALL_LEVELS, ids=lambda level: level.name)
@pytest.mark.parametrize("length", [None, 5])
def test_a_big_race_lead_is_doubled_and_dropped(level, length):
    assert bots_decision(arranged(WINNING_RACE, length=length), level).action is Action.DOUBLE
    answer = bots_decision(doubled_by_opponent(WINNING_RACE, length), level)
    assert answer.action is Action.DROP


@pytest.mark.parametrize("level", ALL_LEVELS, ids=lambda level: level.name)
def test_the_opening_is_no_double_and_an_early_double_is_taken(level):
    assert bots_decision(arranged(Position.initial(), length=None), level).action is Action.ROLL
    answer = bots_decision(doubled_by_opponent(Position.initial()), level)
    assert answer.action is Action.TAKE


@pytest.mark.parametrize("level", ALL_LEVELS, ids=lambda level: level.name)
def test_a_beaver_of_the_bots_good_double_is_taken(level):
    match = arranged(WINNING_RACE, length=None, max_redoubles=1)
    match.double(0)
    match.redouble(1, "beaver")
    assert bots_decision(match, level).action is Action.TAKE


@pytest.mark.parametrize("level", ENGINE_LEVELS, ids=lambda level: level.name)
def test_a_beaver_of_a_double_in_a_lost_game_is_dropped(level):
    match = arranged(LOST_SINGLE, length=None, max_redoubles=1)
    match.double(0)
    match.redouble(1, "beaver")
    assert bots_decision(match, level).action is Action.DROP


@pytest.mark.parametrize("level", ENGINE_LEVELS, ids=lambda level: level.name)
@pytest.mark.parametrize("position, kind", [(LOST_SINGLE, WinKind.SINGLE),
                                            (LOST_GAMMON, WinKind.GAMMON),
                                            (LOST_BACKGAMMON, WinKind.BACKGAMMON)])
def test_a_lost_game_is_resigned_for_what_it_is_lost(level, position, kind):
    decision = bots_decision(arranged(position, length=None), level)
    assert decision == Decision(Action.RESIGN, resignation=kind)


@pytest.mark.parametrize("level", ENGINE_LEVELS, ids=lambda level: level.name)
def test_a_refused_resignation_is_not_offered_again(level):
    match = arranged(LOST_SINGLE, length=None)
    match.resign(0, WinKind.SINGLE)
    match.reject(1)
    assert bots_decision(match, level).action is Action.ROLL


@pytest.mark.parametrize("level", ENGINE_LEVELS, ids=lambda level: level.name)
def test_a_game_with_chances_left_is_not_resigned(level):
    almost_lost = Position((side({6: 15}), side({1: 2, 2: 2})))  # a few rolls to hope for
    assert bots_decision(arranged(almost_lost, length=None), level).action is Action.ROLL


def test_the_rules_of_thumb_never_resign():
    assert bots_decision(arranged(LOST_GAMMON, length=None), RULES_OF_THUMB).action is Action.ROLL


@pytest.mark.parametrize("level", ALL_LEVELS, ids=lambda level: level.name)
@pytest.mark.parametrize("position, kind", [(LOST_SINGLE, WinKind.SINGLE),
                                            (LOST_GAMMON, WinKind.GAMMON),
                                            (LOST_GAMMON, WinKind.BACKGAMMON)])
def test_a_fair_resignation_is_accepted(level, position, kind):
    answer = bots_decision(resigned_by_opponent(position, kind), level)
    assert answer.action is Action.ACCEPT_RESIGNATION


@pytest.mark.parametrize("level", ALL_LEVELS, ids=lambda level: level.name)
def test_a_single_game_offered_for_a_sure_gammon_is_rejected(level):
    answer = bots_decision(resigned_by_opponent(LOST_GAMMON, WinKind.SINGLE), level)
    assert answer.action is Action.REJECT_RESIGNATION


@pytest.mark.parametrize("level", ALL_LEVELS, ids=lambda level: level.name)
def test_a_resignation_that_wins_the_match_is_accepted(level):
    match = resigned_by_opponent(Position.initial(), WinKind.SINGLE, length=5, score=(4, 2))
    assert bots_decision(match, level).action is Action.ACCEPT_RESIGNATION


@pytest.mark.parametrize("level", [RULES_OF_THUMB, EXPERT], ids=lambda level: level.name)
def test_the_opening_31_makes_the_5_point(level):
    match, _ = started(script=[OPENING_31])
    decision = bots_decision(match, level)
    assert decision.action is Action.MOVE
    assert sorted(decision.play.steps) == sorted(POINT_MAKING_31)


def test_the_same_seed_gives_the_same_noise_and_another_seed_other_plays():
    match, _ = started(script=[(6, 5)])
    situation = situation_for(match, 0)
    plays = {seed: decide(situation, INTERMEDIATE, random.Random(seed)).play
             for seed in range(40)}
    assert plays == {seed: decide(situation, INTERMEDIATE, random.Random(seed)).play
                     for seed in range(40)}
    assert len(set(plays.values())) > 1
    best = decide(situation, EXPERT, random.Random(0)).play  # the expert has no noise
    assert all(decide(situation, EXPERT, random.Random(seed)).play == best for seed in (1, 2))
    assert sorted(best.steps) == [(18, 13), (24, 18)]  # 6-5: the lover's leap


@pytest.mark.parametrize("level", ALL_LEVELS, ids=lambda level: level.name)
def test_no_double_in_portes_nor_when_the_cube_is_dead(level):
    portes = arranged(WINNING_RACE, length=None, variant=Variant.PORTES)
    assert not situation_for(portes, 0).may_double
    assert bots_decision(portes, level).action is Action.ROLL
    dead = arranged(WINNING_RACE, length=5)
    dead.score = [4, 0]  # any win wins the match: doubling only gives the opponent a chance
    assert bots_decision(dead, level).action is Action.ROLL


@pytest.mark.parametrize("level", [INTERMEDIATE, EXPERT], ids=lambda level: level.name)
def test_the_last_checker_is_borne_off_with_both_dice_when_a_hit_comes_first(level):
    """bgsage offers 5/off with the 5 alone beside 5/3*/off; both dice can be played, so
    FIBS (and gnubg) allow only the latter. The bot must play it, never the shorter one."""
    position = Position((side({5: 1}), side({3: 1, 5: 2, 15: 1, 22: 1})))
    match = arranged(position, dice=(5, 2))
    [legal] = match.legal_plays()
    decision = bots_decision(match, level)
    assert decision.action is Action.MOVE and decision.play == legal


def test_a_match_longer_than_the_match_equity_table_is_played_as_money():
    """Beyond the table (25 away) every score reads the same: without this, every play would
    look equal and every slightly worse game lost."""
    rng = random.Random(7)
    for position in self_play_positions(40, seed=8)[::4]:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        if not position.legal_plays(dice):
            continue
        plays = {length: bots_decision(arranged(position, dice=dice, length=length), EXPERT)
                 for length in (None, 49, 99)}
        assert plays[49] == plays[99] == plays[None], position.position_id()
    behind = Position((side({6: 5, 8: 3, 13: 5, 24: 2}), side({6: 5, 8: 3, 13: 5, 20: 2})))
    for length in (25, 49, 99):
        assert bots_decision(arranged(behind, length=length), EXPERT).action is Action.ROLL
