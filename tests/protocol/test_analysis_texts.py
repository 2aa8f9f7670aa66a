"""The texts of match analysis, from the stored form of an analysis."""
from __future__ import annotations

import datetime

from fibs_server.bots.analysis import MatchAnalysis, performance_rating, rating_words, summarise
from fibs_server.bots.brain import MEASURED_ERROR_RATES
from fibs_server.protocol import info
from fibs_server.protocol.help_topics import TOPICS
from fibs_server.protocol.wording import analysis_texts


def test_a_variant_not_judged_says_so():
    analysis = MatchAnalysis(plies=2, move_filter="f", variant="hypergammon", length=3,
                             evaluated=False, decisions=(),
                             players=(summarise(0, ()), summarise(1, ()))).to_dict()
    lines = analysis_texts.summary(7, ("alice", "bob"), analysis)
    assert lines[0] == "Analysis of match 7: alice - bob, 3 point match hypergammon."
    assert lines[-1].startswith("A hypergammon match is not judged")


def test_every_line_of_a_summary_fits_an_80_column_terminal():
    analysis = MatchAnalysis(plies=2, move_filter="every legal play at 2-ply (cubeful)",
                             variant="standard", length=None, evaluated=True, decisions=(),
                             players=(summarise(0, ()), summarise(1, ()))).to_dict()
    lines = analysis_texts.summary(12345, ("a_very_long_name", "another_long_one"), analysis)
    assert lines[0].endswith("unlimited match.")
    assert all(len(line) <= 79 for line in lines), max(lines, key=len)


def analysed(error_rates: tuple[float, float]) -> dict:
    """The stored form of an analysis whose players have these error rates over 40
    unforced decisions."""
    analysis = MatchAnalysis(plies=2, move_filter="every legal play at 2-ply (cubeful)",
                             variant="standard", length=5, evaluated=True, decisions=(),
                             players=(summarise(0, ()), summarise(1, ()))).to_dict()
    for player, rate in zip(analysis["players"], error_rates):
        player.update(unforced_decisions=40, error_rate=rate)
    return analysis


def test_the_summary_says_its_depth_and_its_scale():
    lines = analysis_texts.summary(9, ("alice", "bob"), analysed((7.5, 12.0)))
    assert lines[1] == "Level: bgsage 2-ply (gnubg's 1-ply), every legal play at 2-ply (cubeful)."
    scale = " ".join(lines[-4:-1])
    assert scale.startswith("Error rates: mEMG lost per unforced decision, judged at bgsage "
                            "2-ply, on gnubg's scale, with gnubg's rating words.")
    assert "PR: half the error rate (500 x EMG per decision), XG's scale" in scale
    assert "only XG counts a 1-point match's PR 1.5 times." in scale
    assert lines[-1] == "Type 'analysis 9 moves' for every decision."


def test_a_player_below_the_judges_resolution_is_marked():
    # The expert bot plays bgsage at the analysis's own depth: the judge finds 0.0-0.1.
    lines = analysis_texts.summary(9, ("alice", "bot_expert"), analysed((9.1, 0.1)))
    marked = " ".join(lines[-3:-1])
    assert marked == ("bot_expert's error rate is below the judge's resolution (2.0 mEMG): "
                      "played at the analysis's own depth: errors below its resolution are "
                      "not seen.")
    assert all(len(line) <= 79 for line in lines)
    assert "alice's" not in " ".join(lines)
    unmarked = analysis_texts.summary(9, ("alice", "bob"), analysed((9.1, 2.0)))
    assert not any("resolution" in line for line in unmarked)
    nothing_judged = analysed((0.0, 0.0))
    nothing_judged["players"][0]["unforced_decisions"] = 0
    assert analysis_texts.below_resolution(nothing_judged["players"][1])
    assert not analysis_texts.below_resolution(nothing_judged["players"][0])


def test_a_decision_that_lost_equity_is_marked_and_shows_the_best():
    decision = {"game": 1, "turn": 3, "player": 1, "kind": "move", "dice": [6, 1],
                "played": "8-2 8-7", "best": "13-7 8-7", "forced": False, "error": 0.219,
                "skill": "very bad"}
    assert analysis_texts.decision_lines(decision, ("alice", "bob")) == [
        "    3 bob          move 61            8-2 8-7                  0.219 ??",
        "      best: 13-7 8-7"]
    forced = {**decision, "played": "", "forced": True, "error": 0.0, "skill": "none"}
    assert analysis_texts.decision_lines(forced, ("alice", "bob")) == [
        "    3 bob          move 61            (no legal play)          forced"]


def test_a_bots_whois_states_its_measured_strength_to_the_web_page_only():
    facts = info.WhoisFacts(
        name="bot_expert", rating=1700.0, experience=10, email=None,
        last_login=datetime.datetime(2026, 12, 1, tzinfo=datetime.timezone.utc),
        last_host="localhost", last_logout=None, online_idle_seconds=5, playing_with=None,
        watching=None, away_message=None,
        bot_strength=(2.1, performance_rating(2.1), rating_words(2.1)))
    line = ("  A built-in bot: 2.1 mEMG per decision (PR 1.1) as GNU Backgammon's analysis "
            "measures it (World class).")
    assert line in info.whois(facts, "UTC", match_counts=True)
    assert line not in info.whois(facts, "UTC")  # a classic session: FIBS's lines only


def test_help_bot_gives_the_measured_error_rates():
    text = " ".join(TOPICS["bot"].about)
    rates = [MEASURED_ERROR_RATES[level] for level in ("beginner", "intermediate", "expert")]
    assert f"{rates[0]}, {rates[1]} and {rates[2]} mEMG per decision" in text
