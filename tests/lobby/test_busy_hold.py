"""BusyHold on a fake clock and a fake CPU meter: the analysis lane is held while the server
used more than its share of a core over the last second, released once it used less, and
never left held when the server stops; an analysis held on end still takes its turns."""
from __future__ import annotations

from fibs_server.lobby.limits.busy_hold import BusyHold
from tests.fake_clock import FakeClock


class CountingLane:
    def __init__(self) -> None:
        self.holds = 0
        self.computing = False
        self.in_turn = False

    @property
    def held(self) -> bool:
        return self.holds > 0

    def hold(self) -> None:
        self.holds += 1

    def release(self) -> None:
        self.holds -= 1

    def take_turn(self) -> None:
        self.in_turn = True

    def end_turn(self) -> None:
        self.in_turn = False


class CpuMeter:
    def __init__(self) -> None:
        self.seconds = 0.0

    def __call__(self) -> float:
        return self.seconds


def second_at(clock: FakeClock, meter: CpuMeter, share: float) -> None:
    """One second of the server using `share` of a core."""
    meter.seconds += share
    clock.advance(1.0)


def test_the_lane_is_held_while_the_server_is_busy_and_released_after():
    clock, meter, lane = FakeClock(), CpuMeter(), CountingLane()
    hold = BusyHold(lane, clock, meter, busy_share=0.5, period=1.0)
    hold.start()
    second_at(clock, meter, 0.3)
    assert lane.holds == 0
    second_at(clock, meter, 0.8)
    assert lane.holds == 1 and hold.holding
    second_at(clock, meter, 0.9)  # still busy: held once, not twice
    assert lane.holds == 1
    second_at(clock, meter, 0.2)
    assert lane.holds == 0 and not hold.holding
    assert hold.holds == 1


def test_another_holder_keeps_its_own_hold():
    """The bots' pool holds the lane while a bot decides: the server's quiet second releases
    only its own hold."""
    clock, meter, lane = FakeClock(), CpuMeter(), CountingLane()
    hold = BusyHold(lane, clock, meter, busy_share=0.5, period=1.0)
    hold.start()
    lane.hold()  # a bot decides
    second_at(clock, meter, 0.9)
    second_at(clock, meter, 0.1)
    assert lane.holds == 1


def test_stopping_releases_a_hold_and_looks_no_more():
    clock, meter, lane = FakeClock(), CpuMeter(), CountingLane()
    hold = BusyHold(lane, clock, meter, busy_share=0.5, period=1.0)
    hold.start()
    second_at(clock, meter, 1.0)
    assert lane.holds == 1
    hold.stop()
    assert lane.holds == 0
    second_at(clock, meter, 1.0)
    assert lane.holds == 0


def test_an_analysis_held_on_end_runs_a_quarter_of_the_time():
    """A server busy all the time (or bots deciding all the time) would starve the queue: a
    turn of one second after three held."""
    clock, meter, lane = FakeClock(), CpuMeter(), CountingLane()
    hold = BusyHold(lane, clock, meter, busy_share=0.5, period=1.0, least_share=0.25)
    hold.start()
    second_at(clock, meter, 0.9)
    second_at(clock, meter, 0.9)
    assert not lane.in_turn  # nothing to analyse: no turn
    lane.computing = True
    turns = []
    for _ in range(12):
        second_at(clock, meter, 0.9)
        turns.append(lane.in_turn)
    assert turns == [False, False, True, False] * 3  # three seconds held, one on
    assert lane.holds == 1 and hold.turns == 3
    hold.stop()
    assert not lane.in_turn and lane.holds == 0


def test_a_bots_hold_counts_and_a_free_lane_takes_no_turn():
    clock, meter, lane = FakeClock(), CpuMeter(), CountingLane()
    hold = BusyHold(lane, clock, meter, busy_share=0.5, period=1.0, least_share=0.25)
    hold.start()
    lane.computing = True
    for _ in range(6):  # a quiet server: never held, no turn
        second_at(clock, meter, 0.1)
    assert hold.turns == 0
    lane.hold()  # bots decide on end, the server quiet
    for _ in range(3):
        second_at(clock, meter, 0.1)
    assert lane.in_turn


def test_no_least_share_no_turns():
    clock, meter, lane = FakeClock(), CpuMeter(), CountingLane()
    hold = BusyHold(lane, clock, meter, busy_share=0.5, period=1.0, least_share=0.0)
    hold.start()
    lane.computing = True
    for _ in range(8):
        second_at(clock, meter, 0.9)
    assert hold.turns == 0 and lane.holds == 1
