"""A match's winning chances where it stands (bots/chances.py), which an abandoned rated match is
settled by: the match equity table's between games (the Crawford game's and after it), the
engine's cubeful chances in a game, a double's taker choosing, an unanswered resignation left
out, none where the engine has none; and the same chances from the bots' worker process
(`BotPool.chances`) as in this one."""
from __future__ import annotations

import bgbot_cpp
import pytest

from fibs_server.bots import BotPool
from fibs_server.bots import pool as pool_module
from fibs_server.bots.chances import match_chances
from fibs_server.bots.pool import Late, NoAnswer, WorkerPriority
from fibs_server.rules.events import WinKind
from fibs_server.rules.match import Match, Phase
from fibs_server.rules.variants import Variant

from ..rules.match_helpers import OPENING_31, POINT_MAKING_31, play_with, started


def game_won(match: Match, winner: int, kind: WinKind) -> None:
    """The player to act resigns `kind` (or accepts the winner's resignation)."""
    loser = 1 - winner
    if match.phase is Phase.BETWEEN_GAMES:
        match.join(0)
        match.join(1)
    if match.to_act != loser:
        match.move(match.turn, match.legal_plays()[0])
    match.resign(loser, kind)
    match.accept(winner)


def test_between_games_the_chances_are_the_tables_at_the_score():
    match, _ = started(5, script=(OPENING_31,))
    game_won(match, 0, WinKind.SINGLE)
    assert match.phase is Phase.BETWEEN_GAMES and match.score == [1, 0]
    assert match_chances(match.to_dict()) == pytest.approx(bgbot_cpp.get_met(4, 5))
    assert match_chances(Match(5, match.dice_source).to_dict()) == 0.5  # not started


def test_the_crawford_game_and_the_games_after_it_read_their_own_tables():
    match, _ = started(3, script=(OPENING_31, OPENING_31, OPENING_31))
    game_won(match, 0, WinKind.GAMMON)  # 2-0: the next game is the Crawford game
    crawford = match_chances(match.to_dict())
    assert crawford == pytest.approx(bgbot_cpp.get_met(1, 3, False))
    game_won(match, 1, WinKind.SINGLE)  # 2-1 after the Crawford game
    assert match_chances(match.to_dict()) == pytest.approx(bgbot_cpp.get_met(1, 2, True))
    assert crawford > bgbot_cpp.get_met(1, 3, True)  # the trailer's cube is dead in it


def test_in_a_game_both_sides_chances_come_from_the_side_to_act():
    match, _ = started(5, script=(OPENING_31, (6, 5)))
    to_move = match.turn
    opening = match_chances(match.to_dict())
    assert 0.5 < (opening if to_move == 0 else 1 - opening) < 0.6  # 31 is a good opening
    match.move(to_move, play_with(match, POINT_MAKING_31))
    assert match.phase is Phase.ROLL_OR_DOUBLE
    after = match_chances(match.to_dict())
    # The same position, now before the opponent's roll: about the same chances.
    assert after == pytest.approx(opening, abs=0.02)


def test_a_double_not_answered_is_worth_the_takers_better_choice_to_the_doubler():
    match, _ = started(5, script=(OPENING_31, (6, 5)))
    doubler = 1 - match.turn
    match.move(match.turn, play_with(match, POINT_MAKING_31))
    match.double(doubler)
    assert match.phase is Phase.DOUBLE_OFFERED
    chances = match_chances(match.to_dict())
    doublers = chances if doubler == 0 else 1 - chances
    # Far too early to double: the opponent takes, and the doubler's chances are below a pass's
    # (winning a point) and below not doubling.
    assert doublers < bgbot_cpp.get_met(4, 5)


def test_a_resignation_not_answered_binds_nobody():
    match, _ = started(5, script=(OPENING_31,))
    before = match_chances(match.to_dict())
    match.resign(match.turn, WinKind.BACKGAMMON)
    assert match.phase is Phase.RESIGN_OFFERED
    assert match_chances(match.to_dict()) == before


def test_where_the_engine_has_no_chances_there_are_none():
    assert match_chances(started(None)[0].to_dict()) is None  # unlimited
    assert match_chances(started(5, variant=Variant.HYPERGAMMON)[0].to_dict()) is None
    assert match_chances(started(27)[0].to_dict()) is None  # past the match equity table


async def test_the_worker_computes_the_chances_this_process_does():
    match, _ = started(5, script=(OPENING_31,))
    pool = BotPool(workers=1, time_budget=3600.0, priority=WorkerPriority.NORMAL)
    try:
        assert await pool.chances(match.to_dict()) == match_chances(match.to_dict())
        assert await pool.chances(started(None)[0].to_dict()) is None
        with pytest.raises(NoAnswer):
            await pool.chances({"not": "a match"})  # the worker raised: no answer
    finally:
        await pool.close()


async def test_chances_too_late_for_one_sweep_are_the_next_ones_not_computed_again(monkeypatch):
    """A late computation goes on in the worker; the next ask for the same state waits for it
    rather than queueing the same work behind it (on a loaded machine, with one worker, each
    ask would otherwise come later than the last, and the match would never be settled)."""
    match, _ = started(5, script=(OPENING_31,))
    pool = BotPool(workers=1, time_budget=3600.0, priority=WorkerPriority.NORMAL)
    submitted = []
    submit = pool._executor.submit
    monkeypatch.setattr(pool._executor, "submit",
                        lambda *arguments: submitted.append(arguments) or submit(*arguments))
    try:
        monkeypatch.setattr(pool_module, "CHANCES_BUDGET", 0.0)
        with pytest.raises(Late):
            await pool.chances(match.to_dict())
        monkeypatch.setattr(pool_module, "CHANCES_BUDGET", 3600.0)
        assert await pool.chances(match.to_dict()) == match_chances(match.to_dict())
        assert len(submitted) == 1
        assert await pool.chances(match.to_dict()) == match_chances(match.to_dict())
        assert len(submitted) == 2  # taken once: a later ask computes afresh
        assert pool.counts.late == 1
    finally:
        await pool.close()
