"""Open tables' codes and bookkeeping (lobby/tables.py): codes are random six-letter words
without look-alikes, never sequential, unique among the open tables."""
from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from fibs_server.lobby import tables
from fibs_server.lobby.tables import CODE_LENGTH, CODE_LETTERS, OpenTables, new_code
from fibs_server.protocol.match_rules import MatchTerms
from fibs_server.rules.variants import MatchRules, Variant

codes = st.text(alphabet=CODE_LETTERS, min_size=CODE_LENGTH, max_size=CODE_LENGTH)


def as_number(code: str) -> int:
    """A code read as a number in base 23: a counter's codes would differ by a constant."""
    return int("".join("0123456789abcdefghijklm"[CODE_LETTERS.index(c)] for c in code), 23)


def test_the_alphabet_has_no_look_alikes():
    assert len(set(CODE_LETTERS)) == len(CODE_LETTERS) == 23
    assert not set("ILO01") & set(CODE_LETTERS)
    assert CODE_LETTERS.isupper() and CODE_LETTERS.isalpha()


@settings(max_examples=200)
@given(taken=st.sets(codes, max_size=50))
def test_a_code_is_six_letters_of_the_alphabet_and_none_taken(taken):
    code = new_code(taken)
    assert len(code) == CODE_LENGTH and set(code) <= set(CODE_LETTERS)
    assert code not in taken


@settings(max_examples=50)
@given(st.data())
def test_a_code_already_open_is_drawn_again(data):
    """The random letters are `secrets.choice`'s: when they spell a taken code, the
    generator draws again."""
    taken = data.draw(codes)
    fresh = data.draw(codes.filter(lambda code: code != taken))
    letters = iter(taken + fresh)
    original = tables.secrets.choice
    tables.secrets.choice = lambda alphabet: next(letters)
    try:
        assert new_code({taken}) == fresh
    finally:
        tables.secrets.choice = original


def test_codes_are_not_sequential_and_cover_the_alphabet_everywhere():
    drawn = [new_code(()) for _ in range(1000)]
    numbers = [as_number(code) for code in drawn]
    steps = {b - a for a, b in itertools.pairwise(numbers)}
    assert len(steps) > 900  # a counter (or any fixed stride) has one step
    assert all(abs(step) > 1 for step in steps)  # never the next or previous code
    # every letter at every position: a letter missing from one position after 1,000 fair
    # draws has a probability of (22/23)**1000, about 1e-19
    for position in range(CODE_LENGTH):
        assert {code[position] for code in drawn} == set(CODE_LETTERS)


def test_open_tables_by_code_and_creator():
    open_tables = OpenTables()
    first = open_tables.open("alice", 5, MatchTerms(MatchRules(Variant.NACKGAMMON)), private=False)
    hidden = open_tables.open("Bob", None, MatchTerms(), private=True)
    third = open_tables.open("carol", 1, MatchTerms(turn_seconds=30), private=False)
    assert open_tables.find(first.code.lower()) is first
    assert open_tables.of("BOB") is hidden
    assert open_tables.public() == [first, third]
    assert open_tables.close("bob") is hidden and open_tables.close("bob") is None
    assert open_tables.find(hidden.code) is None and open_tables.of("Bob") is None
    assert open_tables.public() == [first, third]
