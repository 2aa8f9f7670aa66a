"""The match state machine: turns, opening roll, cube, resignations, results, Crawford."""
from __future__ import annotations

import contextlib
import json

import pytest

from fibs_server.rules.board.position import Position
from fibs_server.rules.dice import ScriptedDice
from fibs_server.rules.events import (
    CannotMove,
    CubeAutoDoubled,
    DoubleAccepted,
    Doubled,
    DoubleRejected,
    Forfeited,
    GameOver,
    GameStarted,
    JoinedNextGame,
    MatchOver,
    Moved,
    OpeningRoll,
    Redoubled,
    ResignAccepted,
    ResignOffered,
    ResignRejected,
    Rolled,
    WinKind,
)
from fibs_server.rules.match import IllegalAction, Match, Outcome, Phase
from fibs_server.rules.refusals import Refusal
from fibs_server.rules.variants import Variant

from .match_helpers import (
    OPENING_31,
    POINT_MAKING_31,
    arranged,
    bear_off_win,
    play_with,
    side,
    started,
)


@contextlib.contextmanager
def refused(reason: Refusal, **facts):
    with pytest.raises(IllegalAction) as caught:
        yield
    assert (caught.value.reason, caught.value.facts) == (reason, facts)


# --- opening roll -----------------------------------------------------------------------

def test_the_higher_opening_die_moves_first_with_both_dice():
    match, events = started(script=[(2, 6)])
    assert events == [GameStarted(1, 0, (0, 0), False), OpeningRoll(2, 6, starter=1)]
    assert (match.phase, match.turn, match.dice) == (Phase.MOVE, 1, (6, 2))
    assert match.pieces_to_move == 2


def test_opening_ties_are_rolled_again():
    match, events = started(script=[(4, 4), (1, 1), (5, 3)])
    assert events[1:] == [OpeningRoll(4, 4, None), OpeningRoll(1, 1, None), OpeningRoll(5, 3, 0)]
    assert match.cube == 1
    assert match.turn == 0


def test_option_lower_die_starts():
    match, events = started(script=[(2, 6)], lower_die_starts=True)
    assert events[-1] == OpeningRoll(2, 6, starter=0)
    assert (match.turn, match.dice) == (0, (2, 6))


def test_autodouble_doubles_the_centred_cube_on_each_opening_tie_in_unlimited_matches():
    match, events = started(None, script=[(4, 4), (2, 2), (5, 3)], autodouble=True)
    assert events[1:] == [OpeningRoll(4, 4, None), CubeAutoDoubled(2),
                          OpeningRoll(2, 2, None), CubeAutoDoubled(4), OpeningRoll(5, 3, 0)]
    assert (match.cube, match.cube_owner) == (4, None)


@pytest.mark.parametrize("length, autodouble", [(5, True), (None, False)])
def test_no_autodouble_in_fixed_length_matches_or_without_agreement(length, autodouble):
    match, events = started(length, script=[(4, 4), (5, 3)], autodouble=autodouble)
    assert not any(isinstance(event, CubeAutoDoubled) for event in events)
    assert match.cube == 1


def test_portes_starter_rolls_afresh_and_there_is_no_cube():
    match, events = started(script=[(2, 6), (4, 1)], variant=Variant.PORTES)
    assert events[-1] == Rolled(1, (4, 1))
    assert match.dice == (4, 1)
    assert not match.may_double(0) and not match.may_double(1)


@pytest.mark.parametrize("variant", [Variant.NACKGAMMON, Variant.HYPERGAMMON])
def test_variants_start_from_their_own_layout(variant):
    match, _ = started(variant=variant)
    assert match.position_seen_by(0) == Position.initial(variant)
    assert match.position_seen_by(1) == Position.initial(variant)


# --- turns --------------------------------------------------------------------------------

def test_a_move_passes_the_turn_and_the_board_turns_with_it():
    match, _ = started()
    play = play_with(match, POINT_MAKING_31)
    events = match.move(0, play)
    assert events == [Moved(0, play.steps)]
    assert (match.phase, match.turn, match.dice) == (Phase.ROLL_OR_DOUBLE, 1, None)
    assert match.position_seen_by(0) == play.result
    assert match.position_seen_by(1) == play.result.swap()
    assert match.legal_plays() == [] and match.pieces_to_move == 0


def test_roll_then_move():
    match, _ = started(script=[OPENING_31, (6, 6)])
    match.move(0, play_with(match, POINT_MAKING_31))
    assert match.roll(1) == [Rolled(1, (6, 6))]
    assert match.phase is Phase.MOVE and match.pieces_to_move == 4


def test_rolling_out_of_turn_or_twice():
    match, _ = started(script=[OPENING_31, (6, 5)])
    with refused(Refusal.NOT_YOUR_TURN_TO_ROLL):
        match.roll(1)
    with refused(Refusal.ALREADY_ROLLED):
        match.roll(0)
    match.move(0, play_with(match, POINT_MAKING_31))
    with refused(Refusal.NOT_YOUR_TURN_TO_ROLL):
        match.roll(0)


def test_moving_out_of_turn_before_rolling_or_illegally():
    match, _ = started()
    with refused(Refusal.NOT_YOUR_TURN_TO_MOVE):
        match.move(1, match.legal_plays()[0])
    wrong = Position.initial().apply(((24, 18), (13, 8)))
    with refused(Refusal.ILLEGAL_MOVE):
        match.move(0, wrong)
    match.move(0, play_with(match, POINT_MAKING_31))
    with refused(Refusal.ROLL_BEFORE_MOVING):
        match.move(1, match.position_seen_by(1).legal_plays((2, 1))[0])


def test_a_player_who_cannot_move_passes():
    # Player 0 is on the bar against a closed board; player 1 may then double.
    closed = side({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    position = Position((side({13: 14}, bar=1), closed))
    match = arranged(position, script=[(3, 4)])
    assert match.roll(0) == [Rolled(0, (3, 4)), CannotMove(0)]
    assert (match.phase, match.turn) == (Phase.ROLL_OR_DOUBLE, 1)


def test_only_one_checker_step_when_the_bar_blocks_the_rest():
    # The 6 enters on the 19 point; no 1 can be played before or after it.
    blocking = side({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 7: 2, 13: 3})
    match = arranged(Position((side({13: 14}, bar=1), blocking)), dice=(1, 6))
    assert match.pieces_to_move == 1


def test_actions_before_the_match_starts():
    match = Match(5, None)
    assert match.phase is Phase.NOT_STARTED
    with refused(Refusal.MATCH_NOT_STARTED):
        match.roll(0)
    with refused(Refusal.NO_NEXT_GAME):
        match.join(0)


def test_a_match_starts_once():
    match, _ = started()
    with refused(Refusal.MATCH_ALREADY_STARTED):
        match.start()


def test_players_are_0_and_1():
    match, _ = started()
    with pytest.raises(ValueError):
        match.roll(2)


# --- doubling ---------------------------------------------------------------------------

def doubling_position_for_1():
    match, _ = started(script=[OPENING_31, (5, 2), (6, 1)])
    match.move(0, play_with(match, POINT_MAKING_31))
    return match


def test_double_and_take_passes_the_cube_and_rolls_for_the_doubler():
    match = doubling_position_for_1()
    assert match.may_double(0) and match.may_double(1)
    assert match.double(1) == [Doubled(1, 2)]
    assert match.phase is Phase.DOUBLE_OFFERED
    assert not match.may_double(0) and not match.may_double(1)
    assert match.accept(0) == [DoubleAccepted(0, 2), Rolled(1, (5, 2))]
    assert (match.cube, match.cube_owner, match.phase) == (2, 0, Phase.MOVE)
    assert match.may_double(0) and not match.may_double(1)


def test_double_and_drop_gives_the_doubler_the_current_value():
    match = doubling_position_for_1()
    match.double(1)
    assert match.reject(0) == [DoubleRejected(0, winner=1, points=1),
                               GameOver(1, 1, WinKind.SINGLE, (0, 1))]
    assert match.phase is Phase.BETWEEN_GAMES


def test_owner_redoubles_next_turn_and_non_owner_is_rolled_for():
    match, _ = started(script=[OPENING_31, (5, 2), (6, 1), (4, 3), (2, 2)])
    match.move(0, play_with(match, POINT_MAKING_31))
    match.double(1)
    match.accept(0)  # player 1 rolls 5-2, player 0 owns the cube at 2
    events = match.move(1, match.legal_plays()[0])
    assert len(events) == 1  # player 0 may redouble, so nobody rolls for them
    assert match.phase is Phase.ROLL_OR_DOUBLE and match.turn == 0
    assert match.double(0) == [Doubled(0, 4)]
    assert match.accept(1) == [DoubleAccepted(1, 4), Rolled(0, (6, 1))]
    assert not match.may_double(0) and match.may_double(1)
    with refused(Refusal.OPPONENT_OWNS_CUBE):
        match.double(0)
    match.move(0, match.legal_plays()[0])
    assert match.roll(1) == [Rolled(1, (4, 3))]
    events = match.move(1, match.legal_plays()[0])
    assert events[-1] == Rolled(0, (2, 2))  # player 0 cannot double: FIBS rolls for them


def test_doubling_errors():
    match = doubling_position_for_1()
    with refused(Refusal.NOT_YOUR_TURN_TO_DOUBLE):
        match.double(0)
    match.roll(1)
    with refused(Refusal.DOUBLE_BEFORE_ROLLING):
        match.double(1)
    with refused(Refusal.WAIT_FOR_OPPONENT_TO_MOVE):
        match.double(0)


def test_answering_a_double():
    match = doubling_position_for_1()
    with refused(Refusal.NOTHING_TO_ANSWER):
        match.accept(0)
    match.double(1)
    with refused(Refusal.NOTHING_TO_ANSWER):
        match.accept(1)
    with refused(Refusal.ANSWER_DOUBLE_FIRST):
        match.roll(0)
    with refused(Refusal.AWAITING_ANSWER_TO_DOUBLE):
        match.roll(1)
    with refused(Refusal.AWAITING_ANSWER_TO_DOUBLE):
        match.resign(1, WinKind.SINGLE)


def test_no_cube_in_a_1_point_match():
    match, _ = started(1, script=[OPENING_31, (4, 2)])
    assert not match.may_double(0) and not match.may_double(1)
    assert match.move(0, play_with(match, POINT_MAKING_31))[-1] == Rolled(1, (4, 2))
    assert not match.is_crawford_game
    with refused(Refusal.CUBE_NOT_USED):
        match.double(1)


def test_a_match_without_the_cube_never_offers_it_and_keeps_that_when_saved():
    match, _ = started(5, script=[OPENING_31, (4, 2)], cube=False)
    assert not match.may_double(0) and not match.may_double(1)
    match.move(0, play_with(match, POINT_MAKING_31))  # player 1 is rolled for: no cube to use
    with refused(Refusal.CUBE_NOT_USED):
        match.double(1)
    restored = Match.from_dict(match.to_dict(), ScriptedDice([]))
    assert not restored.cube_used and restored.to_dict() == match.to_dict()


# --- instant redoubles (unlimited matches) ---------------------------------------------------

def unlimited_double_offered(max_redoubles):
    match = arranged(Position.initial(), turn=1, length=None, script=[(6, 5)],
                     max_redoubles=max_redoubles)
    match.double(1)
    return match


def test_beaver_raccoon_otter_keep_the_cube_with_the_doubled_player():
    match = unlimited_double_offered(max_redoubles=None)
    assert match.redouble(0, "beaver") == [Redoubled(0, 4, 1)]
    assert match.redouble(1, "raccoon") == [Redoubled(1, 8, 2)]
    assert match.redouble(0, "otter") == [Redoubled(0, 16, 3)]
    assert match.redouble(1) == [Redoubled(1, 32, 4)]
    assert match.accept(0) == [DoubleAccepted(0, 32), Rolled(1, (6, 5))]
    assert (match.cube, match.cube_owner, match.turn) == (32, 0, 1)


def test_refusing_a_redouble_loses_the_value_accepted_by_it():
    match = unlimited_double_offered(max_redoubles=None)
    match.redouble(0)
    assert match.reject(1) == [DoubleRejected(1, winner=0, points=2),
                               GameOver(0, 2, WinKind.SINGLE, (2, 0))]
    assert match.phase is Phase.BETWEEN_GAMES  # unlimited matches are never over


def test_redoubles_are_limited_by_the_players_settings():
    with refused(Refusal.NO_MORE_REDOUBLES):
        unlimited_double_offered(max_redoubles=0).redouble(0)
    match = unlimited_double_offered(max_redoubles=1)
    match.redouble(0)
    with refused(Refusal.NO_MORE_REDOUBLES):
        match.redouble(1)


def test_redouble_errors():
    match = unlimited_double_offered(max_redoubles=None)
    with refused(Refusal.OPPONENT_DID_NOT_DOUBLE):
        match.redouble(1)
    with refused(Refusal.WRONG_REDOUBLE_NAME, redouble_name="raccoon"):
        match.redouble(0, "raccoon")
    fixed = doubling_position_for_1()
    fixed.double(1)
    with refused(Refusal.REDOUBLES_ONLY_UNLIMITED):
        fixed.redouble(0)


# --- resigning -------------------------------------------------------------------------

@pytest.mark.parametrize("kind", list(WinKind))
def test_resignation_is_worth_its_kind_times_the_cube(kind):
    match = doubling_position_for_1()
    match.double(1)
    match.accept(0)  # cube 2; player 1 is moving
    assert match.resign(0, kind) == [ResignOffered(0, kind, 2 * kind)]
    assert match.phase is Phase.RESIGN_OFFERED
    assert match.accept(1)[:2] == [ResignAccepted(1, 2 * kind),
                                   GameOver(1, 2 * kind, kind, (0, 2 * kind))]


def test_rejected_resignation_resumes_the_game_where_it_was():
    match = doubling_position_for_1()
    match.resign(1, WinKind.GAMMON)
    with refused(Refusal.ANSWER_RESIGNATION_FIRST):
        match.double(0)
    with refused(Refusal.AWAITING_ANSWER_TO_RESIGNATION):
        match.roll(1)
    with refused(Refusal.NOTHING_TO_ANSWER):
        match.accept(1)
    assert match.reject(0) == [ResignRejected(0)]
    assert (match.phase, match.turn) == (Phase.ROLL_OR_DOUBLE, 1)
    match.roll(1)
    resignations = match.game_events_of(-1, ResignOffered, ResignRejected)
    assert resignations == [ResignOffered(1, WinKind.GAMMON, 2), ResignRejected(0)]
    assert resignations == [event for event in match.game_events(-1)
                            if isinstance(event, (ResignOffered, ResignRejected))]


def test_portes_has_no_backgammon_resignation():
    match, _ = started(script=[(2, 6), (4, 1)], variant=Variant.PORTES)
    assert match.resign(0, WinKind.BACKGAMMON) == [ResignOffered(0, WinKind.GAMMON, 2)]


# --- results -----------------------------------------------------------------------------

@pytest.mark.parametrize("loser, kind", [
    (side({6: 14}), WinKind.SINGLE),                    # one checker off already
    (side({6: 15}), WinKind.GAMMON),
    (side({6: 14, 19: 1}), WinKind.BACKGAMMON),         # in the winner's home board
    (side({6: 14}, bar=1), WinKind.BACKGAMMON),         # on the bar
    (side({6: 14, 18: 1}), WinKind.GAMMON),             # just outside it
])
def test_game_result_kinds(loser, kind):
    match = arranged(bear_off_win(loser), turn=1, dice=(2, 1))
    play = match.legal_plays()[0]
    assert match.move(1, play)[-1] == GameOver(1, kind, kind, (0, kind))


def test_results_are_multiplied_by_the_cube():
    match = arranged(bear_off_win(side({6: 15})), dice=(2, 1), length=9)
    match.cube, match.cube_owner = 4, 0
    assert match.move(0, match.legal_plays()[0])[-1] == GameOver(0, 8, WinKind.GAMMON, (8, 0))


def test_portes_has_no_backgammons():
    match = arranged(bear_off_win(side({6: 14}, bar=1)), dice=(2, 1), variant=Variant.PORTES)
    assert match.move(0, match.legal_plays()[0])[-1] == GameOver(0, 2, WinKind.GAMMON, (2, 0))


def test_hypergammon_game_ends_with_three_checkers():
    position = Position((side({1: 1}), side({13: 3})), checkers_per_side=3)
    match = arranged(position, dice=(2, 1), variant=Variant.HYPERGAMMON)
    assert match.move(0, match.legal_plays()[0])[-1] == GameOver(0, 2, WinKind.GAMMON, (2, 0))


def test_match_ends_when_a_player_reaches_the_length_and_keeps_the_surplus():
    match = arranged(bear_off_win(side({6: 14}, bar=1)), dice=(2, 1), length=1)
    events = match.move(0, match.legal_plays()[0])
    assert events[-2:] == [GameOver(0, 3, WinKind.BACKGAMMON, (3, 0)), MatchOver(0, (3, 0))]
    assert match.is_over and match.phase is Phase.MATCH_OVER
    assert match.winner == 0 and match.outcome() == Outcome(0, (3, 0))
    with refused(Refusal.MATCH_OVER):
        match.roll(0)
    with refused(Refusal.NO_NEXT_GAME):
        match.join(0)


def test_the_winner_and_outcome_are_known_once_the_match_is_over():
    match, _ = started(3, script=[OPENING_31])
    match.resign(0, WinKind.BACKGAMMON)
    assert (match.winner, match.outcome(), match.to_act) == (None, None, 1)
    match.accept(1)
    outcome = match.outcome()
    assert (match.winner, outcome, outcome.loser) == (1, Outcome(1, (0, 3)), 0)
    assert match.to_act is None


# --- between games, colours, Crawford ---------------------------------------------------------

def finish_game_by_resignation(match, loser, kind=WinKind.SINGLE):
    match.resign(loser, kind)
    return match.accept(1 - loser)


def test_next_game_starts_when_both_join_and_colours_swap():
    match, _ = started(script=[OPENING_31, (1, 5)], first_x_player=1)
    assert (match.x_player, match.colour(1), match.colour(0)) == (1, "X", "O")
    finish_game_by_resignation(match, loser=1)
    assert (match.to_act, match.winner) == (None, None)
    with refused(Refusal.GAME_OVER):
        match.roll(0)
    assert match.join(1) == [JoinedNextGame(1)]
    with refused(Refusal.ALREADY_JOINED):
        match.join(1)
    events = match.join(0)
    assert events == [GameStarted(2, 0, (1, 0), False), OpeningRoll(1, 5, 1)]
    assert (match.game_number, match.x_player, match.colour(0)) == (2, 0, "X")
    assert (match.cube, match.cube_owner) == (1, None)
    assert match.position_seen_by(0) == Position.initial()


def next_game(match):
    match.join(0)
    return match.join(1)


def test_crawford_game_follows_the_first_time_a_player_reaches_match_point():
    # 3-point match: 2-0 after game 1, Crawford game 2, then post-Crawford games.
    match, _ = started(3, script=[OPENING_31, (5, 2), (6, 1), (3, 4)])
    finish_game_by_resignation(match, loser=1, kind=WinKind.GAMMON)
    assert not match.is_crawford_game and not match.is_post_crawford
    events = next_game(match)
    assert events[0] == GameStarted(2, 1, (2, 0), crawford=True)
    assert match.is_crawford_game and not match.is_post_crawford
    assert not match.may_double(0) and not match.may_double(1)
    events = match.move(0, match.legal_plays()[0])
    assert events[-1] == Rolled(1, (6, 1))  # no doubling: FIBS rolls for player 1
    with refused(Refusal.CRAWFORD_GAME):
        match.double(1)
    finish_game_by_resignation(match, loser=0)
    events = next_game(match)
    assert events[0] == GameStarted(3, 0, (2, 1), crawford=False)
    assert match.is_post_crawford and not match.is_crawford_game
    match.move(1, match.legal_plays()[0])
    assert match.may_double(0) and match.phase is Phase.ROLL_OR_DOUBLE


def test_without_the_crawford_rule_the_trailer_may_double_at_match_point():
    match, _ = started(3, script=[OPENING_31, (5, 2)], crawford=False)
    finish_game_by_resignation(match, loser=1, kind=WinKind.GAMMON)
    next_game(match)
    assert not match.is_crawford_game and not match.is_post_crawford
    assert match.may_double(0) and match.may_double(1)


def test_history_keeps_every_game_apart():
    match, _ = started(script=[OPENING_31, (6, 5), (2, 4)])
    match.move(0, play_with(match, POINT_MAKING_31))
    match.double(1)
    match.reject(0)
    next_game(match)
    first, second = match.history
    assert [type(event) for event in first] == [GameStarted, OpeningRoll, Moved, Doubled,
                                               DoubleRejected, GameOver]
    assert [type(event) for event in second] == [GameStarted, OpeningRoll]


# --- saving ----------------------------------------------------------------------------------

def round_trip(match):
    saved = json.loads(json.dumps(match.to_dict()))
    restored = Match.from_dict(saved, match.dice_source)
    assert restored.to_dict() == match.to_dict()
    return restored


def test_pending_redouble_survives_saving():
    match = unlimited_double_offered(max_redoubles=None)
    match.redouble(0, "beaver")
    restored = round_trip(match)
    assert restored.phase is Phase.DOUBLE_OFFERED
    assert restored.redouble(1, "raccoon") == [Redoubled(1, 8, 2)]


def test_pending_resignation_survives_saving():
    match = doubling_position_for_1()
    match.resign(0, WinKind.BACKGAMMON)
    restored = round_trip(match)
    assert restored.phase is Phase.RESIGN_OFFERED
    assert restored.accept(1)[-1] == GameOver(1, 3, WinKind.BACKGAMMON, (0, 3))


def test_waiting_for_the_next_game_survives_saving():
    match, _ = started(3, script=[OPENING_31, (2, 5)], first_x_player=1)
    finish_game_by_resignation(match, loser=1, kind=WinKind.GAMMON)
    match.join(1)
    restored = round_trip(match)
    assert restored.join(0)[0] == GameStarted(2, 0, (2, 0), crawford=True)
    assert restored.is_crawford_game


# --- moments: the state after each event, for the boards sent with it ----------------------

def test_each_event_has_the_moment_after_it_before_the_automatic_steps_that_follow():
    # A 1-point match: after player 0's move the engine rolls for player 1 at once (no cube),
    # and then player 1 cannot move, so the turn comes back to player 0, who is rolled for too.
    closed = side({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    match = arranged(Position((closed, side({13: 14}, bar=1))), dice=(6, 5), length=1,
                     script=[(3, 4), (2, 1)])
    events = match.move(0, match.legal_plays()[0])
    assert [type(e) for e in events] == [Moved, Rolled, CannotMove, Rolled]
    moved, rolled, cannot, rolled_again = match.moments
    # after the move: player 1 to roll, no dice on the board yet
    assert (moved.phase, moved.turn, moved.dice, moved.pieces_to_move) == \
        (Phase.ROLL_OR_DOUBLE, 1, None, 0)
    assert moved.position.checkers[1] == match.position_seen_by(0).checkers[0]
    # after the roll: the dice are on the board, nothing to move
    assert (rolled.phase, rolled.turn, rolled.dice, rolled.pieces_to_move) == \
        (Phase.MOVE, 1, (3, 4), 0)
    # after `can't move`: the turn has passed back, before the roll made for player 0
    assert (cannot.phase, cannot.turn, cannot.dice) == (Phase.ROLL_OR_DOUBLE, 0, None)
    assert (rolled_again.phase, rolled_again.turn, rolled_again.dice) == (Phase.MOVE, 0, (2, 1))
    assert rolled_again == match.moment()


def test_a_take_has_its_moment_before_the_doublers_roll():
    match, _ = started(script=[OPENING_31, (6, 4)])
    match.move(0, play_with(match, POINT_MAKING_31))
    match.double(1)
    offered = match.moments[-1]
    assert offered.double_offer is not None and offered.to_act == match.to_act == 0
    events = match.accept(0)
    assert match.to_act == 1
    assert [type(e) for e in events] == [DoubleAccepted, Rolled]
    taken, rolled = match.moments
    assert (taken.cube, taken.cube_owner, taken.dice, taken.to_act) == (2, 0, None, 1)
    assert (rolled.dice, rolled.phase) == ((6, 4), Phase.MOVE)


def test_joining_the_next_game_alone_has_a_moment_too():
    match, _ = started(script=[OPENING_31])
    match.resign(1, WinKind.SINGLE)
    match.accept(0)
    assert match.join(1) == [JoinedNextGame(1)]
    assert [moment.phase for moment in match.moments] == [Phase.BETWEEN_GAMES]


# --- forfeiting a match ----------------------------------------------------------------------

def test_a_forfeit_gives_the_opponent_the_points_they_lack_and_ends_the_match():
    match, _ = started(length=5)
    match.score = [1, 3]
    events = match.forfeit(0)
    assert events == [Forfeited(0, 2, (1, 5)), MatchOver(1, (1, 5))]
    assert match.is_over and match.winner == 1 and match.outcome() == Outcome(1, (1, 5))
    assert match.dice is None and match.to_act is None


def test_a_forfeit_ends_pending_offers_and_is_kept_in_the_history_and_saved_form():
    match, _ = started(length=3, script=[OPENING_31, (6, 6)])
    match.move(0, play_with(match, POINT_MAKING_31))
    match.double(1)
    events = match.forfeit(1)  # the doubler gives up the match
    assert events == [Forfeited(1, 3, (3, 0)), MatchOver(0, (3, 0))]
    assert match.double_offer is None and match.winner == 0
    assert match.history[-1][-2:] == events
    saved = Match.from_dict(json.loads(json.dumps(match.to_dict())), ScriptedDice([]))
    assert saved.is_over and saved.winner == 0 and saved.history == match.history


def test_a_forfeit_between_games_ends_the_match_too():
    match, _ = started(length=3)
    match.resign(1, WinKind.SINGLE)
    match.accept(0)
    assert match.phase is Phase.BETWEEN_GAMES
    assert match.forfeit(0)[-1] == MatchOver(1, (1, 3))


def test_only_a_running_limited_match_can_be_forfeited():
    match = Match(5, ScriptedDice([]))
    with refused(Refusal.MATCH_NOT_STARTED):
        match.forfeit(0)
    over, _ = started(length=1)
    over.forfeit(1)
    with refused(Refusal.MATCH_OVER):
        over.forfeit(0)
    unlimited, _ = started(length=None)
    with pytest.raises(ValueError):
        unlimited.forfeit(0)
