"""This node's roster as numbered changes (lobby/nodes/rosters.py): the changes after a
number, and the whole roster for a node too far behind or of another run."""
from __future__ import annotations

from fibs_server.lobby.nodes.rosters import RosterLog


def test_changes_after_a_number_and_the_whole_roster_when_they_are_not_kept():
    log = RosterLog(gone_kept=2)
    for name in ("alice", "bob", "carol"):
        log.changed(name)
    assert log.since([log.run, 1]) == 1
    assert log.changes_after(1) == ({"bob", "carol"}, [])
    log.went("Bob")
    log.changed("alice")
    assert log.changes_after(3) == ({"alice"}, ["bob"])
    log.went("carol")
    log.went("alice")  # three departures kept to two: bob's is forgotten
    assert log.changes_after(3) == (set(), ["carol", "alice"])
    assert log.since([log.run, 3]) is None and log.since([log.run, 4]) == 4
    assert log.since(["another run", 6]) is None and log.since(None) is None
    assert log.since([log.run, log.version + 1]) is None
    log.changed("bob")  # back: no longer gone
    assert log.changes_after(5) == ({"bob"}, ["carol", "alice"])
