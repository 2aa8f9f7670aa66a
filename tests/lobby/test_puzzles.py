"""Puzzles made by the analysis queue: a rated match's blunders, stored with its analysis;
an unrated match's analysis makes none (it is its players' only); and `puzzle` over telnet:
shown, answered, rated."""
from __future__ import annotations

from fibs_server.protocol.wording import analysis_texts
from tests.bots.test_puzzles import decision
from tests.lobby.recording import logged_in
from tests.lobby.test_analysis import analysing_lobby, play_out, typed

SUMMARY = {"error_rate": 10.0, "pr": 5.0, "rating": "Advanced"}


async def one_blunder(state, plies):
    """An analysis (the real one's form) finding alice's opening 3-1 blundered: she is O in
    game 1 (the lobby's first X is player 1), so its plays are in her own numbers."""
    return {"plies": plies, "evaluated": True, "decisions": [decision()],
            "players": [{"player": 0, **SUMMARY}, {"player": 1, **SUMMARY}]}


async def test_a_rated_matchs_blunders_become_puzzles_an_unrated_ones_none(tmp_path):
    lobby, store, queue = await analysing_lobby(tmp_path, compute=one_blunder)
    alice, alice_out = await logged_in(lobby, "alice", ready=True)
    bob, _ = await logged_in(lobby, "bob", ready=True)
    unrated = await play_out(lobby, alice, bob, unrated="asked")
    assert await queue.run_one()
    assert await store.next_puzzle("alice", 1500.0) is None
    rated = await play_out(lobby, alice, bob, seed=2)
    assert await queue.run_one()

    shown = await store.next_puzzle("carol", 1500.0)
    assert shown is not None and shown.match_id == rated != unrated
    assert (shown.puzzle.best, shown.puzzle.played) == ("8/5 6/5", "24/23 24/21")

    lines = await typed(lobby, alice, alice_out, f"puzzle {shown.puzzle_id}")
    assert lines[0].startswith(f"Puzzle {shown.puzzle_id} (rating ")
    assert lines[1].startswith(f"  Position ID {shown.puzzle.position_id}")
    answer = await typed(lobby, alice, alice_out, f"puzzle {shown.puzzle_id} {shown.puzzle.best}")
    assert answer[0] == f"Right: {shown.puzzle.best}."
    assert (await store.puzzle_rating("alice")).solved == 1
    assert await typed(lobby, alice, alice_out, "puzzle 0") == [analysis_texts.no_puzzle("0")]
    assert await typed(lobby, alice, alice_out, "puzzle what") == [analysis_texts.PUZZLE_USAGE]
