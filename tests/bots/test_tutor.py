"""The tutor's judgement (bots/tutor.py): a play against the best play of its roll, a roll
against a double, a take against a drop; what it does not judge; and the same verdict from the
bots' worker process (`BotPool.judge`) as in this one."""
from __future__ import annotations

from fibs_server.bots import BotPool, situation_for
from fibs_server.bots import tutor as bots_tutor
from fibs_server.bots.pool import WorkerPriority
from fibs_server.bots.situation import DOUBLE, DROP, ROLL, TAKE, move
from fibs_server.rules.match import Phase
from fibs_server.rules.variants import Variant

from ..rules.match_helpers import OPENING_31, POINT_MAKING_31, play_with, started


def opening():
    match, _ = started(script=(OPENING_31,))
    return match, situation_for(match, 0)


def test_the_best_opening_play_loses_nothing_and_running_both_back_checkers_loses_much():
    match, situation = opening()
    best = bots_tutor.judge(situation, move(play_with(match, POINT_MAKING_31)))
    assert best.loss == 0.0 and sorted(best.best.play.steps) == sorted(POINT_MAKING_31)
    running = bots_tutor.judge(situation, move(play_with(match, [(24, 21), (24, 23)])))
    assert running.loss > 0.08  # more than the analysis's "bad"
    assert running.best == best.best and running.best_equity == best.best_equity


def test_the_cube_is_judged_before_the_roll_and_when_answering():
    match, _ = started(script=(OPENING_31, (6, 5)))
    match.move(0, play_with(match, POINT_MAKING_31))
    before_roll = situation_for(match, 1)
    assert before_roll.phase is Phase.ROLL_OR_DOUBLE and before_roll.may_double
    assert bots_tutor.judge(before_roll, ROLL).loss == 0.0  # far too early to double
    assert bots_tutor.judge(before_roll, DOUBLE).loss > 0.08
    match.double(1)
    answering = situation_for(match, 0)
    assert bots_tutor.judge(answering, TAKE).loss == 0.0  # an easy take
    assert bots_tutor.judge(answering, DROP).loss > 0.2


def test_only_plays_and_cube_decisions_of_the_decider_are_judged():
    match, situation = opening()
    assert bots_tutor.judged(situation, move(play_with(match, POINT_MAKING_31)))
    assert not bots_tutor.judged(situation, DOUBLE)  # after the roll: no cube decision
    assert situation_for(match, 1) is None  # not the opponent's to decide
    hyper, _ = started(script=(OPENING_31,), variant=Variant.HYPERGAMMON)
    [any_play, *_] = hyper.legal_plays()
    assert not bots_tutor.judged(situation_for(hyper, 0), move(any_play))  # bgsage knows 15 a side


async def test_the_worker_judges_as_this_process_does():
    match, situation = opening()
    proposal = move(play_with(match, [(24, 21), (24, 23)]))
    pool = BotPool(workers=1, time_budget=3600.0, priority=WorkerPriority.NORMAL)
    try:
        assert await pool.judge(situation, proposal) == bots_tutor.judge(situation, proposal)
    finally:
        await pool.close()
