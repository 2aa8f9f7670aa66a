from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fibs_server.rules.ratings import PlayerRating, experience_factor, rate_match, rate_settled


def test_two_new_players_in_a_3_point_match():
    result = rate_match(PlayerRating(), PlayerRating(), 3)
    assert result.difference == 0
    assert result.upset_probability == 0.5
    assert result.probability == 0.5
    assert result.winner_k == result.loser_k == 5
    assert round(result.winner_after.rating, 2) == 1517.32
    assert round(result.loser_after.rating, 2) == 1482.68
    assert result.winner_after.experience == result.loser_after.experience == 3


@pytest.mark.parametrize("experience, k", [(0, 5), (100, 4), (250, 2.5), (399, 1.01),
                                           (400, 1), (5832, 1)])
def test_experience_factor_uses_experience_before_the_match(experience, k):
    assert experience_factor(experience) == pytest.approx(k)


def test_favourite_wins_little_and_underdog_wins_much():
    favourite, underdog = PlayerRating(1700.0, 1000), PlayerRating(1500.0, 1000)
    difference_term = 10 ** (200 * math.sqrt(5) / 2000)
    upset = 1 / (difference_term + 1)

    favourite_wins = rate_match(favourite, underdog, 5)
    assert favourite_wins.difference == pytest.approx(200)
    assert favourite_wins.upset_probability == pytest.approx(upset)
    assert favourite_wins.probability == pytest.approx(upset)
    assert favourite_wins.winner_change == pytest.approx(4 * math.sqrt(5) * upset)

    underdog_wins = rate_match(underdog, favourite, 5)
    assert underdog_wins.probability == pytest.approx(1 - upset)
    assert underdog_wins.winner_change == pytest.approx(4 * math.sqrt(5) * (1 - upset))
    assert underdog_wins.winner_change > favourite_wins.winner_change


def test_each_player_uses_their_own_k():
    result = rate_match(PlayerRating(1500.0, 0), PlayerRating(1500.0, 300), 1)
    assert (result.winner_k, result.loser_k) == (5, 2)
    assert result.winner_change == pytest.approx(4 * 5 * 0.5)
    assert result.loser_change == pytest.approx(-4 * 2 * 0.5)
    assert result.loser_after == PlayerRating(1496.0, 301)


def test_fibs_sample_change_line():
    # FIBS's sample calculation block: "P=0.505861 ... change for fergy: 4*K*sqrt(N)*P=2.023443"
    # with K = 1 (experience 500) and N = 1.
    upset = 1 - 0.505861  # the underdog won, so P = 1 - Pu
    difference = 2000 * math.log10(1 / upset - 1)
    result = rate_match(PlayerRating(1500.0, 500), PlayerRating(1500.0 + difference, 5832), 1)
    assert result.probability == pytest.approx(0.505861, abs=1e-6)
    assert result.winner_change == pytest.approx(2.023443, abs=1e-5)


def test_unrated_lengths_are_refused():
    with pytest.raises(ValueError):
        rate_match(PlayerRating(), PlayerRating(), 0)


@pytest.mark.parametrize("length", [1, 5, 11])
def test_a_new_accounts_result_moves_the_other_player_as_anyones_of_that_rating(length):
    """A bot's (or anyone's) change depends on the ratings and its own experience only: a
    fresh account farming wins or losses moves it no more than a rating-list player would."""
    bot = PlayerRating(1620.0, 3000)
    new, seasoned = PlayerRating(1500.0, 0), PlayerRating(1500.0, 2000)
    assert (rate_match(bot, new, length).winner_after
            == rate_match(bot, seasoned, length).winner_after)
    assert (rate_match(new, bot, length).loser_after
            == rate_match(seasoned, bot, length).loser_after)


# --- a match settled by the players' shares of it ----------------------------------------------

ratings = st.floats(800.0, 2400.0)
experiences = st.integers(0, 3000)
players = st.builds(PlayerRating, ratings, experiences)
lengths = st.integers(1, 25)
fractions = st.floats(0.0, 1.0)


@given(players, players, lengths)
def test_a_share_of_one_rates_as_a_win_and_of_zero_as_a_loss(first, second, length):
    for winner, loser, fraction in ((first, second, 1.0), (second, first, 0.0)):
        won = rate_match(winner, loser, length)
        settled = rate_settled(first, second, length, fraction)
        ours = settled.after if fraction == 1.0 else settled.after[::-1]  # winner's first
        assert ours[0].rating == pytest.approx(won.winner_after.rating, abs=1e-9)
        assert ours[1].rating == pytest.approx(won.loser_after.rating, abs=1e-9)
        assert ours[0].experience == won.winner_after.experience
        assert ours[1].experience == won.loser_after.experience


@given(players, players, lengths, fractions)
def test_the_changes_over_each_players_k_sum_to_zero(first, second, length, fraction):
    settled = rate_settled(first, second, length, fraction)
    per_k = [change / experience_factor(player.experience)
             for change, player in zip(settled.changes, (first, second))]
    assert per_k[0] + per_k[1] == pytest.approx(0.0, abs=1e-9)
    if experience_factor(first.experience) == experience_factor(second.experience):
        assert sum(settled.changes) == pytest.approx(0.0, abs=1e-9)


@given(players, players, lengths, fractions, fractions)
def test_a_larger_share_never_rates_lower(first, second, length, one, other):
    low, high = sorted((one, other))
    lower = rate_settled(first, second, length, low)
    higher = rate_settled(first, second, length, high)
    assert higher.changes[0] >= lower.changes[0]
    assert higher.changes[1] <= lower.changes[1]


@given(players, players, lengths, fractions)
def test_a_share_rates_as_the_same_mix_of_a_win_and_a_loss(first, second, length, fraction):
    """The expected change had the match been played on, if `fraction` is the first's chance."""
    settled = rate_settled(first, second, length, fraction)
    won, lost = rate_settled(first, second, length, 1.0), rate_settled(first, second, length, 0.0)
    for player in (0, 1):
        mixed = fraction * won.changes[player] + (1 - fraction) * lost.changes[player]
        assert settled.changes[player] == pytest.approx(mixed, abs=1e-9)


def test_an_even_share_between_equals_moves_nobody():
    settled = rate_settled(PlayerRating(1600.0, 50), PlayerRating(1600.0, 900), 7, 0.5)
    assert settled.changes == (0.0, 0.0)
    assert [p.experience for p in settled.after] == [57, 907]


@pytest.mark.parametrize("fraction", [-0.01, 1.01, math.nan])
def test_a_share_outside_zero_to_one_is_refused(fraction):
    with pytest.raises(ValueError):
        rate_settled(PlayerRating(), PlayerRating(), 3, fraction)
