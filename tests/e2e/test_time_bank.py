"""A time bank over the wire, on a fake clock (`invite bob 2 bank 12 30`): each decision's
own seconds, then the player's reserve, drained by what each decision took; the Fischer
increment; both reserves shown to both players with every board; both warned before a
reserve runs out; the match lost on time only when the decision's seconds and the reserve
are spent; a saved and resumed match keeping each side's reserve; a decision the store
refused costing nothing until it is stored."""
from __future__ import annotations

import re

import pytest

from tests.durability.test_pipeline_faults import assert_memory_is_stored, running_between
from tests.durability.test_store_failures import failing_updates
from tests.e2e.test_match_play import join_match, players  # noqa: F401 (fixture)
from tests.e2e.test_timers import BOARD, clock_of, harness  # noqa: F401 (fixture)


async def reserves_of(harness) -> list[float]:
    record = await harness.server.store.running_match("alice", "bob")
    return record.state["bank"]["reserves"]


async def test_the_reserve_drains_both_see_it_and_only_a_spent_bank_loses(harness, players):
    alice, bob, carol = players
    clock = clock_of(harness)
    harness.script_dice((3, 1), (6, 4))
    await join_match(alice, bob, "2 bank 12 30")  # 12 s a decision, then 60 s of reserve
    await alice.skip_until("It's your turn to move.")
    await alice.expect_lines(
        "Clock: alice has 72 seconds to move. Reserves: alice 1:00, bob 1:00.", BOARD)
    clock.advance(20)  # 12 free, then 8 from the reserve
    await alice.send("board")
    await alice.expect_lines(
        "Clock: alice has 52 seconds to move. Reserves: alice 0:52, bob 1:00.", BOARD)
    await alice.send("move 8-5 6-5")
    after_alice = "Clock: bob has 72 seconds to roll or double. Reserves: alice 0:52, bob 1:00."
    await bob.skip_until("alice moves 8-5 6-5 .")
    await bob.expect_lines(after_alice, BOARD, "It's your turn to roll or double.")
    await alice.skip_until(after_alice)  # the opponent sees both reserves too
    assert await reserves_of(harness) == [52.0, 60.0]  # stored with the move
    clock.advance(5)
    await bob.send("roll")
    await bob.expect_lines("You roll 6 and 4.", "Please move 2 pieces.")
    await bob.send("board")  # the roll was free: a new decision, with its own 12 seconds
    await bob.expect_lines(
        "Clock: bob has 72 seconds to move. Reserves: alice 0:52, bob 1:00.", BOARD)
    await bob.send("move 1-7 7-11")
    await alice.skip_until(
        "Clock: alice has 64 seconds to roll or double. Reserves: alice 0:52, bob 1:00.")
    clock.advance(54)
    await alice.skip_until("You have 10 seconds left to roll or double.")
    await bob.skip_until("alice has 10 seconds left to roll or double, or loses on time.")
    await carol.send("watch alice")  # a watcher sees the countdown as well
    await carol.skip_until("You're now watching alice.")
    await alice.skip_until("carol is watching you.")
    await alice.expect_lines(re.compile("5 carol .*"), "6")
    clock.advance(9.9)
    await alice.expect_silence()  # the reserve is not spent yet: the match goes on
    clock.advance(0.1)
    await harness.server.clocks.quiet()
    await alice.expect_lines("Your time to roll or double is spent, your reserve with it: "
                             "you lose the match on time.",
                             "You forfeit the match. bob wins 2 points.",
                             "bob wins the 2 point match 2-0 .")
    await bob.skip_until("alice's time to roll or double is spent, alice's reserve with it: "
                         "alice loses the match on time.")
    await carol.skip_until(re.compile(r"(> )?alice's time to roll or double is spent.*"))


@pytest.mark.stored
async def test_fischer_adds_its_increment_and_a_resumed_match_keeps_the_reserves(harness,
                                                                                 players):
    alice, bob, _ = players
    clock = clock_of(harness)
    harness.script_dice((3, 1))
    await join_match(alice, bob, "2 bank 5 30 fischer")
    await alice.skip_until(
        "Clock: alice has 60 seconds to move. Reserves: alice 1:00, bob 1:00.")
    clock.advance(20)
    await alice.send("move 8-5 6-5")  # 60 - 20 + 5
    await bob.skip_until(
        "Clock: bob has 60 seconds to roll or double. Reserves: alice 0:45, bob 1:00.")
    assert await reserves_of(harness) == [45.0, 60.0]
    await alice.close()
    await bob.skip_until("alice drops connection. The game was saved.")
    # The absence rule holds as for a turn timer: a grace period, no reserve running.
    await bob.expect_lines("alice has 60 seconds to resume the match, or loses it.")
    alice = await harness.login_clip("alice")  # both online: it resumes by itself
    await bob.skip_until(
        "Clock: bob has 60 seconds to roll or double. Reserves: alice 0:45, bob 1:00.")


async def test_a_decision_the_store_refuses_costs_no_reserve_until_it_is_stored(harness,
                                                                                players):
    alice, bob, _ = players
    clock = clock_of(harness)
    harness.script_dice((3, 1))
    await join_match(alice, bob, "2 bank 12 30")
    await alice.skip_until("It's your turn to move.")
    running = running_between(harness, "alice", "bob")
    clock.advance(20)
    with failing_updates(harness, "matches"):
        await alice.send("move 8-5 6-5")
        await alice.skip_until("** The server could not store that. Please try again.")
    assert running.timing.bank is not None and running.timing.bank.reserves == (60.0, 60.0)
    await assert_memory_is_stored(harness, running)
    clock.advance(10)  # the decision goes on with the time it had: 30 s in all
    await alice.send("move 8-5 6-5")
    await bob.skip_until(
        "Clock: bob has 72 seconds to roll or double. Reserves: alice 0:42, bob 1:00.")
    await assert_memory_is_stored(harness, running)
