"""Looking back at matches: `oldboard`, `oldmoves`, `history`, and `fibs-server export-match`."""
from __future__ import annotations

import re

import pytest

from fibs_server.__main__ import export_match
from tests.durability.test_save_resume import next_board
from tests.e2e.test_lobby_commands import ask
from tests.e2e.test_match_play import join_match, players  # noqa: F401  (a fixture)

# The archive reads finished matches back from the store: both databases.
pytestmark = pytest.mark.stored


async def test_oldboard_oldmoves_history_and_the_exported_match(harness, players, tmp_path):
    alice, bob, carol = players
    harness.script_dice((3, 1), (6, 4), (2, 1))
    await ask(carol, "oldmoves", "** There is no previous game.")
    await ask(carol, "oldboard", "** You're not playing.")
    await ask(carol, "history", "carol has no finished matches.", "  Saved matches waiting: 0. Matches abandoned: 0.")
    await ask(carol, "history nobody", "No information found on user nobody.")
    await join_match(alice, bob, "1")
    await alice.skip_until("It's your turn to move.")
    await bob.skip_until("alice makes the first move.")
    opening = await next_board(bob)
    await bob.send("oldboard")
    await bob.expect_lines("** There is no previous board.")
    await bob.send("oldmoves")
    await bob.expect_lines("** There is no previous game.")
    await alice.send("move 8-5 6-5")
    await bob.skip_until("alice moves 8-5 6-5 .")
    await bob.skip_until("Please move 2 pieces.")  # a 1-point match: rolled for bob, 6-4
    await bob.send("oldboard")
    await bob.expect_lines(opening)  # before alice's move: her 3-1 to play
    await bob.send("move 1-7 7-11")
    await alice.skip_until("Please move 2 pieces.")  # alice's 2-1, rolled for her
    await alice.send("resign n")
    await bob.skip_until("alice wants to resign. You will win 1 point. Type 'accept' or 'reject'.")
    await bob.send("accept")
    await alice.skip_until("bob wins the 1 point match 1-0 .")
    await bob.skip_until("You win the 1 point match 1-0 .")
    await alice.send("oldmoves")
    await alice.skip_until("bob is X - alice is O")
    await alice.expect_lines("Score is 0-0 in a 1 point match.",
                             "O: (3 1) 8-5 6-5",
                             "X: (6 4) 1-7 7-11",
                             "O: wants to resign",
                             "X: accepts",
                             "X: wins")
    await carol.skip_until("bob wins a 1 point match against alice  1-0 .")
    row = re.compile(r"     (\d+)  \d{4}-\d\d-\d\d \d\d:\d\d  bob                   1   0-1   "
                     r"lost    1490\.00 \(-10\.00\)")
    got = await ask(carol, "history alice", "Finished matches of alice, newest first:",
                    "    id  finished (UTC)    opponent         length  score  result  rating                rules", row,
                    "  Saved matches waiting: 0. Matches abandoned: 0.")
    match_id = int(row.fullmatch(got[-2]).group(1))
    await ask(carol, "history bob", "Finished matches of bob, newest first:",
              "    id  finished (UTC)    opponent         length  score  result  rating                rules",
              re.compile(rf"     {match_id}  .*  alice                 1   1-0   won     "
                         r"1510\.00 \(\+10\.00\)"), "  Saved matches waiting: 0. Matches abandoned: 0.")
    exported = tmp_path / "match.mat"
    assert await export_match(harness.config.database_url, match_id, str(exported)) == 0
    assert exported.read_text() == (
        "\n"
        " 1 point match\n"
        "\n"
        " Game 1\n"
        " alice : 0                      bob : 0\n"
        "  1) 31: 8/5 6/5                 64: 24/18 18/14\n"
        "                                  Wins 1 point\n"
        "\n")
    assert await export_match(harness.config.database_url, match_id + 1, None) == 1
