"""Match-play texts, checked against exact expected text."""
from __future__ import annotations

import pytest

from fibs_server.protocol.wording.match_texts import (
    Roll,
    match_report_line,
    move_list_lines,
    pip_counts_line,
    points,
    rating_calculation_lines,
    score_line,
    wins_match_line,
    you_win_match_line,
)
from fibs_server.rules.ratings import PlayerRating, rate_match


@pytest.mark.parametrize("count, text", [(0, "0 points"), (1, "1 point"), (2, "2 points"),
                                         (64, "64 points")])
def test_points_is_singular_only_for_one(count, text):
    assert points(count) == text


def test_score_lines():
    assert score_line(5, "alice", 1, "bob", 0) == "score in 5 point match: alice-1 bob-0"
    assert score_line(None, "A", 3, "B", 5) == "score in unlimited match: A-3 B-5"


def test_end_of_match_lines():
    assert you_win_match_line(5, 5, 2) == "You win the 5 point match 5-2 ."
    assert wins_match_line("alice", 5, 5, 2) == "alice wins the 5 point match 5-2 ."
    assert (match_report_line("BlunderBot", "LunaRossa", 1, 1, 0)
            == "BlunderBot wins a 1 point match against LunaRossa  1-0 .")


def test_rating_block_for_two_new_players_in_a_3_point_match():
    calculation = rate_match(PlayerRating(1500, 0), PlayerRating(1500, 0), 3)
    assert rating_calculation_lines("alice", "bob", 0, 0, calculation) == [
        "rating calculation:",
        "rating difference D=0.000000",
        "match length      N=3",
        "Experience: alice 0 - bob 0",
        "Probability that underdog wins: Pu=1/(10^(D*sqrt(N)/2000)+1)=0.500000",
        "P=0.500000 is 1-Pu if underdog wins and Pu if favorite wins",
        "K=max(1 , -Experience/100+5) for alice: 5.000000",
        "change for alice: 4*K*sqrt(N)*P=17.320508",
        "K=max(1 , -Experience/100+5) for bob: 5.000000",
        "change for bob: -4*K*sqrt(N)*P=-17.320508",
    ]
    # Two new players in a 3-point match: it ends at 1517.32 / 1482.68.
    assert round(calculation.winner_after.rating, 2) == 1517.32
    assert round(calculation.loser_after.rating, 2) == 1482.68


def test_rating_block_when_the_underdog_wins():
    calculation = rate_match(PlayerRating(1600.0, 250), PlayerRating(1800.0, 1200), 5)
    assert rating_calculation_lines("carol", "dave", 250, 1200, calculation) == [
        "rating calculation:",
        "rating difference D=200.000000",
        "match length      N=5",
        "Experience: carol 250 - dave 1200",
        "Probability that underdog wins: Pu=1/(10^(D*sqrt(N)/2000)+1)=0.374052",
        "P=0.625948 is 1-Pu if underdog wins and Pu if favorite wins",
        "K=max(1 , -Experience/100+5) for carol: 2.500000",
        "change for carol: 4*K*sqrt(N)*P=13.996629",
        "K=max(1 , -Experience/100+5) for dave: 1.000000",
        "change for dave: -4*K*sqrt(N)*P=-5.598652",
    ]


def test_the_favourite_winning_gains_pu():
    calculation = rate_match(PlayerRating(1800.0, 1200), PlayerRating(1600.0, 250), 5)
    assert round(calculation.probability, 6) == 0.374052
    assert round(calculation.winner_change, 6) == 3.34562  # 4 * 1 * sqrt(5) * Pu
    assert round(calculation.loser_change, 6) == -8.364051  # -4 * 2.5 * sqrt(5) * Pu


def test_move_list():
    actions = [
        ("X", Roll((6, 2), "24-18 13-11")),
        ("O", Roll((3, 1), "8-5 6-5")),
        ("X", "doubles"),
        ("O", "accepts"),
        ("X", Roll((6, 6), "")),
        ("O", Roll((5, 1), "bar-20 6-5")),
        ("O", "wants to resign"),
        ("X", "rejects"),
        ("X", "wins"),
    ]
    assert move_list_lines("alice", "bob", 5, 0, 0, actions) == [
        "alice is X - bob is O",
        "Score is 0-0 in a 5 point match.",
        "X: (6 2) 24-18 13-11",
        "O: (3 1) 8-5 6-5",
        "X: doubles",
        "O: accepts",
        "X: (6 6) can't move",
        "O: (5 1) bar-20 6-5",
        "O: wants to resign",
        "X: rejects",
        "X: wins",
    ]


def test_move_list_of_an_unlimited_match_and_bad_actions():
    assert move_list_lines("a", "b", None, 3, 5, []) == [
        "a is X - b is O", "Score is 3-5 in an unlimited match."]
    with pytest.raises(ValueError, match="unknown move list action"):
        move_list_lines("a", "b", 1, 0, 0, [("X", "double")])
    with pytest.raises(ValueError, match="colour"):
        move_list_lines("a", "b", 1, 0, 0, [("W", "wins")])


def test_pip_counts_line():
    assert pip_counts_line(167, 160) == "Pipcounts: O-167 X-160"
