"""Verifiable dice through the match pipeline (lobby.match_play) without sockets: a saved
and resumed match goes on with the same stream, an undo against a bot and a failed store
rewind it, so that every roll of the finished match recomputes from its seed."""
from __future__ import annotations

import random

from fibs_server.app import FibsServer, ServerConfig
from fibs_server.protocol.texts import Departure
from fibs_server.rules.dice import VerifiableDice, drawn_pairs, first_wrong_pair
from fibs_server.rules.match import Phase
from tests.lobby.recording import RecordingConnection, logged_in, recording_lobby
from tests.rules.test_match_properties import random_action

SEED = bytes(range(100, 132))


def randomly(rng: random.Random):
    """One action that plays the match on at random, for whichever player must act."""
    def act(match, player):
        if match.phase is Phase.BETWEEN_GAMES:
            return match.join(min({0, 1} - match.joined))
        return random_action(match, rng)
    return act


def first_legal_play(match, player):
    return match.move(player, match.legal_plays()[0])


async def assert_every_roll_recomputes(store, name: str) -> None:
    record = (await store.finished_matches(name, 1))[0]
    pairs = [pair for _, pair in drawn_pairs(record.state["history"])]
    assert record.dice.seed == SEED.hex() and record.dice.drawn == len(pairs) > 20
    assert first_wrong_pair(SEED, pairs) is None


async def test_a_saved_and_resumed_match_goes_on_with_the_same_dice_stream(tmp_path):
    lobby, store = await recording_lobby(tmp_path)
    lobby.config.new_dice = lambda: VerifiableDice(SEED)
    alice, _ = await logged_in(lobby, "alice", ready=True)
    bob, _ = await logged_in(lobby, "bob", ready=True)
    await lobby.matches.start_match(alice, bob, 5)
    rng = random.Random(5)
    for _ in range(60):
        await lobby.matches.act(alice, randomly(rng))
    drawn = lobby.match_table.match_of(alice).match.dice_source.drawn
    await lobby.log_out(alice, Departure.DROPPED)
    saved = await store.running_match("alice", "bob")
    assert saved.dice.drawn == drawn and saved.left_by == "alice"

    alice = lobby.connect(RecordingConnection())
    alice.out.prompts = False
    await lobby.log_in(alice, await store.find_account("alice"))
    await lobby.matches.resume_match(alice, bob)
    running = lobby.match_table.match_of(alice)
    assert running.match.dice_source.drawn == drawn
    assert (await store.running_match("alice", "bob")).left_by is None  # both are back
    while not running.match.is_over:
        await lobby.matches.act(alice, randomly(rng))
    await assert_every_roll_recomputes(store, "alice")
    await store.close()


async def test_undo_against_a_bot_brings_the_same_dice_and_the_record_still_verifies(tmp_path):
    lobby, store = await recording_lobby(tmp_path)
    lobby.config.new_dice = lambda: VerifiableDice(SEED)
    alice, _ = await logged_in(lobby, "alice", ready=True)
    robot, _ = await logged_in(lobby, "robot", double=False)  # rolled for after alice's move
    robot.is_bot = True
    await lobby.matches.start_match(alice, robot, 1)
    running = lobby.match_table.match_of(alice)
    rng = random.Random(8)
    undone = 0
    while not running.match.is_over:
        actor = robot if running.match.turn == 1 else alice
        if actor is alice and running.match.phase is Phase.MOVE and undone < 5:
            # The same move again after an undo: the same rolls follow it.
            drawn = running.match.dice_source.drawn
            await lobby.matches.act(alice, first_legal_play)
            after = running.match.to_dict()["history"]
            assert running.match.is_over or running.match.dice_source.drawn > drawn
            await lobby.matches.undo(alice)
            await lobby.matches.act(alice, first_legal_play)
            assert running.match.to_dict()["history"] == after
            undone += 1
            continue
        await lobby.matches.act(actor, randomly(rng))
    assert undone == 5
    await assert_every_roll_recomputes(store, "alice")
    await store.close()


async def test_a_failed_store_rewinds_the_dice_so_the_rolls_stay_in_order(tmp_path, monkeypatch):
    lobby, store = await recording_lobby(tmp_path)
    lobby.config.new_dice = lambda: VerifiableDice(SEED)
    alice, _ = await logged_in(lobby, "alice", ready=True)
    bob, _ = await logged_in(lobby, "bob", ready=True)
    await lobby.matches.start_match(alice, bob, 1)
    running = lobby.match_table.match_of(alice)
    rng = random.Random(2)
    save = store.save_match_state
    failures = 0

    async def sometimes_failing_save(match_id, state, dice=None, *, epoch=None):
        nonlocal failures
        if rng.random() < 0.2:
            failures += 1
            raise OSError("disk full")
        await save(match_id, state, dice, epoch=epoch)
    monkeypatch.setattr(store, "save_match_state", sometimes_failing_save)
    while not running.match.is_over:
        await lobby.matches.act(alice, randomly(rng))
    assert failures > 3
    await assert_every_roll_recomputes(store, "alice")
    await store.close()


def test_the_servers_dice_seed_gives_each_match_a_reproducible_seed_of_its_own():
    def seeds(dice_seed: int) -> list[bytes]:
        new_dice = FibsServer(ServerConfig(dice_seed=dice_seed)).lobby_options["new_dice"]
        return [new_dice().seed for _ in range(3)]
    assert seeds(7) == seeds(7)
    assert len(set(seeds(7))) == 3 and len(seeds(7)[0]) == 32
    assert seeds(7) != seeds(8)
