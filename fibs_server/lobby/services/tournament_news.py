"""A tournament as its views show it (`tournament_texts.Listed` and `Shown`: one source for
the FIBS texts and the page's messages), and the pages told of each change of it: sign-up,
the start, each result, the end (docs/WEB-PROTOCOL.md, "Tournaments"); and a recurring
tournament's next one, made as the one before starts or is cancelled.

A change is told as a `tournament` message to every page that follows the tournament
(`bus.follows_tournament`), wherever it is online: a letter to all nodes, the message made
once. Classic sessions get nothing from here but the sign-up lines (`SignUpNews`): their
other lines are the commands' and the director's."""
from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import TYPE_CHECKING, Protocol

from fibs_server.lobby.clock import Alarm
from fibs_server.lobby.limits.token_bucket import TokenBuckets
from fibs_server.lobby.nodes.bus import notice
from fibs_server.lobby.ports.tournament_records import (
    Status,
    TournamentRecord,
    TournamentRecords,
    TournamentSpec,
)
from fibs_server.protocol.views import web_events
from fibs_server.protocol.wording import tournament_texts

if TYPE_CHECKING:  # types only: what the news is given has them
    from fibs_server.lobby.lobby import LobbyConfig
    from fibs_server.lobby.ports.accounts import AccountStore
    from fibs_server.lobby.presence.attendance import Attendance

log = logging.getLogger(__name__)


class Hall(Protocol):
    """What the news, the tournament commands and the director read of the lobby's owners
    (the record of its owners the command tables are made from, lobby.Owners)."""

    @property
    def attendance(self) -> Attendance: ...

    @property
    def accounts(self) -> AccountStore: ...

    @property
    def config(self) -> LobbyConfig: ...


def listed(record: TournamentRecord) -> tournament_texts.Listed:
    spec = record.spec
    return tournament_texts.Listed(record.tournament_id, spec.format, record.status.value,
                                   spec.creator, spec.terms, len(record.entrants),
                                   spec.entry_cap, record.winner, spec.swiss_rounds,
                                   spec.starts_at, spec.repeat_seconds, spec.flights,
                                   spec.arena_minutes)


def shown(record: TournamentRecord, now: int) -> tournament_texts.Shown:
    spec = record.spec
    entrants = record.played.entrants if record.played is not None else record.entrants
    ends_in = None  # a running arena's time left
    if spec.arena_minutes and record.started_at is not None and record.status is Status.RUNNING:
        ends_in = max(0, record.started_at + 60 * spec.arena_minutes - now)
    return tournament_texts.Shown(
        listed(record), None if spec.starts_at is None else spec.starts_at - now,
        spec.start_when, tuple(entrants), record.played, spec.bots_allowed, ends_in)


def tell_pages(hall: Hall, record: TournamentRecord) -> None:
    """The tournament as it stands now, to the pages that follow it."""
    message = web_events.tournament(shown(record, int(hall.config.wall_clock())))
    hall.attendance.messenger.tell_all(notice([], message, audience="tournament_pages", broadcast=True))


def next_of_series(record: TournamentRecord, now: int) -> TournamentSpec | None:
    """A recurring tournament's next one: the same terms, its start the first of its period's
    steps still to come (a server down for days makes no tournament of the past)."""
    spec = record.spec
    if spec.repeat_seconds is None or spec.starts_at is None:
        return None
    starts_at = spec.starts_at + spec.repeat_seconds
    if starts_at <= now:
        starts_at += (now - starts_at) // spec.repeat_seconds * spec.repeat_seconds \
            + spec.repeat_seconds
    return dataclasses.replace(spec, starts_at=starts_at, follows=record.tournament_id)


async def tell_next_of_series(hall: Hall, records: TournamentRecords,
                              record: TournamentRecord) -> None:
    """The next of the series made as `record` started or was cancelled: told to its
    entrants, its creator and everyone who asked to hear of tournaments, and to the pages."""
    next_id = await records.next_in_series(record.tournament_id)
    made = await records.tournament(next_id) if next_id is not None else None
    if made is None:
        return
    spec = made.spec
    assert spec.starts_at is not None and spec.repeat_seconds is not None
    line = tournament_texts.next_opens(made.tournament_id, record.tournament_id,
                                       spec.starts_at, spec.repeat_seconds)
    names = [*(entrant.name for entrant in record.entrants), spec.creator]
    hall.attendance.messenger.tell(names, notice([line]))
    hall.attendance.messenger.tell_all(notice([line], audience="tournaments", excluded=names))
    tell_pages(hall, made)


@dataclasses.dataclass
class HeldChanges:
    """A tournament's sign-ups and withdrawals not told yet, and the alarm that tells them."""

    alarm: Alarm
    # By name (lower case): (the name as shown, entered before the first change held,
    # entered after the last), in the order of their first change.
    entered: dict[str, tuple[str, bool, bool]] = dataclasses.field(default_factory=dict)

    def add(self, name: str, joined: bool) -> None:
        before = self.entered.get(name.lower(), (name, not joined, not joined))[1]
        self.entered[name.lower()] = (name, before, joined)

    def net(self) -> tuple[list[str], list[str]]:
        """Who joined and who left, counting only those whose entry differs from before the
        first change held (one who left and joined again is not told of)."""
        changed = [(name, after) for name, before, after in self.entered.values()
                   if before != after]
        return ([name for name, after in changed if after],
                [name for name, after in changed if not after])


class SignUpNews:
    """The sign-ups and withdrawals of each tournament told to its entrants, its creator and
    the pages that follow it. Each change costs a line to every entrant, up to the 128 of
    the cap, and the whole tournament to every page: twenty entrants flapping `leave` and
    `join` put every user on the server at a p99 of 221 ms (12 ms quiet). So a token bucket
    per tournament lets `burst` changes be told at once, as they come, and then
    `per_second`; a change beyond that is held, and when a token is due one summary goes
    out: the lines of the changes since (net: who left and came back is not told of) and
    the tournament as the store has it then, the latest state. The user who typed the
    command is told their line at once, whatever the pacing (their page, which follows the
    tournament, sees the change with the summary). Per node: each node paces the commands
    typed on it; the director's news (the start, results, the end) is not paced: it comes
    a pass at a time."""

    def __init__(self, records: TournamentRecords) -> None:
        self.records = records
        self._buckets: TokenBuckets[int] | None = None  # made with the first lobby's limits
        self._held: dict[int, HeldChanges] = {}
        self._telling: set[asyncio.Task[None]] = set()  # held changes being told

    async def signed_up(self, hall: Hall, record: TournamentRecord, name: str, joined: bool,
                        typer: str) -> None:
        """`name` joined (or left) `record`, as it was before, by `typer`'s command."""
        tid = record.tournament_id
        line = (tournament_texts.joined if joined else tournament_texts.left)(tid, name)
        hall.attendance.messenger.tell([typer], notice([line]))
        held = self._held.get(tid)
        if held is None:
            clock = hall.config.clock
            wait = self._buckets_of(hall).try_take(tid, clock.time())
            if not wait:
                hall.attendance.messenger.tell(self._hearers(record, typer), notice([line]))
                latest = await self.records.tournament(tid)
                if latest is not None:
                    tell_pages(hall, latest)
                return
            held = self._held[tid] = HeldChanges(
                clock.call_at(clock.time() + wait, lambda: self._due(hall, tid)))
        held.add(name, joined)

    def _buckets_of(self, hall: Hall) -> TokenBuckets[int]:
        if self._buckets is None:
            limits = hall.config.abuse_limits
            self._buckets = TokenBuckets(limits.tournament_notice_burst,
                                         limits.tournament_notices_per_second)
        return self._buckets

    def _hearers(self, record: TournamentRecord, *besides: str) -> list[str]:
        """The entrants and the creator, but those named."""
        names = {entrant.name.lower(): entrant.name for entrant in record.entrants}
        names.setdefault(record.spec.creator.lower(), record.spec.creator)
        for name in besides:
            names.pop(name.lower(), None)
        return list(names.values())

    def _due(self, hall: Hall, tournament_id: int) -> None:
        task = asyncio.ensure_future(self._tell_held(hall, tournament_id))
        self._telling.add(task)
        task.add_done_callback(self._telling.discard)

    async def _tell_held(self, hall: Hall, tournament_id: int) -> None:
        held = self._held.pop(tournament_id, None)
        if held is None:
            return
        # The token now due.
        self._buckets_of(hall).reserve(tournament_id, 1, hall.config.clock.time())
        try:
            record = await self.records.tournament(tournament_id)
        except Exception:
            log.exception("the held sign-ups of tournament %d could not be read", tournament_id)
            return
        if record is None:
            return
        joined, left = held.net()
        if (joined or left) and record.status is Status.SIGNUP:
            # One who alone changed has been told already, as the typer.
            told = [*joined, *left] if len(joined) + len(left) == 1 else []
            hall.attendance.messenger.tell(self._hearers(record, *told), notice(
                [tournament_texts.signed_up(tournament_id, joined, left)]))
        tell_pages(hall, record)

    def stop(self) -> None:
        """The alarms cancelled and the telling stopped (the node stops): what they held is
        not told."""
        for held in self._held.values():
            held.alarm.cancel()
        self._held.clear()
        for task in self._telling:
            task.cancel()
