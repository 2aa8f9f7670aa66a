"""When the database refuses a write, memory must not run ahead of it: the action
is undone, the player is told to try again, and the match goes on."""
from __future__ import annotations

import contextlib
import re

import asyncpg
import pytest
from sqlalchemy import event

from tests.e2e.conftest import answer_guest_dialogue
from tests.e2e.test_match_play import join_match, players  # noqa: F401 (a fixture)

BOARD = re.compile(r"board:.*")
NOT_STORED = "** The server could not store that. Please try again."


@contextlib.contextmanager
def failing_updates(harness, table: str, verb: str = "UPDATE"):
    """Every `verb` (UPDATE, INSERT INTO) of `table` fails, as on a full disk or a dead
    database connection."""
    engine = harness.server.store._writes.engine

    def fail(connection, cursor, statement, parameters, context, executemany):
        if statement.lstrip().upper().startswith(f"{verb} {table.upper()}"):
            raise RuntimeError(f"injected failure: {verb} {table}")

    event.listen(engine, "before_cursor_execute", fail)
    try:
        yield
    finally:
        event.remove(engine, "before_cursor_execute", fail)


async def test_a_move_that_cannot_be_stored_is_undone_and_can_be_made_again(harness, players):
    alice, bob, _ = players
    harness.script_dice((3, 1), (6, 4))
    await join_match(alice, bob, "5")
    await alice.skip_until("It's your turn to move.")
    board_before = await alice.read_line()
    await bob.skip_until(BOARD)
    with failing_updates(harness, "matches"):
        await alice.send("move 8-5 6-5")
        await alice.expect_lines(NOT_STORED)
    await bob.expect_silence()
    await alice.send("board")
    await alice.expect_lines(board_before)  # nothing moved, the same dice
    await alice.send("move 8-5 6-5")
    await alice.skip_until(BOARD)
    await bob.skip_until("alice moves 8-5 6-5 .")
    await bob.skip_until("It's your turn to roll or double.")
    # what both saw is what is stored: after a restart the match resumes after that move
    await harness.restart()
    alice = await harness.login_clip("alice")
    bob = await harness.login_clip("bob")
    await alice.skip_until("6")  # bob's login
    await alice.send("invite bob")  # both are still `ready`: the toggle is stored
    await bob.skip_until("Type 'join alice' to accept.")
    await bob.send("join alice")
    await bob.skip_until("turn: bob")
    board = (await bob.skip_until("It's your turn to roll or double."))[-1]
    assert board.split(":")[6:32] == \
        "0:-2:0:0:0:2:4:0:2:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0".split(":")


async def test_a_toggle_that_cannot_be_stored_stays_as_it_was(harness, players):
    alice, _, _ = players
    with failing_updates(harness, "accounts"):
        await alice.send("toggle moreboards")
        await alice.expect_lines("** Sorry, the server could not do that. It has been logged.")
    await alice.send("toggle")
    rows = await alice.expect_lines("The current settings are:", *[re.compile(".*")] * 17)
    assert "moreboards      NO" in rows
    await alice.send("toggle moreboards")
    await alice.expect_lines("** Will send rawboards after rolling.")


async def test_a_terminated_postgresql_backend_is_replaced(harness, players, database_url):
    if not database_url.startswith("postgresql"):
        pytest.skip("PostgreSQL only: SQLite has no server connections to lose")
    alice, bob, _ = players
    harness.script_dice((3, 1), (6, 4))
    await join_match(alice, bob, "5")
    await alice.skip_until("It's your turn to move.")
    base, _, database = database_url.rpartition("/")
    admin = await asyncpg.connect(f"{base}/postgres")
    try:
        terminated = await admin.fetchval(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = $1 AND pid <> pg_backend_pid()", database)
    finally:
        await admin.close()
    assert terminated > 0
    await alice.send("move 8-5 6-5")
    await alice.skip_until(BOARD)
    await bob.skip_until("alice moves 8-5 6-5 .")


LOGIN_FAILED = "** Sorry, the server could not log you in. Please try again later."


async def test_a_login_the_store_fails_is_answered_and_closed(harness):
    await harness.register("alice")
    with failing_updates(harness, "accounts"):
        client = await harness.connect()
        await client.send("login testclient 1008 alice secret")
        rest = await client.expect_closed()
        assert rest.endswith(f"{LOGIN_FAILED}\r\n".encode()), rest
    alice = await harness.login_clip("alice")  # not left half logged in
    await alice.send("who alice")
    await alice.expect_lines(re.compile(r"5 alice - - 0 0 1500\.00 .*"), "6")


async def test_a_registration_the_store_fails_is_answered_and_closed(harness):
    with failing_updates(harness, "accounts", verb="INSERT INTO"):
        client = await harness.connect()
        await answer_guest_dialogue(client, "alice", "secret")
        rest = await client.expect_closed()
        assert rest.endswith(f"{LOGIN_FAILED}\r\n".encode()), rest
    await harness.register_by_dialogue("alice")  # the name is still free
