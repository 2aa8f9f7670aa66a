"""What each viewer of a match sees, as pure scripts (protocol.match_views)."""
from __future__ import annotations

from fibs_server.protocol.views import match_views
from fibs_server.protocol.views.match_views import WATCHERS, Say, ShowBoard
from fibs_server.rules import events as ev
from fibs_server.rules.board.notation import parse_move
from fibs_server.rules.dice import ScriptedDice
from fibs_server.rules.events import WinKind
from fibs_server.rules.match import Match
from fibs_server.rules.ratings import PlayerRating, rate_match

NAMES = ("alice", "bob")


def opened_match() -> tuple[Match, list]:
    """A 3-point match that alice (player 0, O) opens with 3-1."""
    match = Match(3, ScriptedDice([(3, 1), (6, 5)]), first_x_player=1)
    told = list(zip(match.start(), match.moments))
    return match, told


def test_a_move_is_done_or_a_board_for_the_mover_a_sentence_for_the_others():
    match, _ = opened_match()
    play = parse_move("8-5 6-5", match.position_seen_by(0), match.dice, "O", match.legal_results)
    events = match.move(0, play)
    moment = match.moments[0]
    assert isinstance(events[0], ev.Moved)
    script = match_views.event_script(match, NAMES, events[0], moment, None, None)
    assert script == [
        Say(0, ("Done.",), unless="autoboard"), ShowBoard(0, moment, "autoboard"),
        Say(1, ("alice moves 8-5 6-5 .",)), ShowBoard(1, moment, "autoboard"),
        Say(WATCHERS, ("alice moves 8-5 6-5 .",)), ShowBoard(WATCHERS, moment, "autoboard")]


def test_the_opening_roll_shows_both_players_the_board_whatever_their_toggles():
    match, told = opened_match()
    script = match_views.narration(match, NAMES, told)
    boards = [item for item in script if isinstance(item, ShowBoard)]
    assert [(board.to, board.only_with) for board in boards] == [
        (0, None), (1, None), (WATCHERS, "autoboard")]
    assert Say(WATCHERS, ("Starting a new game with bob.",), watching=0) in script
    assert Say(WATCHERS, ("Starting a new game with alice.",), watching=1) in script


def test_the_board_view_shows_the_moment_from_each_side():
    match, told = opened_match()
    moment = told[-1][1]
    mine = match_views.board_view(match, NAMES, moment, 0, as_you=True)
    theirs = match_views.board_view(match, NAMES, moment, 1, as_you=False)
    assert (mine.player_name, mine.opponent_name, mine.turn) == ("You", "bob", "player")
    assert (theirs.player_name, theirs.opponent_name, theirs.turn) == ("bob", "alice", "opponent")
    assert mine.player_dice == theirs.opponent_dice == (3, 1)
    assert mine.player_checkers == theirs.opponent_checkers


def test_may_double_is_zero_for_both_only_while_a_double_is_pending():
    match, _ = opened_match()
    opening = match.moment()
    assert [match_views.may_double_field(opening, i) for i in (0, 1)] == [True, True]
    match.move(0, parse_move("8-5 6-5", match.position_seen_by(0), match.dice, "O",
                             match.legal_results))
    match.double(1)
    pending = match.moment()
    assert [match_views.may_double_field(pending, i) for i in (0, 1)] == [False, False]
    match.accept(0)
    owned = match.moment()
    assert [match_views.may_double_field(owned, i) for i in (0, 1)] == [True, False]


def test_a_rated_end_gives_the_calculation_only_to_those_who_ask():
    match = Match(1, ScriptedDice([(3, 1)]), first_x_player=0)
    match.start()
    match.resign(0, WinKind.SINGLE)
    events = match.accept(1)
    told = list(zip(events, match.moments))
    rating = rate_match(PlayerRating(1500, 0), PlayerRating(1500, 0), 1)
    script = match_views.narration(match, NAMES, told, rating)
    calculations = [item for item in script if isinstance(item, Say) and
                    "rating calculation:" in item.lines]
    assert [(item.to, item.only_with) for item in calculations] == [(0, "ratings"), (1, "ratings")]
    assert script[-3:] == [Say(1, ("You win the 1 point match 1-0 .",)),
                           Say(0, ("bob wins the 1 point match 1-0 .",)),
                           Say(WATCHERS, ("bob wins the 1 point match 1-0 .",))]


def test_reminders_name_who_must_act():
    match, _ = opened_match()
    assert match_views.reminders(match, NAMES) == [(0, "Please move 2 pieces.")]
    match.resign(0, WinKind.GAMMON)
    assert match_views.reminders(match, NAMES) == [
        (1, "alice wants to resign. You will win 2 points. Type 'accept' or 'reject'.")]
