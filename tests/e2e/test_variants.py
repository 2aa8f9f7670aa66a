"""Variants and house rules chosen on an invitation (`invite bob 5 nack nocube`), over the
wire: the texts that name them, the first boards, the cube, the Portes opening, the lower
die starting, and whole matches of each variant."""
from __future__ import annotations

import re

import pytest

from fibs_server.protocol.views.board import parse_board_line
from fibs_server.rules import Position, Variant
from tests.e2e.test_lobby_commands import ask
from tests.e2e.test_match_play import bot_match, join_match, players  # noqa: F401 (fixture)


async def first_board(client, checkers_per_side: int = 15):
    line = await client.read_line()
    while not line.startswith("board:"):
        line = await client.read_line()
    return parse_board_line(line, checkers_per_side)


async def test_the_invitation_show_games_and_whois_name_the_rules(harness, players):
    alice, bob, carol = players
    harness.script_dice((3, 1))
    await alice.send("invite bob 5 nack crawford")
    await alice.expect_lines("** Unknown word 'crawford' after the match length. "
                             "Use nack, hyper, portes, lowstart, nocube, unrated, timer, takeover or bank.")
    await alice.send("invite bob 5 n")
    await alice.expect_lines("** 'n' could mean nackgammon or nocube.")
    await alice.send("invite bob 5 nocube NACK")
    await alice.expect_lines("** You invited bob to a 5 point match.",
                             "The match is played with: nackgammon, no cube.")
    # FIBS's exact invitation first (every client and bot reads only it), the terms after it
    await bob.expect_lines("alice wants to play a 5 point match with you.",
                           "The match is played with: nackgammon, no cube.",
                           "Type 'join alice' to accept.")
    await bob.send("join alice")
    # the lines FIBS clients read at the start stay FIBS's own
    await bob.expect_lines("** You are now playing a 5 point match with alice")
    await alice.expect_lines("** Player bob has joined you for a 5 point match.")
    await carol.skip_until("alice and bob start a 5 point match.")
    await ask(carol, "show games", "List of games:",
              "alice            -  bob              (5 point nackgammon match 0-0; no cube)")
    await carol.send("whois alice")
    await carol.skip_until("  alice is playing with bob (nackgammon, no cube).")
    await first_board(alice)
    await alice.send("double")
    await alice.expect_lines("** The doubling cube is not used in this match.")


@pytest.mark.parametrize("words, variant", [("nack", Variant.NACKGAMMON),
                                            ("hyper", Variant.HYPERGAMMON),
                                            ("unlimited portes", Variant.PORTES)])
async def test_each_variant_starts_from_its_own_position(harness, players, words, variant):
    alice, bob, _ = players
    harness.script_dice((3, 1), (6, 5))
    length, _, rules = words.rpartition(" ")
    await join_match(alice, bob, f"{length or 3} {rules}")
    board = await first_board(alice, variant.checkers_per_side)
    start = Position.initial(variant)
    assert (board.player_checkers, board.opponent_checkers) == start.checkers
    # alice won the opening 3-1; in Portes she rolls both dice afresh, without a cube
    if variant is Variant.PORTES:
        assert board.player_dice == (0, 0)
        await alice.expect_lines("You roll 6 and 5.", "Please move 2 pieces.")
    else:
        assert board.player_dice == (3, 1)


async def test_portes_has_no_cube_and_no_backgammons(harness, players):
    alice, bob, _ = players
    harness.script_dice((3, 1), (6, 5))
    await join_match(alice, bob, "3 portes")
    await alice.skip_until("Please move 2 pieces.")
    await alice.send("double")
    await alice.expect_lines("** The doubling cube is not used in this match.")
    await alice.send("resign b")
    await bob.skip_until("alice wants to resign. You will win 2 points. "
                         "Type 'accept' or 'reject'.")


async def test_with_lowstart_the_lower_opening_die_moves_first(harness, players):
    alice, bob, _ = players
    harness.script_dice((3, 1))
    await join_match(alice, bob, "3 lowstart")
    await alice.skip_until("You rolled 3, bob rolled 1")
    await alice.expect_lines("bob makes the first move.")
    board = await first_board(bob)
    assert board.player_dice == (1, 3)


@pytest.mark.parametrize("rules", ["nack", "hyper", "portes", "lowstart nocube"])
async def test_a_whole_match_of_each_variant_through_the_server(harness, players, rules):
    alice, bob, _ = players
    checkers = 3 if rules == "hyper" else 15
    alice_bot, bob_bot, endings = await bot_match(harness, alice, bob, f"3 {rules}", seed=7,
                                                  checkers_per_side=checkers)
    assert re.fullmatch(r"(You win|bob wins) the 3 point match \d+-\d+ \.", endings[0])
    cube_turned = [line for line in alice_bot.lines + bob_bot.lines if "doubles" in line]
    if rules in ("portes", "lowstart nocube"):
        assert not cube_turned
    if rules == "portes":  # a game is worth 1 or 2 points: no backgammons, no cube
        assert not [line for line in alice_bot.lines if "3 points" in line]
