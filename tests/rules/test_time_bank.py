"""The time bank's arithmetic (rules/clocks/time_bank.py): examples of each mode, and properties
over any terms and any sequence of decisions."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fibs_server.rules.clocks.time_bank import (
    MOVE_SECONDS,
    RESERVE_PER_POINT,
    BankMode,
    BankTerms,
    TimeBank,
    minutes_and_seconds,
)

terms_st = st.builds(BankTerms, st.sampled_from(MOVE_SECONDS),
                     st.sampled_from(RESERVE_PER_POINT), st.sampled_from(BankMode))
lengths = st.integers(1, 25)
# Each decision: who takes it, and the share of its available time it takes (below 1: in time).
decisions = st.lists(st.tuples(st.integers(0, 1), st.floats(0, 0.999)), max_size=40)


def test_the_reserve_scales_with_the_length():
    assert TimeBank.start(BankTerms(12, 60), 5).reserves == (300.0, 300.0)
    assert TimeBank.start(BankTerms(12, 60), 1).reserves == (60.0, 60.0)


def test_delay_the_first_seconds_are_free_then_the_reserve_runs():
    bank = TimeBank.start(BankTerms(12, 60), 1)
    assert bank.available(0) == 72
    assert bank.after_decision(0, 10).reserves == (60, 60)
    assert bank.after_decision(0, 20).reserves == (52, 60)
    assert bank.shown_reserve(0, 12) == 60 and bank.shown_reserve(0, 15) == 57


def test_bronstein_gives_back_what_the_decision_took_up_to_its_seconds():
    bank = TimeBank.start(BankTerms(12, 60, BankMode.BRONSTEIN), 1)
    assert bank.available(0) == 60
    assert bank.shown_reserve(0, 5) == 55
    assert bank.after_decision(0, 5).reserves == (60, 60)
    assert bank.after_decision(0, 20).reserves == (52, 60)


def test_fischer_adds_the_increment_after_each_decision():
    bank = TimeBank.start(BankTerms(5, 60, BankMode.FISCHER), 1)
    assert bank.available(1) == 60
    assert bank.after_decision(1, 2).reserves == (60, 63)
    assert bank.after_decision(1, 30).reserves == (60, 35)


def test_a_reserve_reads_as_minutes_and_seconds():
    assert minutes_and_seconds(300) == "5:00"
    assert minutes_and_seconds(64.2) == "1:05"
    assert minutes_and_seconds(0) == "0:00"


def test_fields_refuse_what_no_terms_give():
    good = TimeBank.start(BankTerms(12, 60, BankMode.FISCHER), 3)
    assert TimeBank.from_fields(good.fields()) == good
    for bad in ({"move_seconds": 0}, {"reserve_per_point": 601}, {"mode": "hourglass"},
                {"reserves": [1.0]}, {"reserves": [-1, 0]}, {"move_seconds": True}):
        with pytest.raises((ValueError, TypeError)):
            TimeBank.from_fields({**good.fields(), **bad})


@given(terms_st, lengths, decisions)
def test_decisions_in_time_never_overdraw_and_only_fischer_grows(terms, length, taken):
    bank = TimeBank.start(terms, length)
    start = bank.reserves
    for player, share in taken:
        elapsed = share * bank.available(player)
        after = bank.after_decision(player, elapsed)
        assert after.reserves[1 - player] == bank.reserves[1 - player]  # the other's waits
        assert after.reserves[player] >= 0
        if terms.mode is BankMode.FISCHER:
            assert after.reserves[player] == pytest.approx(
                bank.reserves[player] - elapsed + terms.move_seconds)
        else:
            assert after.reserves[player] <= bank.reserves[player]
        bank = after
    if terms.mode is not BankMode.FISCHER:
        assert all(now <= first for now, first in zip(bank.reserves, start))


@given(terms_st, lengths, st.floats(0, 10_000), st.floats(0, 10_000))
def test_a_longer_decision_never_leaves_more(terms, length, first, second):
    bank = TimeBank.start(terms, length)
    quick, slow = sorted((first, second))
    assert bank.after_decision(0, slow).reserves[0] <= bank.after_decision(0, quick).reserves[0]
    assert bank.shown_reserve(0, slow) <= bank.shown_reserve(0, quick)


@given(st.sampled_from(MOVE_SECONDS), st.sampled_from(RESERVE_PER_POINT), lengths,
       st.floats(0, 1))
def test_delay_and_bronstein_leave_the_same_reserve(move, per_point, length, share):
    delay = TimeBank.start(BankTerms(move, per_point), length)
    bronstein = TimeBank.start(BankTerms(move, per_point, BankMode.BRONSTEIN), length)
    elapsed = share * bronstein.available(0)  # in time under both
    assert (delay.after_decision(0, elapsed).reserves
            == pytest.approx(bronstein.after_decision(0, elapsed).reserves))


@given(terms_st, lengths, st.floats(0, 10_000))
def test_the_shown_reserve_runs_out_exactly_when_the_time_is_spent(terms, length, elapsed):
    bank = TimeBank.start(terms, length)
    assert (bank.shown_reserve(0, elapsed) == 0) == (elapsed >= bank.available(0))


@given(terms_st, lengths, decisions)
def test_stored_fields_give_the_same_bank(terms, length, taken):
    bank = TimeBank.start(terms, length)
    for player, share in taken:
        bank = bank.after_decision(player, share * bank.available(player))
    assert TimeBank.from_fields(bank.fields()) == bank
