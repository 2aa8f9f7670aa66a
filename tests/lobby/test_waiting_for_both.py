"""A saved timed match whose grace period ended without a forfeit waits for both players
(lobby/play/turn_clock.py, docs/FAIRNESS.md "Absence"): stored so, so that no node's sweep
times it again, until it is resumed (and left again). Two lobbies on one database, each
with its own match clocks on a fake clock."""
from __future__ import annotations

from fibs_server.lobby.lobby import Lobby
from fibs_server.lobby.play.match_play import Matches, MatchTimers
from fibs_server.lobby.play.turn_clock import MatchClocks, rules_of_thumb
from tests.fake_clock import FakeClock
from tests.lobby.recording import logged_in, recording_lobby
from tests.lobby.test_seats import logged_in_again

GRACE = 60


async def clocked_lobby(tmp_path) -> tuple[Lobby, MatchClocks, FakeClock]:
    """A node on the database in `tmp_path` (one for all nodes), and its match clocks."""
    clock = FakeClock()
    made: list[MatchClocks] = []

    def match_clocks(matches: Matches) -> MatchTimers:
        made.append(MatchClocks(matches, clock, GRACE, rules_of_thumb))
        return made[0].timer_for

    lobby, _ = await recording_lobby(tmp_path, (3, 1), (6, 5), match_clocks=match_clocks)
    return lobby, made[0], clock


async def test_no_node_sweeps_a_match_that_waits_for_both(tmp_path):
    a, a_clocks, a_clock = await clocked_lobby(tmp_path)
    b, b_clocks, _ = await clocked_lobby(tmp_path)
    alice, _ = await logged_in(a, "alice", ready=True)
    bob, _ = await logged_in(a, "bob", ready=True)
    await a.dispatch(alice, "invite bob 3 timer 60")
    await a.dispatch(bob, "join alice")
    saved = await a.match_store.running_match("alice", "bob")
    assert saved is not None and a.match_table.match_of(alice) is not None
    await a.disconnected(bob)  # bob drops: his grace period runs on a
    await a.disconnected(alice)  # and alice, who waited, goes too
    assert list(a_clocks.graces) == [saved.match_id]
    a_clock.advance(GRACE)
    await a_clocks.quiet()
    record = await b.match_store.match_by_id(saved.match_id)
    assert record is not None and not record.finished and record.waits_for_both
    await b_clocks.resume_graces()  # b holds the sweeps lease now: it arms nothing
    assert b_clocks.graces == {}

    alice, _, _ = await logged_in_again(b, "alice", ready=True)
    bob, _, _ = await logged_in_again(b, "bob", ready=True)
    await b.dispatch(bob, "join alice")  # resumed on b: it waits no more
    assert b.match_table.match_of(bob) is not None
    record = await b.match_store.match_by_id(saved.match_id)
    assert record is not None and not record.waits_for_both and record.left_by is None
    await b.disconnected(bob)  # left again: timed again
    assert list(b_clocks.graces) == [saved.match_id]
    await a_clocks.resume_graces()  # (a's sweep would time it too, were it not b's)
    assert list(a_clocks.graces) == [saved.match_id]
