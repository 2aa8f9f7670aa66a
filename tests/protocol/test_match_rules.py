"""The words after an invitation's length (variant and house rules) and how texts name them."""
from __future__ import annotations

import pytest

from fibs_server.lobby.services.tournaments import match_terms
from fibs_server.protocol.commands import CommandFacts, CommandWords
from fibs_server.protocol.help import topic
from fibs_server.protocol.match_rules import (
    BANK_NEEDS_LENGTH,
    BANK_USAGE,
    ONE_CLOCK,
    MatchTerms,
    RulesWordError,
    needs_length,
    parse_match_terms,
    rules_summary,
    terms_fields,
    terms_from_fields,
)
from fibs_server.protocol.tournament_options import OptionError, parse_create
from fibs_server.protocol.views import web_events
from fibs_server.protocol.wording import game_texts, tournament_texts
from fibs_server.rules.clocks.time_bank import BankMode, BankTerms
from fibs_server.rules.tournament import Format
from fibs_server.rules.variants import MatchRules, Variant
from tests.protocol.test_web_events import valid

NACK_NO_CUBE = MatchRules(Variant.NACKGAMMON, cube=False)


@pytest.mark.parametrize("words, rules", [
    ([], MatchRules()),
    (["nack"], MatchRules(Variant.NACKGAMMON)),
    (["nocube", "NACKGAMMON"], NACK_NO_CUBE),
    (["h"], MatchRules(Variant.HYPERGAMMON)),
    (["lowstart", "p"], MatchRules(Variant.PORTES, lower_die_starts=True)),
    (["no", "l", "hyper"], MatchRules(Variant.HYPERGAMMON, lower_die_starts=True, cube=False)),
    (["nack", "nack"], MatchRules(Variant.NACKGAMMON)),  # said twice is still one choice
])
def test_words_in_any_order_and_unique_prefixes_choose_the_rules(words, rules):
    assert parse_match_terms(words) == MatchTerms(rules)


@pytest.mark.parametrize("words, terms", [
    (["timer", "30"], MatchTerms(turn_seconds=30)),
    (["nack", "ti", "60", "nocube"], MatchTerms(NACK_NO_CUBE, turn_seconds=60)),
    (["takeover", "45"], MatchTerms(takeover_seconds=45)),
    (["ta", "600", "timer", "30", "timer", "60"], MatchTerms(turn_seconds=60,
                                                              takeover_seconds=600)),
])
def test_timer_and_takeover_take_their_seconds_from_the_next_word(words, terms):
    assert parse_match_terms(words) == terms
    assert terms.timed


@pytest.mark.parametrize("words, bank, summary", [
    (["bank", "12", "60"], BankTerms(12, 60), "a time bank of 60 s a point, 12 s a move"),
    (["nack", "b", "5", "30", "f"], BankTerms(5, 30, BankMode.FISCHER),
     "nackgammon, a time bank of 30 s a point, 5 s a move (Fischer)"),
    (["bank", "10", "90", "bronstein", "nocube"], BankTerms(10, 90, BankMode.BRONSTEIN),
     "no cube, a time bank of 90 s a point, 10 s a move (Bronstein)"),
    (["bank", "12", "60", "d", "unrated"], BankTerms(12, 60),
     "a time bank of 60 s a point, 12 s a move, unrated"),
])
def test_bank_takes_its_seconds_its_reserve_and_a_mode(words, bank, summary):
    terms = parse_match_terms(words)
    assert terms.bank == bank and terms.timed and terms.clocked
    assert rules_summary(terms) == summary
    assert terms_from_fields(terms_fields(terms)) == terms
    assert needs_length(terms) == BANK_NEEDS_LENGTH


@pytest.mark.parametrize("words, refusal", [
    (["bank"], BANK_USAGE),
    (["bank", "12"], BANK_USAGE),
    (["bank", "0", "60"], BANK_USAGE),
    (["bank", "12", "0"], BANK_USAGE),
    (["bank", "121", "60"], BANK_USAGE),
    (["bank", "12", "601"], BANK_USAGE),
    (["bank", "12", "60", "timer", "30"], ONE_CLOCK),
])
def test_a_bank_without_its_seconds_or_beside_a_timer_is_refused(words, refusal):
    with pytest.raises(RulesWordError) as refused:
        parse_match_terms(words)
    assert refused.value.reply == refusal


def test_a_node_without_time_banks_sends_terms_without_one():
    fields = terms_fields(MatchTerms(turn_seconds=30))
    del fields["bank"]
    assert terms_from_fields(fields) == MatchTerms(turn_seconds=30)


def test_a_match_without_clock_words_is_untimed():
    assert not parse_match_terms(["nack"]).timed


@pytest.mark.parametrize("words, refusal", [
    (["crawford"], "** Unknown word 'crawford' after the match length. "
                   "Use nack, hyper, portes, lowstart, nocube, unrated, timer, takeover or bank."),
    (["t", "30"], "** 't' could mean timer or takeover."),
    (["timer"], "** Give the seconds after 'timer': 30 or 60."),
    (["timer", "45"], "** Give the seconds after 'timer': 30 or 60."),
    (["timer", "nack"], "** Give the seconds after 'timer': 30 or 60."),
    (["takeover", "9"], "** Give the seconds after 'takeover': a number from 10 to 600."),
    (["takeover", "-20"], "** Give the seconds after 'takeover': a number from 10 to 600."),
    (["takeover", "9999999999999999999999"],
     "** Give the seconds after 'takeover': a number from 10 to 600."),
    (["n"], "** 'n' could mean nackgammon or nocube."),
    (["nack", "portes"], "** Choose one variant: nackgammon, hypergammon or portes."),
])
def test_a_word_that_names_no_single_rule_is_refused(words, refusal):
    with pytest.raises(RulesWordError) as refused:
        parse_match_terms(words)
    assert str(refused.value) == refusal


def test_the_invitation_names_the_variant_and_house_rules():
    assert game_texts.you_invited("bob", 5, MatchTerms(NACK_NO_CUBE)) == [
        "** You invited bob to a 5 point match.",  # FIBS's line, exactly
        "The match is played with: nackgammon, no cube."]
    assert game_texts.you_invited("bob", 3, MatchTerms(turn_seconds=30, takeover_seconds=20)) == [
        "** You invited bob to a 3 point match.",
        "The match is played with: 30 s a turn, a bot takes over after 20 s."]
    assert game_texts.invitation("alice", None, saved_match=False, bell=False, terms=MatchTerms(
            MatchRules(Variant.HYPERGAMMON, lower_die_starts=True))) == [
        "alice wants to play an unlimited match with you.",  # FIBS's line, exactly
        "The match is played with: hypergammon, lower die starts.",
        "Type 'join alice' to accept."]
    assert game_texts.invitation("alice", 3, saved_match=False, bell=False, terms=MatchTerms(
            turn_seconds=30)) == [
        "alice wants to play a 3 point match with you.",
        "The match is played with: 30 s a turn.", "Type 'join alice' to accept."]


def test_portes_is_not_said_to_have_no_cube_it_never_has_one():
    portes = MatchRules(Variant.PORTES, cube=False)
    assert game_texts.you_invited("bob", 3, MatchTerms(portes)) == [
        "** You invited bob to a 3 point match.", "The match is played with: portes."]
    assert rules_summary(MatchTerms(portes)) == "portes"
    assert rules_summary(MatchTerms()) == ""
    assert rules_summary(MatchTerms(NACK_NO_CUBE, turn_seconds=30)) == (
        "nackgammon, no cube, 30 s a turn")


def test_help_invite_tells_the_rule_words():
    lines = topic("invite", CommandWords([CommandFacts("invite")]))
    assert lines[0] == "invite <name> <points>|unlimited [rules]  or  invite <name>"
    assert all(word in " ".join(lines) for word in ("'nack'", "'hyper'", "'portes'",
                                                    "'lowstart'", "'nocube'"))
    assert "'timer 30'" in " ".join(lines) and "'takeover <seconds>'" in " ".join(lines)
    assert "  Example: invite bob 5 nack nocube timer 30" in lines


@pytest.mark.parametrize("word", ["timer", "TAKEOVER"])
def test_help_timer_tells_how_timed_matches_go(word):
    lines = topic(word, CommandWords([CommandFacts("invite")]))
    assert lines[0] == "Timed matches: 'invite <name> <points> timer 30' (or 'timer 60')."
    text = " ".join(lines)
    assert all(part in text for part in ("warned", "third time", "grace period", "'takeover"))
    # The one rule of absence (docs/FAIRNESS.md): who loses by it, and who never does.
    assert all(part in text for part in ("stay away for the whole grace period",
                                         "opponent goes away too", "resumes by itself",
                                         "database fault loses nothing"))
    assert all(len(line) <= 79 for line in lines)


def test_a_tournament_takes_a_time_bank_instead_of_its_timer_and_passes_it_on():
    order = parse_create(["swiss", "length", "5", "bank", "12", "60", "fischer", "cap", "8"])
    bank = BankTerms(12, 60, BankMode.FISCHER)
    assert order.terms.bank == bank and order.entry_cap == 8
    assert tournament_texts.terms_words(order.terms) == (
        "5 points, a time bank of 60 s a point, 12 s a move (Fischer)")
    assert match_terms(order.terms) == MatchTerms(turn_seconds=None, bank=bank, crawford=True)
    assert parse_create(["knockout"]).terms.bank is None  # the timer, as before
    listed = tournament_texts.Listed(1, Format.SWISS, "signup", "alice", order.terms, 0, 8,
                                    swiss_rounds=3)
    assert valid(web_events.tournaments([listed]))["tournaments"][0]["terms"]["bank"] == {
        "move_seconds": 12, "reserve_per_point": 60, "mode": "fischer"}
    for words, refusal in ((["knockout", "bank", "12"], BANK_USAGE),
                           (["knockout", "bank", "12", "60", "timer", "30"], ONE_CLOCK)):
        with pytest.raises(OptionError) as refused:
            parse_create(words)
        assert refused.value.reply == refusal
