"""Starting a match is atomic: one player, at most one match, and a player who
drops while the match is being set up leaves it saved, never half-started."""
from __future__ import annotations

import asyncio
import re

import pytest

from tests.e2e.test_lobby_commands import ask
from tests.e2e.test_match_play import players  # noqa: F401 (a fixture)

# The races meet in the store (a match created, saved): both databases.
pytestmark = pytest.mark.stored


async def test_a_drop_while_joining_leaves_a_saved_match_and_nobody_stuck(harness, players):
    alice, bob, _ = players
    harness.script_dice((3, 1), (3, 1))
    await alice.send("invite bob 3")
    await bob.skip_until("Type 'join alice' to accept.")
    await bob.send("join alice")
    await alice.close()  # a moment after the join
    await bob.skip_until("alice drops connection. The game was saved.")
    alice = await harness.login_clip("alice")
    await alice.send("invite bob")  # bob is free, and the match waits for them
    await alice.skip_until("** You invited bob to resume a saved match.")
    await bob.skip_until("Type 'join alice' to accept.")
    await bob.send("join alice")
    await bob.skip_until("You are now playing with alice. Your running match was loaded.")


async def test_two_joins_at_once_put_nobody_in_two_matches(harness, players):
    alice, bob, carol = players
    await ask(carol, "toggle ready", "** You're now ready to invite or join someone.")
    await alice.send("invite bob 3")  # bob is invited by alice, alice by carol
    await bob.skip_until("Type 'join alice' to accept.")
    await ask(carol, "invite alice 3", "** You invited alice to a 3 point match.")
    await alice.skip_until("Type 'join carol' to accept.")
    await asyncio.gather(bob.send("join alice"), alice.send("join carol"))
    # A session serves its lines one after the other, each to the end (a join included):
    # once both have answered the next line, both joins are over.
    for client in (bob, alice):
        await client.send("show max")
        await client.skip_until(re.compile(r"max_logins is \d+"))
    await carol.send("show games")
    await carol.skip_until("List of games:")
    rows = await carol.lines_until_prompt()
    assert len(rows) == 1 and "alice" in rows[0], rows
