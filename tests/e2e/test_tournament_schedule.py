"""Scheduled and recurring tournaments over real sockets, on a fake clock set to a given time
of day: a daily knockout that reminds its entrants, starts by itself at its time (the
director's own timer, nobody passing it by hand) and opens the next day's; a weekly one
short of entrants cancelled, its series going on until an administrator ends it; a server
down at the start time that starts the tournament as it comes back."""
from __future__ import annotations

import datetime

import pytest

from fibs_server.__main__ import set_admin
from fibs_server.lobby.ports.tournament_records import Status
from fibs_server.protocol.wording import tournament_texts
from tests.e2e.client import FibsClient
from tests.e2e.conftest import ServerHarness
from tests.e2e.test_tournament_commands import create
from tests.fake_clock import FakeClock

DAY = 24 * 3600
WEEK = 7 * DAY
# The server's time of day at the fake clock's 0: 2026-12-24 19:50 UTC, ten minutes before
# the 20:00 the tournaments here are created for.
EVE = int(datetime.datetime(2026, 12, 24, 19, 50, tzinfo=datetime.UTC).timestamp())
EIGHT_PM = EVE + 600


def harness_at_eve(database_url: str) -> tuple[ServerHarness, FakeClock]:
    harness = ServerHarness(database_url)
    clock = FakeClock(wall_start=EVE)
    harness.lobby_options.update(clock=clock, wall_clock=clock.wall)
    return harness, clock


@pytest.fixture
async def at_eve(tmp_path):
    harness, clock = harness_at_eve(f"sqlite:///{tmp_path / 'schedule.db'}")
    await harness.start()
    yield harness, clock
    await harness.stop()


async def logged_in(harness: ServerHarness, *names: str) -> dict[str, FibsClient]:
    """`warden` (an administrator) and the others registered and logged in (CLIP)."""
    for name in ("warden", *names):
        await harness.register(name)
    assert await set_admin(harness.config.database_url, "warden", True) == 0
    return {name: await harness.login_clip(name) for name in ("warden", *names)}


async def join(clients: dict[str, FibsClient], tournament_id: int, *names: str) -> None:
    for name in names:
        await clients[name].send(f"tournament join {tournament_id}")
        await clients[name].skip_until(f"Tournament {tournament_id}: {name} has joined.")


async def test_a_daily_tournament_reminds_starts_by_itself_and_opens_the_next(at_eve):
    harness, clock = at_eve
    clients = await logged_in(harness, "alice", "bob")
    tid = await create(clients["warden"], "knockout length 1 at 20:00 every day")
    await join(clients, tid, "alice", "bob")
    alice = clients["alice"]
    await alice.send(f"tournament show {tid}")
    await alice.skip_until("  Start: in 10 minutes (at 2026-12-24 20:00 UTC); every day.")
    await alice.send("tournament list")
    listed = await alice.skip_until("Tournaments (type 'tournament show <id>'):")
    line = await alice.read_line()
    assert line.endswith(": 1 point, 60 s a turn; starts 2026-12-24 20:00 UTC, every day"), (
        listed, line)

    director = harness.server.director
    clock.advance(300)  # 19:55: the director's next pass reminds the entrants
    for name in ("alice", "bob"):
        await clients[name].skip_until(tournament_texts.starts_soon(tid, EIGHT_PM, 300))
    await director.settled()
    clock.advance(300)  # 20:00: it starts
    for name in ("alice", "bob"):
        await clients[name].skip_until(tournament_texts.tournament_starts(tid, 2))
        await clients[name].skip_until(tournament_texts.round_begins(tid, 1, 1))
    opens = tournament_texts.next_opens(tid + 1, tid, EIGHT_PM + DAY, DAY)
    assert opens == (f"Tournament {tid + 1}: the next of tournament {tid}'s series (every day) "
                     f"opens; it starts at 2026-12-25 20:00 UTC. Type 'tournament join "
                     f"{tid + 1}' to enter it.")
    for name in ("warden", "alice", "bob"):
        await clients[name].skip_until(opens)
    # The server starts the pairing's match, as any round's.
    await alice.skip_until(f"Tournament {tid}: your round 1 match with bob begins.")
    await director.settled()
    store = harness.server.store
    assert (await store.tournament(tid)).status is Status.RUNNING
    following = await store.tournament(tid + 1)
    assert following.status is Status.SIGNUP and following.entrants == []
    assert (following.spec.starts_at, following.spec.repeat_seconds, following.spec.follows) \
        == (EIGHT_PM + DAY, DAY, tid)
    started = await store.tournament(tid)
    assert following.spec.terms == started.spec.terms
    assert following.spec.format is started.spec.format


async def test_short_of_entrants_it_is_cancelled_and_the_series_goes_on_until_ended(at_eve):
    harness, clock = at_eve
    clients = await logged_in(harness, "alice")
    warden, alice = clients["warden"], clients["alice"]
    await alice.send("tournament create knockout at 20:00 every day")
    await alice.skip_until(tournament_texts.ONLY_ADMINS_REPEAT)
    tid = await create(warden, "swiss at 20:00 every week")
    await join(clients, tid, "alice")

    clock.advance(600)
    await alice.skip_until(tournament_texts.too_few_players(tid))
    await warden.skip_until(tournament_texts.too_few_players(tid))
    await warden.skip_until(tournament_texts.next_opens(tid + 1, tid, EIGHT_PM + WEEK, WEEK))
    await alice.skip_until(tournament_texts.next_opens(tid + 1, tid, EIGHT_PM + WEEK, WEEK))
    store = harness.server.store
    assert (await store.tournament(tid)).status is Status.CANCELLED

    # Cancelled by hand, the next of the series is made as well ...
    await warden.send(f"tournament cancel {tid + 1}")
    await warden.skip_until(tournament_texts.cancelled(tid + 1, "warden"))
    await warden.skip_until(tournament_texts.next_opens(tid + 2, tid + 1, EIGHT_PM + 2 * WEEK,
                                                        WEEK))
    # ... unless the administrator ends the series.
    await warden.send(f"tournament cancel {tid + 2} series")
    await warden.skip_until(tournament_texts.cancelled(tid + 2, "warden", series_ends=True))
    assert await store.next_in_series(tid + 2) is None
    assert await store.open_tournaments() == []


@pytest.mark.stored
async def test_a_server_down_at_the_start_time_starts_it_as_it_comes_back(database_url):
    harness, clock = harness_at_eve(database_url)
    await harness.start()
    try:
        clients = await logged_in(harness, "alice", "bob")
        tid = await create(clients["warden"], "knockout length 1 at 20:00 every day")
        await join(clients, tid, "alice", "bob")
        await harness.stop()
        clock.advance(2 * DAY + 3600)  # back two days later, at 21:00
        await harness.start()  # the director's first pass is over as it returns
        store = harness.server.store
        started = await store.tournament(tid)
        assert started.status is Status.RUNNING
        assert started.round_started_at == {1: EVE + 2 * DAY + 3600}
        following = await store.tournament(tid + 1)
        # The first 20:00 still to come: none made for the days it was down.
        assert following.spec.starts_at == EIGHT_PM + 3 * DAY
        assert following.status is Status.SIGNUP
    finally:
        await harness.stop()
