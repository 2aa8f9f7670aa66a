"""The words after an invitation's length (variant and house rules) and how texts name them."""
from __future__ import annotations

import pytest

from fibs_server.protocol import game_texts
from fibs_server.protocol.help import topic
from fibs_server.protocol.match_rules import RulesWordError, parse_match_rules, rules_summary
from fibs_server.rules.variants import MatchRules, Variant

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
    assert parse_match_rules(words) == rules


@pytest.mark.parametrize("words, refusal", [
    (["crawford"], "** Unknown word 'crawford' after the match length. "
                   "Use nack, hyper, portes, lowstart or nocube."),
    (["n"], "** 'n' could mean nackgammon or nocube."),
    (["nack", "portes"], "** Choose one variant: nackgammon, hypergammon or portes."),
])
def test_a_word_that_names_no_single_rule_is_refused(words, refusal):
    with pytest.raises(RulesWordError) as refused:
        parse_match_rules(words)
    assert str(refused.value) == refusal


def test_the_invitation_names_the_variant_and_house_rules():
    assert game_texts.you_invited("bob", 5, NACK_NO_CUBE) == (
        "** You invited bob to a 5 point nackgammon match (no cube).")
    assert game_texts.invitation("alice", None, saved_match=False, bell=False,
                                 rules=MatchRules(Variant.HYPERGAMMON, lower_die_starts=True)) == [
        "alice wants to play an unlimited hypergammon match (lower die starts) with you.",
        "Type 'join alice' to accept."]


def test_portes_is_not_said_to_have_no_cube_it_never_has_one():
    portes = MatchRules(Variant.PORTES, cube=False)
    assert game_texts.you_invited("bob", 3, portes) == "** You invited bob to a 3 point portes match."
    assert rules_summary(portes) == "portes"
    assert rules_summary(MatchRules()) == ""
    assert rules_summary(NACK_NO_CUBE) == "nackgammon, no cube"


def test_help_invite_tells_the_rule_words():
    lines = topic("invite", {"invite"})
    assert lines[0] == "invite <name> <points>|unlimited [rules]  or  invite <name>"
    assert all(word in " ".join(lines) for word in ("'nack'", "'hyper'", "'portes'",
                                                    "'lowstart'", "'nocube'"))
    assert "  Example: invite bob 5 nack nocube" in lines
