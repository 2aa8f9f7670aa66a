"""Situations built from matches, and decisions carried out on them."""
from __future__ import annotations

import pickle

import pytest

from fibs_server.bots import Action, CubeOwner, Decision, situation_for
from fibs_server.bots.situation import DROP, JOIN, ROLL, TAKE, move, resign
from fibs_server.rules.events import (
    DoubleAccepted,
    DoubleRejected,
    GameStarted,
    ResignOffered,
    Rolled,
    WinKind,
)
from fibs_server.rules.match import Phase

from ..rules.match_helpers import OPENING_31, POINT_MAKING_31, play_with, started


def test_only_the_player_to_act_has_a_situation():
    match, _ = started(script=[OPENING_31])  # player 0 moves first
    assert situation_for(match, 1) is None
    situation = situation_for(match, 0)
    assert situation.phase is Phase.MOVE
    assert situation.bot_on_roll and situation.dice == (3, 1)
    assert situation.position == match.position_seen_by(0)


def test_a_situation_is_seen_from_the_bot_whoever_is_on_roll():
    match, _ = started(script=[OPENING_31, (6, 5)])
    match.move(0, play_with(match, POINT_MAKING_31))  # player 1 may double now
    match.double(1)
    situation = situation_for(match, 0)
    assert situation.phase is Phase.DOUBLE_OFFERED
    assert not situation.bot_on_roll
    assert situation.position == match.position_seen_by(0)
    assert (situation.cube, situation.offered_cube) == (1, 2)
    assert situation_for(match, 1) is None  # waits for the answer


def test_cube_owner_and_score_are_the_bots_own():
    match, _ = started(script=[OPENING_31, (6, 5), (2, 1)])
    match.score = [1, 3]
    match.move(0, play_with(match, POINT_MAKING_31))
    match.double(1)
    match.accept(0)  # player 0 owns the cube; player 1 rolled 6-5
    situation = situation_for(match, 1)
    assert situation.cube_owner is CubeOwner.OPPONENT
    assert situation.score == (3, 1) and situation.away == (2, 4)
    assert not situation.may_double


def test_both_players_join_between_games_then_neither():
    match, _ = started(script=[OPENING_31, OPENING_31])
    match.resign(1, WinKind.SINGLE)
    match.accept(0)
    assert situation_for(match, 0).phase is Phase.BETWEEN_GAMES
    JOIN.apply(match, 0)
    assert situation_for(match, 0) is None
    assert isinstance(JOIN.apply(match, 1)[0], GameStarted)


def test_a_refused_resignation_is_remembered_for_the_rest_of_the_game():
    match, _ = started(script=[OPENING_31, (6, 5)])
    resign(WinKind.SINGLE).apply(match, 0)
    match.reject(1)
    assert situation_for(match, 0).refused_resignation is WinKind.SINGLE
    resign(WinKind.GAMMON).apply(match, 0)
    match.reject(1)
    match.resign(1, WinKind.SINGLE)  # the opponent's own offers do not count
    match.reject(0)
    assert situation_for(match, 0).refused_resignation is WinKind.GAMMON


def test_a_situation_and_a_decision_travel_to_another_process():
    match, _ = started(script=[OPENING_31])
    situation = situation_for(match, 0)
    decision = move(match.legal_plays()[0])
    assert pickle.loads(pickle.dumps(situation)) == situation
    assert pickle.loads(pickle.dumps(decision)) == decision


@pytest.mark.parametrize("answer, event", [(TAKE, DoubleAccepted), (DROP, DoubleRejected)])
def test_decisions_are_the_engines_actions(answer, event):
    match, _ = started(script=[OPENING_31, (6, 5), (2, 1)])
    move(play_with(match, POINT_MAKING_31)).apply(match, 0)
    assert Decision(Action.DOUBLE).apply(match, 1)
    assert isinstance(answer.apply(match, 0)[0], event)


def test_roll_and_resign_act_for_the_bot():
    match, _ = started(script=[OPENING_31, (6, 5)])
    move(play_with(match, POINT_MAKING_31)).apply(match, 0)
    assert ROLL.apply(match, 1) == [Rolled(1, (6, 5))]
    assert resign(WinKind.GAMMON).apply(match, 1) == [ResignOffered(1, WinKind.GAMMON, 2)]
