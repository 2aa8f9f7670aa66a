"""Either player resumes a saved match with `join <opponent>` while the other is online, on
whichever nodes the two are (lobby/commands/game_commands.py, `saved_match_to_resume`): no
invitation needed first, also after the node the match ran on died."""
from __future__ import annotations

from fibs_server.lobby.play.seats import TAKEOVER_ANSWER_SECONDS
from fibs_server.protocol.wording import game_texts
from tests.fake_clock import FakeClock
from tests.lobby.recording import logged_in, recording_lobby
from tests.lobby.test_seats import logged_in_again, nodes_with_a_match, settled

LOADED = game_texts.match_loaded_for_joiner


async def test_either_player_resumes_a_saved_match_with_join_from_any_node(tmp_path):
    _, a, b, alice, alice_hears, bob, bob_hears = await nodes_with_a_match(tmp_path)
    saved = await a.match_store.running_match("alice", "bob")
    assert saved is not None
    await a.dispatch(alice, "leave")
    await settled(a, b)
    assert a.match_table.match_of(alice) is None and bob.place.seated_elsewhere is None
    await b.dispatch(bob, "join alice")  # from bob's node: the match runs at alice's
    await settled(a, b)
    assert LOADED("alice") in bob_hears.lines()
    running = a.match_table.match_of(alice)
    assert running is not None and running.match_id == saved.match_id
    await b.dispatch(bob, "leave")
    await settled(a, b)
    assert a.match_table.match_of(alice) is None
    await a.dispatch(alice, "join bob")  # and the other way round: it runs at bob's node
    await settled(a, b)
    assert LOADED("bob") in alice_hears.lines()
    running = b.match_table.match_of(bob)
    assert running is not None and running.match_id == saved.match_id


async def test_join_without_an_invitation_or_a_saved_match_is_still_refused(tmp_path):
    lobby, _ = await recording_lobby(tmp_path)
    alice, _ = await logged_in(lobby, "alice", ready=True)
    carol, carol_hears = await logged_in(lobby, "carol", ready=True)
    carol_hears.lines()
    await lobby.dispatch(carol, "join alice")
    assert carol_hears.lines() == [game_texts.didnt_invite_you("alice")]
    assert lobby.match_table.match_of(alice) is None


async def test_after_the_hosts_node_died_join_resumes_without_an_invitation(tmp_path):
    wire, a, b, alice, _, bob, bob_hears = await nodes_with_a_match(tmp_path)
    del wire.nodes["a"]  # killed: b hears nothing more from it
    b.config.clock = clock = FakeClock()
    alice_again, _, _ = await logged_in_again(b, "alice")  # her ready toggle off
    clock.advance(TAKEOVER_ANSWER_SECONDS)  # a never answers: the match is as saved
    assert bob.place.seated_elsewhere is None
    await b.dispatch(bob, "join alice")
    assert LOADED("alice") in bob_hears.lines()
    assert b.match_table.match_of(bob) is b.match_table.match_of(alice_again) is not None
