"""The command pacer on a fake clock: a burst at once, then the rate; the user's bucket kept
across connections, the address's shared; a connection that stays behind its own rate is
closed, one behind only because of its address is not."""
from __future__ import annotations

import asyncio
import dataclasses

from pytest import approx

from fibs_server.lobby.presence.session import Stage
from fibs_server.net.limits import TOO_MANY_COMMANDS, NetLimits
from fibs_server.net.pacing import CommandPacer
from tests.fake_clock import FakeClock
from tests.waiting import until

LIMITS = NetLimits(command_burst=5, commands_per_second=10.0, login_command_burst=2,
                   login_commands_per_second=1.0, address_command_burst=8,
                   address_commands_per_second=20.0, command_backlog_seconds=3.0,
                   login_address_command_burst=3, login_address_commands_per_second=2.0)


@dataclasses.dataclass
class User:
    name: str = "alice"
    stage: Stage = Stage.ONLINE


class Connection:
    host = "10.0.0.1"

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed = False

    def send(self, text: str, broadcast: bool = False) -> None:
        self.sent.append(text)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def test_a_user_gets_the_burst_then_the_rate_and_keeps_the_bucket_across_connections():
    clock = FakeClock()
    pacer = CommandPacer(LIMITS, clock.time)
    first, second = pacer.pace("10.0.0.1"), pacer.pace("10.0.0.2")
    alice = User()
    assert [first.wait(alice, 1) for _ in range(5)] == [0] * 5
    assert second.wait(alice, 1) == approx(0.1)  # another connection, the same user
    clock.advance(0.1)
    assert second.wait(User("bob"), 1) == 0  # another user


def test_before_login_an_address_shares_a_bucket_that_connecting_again_does_not_refill():
    clock = FakeClock()
    pacer = CommandPacer(LIMITS, clock.time)
    visitor = User("", Stage.LOGIN)
    first, second, third = (pacer.pace("10.0.0.1") for _ in range(3))
    assert [first.wait(visitor, 1), first.wait(visitor, 1), second.wait(visitor, 1)] == [0] * 3
    assert third.wait(visitor, 1) == approx(0.5)  # a new connection: no new burst
    assert pacer.pace("10.0.0.2").wait(visitor, 1) == 0  # another address
    assert first.wait(User(), 1) == 0  # logged in: the user's bucket and the address's


def test_before_login_a_connection_has_its_own_smaller_bucket():
    clock = FakeClock()
    pacer = CommandPacer(LIMITS, clock.time)
    pace = pacer.pace("10.0.0.1")
    visitor = User("", Stage.LOGIN)
    assert [pace.wait(visitor, 1) for _ in range(3)] == [0, 0, 1.0]
    clock.advance(0.5)  # the address's login bucket has a command again, not this one's
    assert pacer.pace("10.0.0.1").wait(visitor, 1) == 0  # a new connection's own bucket


def test_an_address_is_paced_for_all_its_connections_together():
    clock = FakeClock()
    pacer = CommandPacer(LIMITS, clock.time)
    waits = [pacer.pace("10.0.0.1").wait(User(f"user{number}"), 1) for number in range(10)]
    assert waits[:8] == [0] * 8 and waits[8:] == approx([0.05, 0.1])
    assert pacer.pace("10.0.0.2").wait(User("other"), 1) == 0


def test_a_connection_that_stays_behind_its_own_rate_is_closed():
    clock = FakeClock()
    pacer = CommandPacer(LIMITS, clock.time)
    pace = pacer.pace("10.0.0.1")
    alice = User()
    waits = []
    while (wait := pace.wait(alice, 1)) is not None:
        waits.append(wait)
        clock.advance(wait)
    assert waits[:5] == [0] * 5
    assert LIMITS.command_backlog_seconds <= clock.time() <= LIMITS.command_backlog_seconds + 0.2


def test_falling_behind_and_catching_up_is_no_flood():
    clock = FakeClock()
    pacer = CommandPacer(LIMITS, clock.time)
    pace = pacer.pace("10.0.0.1")
    alice = User()
    for _ in range(100):  # bursts of 10 at once, every 2 s: each time a little behind
        for _ in range(10):
            assert pace.wait(alice, 1) is not None
        clock.advance(2.0)


def test_a_connection_behind_only_because_of_its_address_is_slowed_not_closed():
    clock = FakeClock()
    pacer = CommandPacer(LIMITS, clock.time)
    flooder, neighbour = pacer.pace("10.0.0.1"), pacer.pace("10.0.0.1")
    for _ in range(200):
        flooder.wait(User("flooder"), 1)  # far beyond the address's rate
        assert neighbour.wait(User("neighbour"), 0.01) is not None
        clock.advance(0.05)


async def test_a_flooder_is_told_and_closed_and_a_gone_peer_gets_only_its_burst():
    clock = FakeClock()
    pacer = CommandPacer(dataclasses.replace(LIMITS, command_backlog_seconds=0.0), clock.time)
    pace, connection = pacer.pace("10.0.0.1"), Connection()
    alice = User()
    served = [await pace.take_turn(alice, connection, 1, gone=lambda: True) for _ in range(7)]
    assert served == [True] * 5 + [False] * 2 and not connection.closed
    clock.advance(0.01)
    assert not await pace.take_turn(alice, connection, 1, gone=lambda: False)
    assert connection.sent == [TOO_MANY_COMMANDS + "\r\n"] and connection.closed
    assert TOO_MANY_COMMANDS.startswith("** ")


async def test_a_peer_gone_while_its_connection_waits_is_let_go_before_its_turn():
    clock = FakeClock()  # never advances: the turn would come in an hour
    pacer = CommandPacer(dataclasses.replace(LIMITS, command_backlog_seconds=10**6), clock.time)
    pace, connection, alice = pacer.pace("10.0.0.1"), Connection(), User()
    pace.wait(alice, 36_000)
    peer_gone = asyncio.Event()
    waiting = asyncio.create_task(pace.take_turn(alice, connection, 1, gone=peer_gone.is_set))
    await asyncio.sleep(0)
    assert not waiting.done()
    peer_gone.set()
    await until(waiting.done, "the wait ends once the peer has gone")
    assert waiting.result() is False and not connection.closed
