"""Two server nodes, one lobby: one PostgreSQL database under them and the machine's Redis
between them (a channel of the test's own), CLIP clients on real sockets. Presence, logins and
logouts, tells and shouts reach users on the other node in FIBS's lines; a login on the
other node takes the user over. Without PostgreSQL or Redis: skipped with the reason (in CI
they always run)."""
from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator

import pytest

from fibs_server.gnubg_bot.external import GnubgConnection
from fibs_server.lobby.nodes.directory import NodeTimes
from fibs_server.rules.board.notation import format_play
from tests.e2e.client import FibsClient
from tests.e2e.conftest import ServerHarness
from tests.e2e.gnubg_player import RecordingPlayer
from tests.e2e.test_gnubg_external import (  # noqa: F401 (engines is a fixture)
    MATCH_END,
    assert_clean,
    assert_every_game_ended,
    engines,
    invite,
    play_match,
    scores,
    together,
)
from tests.redis_server import prefix, private_redis, redis_url  # noqa: F401 (fixtures)
from tests.waiting import until


@contextlib.asynccontextmanager
async def running_nodes(postgresql_url: str, redis_url: str, prefix: str,
                        node_ids: tuple[str, ...] = ("a", "b"),
                        node_times: NodeTimes | None = None,
                        **config: object) -> AsyncIterator[list[ServerHarness]]:
    """Nodes a and b (or `node_ids`), started in that order and subscribed; `config`: more
    ServerConfig fields for all; `node_times`: their heartbeats and silences (shorter)."""
    nodes = []
    try:
        for node_id in node_ids:
            node = ServerHarness(postgresql_url)
            node.config.bus_url, node.config.bus_prefix = redis_url, prefix
            node.config.node_id = node_id
            if node_times is not None:
                node.lobby_options["node_times"] = node_times
            for field, value in config.items():
                setattr(node.config, field, value)
            nodes.append(await node.start())
        for node in nodes:
            assert node.server is not None and node.server.bus is not None
            await node.server.bus.until_subscribed()
        yield nodes
    finally:
        for node in nodes:
            await node.stop()


async def matched(alice: FibsClient, bob: FibsClient, length: int = 3) -> None:
    """alice and bob toggle `ready`; alice invites bob once she sees him ready, and he joins."""
    for client in (alice, bob):
        await client.send("toggle ready")
    await alice.skip_until(re.compile(r"5 bob - - 1 .*"))
    await alice.send(f"invite bob {length}")
    await bob.skip_until("Type 'join alice' to accept.")
    await bob.send("join alice")


async def gnubg_match_across(a: ServerHarness, b: ServerHarness, engines: list,
                             players: list[RecordingPlayer]
                             ) -> tuple[RecordingPlayer, RecordingPlayer]:
    """alice on node a and bob on node b, each a gnubg process (`players` gets them, for the
    caller to close), ready with `moreboards`; alice invites bob to 3 points with seeded dice,
    and he joins: the match runs on a."""
    for node, name, engine in ((a, "alice", engines[0]), (b, "bob", engines[1])):
        await a.register(name)  # one database under both nodes
        client = await node.login_clip(name, client_name="gnubg_bot")
        players.append(RecordingPlayer(client, name, await GnubgConnection.open(engine)))
    alice, bob = players
    for player in players:
        await player.set_up("ready", "moreboards")
    await alice.client.skip_until(re.compile(r"5 bob - - 1 .*"))
    await invite(a, alice, bob, "3", seed=9)
    return alice, bob


@pytest.fixture
async def two_nodes(postgresql_url, redis_url, prefix):
    async with running_nodes(postgresql_url, redis_url, prefix) as nodes:
        yield nodes


async def test_users_on_two_nodes_see_talk_and_take_over(two_nodes):
    a, b = two_nodes
    for name in ("alice", "bob"):
        await a.register(name)
    alice = await a.login_clip("alice")
    bob = await b.login_clip("bob")
    await alice.skip_until("7 bob bob logs in.")
    await alice.skip_until("6")

    await bob.send("rawwho")
    listed = await bob.skip_until("6")
    assert sorted(line.split()[1] for line in listed if line.startswith("5 ")) == ["alice", "bob"]

    await alice.send("tell bob hello from node a")
    await bob.skip_until("12 alice hello from node a")
    await alice.skip_until("16 bob hello from node a")
    await bob.send("shout hello everyone")
    await alice.skip_until("13 bob hello everyone")

    # bob logs in on node a too: his connection to node b is closed, and alice sees him
    # leave b and arrive on a.
    bob_again = await a.login_clip("bob")
    await bob.skip_until("** You logged in again from 127.0.0.1. This connection is closed.")
    await bob.expect_closed()
    await alice.skip_until("7 bob bob logs in.")
    await bob_again.send("bye")
    await alice.skip_until("8 bob bob logs out.")


@pytest.mark.gnubg
async def test_gnubg_plays_a_match_across_nodes_watched_from_a_third(
        postgresql_url, redis_url, prefix, engines):  # noqa: F811 (fixtures)
    """Three nodes. alice on node a invites bob on node b; each is a gnubg process behind
    `external` (its own board parser and decisions): the match runs on a, bob's decisions
    are forwarded there and its boards relayed to him, and both play to the end with nothing
    refused; carol, on node c, watches alice throughout."""
    players: list[RecordingPlayer] = []
    async with running_nodes(postgresql_url, redis_url, prefix, ("a", "b", "c")) as (a, b, c):
        try:
            await a.register("carol")
            carol = await c.login_clip("carol")
            alice, bob = await gnubg_match_across(a, b, engines, players)
            await carol.send("watch alice")
            await carol.skip_until("You're now watching alice.")
            ends = await play_match(alice, bob)
            assert_clean(alice, bob)
            assert_every_game_ended(alice)
            assert_every_game_ended(bob)
            # The same games from both sides (each sees their own score first).
            assert scores(alice, 3) == [" ".join(reversed(score.split()))
                                        for score in scores(bob, 3)]
            winner = "alice" if ends[0].startswith("You win") else "bob"
            assert ends[1 if winner == "alice" else 0].startswith(
                f"{winner} wins the 3 point match")
            [record] = await a.server.store.finished_matches("bob", 1)  # type: ignore[union-attr]
            assert record.winner == winner and record.player_a == "alice"
            # carol saw the match from node c as a watcher on a sees it.
            watched = await carol.skip_until(re.compile(rf"{winner} wins the 3 point match .*"))
            assert any(line.startswith("board:alice:bob:3:") for line in watched)
            # bob is free again on his node, and alice sees it.
            await bob.client.send("rawwho")
            await bob.client.skip_until(re.compile(r"5 bob - - .*"))
            await alice.client.skip_until(re.compile(r"5 bob - - .*"))
        finally:
            for player in players:
                player.gnubg.close()


AFTER_THE_FACT = re.compile(r"didn't double or resign|It's not your turn|Please wait until")


@pytest.mark.gnubg
async def test_a_match_across_nodes_goes_on_after_redis_restarts(postgresql_url, private_redis,
                                                                  prefix, engines):
    """Redis is killed and started again in the middle of a match across two nodes: each node
    resubscribes, letters lost meanwhile (a board, a move) cost nothing, since each seated
    player is shown the board as it stands, and gnubg plays on to the end."""
    players: list[RecordingPlayer] = []
    async with running_nodes(postgresql_url, private_redis.url, prefix) as nodes:
        try:
            alice, bob = await gnubg_match_across(*nodes, engines, players)

            async def restart_redis_mid_match() -> None:
                await until(lambda: len(bob.decisions) >= 4, "bob has played a few decisions")
                await asyncio.to_thread(private_redis.kill)
                await asyncio.to_thread(private_redis.start)  # the same port

            await together(alice.play_until(MATCH_END.fullmatch), bob.play_until(MATCH_END.fullmatch),
                           restart_redis_mid_match())
            # A decision sent as Redis went may be asked for again once it is back (the match
            # where it stands), and answered twice: the second answer is refused as any answer
            # out of turn is, and changes nothing.
            for player in players:
                assert all(AFTER_THE_FACT.search(refusal) for refusal in player.refused), \
                    player.report()
                assert len(player.refused) <= 2 and not player.problems, player.report()
            assert scores(alice, 3) == [" ".join(reversed(score.split())) for score in scores(bob, 3)]
            for node in nodes:
                assert node.server is not None and node.server.bus is not None
                assert node.server.bus.figures.reconnects >= 1
        finally:
            for player in players:
                player.gnubg.close()


async def test_a_login_on_another_node_takes_a_running_match_over(two_nodes):
    """alice and bob play on node a; bob logs in on node b: his old connection is closed and
    the match goes on with him on b, shown where it stands, as a re-login on one node does."""
    a, b = two_nodes
    for name in ("alice", "bob"):
        await a.register(name)
    alice = await a.login_clip("alice")
    old_bob = await a.login_clip("bob")
    a.script_dice((3, 1), (6, 5))
    await matched(alice, old_bob)
    await alice.skip_until("It's your turn to move.")
    await alice.send("move 8-5 6-5")
    await old_bob.skip_until("It's your turn to roll or double.")

    bob = await b.login_clip("bob")
    await old_bob.skip_until("** You logged in again from 127.0.0.1. This connection is closed.")
    await old_bob.expect_closed()
    board = re.compile(r"board:You:alice:3:.*")
    await bob.skip_until(board)
    assert await bob.read_line() == "It's your turn to roll or double."
    await bob.send("roll")
    await bob.skip_until("You roll 6 and 5.")
    await alice.skip_until("bob rolls 6 and 5.")


async def test_a_rolling_restart_keeps_the_other_nodes_players_playing(postgresql_url, redis_url,
                                                                       prefix):
    """Three nodes; alice (node b) plays bob (node c), the match on b. Node a restarts, as in
    a rolling restart: its user is logged out everywhere at once, and the match across b and
    c goes on meanwhile and after, every move told."""
    async with running_nodes(postgresql_url, redis_url, prefix, ("a", "b", "c")) as (a, b, c):
        for name in ("alice", "bob", "dave"):
            await a.register(name)
        dave = await a.login_clip("dave")
        alice = await b.login_clip("alice")
        bob = await c.login_clip("bob")
        b.script_dice((3, 1), (6, 5), (2, 2), (4, 3))
        await matched(alice, bob)
        await alice.skip_until("It's your turn to move.")
        await alice.send("move 8-5 6-5")
        await bob.skip_until("It's your turn to roll or double.")
        assert dave is not None

        await a.restart()  # SIGTERM's way: its users are told, and logged out everywhere
        await alice.skip_until(re.compile(r"8 dave dave (logs out|drops connection)\."))
        await bob.send("roll")
        await bob.skip_until("You roll 6 and 5.")
        await alice.skip_until("bob rolls 6 and 5.")
        assert a.server is not None and a.server.bus is not None
        await a.server.bus.until_subscribed()
        await a.login_clip("dave")
        await alice.skip_until("7 dave dave logs in.")
        await bob.skip_until("7 dave dave logs in.")
        running = b.server.lobby.match_table.playing["bob"]  # type: ignore[union-attr]
        play = format_play(running.match.legal_plays()[0], running.match.colour(1))
        await bob.send(f"move {play}")
        await alice.skip_until(f"bob moves {play} .")
