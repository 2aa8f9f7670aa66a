"""The words after an invitation's length that choose a variant, house rules and the clock
(`invite bob 5 nack nocube timer 30`), and how a match's terms are named in texts."""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

from fibs_server.protocol.commands import ambiguous, completions
from fibs_server.protocol.wording.coded_texts import refusal
from fibs_server.rules.clocks.time_bank import MOVE_SECONDS, RESERVE_PER_POINT, BankMode, BankTerms
from fibs_server.rules.variants import MatchRules, Variant

# The variants a word chooses (the default is chosen by naming none), by their short words as
# usage texts show them and `tournament create` takes them (`nack|hyper|portes`) ...
VARIANT_WORDS = {variant.facts.word: variant for variant in Variant
                 if variant.facts.word is not None}
# ... and by name: after an invitation's length any unique prefix of it chooses it (`p`).
VARIANT_NAMES = {variant.value: variant for variant in VARIANT_WORDS.values()}
VARIANT_CHOICE = "|".join(VARIANT_WORDS)  # as usage texts show the choice
HOUSE_RULE_WORDS = ("lowstart", "nocube", "unrated")
TIMER_WORD, TAKEOVER_WORD = "timer", "takeover"  # each followed by its seconds
# Followed by a decision's seconds, the reserve's seconds a point, and optionally a mode.
BANK_WORD = "bank"
BANK_MODES = {mode.value: mode for mode in BankMode}
TERM_WORDS = (*VARIANT_NAMES, *HOUSE_RULE_WORDS, TIMER_WORD, TAKEOVER_WORD, BANK_WORD)
TURN_TIMES = (30, 60)  # the seconds a timed match may give each decision
TAKEOVER_TIMES = range(10, 601)  # the seconds before a bot takes a decision over
_CHOSEN = list(VARIANT_NAMES)
ONE_VARIANT = refusal("one_variant", f"** Choose one variant: {', '.join(_CHOSEN[:-1])} or "
                      f"{_CHOSEN[-1]}.", variants=", ".join(_CHOSEN))
TIMER_USAGE = refusal("timer_usage", "** Give the seconds after 'timer': 30 or 60.")
# An unlimited match is never won, so it cannot be lost on time either.
TIMER_NEEDS_LENGTH = refusal(
    "timer_needs_length", "** A timed match needs a length: 'timer' does not go with 'unlimited'.")
BANK_USAGE = refusal(
    "bank_usage", f"** Give the seconds after 'bank': a decision's ({MOVE_SECONDS[0]} to "
    f"{MOVE_SECONDS[-1]}), then the reserve's for each point ({RESERVE_PER_POINT[0]} to "
    f"{RESERVE_PER_POINT[-1]}), then optionally 'delay', 'bronstein' or 'fischer'.",
    least=MOVE_SECONDS[0], most=MOVE_SECONDS[-1], least_reserve=RESERVE_PER_POINT[0],
    most_reserve=RESERVE_PER_POINT[-1])
BANK_NEEDS_LENGTH = refusal(
    "bank_needs_length", "** A time bank needs a length: 'bank' does not go with 'unlimited'.")
ONE_CLOCK = refusal("one_clock", "** Choose one clock: 'timer' or 'bank'.")
TAKEOVER_USAGE = refusal(
    "takeover_usage", f"** Give the seconds after 'takeover': a number from {TAKEOVER_TIMES[0]} "
    f"to {TAKEOVER_TIMES[-1]}.", least=TAKEOVER_TIMES[0], most=TAKEOVER_TIMES[-1])


@dataclasses.dataclass(frozen=True)
class MatchTerms:
    """What a new match is played by: its rules and its clock."""

    rules: MatchRules = MatchRules()
    turn_seconds: int | None = None  # each decision's time (None: untimed, as on FIBS)
    takeover_seconds: int | None = None  # a bot decides for a player this late (None: never)
    rated: bool = True  # `unrated`: both players agree that the result leaves their ratings
    # Whether the Crawford rule applies; None: if either player's `crawford` toggle is on, as
    # on FIBS (a tournament's terms decide it for its matches).
    crawford: bool | None = None
    bank: BankTerms | None = None  # a time bank (`bank 12 60`) rather than a turn timer

    @property
    def timed(self) -> bool:
        """Whether any decision of the match runs against a clock."""
        return self.clocked or self.takeover_seconds is not None

    @property
    def clocked(self) -> bool:
        """Whether the match can be lost on time (a turn timer or a time bank)."""
        return self.turn_seconds is not None or self.bank is not None


STANDARD_TERMS = MatchTerms()


def terms_fields(terms: MatchTerms) -> dict[str, Any]:
    """The terms as JSON fields, as they travel between nodes (arranged matches, seeks)."""
    return {"variant": terms.rules.variant.value,
            "lower_die_starts": terms.rules.lower_die_starts, "cube": terms.rules.cube,
            "turn_seconds": terms.turn_seconds, "takeover_seconds": terms.takeover_seconds,
            "rated": terms.rated, "crawford": terms.crawford,
            "bank": None if terms.bank is None else terms.bank.fields()}


def terms_from_fields(fields: dict[str, Any]) -> MatchTerms:
    """The terms `terms_fields` gave; ValueError, KeyError or TypeError if these are not."""
    terms = MatchTerms(
        MatchRules(Variant(fields["variant"]), bool(fields["lower_die_starts"]),
                   bool(fields["cube"])),
        fields["turn_seconds"], fields["takeover_seconds"], bool(fields["rated"]),
        fields["crawford"],
        # (A node without time banks sends no "bank".)
        None if fields.get("bank") is None else BankTerms.from_fields(fields["bank"]))
    if terms.turn_seconds is not None and terms.bank is not None:
        raise ValueError("two clocks")
    for seconds in (terms.turn_seconds, terms.takeover_seconds):
        if seconds is not None and type(seconds) is not int:
            raise TypeError(f"not seconds: {seconds!r}")
    if terms.crawford is not None and not isinstance(terms.crawford, bool):
        raise TypeError(f"not a Crawford rule: {terms.crawford!r}")
    return terms


class RulesWordError(ValueError):
    """A word that names no rule (or more than one); its text is what the user reads."""

    def __init__(self, reply: str) -> None:
        super().__init__(reply)
        self.reply = reply  # as made: `str()` of the error would drop a refusal's code


def unknown_rule_word(word: str) -> str:
    words = ", ".join(VARIANT_WORDS)
    return refusal("unknown_rule_word", f"** Unknown word '{word}' after the match length. "
                   f"Use {words}, lowstart, nocube, unrated, timer, takeover or bank.", word=word,
                   variant_words=words)


def parse_match_terms(words: Iterable[str]) -> MatchTerms:
    """The terms the words choose, in any order, each a unique prefix of its name; `timer`
    and `takeover` take the next word as their seconds, `bank` the next two and a mode."""
    variant, lower_die_starts, cube, rated = None, False, True, True
    seconds: dict[str, int] = {}
    bank = None
    remaining = list(words)
    remaining.reverse()  # popped from the end: the words in order
    while remaining:
        word = remaining.pop()
        names = completions(word, TERM_WORDS)
        if not names:
            raise RulesWordError(unknown_rule_word(word))
        if len(names) > 1:
            raise RulesWordError(ambiguous(word, names))
        name = names[0]
        if name in VARIANT_NAMES:
            if variant not in (None, VARIANT_NAMES[name]):
                raise RulesWordError(ONE_VARIANT)
            variant = VARIANT_NAMES[name]
        elif name == "lowstart":
            lower_die_starts = True
        elif name == "nocube":
            cube = False
        elif name == "unrated":
            rated = False
        elif name == BANK_WORD:
            bank, taken = parse_bank(remaining[::-1])
            del remaining[len(remaining) - taken:]
        else:
            allowed, usage = ((TURN_TIMES, TIMER_USAGE) if name == TIMER_WORD
                              else (TAKEOVER_TIMES, TAKEOVER_USAGE))
            value = _seconds(remaining, allowed)
            if value is None:
                raise RulesWordError(usage)
            seconds[name] = value
    if bank is not None and TIMER_WORD in seconds:
        raise RulesWordError(ONE_CLOCK)
    return MatchTerms(MatchRules(variant or Variant.STANDARD, lower_die_starts, cube),
                      seconds.get(TIMER_WORD), seconds.get(TAKEOVER_WORD), rated, bank=bank)


def _seconds(remaining: list[str], allowed: range | tuple[int, ...]) -> int | None:
    """The next word as seconds among `allowed` (None: it is not)."""
    value = remaining.pop() if remaining else ""
    if value.isascii() and value.isdigit() and len(value) <= 3 and int(value) in allowed:
        return int(value)
    return None


def parse_bank(words: Sequence[str]) -> tuple[BankTerms, int]:
    """The words after `bank` (for matches and tournaments): a decision's seconds, the
    reserve's a point, and a mode if the next word names one (a unique prefix of it); and how
    many words they took. RulesWordError if they make no time bank."""
    remaining = list(words[:3])[::-1]
    move = _seconds(remaining, MOVE_SECONDS)
    per_point = _seconds(remaining, RESERVE_PER_POINT)
    if move is None or per_point is None:
        raise RulesWordError(BANK_USAGE)
    modes = completions(remaining[-1], BANK_MODES) if remaining else []
    if len(modes) == 1:
        return BankTerms(move, per_point, BANK_MODES[modes[0]]), 3
    return BankTerms(move, per_point), 2


def needs_length(terms: MatchTerms) -> str | None:
    """The refusal of these terms for an unlimited match (None: they go with one)."""
    if terms.turn_seconds is not None:
        return TIMER_NEEDS_LENGTH
    return BANK_NEEDS_LENGTH if terms.bank is not None else None


def house_rules(terms: MatchTerms) -> list[str]:
    """The house rules as they are written after the match: `no cube`, `lower die starts`
    (a variant without the cube, Portes, is not said to have none), and the clock: `30 s a turn`,
    `a bot takes over after 60 s`."""
    rules = terms.rules
    notes = []
    if not rules.cube and rules.variant.facts.cube:
        notes.append("no cube")
    if rules.lower_die_starts:
        notes.append("lower die starts")
    if terms.turn_seconds is not None:
        notes.append(f"{terms.turn_seconds} s a turn")
    if terms.bank is not None:
        notes.append(bank_words(terms.bank))
    if terms.takeover_seconds is not None:
        notes.append(f"a bot takes over after {terms.takeover_seconds} s")
    if not terms.rated:
        notes.append("unrated")
    return notes


def bank_words(bank: BankTerms) -> str:
    """`a time bank of 60 s a point, 12 s a move (Fischer)`."""
    mode = {BankMode.DELAY: "", BankMode.BRONSTEIN: " (Bronstein)",
            BankMode.FISCHER: " (Fischer)"}[bank.mode]
    return (f"a time bank of {bank.reserve_per_point} s a point, {bank.move_seconds} s a "
            f"move{mode}")


def shown_variant(variant: Variant) -> list[str]:
    """The variant's name as a match's terms say it; nothing for the default (standard
    backgammon)."""
    return [] if variant.facts.word is None else [variant.value]


def variant_word(rules: MatchRules) -> str:
    """`nackgammon ` before `match`; nothing for standard backgammon."""
    return "".join(f"{name} " for name in shown_variant(rules.variant))


def rules_summary(terms: MatchTerms) -> str:
    """`nackgammon, no cube, 30 s a turn`; empty for standard backgammon with the usual rules
    and no clock."""
    return ", ".join(shown_variant(terms.rules.variant) + house_rules(terms))
