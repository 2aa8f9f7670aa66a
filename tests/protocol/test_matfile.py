"""The `.mat` writer: gnubg's layout (columns, cube actions, results), exactly."""
from __future__ import annotations

import pytest

from fibs_server.protocol.views.matfile import (
    MatDouble,
    MatDrop,
    MatGame,
    MatRoll,
    MatTake,
    MatWin,
    write_mat,
)
from fibs_server.rules.variants import Variant


def test_a_match_with_cube_actions_hits_dances_and_both_winners():
    game_1 = MatGame((0, 0), (
        MatRoll(0, (1, 2), ((13, 11), (24, 23))),
        MatRoll(1, (4, 1), ((6, 2), (2, 1)), frozenset({0, 1})),
        MatRoll(0, (5, 5), ((13, 8), (8, 3), (8, 3), (7, 2))),
        MatDouble(1, 2),
        MatTake(0),
        MatRoll(1, (4, 1), ((10, 9), (13, 9))),
        MatRoll(0, (6, 3)),  # no legal play
        MatDouble(1, 4),
        MatDrop(0),
        MatWin(1, 2)))
    game_2 = MatGame((0, 2), (
        MatRoll(1, (3, 1), ((8, 5), (6, 5))),
        MatRoll(0, (2, 1), ((2, 0), (1, 0))),
        MatWin(0, 1)))
    assert write_mat(("alice", "bob"), 3, [game_1, game_2]) == (
        "\n"
        " 3 point match\n"
        "\n"
        " Game 1\n"
        " alice : 0                      bob : 0\n"
        "  1) 21: 13/11 24/23             41: 6/2* 2/1*\n"
        "  2) 55: 13/8 8/3 8/3 7/2         Doubles => 2\n"
        "  3)  Takes                      41: 10/9 13/9\n"
        "  4) 63:                          Doubles => 4\n"
        "  5)  Drops                       Wins 2 points\n"
        "\n"
        " Game 2\n"
        " alice : 0                      bob : 2\n"
        "  1)                             31: 8/5 6/5\n"
        "  2) 21: 2/0 1/0\n"
        "      Wins 1 point\n"
        "\n")


def test_an_unlimited_match_is_written_as_a_money_session():
    text = write_mat(("alice", "bob"), None, [MatGame((0, 0), (MatRoll(0, (6, 5), ((24, 13),)),
                                                              MatWin(0, 1)))])
    assert text.splitlines()[1] == " 0 point match"


@pytest.mark.parametrize("variant, header", [
    (Variant.NACKGAMMON, '; [Variation "NackGammon"]'),
    (Variant.HYPERGAMMON, '; [Variation "HyperGammon (3)"]')])
def test_a_variant_is_named_in_a_header_as_gnubg_names_it(variant, header):
    game = MatGame((0, 0), (MatRoll(0, (6, 5), ((24, 13),)), MatWin(0, 1)))
    assert write_mat(("a", "b"), 1, [game], variant).splitlines()[:3] == [
        header, "", " 1 point match"]
    # gnubg knows no Portes: its matches are written as standard backgammon
    assert write_mat(("a", "b"), 1, [game], Variant.PORTES) == write_mat(("a", "b"), 1, [game])


def test_a_right_column_action_after_an_open_left_entry_shares_its_line():
    game = MatGame((1, 0), (MatDouble(0, 2), MatTake(1), MatRoll(0, (4, 4), ((6, 2),) * 4)))
    assert write_mat(("a", "b"), 5, [game]).splitlines()[4:] == [
        " a : 1                          b : 0",
        "  1)  Doubles => 2                Takes",
        "  2) 44: 6/2 6/2 6/2 6/2",
        "",
    ]


def test_only_mat_actions_are_written():
    with pytest.raises(TypeError):
        write_mat(("a", "b"), 1, [MatGame((0, 0), ("resigns",))])
