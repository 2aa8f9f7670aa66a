"""Our match analysis against GNU Backgammon's, the independent judge: a few bot matches,
analysed by ours at its default level (bgsage's 2-ply) and by gnubg at its 1-ply (the same
look-ahead). At the cheapest level the two networks differ more than the bounds allow for a
player that is itself bgsage's network (docs/ANALYSIS.md). The full comparison:
bench/analysis_vs_gnubg.py."""
from __future__ import annotations

import random

import pytest

from fibs_server.bots import EXPERT, INTERMEDIATE, Level
from fibs_server.bots.analysis import DEFAULT_PLIES, analyse_match
from fibs_server.protocol.views.matfile import mat_games, write_mat
from fibs_server.protocol.wording import analysis_texts
from fibs_server.rules.dice import SeededDice
from fibs_server.rules.match import Match

from ..conftest import skip_unless_ci
from ..gnubg_analysis import BLUNDERS_FOUND, compare, gnubg_analysis, rates_agree
from ..gnubg_script import GNUBG
from .helpers import play_bots

NAMES = ("left", "right")
SAMPLE = [(1, 0), (3, 1), (5, 2)]  # (length, seed): about 15 s of analysis on one core
# Weaker than any bot (noise fixed here, whatever the levels' calibration): its blunders are
# what the comparison needs.
BLUNDERER = Level("blunderer", plies=1, noise=0.15)


@pytest.mark.gnubg
def test_error_rates_and_blunders_agree_with_gnubg(tmp_path):
    if not GNUBG.exists():
        skip_unless_ci(f"needs GNU Backgammon at {GNUBG} (apt-get install -y gnubg)")
    # Our and gnubg's error and unforced decisions, per player, summed over the sample.
    ours, theirs = [[0.0, 0], [0.0, 0]], [[0.0, 0], [0.0, 0]]
    blunders = found = 0
    for length, seed in SAMPLE:
        match = Match(length, SeededDice(seed))
        play_bots(match, (BLUNDERER, INTERMEDIATE), random.Random(seed))
        mat_file = tmp_path / f"{seed}.mat"
        mat_file.write_text(write_mat(NAMES, length, mat_games(match)))
        against = compare(analyse_match(match, DEFAULT_PLIES),
                          gnubg_analysis(mat_file, NAMES, DEFAULT_PLIES - 1))
        for side in (0, 1):
            mine, gnubgs = against.ours[side], against.gnubg[side]
            ours[side][0] += mine.total_error
            ours[side][1] += mine.unforced_decisions
            theirs[side][0] += gnubgs.checker_error + gnubgs.cube_error
            theirs[side][1] += gnubgs.unforced_decisions
        blunders += len(against.blunders)
        found += against.blunders_found
    for side in (0, 1):
        mine, gnubgs = (1000 * error / count for error, count in (ours[side], theirs[side]))
        assert rates_agree(mine, gnubgs), (side, mine, gnubgs)
    assert blunders >= 10  # a sample that says something
    assert found >= BLUNDERS_FOUND * blunders, (found, blunders)


@pytest.mark.gnubg
def test_the_expert_where_gnubg_sees_errors_that_ours_cannot_is_marked(tmp_path):
    """The expert plays bgsage at the analysis's own depth: in this 1-point match ours finds
    no error in its play, gnubg's 1-ply finds some, and ours says it cannot see them."""
    if not GNUBG.exists():
        skip_unless_ci(f"needs GNU Backgammon at {GNUBG} (apt-get install -y gnubg)")
    match = Match(1, SeededDice(3))
    play_bots(match, (EXPERT, INTERMEDIATE), random.Random(3))
    mat_file = tmp_path / "expert.mat"
    mat_file.write_text(write_mat(NAMES, 1, mat_games(match)))
    ours = analyse_match(match, DEFAULT_PLIES)
    against = compare(ours, gnubg_analysis(mat_file, NAMES, DEFAULT_PLIES - 1))
    gnubgs = against.gnubg[0]
    assert ours.players[0].error_rate == 0.0
    assert gnubgs.checker_error + gnubgs.cube_error > 0.0  # what the mark warns of
    stored = ours.to_dict()
    assert [analysis_texts.below_resolution(player) for player in stored["players"]] == [
        True, False]
    assert analysis_texts.UNSEEN in " ".join(analysis_texts.summary(1, NAMES, stored))
