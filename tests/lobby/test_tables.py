"""Open tables' codes and bookkeeping (lobby/play/tables.py): codes are random eight-letter words
without look-alikes, never sequential, unique among the open tables; wrong codes are limited
per account and per address."""
from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from fibs_server.lobby.limits.throttle import AbuseLimits
from fibs_server.lobby.play import tables
from fibs_server.lobby.play.tables import (
    CODE_LENGTH,
    CODE_LETTERS,
    GUESS_WINDOW,
    CodeGuesses,
    OpenTables,
    new_code,
)
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
def test_a_code_is_eight_letters_of_the_alphabet_and_none_taken(taken):
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


def test_wrong_codes_past_the_limit_stop_every_try_of_the_account_or_address_for_an_hour():
    now = [0.0]
    guesses = CodeGuesses(per_account=3, per_address=5, clock=lambda: now[0])
    for _ in range(3):
        assert guesses.wait("Mallory", "10.0.0.1") == 0
        guesses.wrong("Mallory", "10.0.0.1")
        now[0] += 60
    assert guesses.wait("mallory", "10.0.0.9") == GUESS_WINDOW - 180  # the account, anywhere
    assert guesses.wait("eve", "10.0.0.1") == 0  # the address has 2 left
    guesses.wrong("eve", "10.0.0.1")
    guesses.wrong("eve", "10.0.0.1")
    assert guesses.wait("trent", "10.0.0.1") == GUESS_WINDOW - 180  # the address, for anyone
    now[0] = GUESS_WINDOW  # the first wrong code is an hour old: one more for each
    assert guesses.wait("mallory", "10.0.0.9") == 0
    assert guesses.wait("trent", "10.0.0.1") == 0
    guesses.wrong("trent", "10.0.0.1")
    assert guesses.wait("trent", "10.0.0.1") == 60  # when mallory's second is an hour old


def test_guessing_at_the_limit_finds_a_private_table_only_after_years():
    """The figure docs/SECURITY.md gives: 100 private tables open, 1,000 addresses each at
    its limit, codes drawn at random."""
    guesses_per_hour = 1000 * AbuseLimits().wrong_table_codes_per_address
    hours = len(CODE_LETTERS) ** CODE_LENGTH / 100 / guesses_per_hour
    assert hours / (24 * 365) > 2
