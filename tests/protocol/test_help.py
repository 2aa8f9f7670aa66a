"""The help topics that are no command (protocol/help_topics.py's SUBJECTS): each fits a
terminal, and `help formula` tells the formula rules/ratings.py computes."""
from __future__ import annotations

import re

import pytest

from fibs_server.protocol.commands import CommandFacts, CommandWords
from fibs_server.protocol.help import INDEX, topic
from fibs_server.protocol.help_topics import SUBJECTS
from fibs_server.rules.ratings import PlayerRating, rate_match

HELP = CommandWords([CommandFacts("help")])


@pytest.mark.parametrize("word", sorted(SUBJECTS))
def test_each_subject_answers_and_fits_an_80_column_terminal(word):
    lines = topic(word.upper(), HELP)
    assert lines == list(SUBJECTS[word])
    assert all(len(line) <= 79 for line in lines), max(lines, key=len)


def test_the_index_names_every_subject():
    index = " ".join(INDEX).split()
    assert all(word in index for word in SUBJECTS)


def test_help_formula_states_the_formula_and_its_example_as_computed():
    text = " ".join(line.strip() for line in topic("formula", HELP))
    assert "Pu = 1 / (10^(D * sqrt(N) / 2000) + 1)" in text
    assert "K = max(1, 5 - experience / 100)" in text
    assert "4 * K * sqrt(N) * P" in text
    winner, loser = re.search(r"winner (\d+\.\d\d), the loser (\d+\.\d\d)", text).groups()
    rated = rate_match(PlayerRating(), PlayerRating(), 3)
    assert (winner, loser) == (f"{rated.winner_after.rating:.2f}",
                               f"{rated.loser_after.rating:.2f}")


def test_help_set_says_the_redoubles_limit_is_fixed_when_the_match_begins():
    text = " ".join(line.strip() for line in topic("set", CommandWords([CommandFacts("set")])))
    assert "the smaller of both players' numbers as they were when the match began" in text
