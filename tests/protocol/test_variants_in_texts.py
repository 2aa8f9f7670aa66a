"""Every place of the protocol that names or reads variants derives them from their facts
(rules/variants.py): a new variant is chosen by its words, listed in the help and the usage
texts, named in a match's terms, written to `.mat` and sent to the page, without a line here."""
from __future__ import annotations

import re

import pytest

from fibs_server.protocol.help_topics import TOPICS
from fibs_server.protocol.match_rules import (
    ONE_VARIANT,
    MatchTerms,
    RulesWordError,
    parse_match_terms,
    rules_summary,
    unknown_rule_word,
)
from fibs_server.protocol.tournament_options import CREATE_USAGE, parse_create
from fibs_server.protocol.views import web_events
from fibs_server.protocol.views.matfile import MatGame, MatRoll, MatWin, write_mat
from fibs_server.protocol.wording.analysis_texts import summary
from fibs_server.protocol.wording.table_texts import TABLE_USAGE
from fibs_server.rules.variants import MatchRules, Variant
from tests.protocol.test_web_events import valid

CHOSEN = [variant for variant in Variant if variant.facts.word is not None]
EVERY_CHOSEN = pytest.mark.parametrize("variant", CHOSEN, ids=lambda variant: variant.value)
EVERY_VARIANT = pytest.mark.parametrize("variant", list(Variant), ids=lambda variant: variant.value)


def test_the_default_variant_is_chosen_by_no_word():
    assert parse_match_terms([]).rules.variant.facts.word is None
    assert parse_create(["knockout"]).terms.variant.facts.word is None


@EVERY_CHOSEN
def test_a_variant_is_chosen_by_its_word_or_its_name(variant):
    for word in (variant.facts.word, variant.value, variant.value.upper()):
        assert parse_match_terms([word, "nocube"]).rules.variant is variant
    assert parse_create(["swiss", variant.facts.word]).terms.variant is variant


@EVERY_CHOSEN
def test_a_variant_goes_with_no_other(variant):
    for other in CHOSEN:
        if other is not variant:
            with pytest.raises(RulesWordError) as refused:
                parse_match_terms([variant.value, other.value])
            assert refused.value.reply == ONE_VARIANT


def choices(text: str) -> set[str]:
    """The words of each bracketed choice (`[nack|hyper|portes]`) of a usage text."""
    return {word for group in re.findall(r"\[([^\]]*)\]", text) for word in group.split("|")}


@EVERY_CHOSEN
def test_the_help_and_the_usage_texts_name_every_variant_by_its_word(variant):
    word = variant.facts.word
    assert f"'{word}' (" in " ".join(TOPICS["invite"].about)
    assert word in re.split(r"[|,\s]+", " ".join(TOPICS["tournament"].about))
    assert word in choices(TABLE_USAGE) and word in choices(CREATE_USAGE)
    assert word in re.split(r"[,\s]+", unknown_rule_word("x"))
    assert variant.value in re.split(r"[,.\s]+", ONE_VARIANT)


@EVERY_VARIANT
def test_a_match_s_terms_name_its_variant_unless_it_is_the_default(variant):
    named = [variant.value] if variant.facts.word is not None else []
    assert rules_summary(MatchTerms(MatchRules(variant))) == ", ".join(named)
    heading = summary(7, ("alice", "bob"), {"variant": variant.value, "length": 3, "plies": 2,
                                             "move_filter": "every legal play", "evaluated": False})
    assert heading[0] == " ".join(["Analysis of match 7: alice - bob, 3 point match", *named]) + "."


@EVERY_VARIANT
def test_a_mat_file_names_the_variant_as_gnubg_does(variant):
    game = MatGame((0, 0), (MatRoll(0, (6, 5), ((24, 13),)), MatWin(0, 1)))
    gnubg_name = variant.facts.gnubg_name
    header = [f'; [Variation "{gnubg_name}"]'] if gnubg_name else []
    assert write_mat(("a", "b"), 1, [game], variant).splitlines()[:len(header) + 2] == [
        *header, "", " 1 point match"]


def test_the_page_is_told_every_variant_with_its_facts():
    hello = valid(web_events.hello())
    assert [facts["name"] for facts in hello["variants"]] == [variant.value for variant in Variant]
    for facts, variant in zip(hello["variants"], Variant, strict=True):
        assert facts["word"] == variant.facts.word
        assert facts["checkers_per_side"] == variant.checkers_per_side
        assert (facts["cube"], facts["backgammons"], facts["opening_dice_played"]) == (
            variant.facts.cube, variant.facts.backgammons, variant.facts.opening_dice_played)


@EVERY_VARIANT
def test_a_match_s_terms_carry_the_variant_s_name_to_the_page(variant):
    terms = MatchTerms(MatchRules(variant))
    assert valid(web_events.invitation("alice", 5, terms=terms))["terms"]["variant"] == variant.value
