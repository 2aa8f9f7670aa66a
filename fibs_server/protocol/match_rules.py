"""The words after an invitation's length that choose a variant and house rules
(`invite bob 5 nack nocube`), and how a match's rules are named in texts."""
from __future__ import annotations

from collections.abc import Iterable

from fibs_server.protocol.commands import ambiguous, completions
from fibs_server.rules.variants import MatchRules, Variant

VARIANT_WORDS = {"nackgammon": Variant.NACKGAMMON, "hypergammon": Variant.HYPERGAMMON,
                 "portes": Variant.PORTES}
HOUSE_RULE_WORDS = ("lowstart", "nocube")
RULE_WORDS = (*VARIANT_WORDS, *HOUSE_RULE_WORDS)
ONE_VARIANT = "** Choose one variant: nackgammon, hypergammon or portes."


class RulesWordError(ValueError):
    """A word that names no rule (or more than one); its text is what the user reads."""


def unknown_rule_word(word: str) -> str:
    return (f"** Unknown word '{word}' after the match length. "
            f"Use nack, hyper, portes, lowstart or nocube.")


def parse_match_rules(words: Iterable[str]) -> MatchRules:
    """The rules the words choose, in any order, each a unique prefix of its name."""
    variant, lower_die_starts, cube = None, False, True
    for word in words:
        names = completions(word, RULE_WORDS)
        if not names:
            raise RulesWordError(unknown_rule_word(word))
        if len(names) > 1:
            raise RulesWordError(ambiguous(word, names))
        name = names[0]
        if name in VARIANT_WORDS:
            if variant not in (None, VARIANT_WORDS[name]):
                raise RulesWordError(ONE_VARIANT)
            variant = VARIANT_WORDS[name]
        elif name == "lowstart":
            lower_die_starts = True
        else:
            cube = False
    return MatchRules(variant or Variant.STANDARD, lower_die_starts, cube)


def house_rules(rules: MatchRules) -> list[str]:
    """The house rules as they are written after the match: `no cube`, `lower die starts`
    (Portes has no cube by itself, which is not repeated)."""
    notes = []
    if not rules.cube and rules.variant is not Variant.PORTES:
        notes.append("no cube")
    if rules.lower_die_starts:
        notes.append("lower die starts")
    return notes


def variant_word(rules: MatchRules) -> str:
    """`nackgammon ` before `match`; nothing for standard backgammon."""
    return "" if rules.variant is Variant.STANDARD else f"{rules.variant.value} "


def rules_summary(rules: MatchRules) -> str:
    """`nackgammon, no cube`; empty for standard backgammon with the usual rules."""
    variant = [] if rules.variant is Variant.STANDARD else [rules.variant.value]
    return ", ".join(variant + house_rules(rules))
