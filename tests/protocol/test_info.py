"""Texts of `show` and `history`, checked against exact expected text."""
from __future__ import annotations

import datetime

from fibs_server.protocol import info
from fibs_server.protocol.match_rules import MatchTerms
from fibs_server.rules.variants import MatchRules, Variant

FINISHED = datetime.datetime(2026, 11, 30, 10, 31, tzinfo=datetime.timezone.utc)


def test_show_without_a_known_subject_lists_the_subjects():
    assert info.cannot_show("Foo") == (
        "** Don't know how to show foo. Try 'games', 'saved', 'savedcount', 'watchers', 'max' "
        "or 'tables'.")
    assert info.cannot_show("").startswith("** Don't know how to show nothing. Try ")


def test_saved_matches_mark_an_opponent_online_and_ready():
    def row(online: bool, ready: bool, length: int | None) -> str:
        return info.saved_matches([info.SavedMatch("alice", online, ready, length, 2, 10)])[1]

    assert info.saved_matches([]) == ["no saved games."]
    assert row(True, True, 3) == "**alice                   3                2 - 10"
    assert row(True, False, 3) == " *alice                   3                2 - 10"
    assert row(False, False, None) == "  alice                  unlimited                2 - 10"


def test_saved_count():
    assert info.saved_count("bob", 0) == "bob has no saved games."
    assert info.saved_count("bob", 1) == "bob has 1 saved game."
    assert info.saved_count("bob", 2) == "bob has 2 saved games."


def test_history_rows_won_lost_ended_rated_or_not():
    won = info.FinishedMatch(12, FINISHED, "bob", 5, 5, 2, True, (1500.0, 1507.5))
    ended = info.FinishedMatch(3, FINISHED, "carol", None, 4, 6, None, None)
    assert info.history("alice", [won, ended]) == [
        "Finished matches of alice, newest first:",
        "    id  finished (UTC)    opponent         length  score  result  rating                rules",
        "    12  2026-11-30 10:31  bob                   5   5-2   won     1507.50 (+7.50)",
        "     3  2026-11-30 10:31  carol               unl   4-6   ended   -",
        "  Saved matches waiting: 0. Matches abandoned: 0."]
    lost = info.FinishedMatch(7, FINISHED, "bob", 1, 0, 1, False, (1500.0, 1490.0))
    assert info.history_row(lost).endswith("  lost    1490.00 (-10.00)")
    nack = info.FinishedMatch(8, FINISHED, "bob", 3, 3, 1, True, None,
                              MatchTerms(MatchRules(Variant.NACKGAMMON, cube=False), 30))
    assert info.history_row(nack) == (
        "     8  2026-11-30 10:31  bob                   3   3-1   won     -"
        "                     nackgammon, no cube, 30 s a turn")
    assert info.history("alice", [], 1, 2) == ["alice has no finished matches.",
                                               "  Saved matches waiting: 1. Matches abandoned: 2."]
    # no row starts with a digit (Gibbon would read it as a CLIP message), four-digit ids too
    assert info.history_row(info.FinishedMatch(1234, FINISHED, "bob", 1, 1, 0, True, None)
                            ).startswith("  1234  ")


def test_no_rating_rank():
    assert info.no_rating_rank("bob", 12, 50) == (
        "** bob has no rating rank yet (experience 12, ranked above 50).")


def test_show_games_names_a_variant_and_house_rules_and_keeps_fibs_rows_otherwise():
    rows = [info.RunningGame("alice", "bob", 5, 1, 0, MatchTerms()),
            info.RunningGame("carol", "dave", None, 0, 2, MatchTerms(
                MatchRules(Variant.NACKGAMMON, lower_die_starts=True, cube=False))),
            info.RunningGame("erin", "fred", 3, 0, 0, MatchTerms(MatchRules(Variant.HYPERGAMMON))),
            info.RunningGame("gina", "hal", 1, 0, 0, MatchTerms(turn_seconds=30))]
    assert info.games_list(rows) == [
        "List of games:",
        "alice            -  bob              (5 point match 1-0)",
        "carol            -  dave             (unlimited nackgammon match 0-2; no cube, lower die starts)",
        "erin             -  fred             (3 point hypergammon match 0-0)",
        "gina             -  hal              (1 point match 0-0; 30 s a turn)"]


def test_whois_says_by_which_rules_a_player_plays():
    facts = info.WhoisFacts("alice", 1500.0, 0, None, None, None, None, 0, "bob", None, None,
                            MatchTerms(MatchRules(Variant.PORTES), turn_seconds=60))
    assert "  alice is playing with bob (portes, 60 s a turn)." in info.whois(facts, "UTC")
    standard = info.WhoisFacts("alice", 1500.0, 0, None, None, None, None, 0, "bob", None, None)
    assert "  alice is playing with bob." in info.whois(standard, "UTC")
