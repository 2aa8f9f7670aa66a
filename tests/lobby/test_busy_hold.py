"""BusyHold on a fake clock and a fake CPU meter: the analysis lane is held while the server
used more than its share of a core over the last second, released once it used less, and
never left held when the server stops."""
from __future__ import annotations

from fibs_server.lobby.limits.busy_hold import BusyHold
from tests.fake_clock import FakeClock


class CountingLane:
    def __init__(self) -> None:
        self.holds = 0

    def hold(self) -> None:
        self.holds += 1

    def release(self) -> None:
        self.holds -= 1


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
