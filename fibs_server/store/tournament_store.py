"""The lobby's TournamentRecords on SQLAlchemy: a mixin of SqlStore (which gives `_writes`,
`_reads` and `_now`). Every method is one short transaction."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import bindparam, delete, func, insert, select, update
from sqlalchemy.orm import Session

from fibs_server.lobby.ports.tournament_records import (
    JoinRefused,
    OpenTournament,
    Status,
    TournamentRecord,
    TournamentSpec,
)
from fibs_server.rules.clocks.time_bank import BankTerms
from fibs_server.rules.tournament import (
    Entrant,
    Flight,
    Format,
    Pairing,
    Round,
    RoundTerms,
    Tournament,
    knockout_round_count,
)
from fibs_server.rules.variants import Variant
from fibs_server.store.models import (
    TournamentEntrantRow,
    TournamentPairingRow,
    TournamentRoundRow,
    TournamentRow,
    name_key,
    table_of,
)
from fibs_server.store.transactions import Transactions

OPEN_STATUSES = [status.value for status in Status if status.open]


# What every login asks (tell_the_returning): built once, not in the event loop at each.
_RUNNING_ENTERED = (select(TournamentEntrantRow.tournament_id)
                    .join(TournamentRow, TournamentRow.id == TournamentEntrantRow.tournament_id)
                    .where(TournamentEntrantRow.name_key == bindparam("key"),
                           TournamentRow.status == Status.RUNNING.value)
                    .order_by(TournamentEntrantRow.tournament_id))


class TournamentStore:
    _writes: Transactions
    _reads: Transactions
    _now: Callable[[], int]

    async def create_tournament(self, spec: TournamentSpec) -> TournamentRecord:
        now = self._now()

        return await self._writes.run(lambda session: _create(session, spec, now))

    async def add_entrant(self, tournament_id: int, entrant: Entrant) -> JoinRefused | None:
        now = self._now()

        def add(session: Session) -> JoinRefused | None:
            # The row locked (PostgreSQL) so that two joins cannot both take the last place.
            row = session.scalars(select(TournamentRow).where(
                TournamentRow.id == tournament_id).with_for_update()).one_or_none()
            if row is None or row.status != Status.SIGNUP.value:
                return JoinRefused.NOT_OPEN
            key = name_key(entrant.name)
            if session.get(TournamentEntrantRow, (tournament_id, key)) is not None:
                return JoinRefused.ALREADY
            entered, last_number = session.execute(select(
                func.count(), func.max(TournamentEntrantRow.entry_number)).where(
                TournamentEntrantRow.tournament_id == tournament_id)).one()
            if entered >= row.entry_cap:
                return JoinRefused.FULL
            # Numbered under the row's lock: the sign-up order, however close the joins.
            session.add(TournamentEntrantRow(tournament_id=tournament_id, name_key=key,
                                             name=entrant.name, rating=entrant.rating,
                                             joined_at=now,
                                             entry_number=(last_number or 0) + 1))
            return None
        return await self._writes.run(add)

    async def remove_entrant(self, tournament_id: int, name: str) -> bool:
        def remove(session: Session) -> bool:
            in_signup = session.scalar(select(TournamentRow.id).where(
                TournamentRow.id == tournament_id,
                TournamentRow.status == Status.SIGNUP.value).with_for_update())
            if in_signup is None:
                return False
            removed = session.execute(delete(TournamentEntrantRow).where(
                TournamentEntrantRow.tournament_id == tournament_id,
                TournamentEntrantRow.name_key == name_key(name)))
            return bool(getattr(removed, "rowcount", 0))
        return await self._writes.run(remove)

    async def start_tournament(self, tournament_id: int, played: Tournament,
                               started_at: int, successor: TournamentSpec | None = None) -> bool:
        def start(session: Session) -> bool:
            started = session.execute(update(TournamentRow).where(
                TournamentRow.id == tournament_id,
                TournamentRow.status == Status.SIGNUP.value).values(
                status=Status.RUNNING.value, started_at=started_at))
            if not getattr(started, "rowcount", 0):
                return False
            # The field as seeded: those who left meanwhile are not in it. Each keeps their
            # place in the sign-up order.
            numbers = {key: number for key, number in session.execute(select(
                TournamentEntrantRow.name_key, TournamentEntrantRow.entry_number).where(
                TournamentEntrantRow.tournament_id == tournament_id))}
            session.execute(delete(TournamentEntrantRow).where(
                TournamentEntrantRow.tournament_id == tournament_id))
            session.add_all(TournamentEntrantRow(
                tournament_id=tournament_id, name_key=name_key(entrant.name),
                name=entrant.name, rating=entrant.rating, joined_at=started_at,
                entry_number=numbers.get(name_key(entrant.name), 0), seed=seed)
                for seed, entrant in enumerate(played.entrants, 1))
            if played.current is not None:
                _write_round(session, tournament_id, played.current, started_at)
            if successor is not None:
                _create(session, successor, started_at)
            return True
        return await self._writes.run(start)

    async def save_round(self, tournament_id: int, paired: Round, started_at: int) -> None:
        await self._writes.run(
            lambda session: _write_round(session, tournament_id, paired, started_at))

    async def save_results(self, tournament_id: int, paired: Round,
                           positions: Sequence[int]) -> None:
        await self._set_pairings([{"tid": tournament_id, "round": paired.number, "at": position,
                                   **_result(paired.pairings[position])}
                                  for position in positions])

    async def link_matches(self, tournament_id: int, round_number: int,
                           links: Mapping[int, int]) -> None:
        await self._set_pairings([{"tid": tournament_id, "round": round_number, "at": position,
                                   "match_id": match_id}
                                  for position, match_id in links.items()])

    async def _set_pairings(self, rows: list[dict[str, Any]]) -> None:
        """Columns of some pairings of a round set, all in one statement (_SET_PAIRING)."""
        if rows:
            await self._writes.run(lambda session: session.connection().execute(
                _SET_PAIRING, rows))

    async def set_withdrawn(self, tournament_id: int, name: str,
                            withdrawn: bool) -> int | None:
        def set_it(session: Session) -> int | None:
            revision = session.scalar(select(TournamentRow.revision).where(
                TournamentRow.id == tournament_id,
                TournamentRow.status == Status.RUNNING.value).with_for_update())
            if revision is None:
                return None
            changed = session.execute(update(TournamentEntrantRow).where(
                TournamentEntrantRow.tournament_id == tournament_id,
                TournamentEntrantRow.name_key == name_key(name),
                TournamentEntrantRow.withdrawn == (not withdrawn)).values(withdrawn=withdrawn))
            if not getattr(changed, "rowcount", 0):
                return None
            session.execute(update(TournamentRow).where(TournamentRow.id == tournament_id)
                            .values(revision=revision + 1))
            return revision + 1
        return await self._writes.run(set_it)

    async def running_entered(self, name: str) -> list[int]:
        return await self._reads.run(lambda session: list(session.scalars(
            _RUNNING_ENTERED, {"key": name_key(name)})))

    async def paired_after(self, name: str, since: int) -> bool:
        key = name_key(name)
        query = (select(TournamentPairingRow.position)
                 .join(TournamentRow, TournamentRow.id == TournamentPairingRow.tournament_id)
                 .join(TournamentRoundRow,
                       (TournamentRoundRow.tournament_id == TournamentPairingRow.tournament_id)
                       & (TournamentRoundRow.number == TournamentPairingRow.round_number))
                 .where(TournamentRow.status == Status.RUNNING.value,
                        ~TournamentPairingRow.decided, TournamentRoundRow.started_at > since,
                        (func.lower(TournamentPairingRow.first) == key)
                        | (func.lower(TournamentPairingRow.second) == key)).limit(1))
        return await self._reads.run(lambda session: session.scalar(query) is not None)

    async def end_tournament(self, tournament_id: int, status: Status, winner: str | None,
                             successor: TournamentSpec | None = None) -> bool:
        now = self._now()

        def end(session: Session) -> bool:
            # Locked (PostgreSQL) so that a start cannot make a successor beside this one.
            was = session.scalar(select(TournamentRow.status).where(
                TournamentRow.id == tournament_id).with_for_update())
            if was not in OPEN_STATUSES:
                return False
            session.execute(update(TournamentRow).where(TournamentRow.id == tournament_id)
                            .values(status=status.value, winner=winner, ended_at=now))
            if successor is not None and was == Status.SIGNUP.value:
                _create(session, successor, now)
            return True
        return await self._writes.run(end)

    async def next_in_series(self, tournament_id: int) -> int | None:
        return await self._reads.run(lambda session: session.scalar(
            select(TournamentRow.id).where(TournamentRow.follows == tournament_id)))

    async def tournament(self, tournament_id: int) -> TournamentRecord | None:
        found = await self._reads.run(lambda session: _read(session, [
            session.get(TournamentRow, tournament_id)]))
        return found[0] if found else None

    async def open_tournaments(self) -> list[OpenTournament]:
        return await self._reads.run(lambda session: [
            OpenTournament(tournament_id, Status(status), creator, revision)
            for tournament_id, status, creator, revision in session.execute(
                select(TournamentRow.id, TournamentRow.status, TournamentRow.creator,
                       TournamentRow.revision).where(
                    TournamentRow.status.in_(OPEN_STATUSES)).order_by(TournamentRow.id))])

    async def recent_tournaments(self, limit: int) -> list[TournamentRecord]:
        # Open ones first (there are few: the limits of docs/SECURITY.md), then the latest.
        def read(session: Session) -> list[TournamentRecord]:
            rows = list(session.scalars(select(TournamentRow).order_by(
                TournamentRow.status.in_(OPEN_STATUSES).desc(), TournamentRow.id.desc())
                .limit(limit)))
            return _read(session, rows)
        return await self._reads.run(read)


def _create(session: Session, spec: TournamentSpec, now: int) -> TournamentRecord:
    row = TournamentRow(
        creator=spec.creator, format=spec.format.value, terms=_terms_json(spec.terms),
        swiss_rounds=spec.swiss_rounds, entry_cap=spec.entry_cap,
        starts_at=spec.starts_at, start_when=spec.start_when,
        bots_allowed=spec.bots_allowed, no_show_seconds=spec.no_show_seconds,
        repeat_seconds=spec.repeat_seconds, follows=spec.follows,
        side_flights=",".join(flight.value for flight in spec.flights[1:]),
        arena_minutes=spec.arena_minutes, status=Status.SIGNUP.value, created_at=now)
    session.add(row)
    session.flush()
    return TournamentRecord(row.id, spec, Status.SIGNUP, now, [])


def _terms_json(terms: RoundTerms) -> dict[str, Any]:
    return {"length": terms.length, "final_length": terms.final_length,
            "lengths": list(terms.lengths),
            "variant": terms.variant.value, "crawford": terms.crawford,
            "turn_seconds": terms.turn_seconds, "rated": terms.rated,
            "bank": None if terms.bank is None else terms.bank.fields()}


def _terms_of(stored: dict[str, Any]) -> RoundTerms:
    return RoundTerms(length=stored["length"], final_length=stored["final_length"],
                      lengths=tuple(stored.get("lengths", ())),  # none stored before them
                      variant=Variant(stored["variant"]), crawford=stored["crawford"],
                      turn_seconds=stored["turn_seconds"], rated=stored["rated"],
                      # (Stored before time banks: none.)
                      bank=None if stored.get("bank") is None
                      else BankTerms.from_fields(stored["bank"]))


# Core statements, not ORM-enabled ones: the ORM's unit of work for a round of 64 pairings
# held the one SQLite writer (and the interpreter) for about 40 ms, which every move stored
# meanwhile waited for.
_PAIRINGS = table_of(TournamentPairingRow)
_ONE_PAIRING = (_PAIRINGS.c.tournament_id == bindparam("tid"),
                _PAIRINGS.c.round_number == bindparam("round"),
                _PAIRINGS.c.position == bindparam("at"))
# Sets the columns its parameters name besides the pairing's key.
_SET_PAIRING = update(_PAIRINGS).where(*_ONE_PAIRING)


def _result(pairing: Pairing) -> dict[str, Any]:
    return {"winner": pairing.winner, "decided": pairing.decided, "forfeit": pairing.forfeit}


def _write_round(session: Session, tournament_id: int, paired: Round, started_at: int) -> None:
    """A new round's row and its pairings."""
    connection = session.connection()
    connection.execute(insert(table_of(TournamentRoundRow)), {
        "tournament_id": tournament_id, "number": paired.number, "started_at": started_at})
    connection.execute(insert(_PAIRINGS), [
        {"tournament_id": tournament_id, "round_number": paired.number, "position": position,
         "first": pairing.first, "second": pairing.second, "flight": pairing.flight.value,
         **_result(pairing)}
        for position, pairing in enumerate(paired.pairings)])


def _read(session: Session, rows: Sequence[TournamentRow | None]) -> list[TournamentRecord]:
    found = [row for row in rows if row is not None]
    if not found:
        return []
    ids = [row.id for row in found]
    entrants: dict[int, list[TournamentEntrantRow]] = {tid: [] for tid in ids}
    for entrant in session.scalars(select(TournamentEntrantRow).where(
            TournamentEntrantRow.tournament_id.in_(ids)).order_by(
            TournamentEntrantRow.entry_number, TournamentEntrantRow.name_key)):
        entrants[entrant.tournament_id].append(entrant)
    rounds: dict[int, dict[int, int]] = {tid: {} for tid in ids}
    for played in session.scalars(select(TournamentRoundRow).where(
            TournamentRoundRow.tournament_id.in_(ids))):
        rounds[played.tournament_id][played.number] = played.started_at
    pairings: dict[int, list[TournamentPairingRow]] = {tid: [] for tid in ids}
    for pairing in session.scalars(select(TournamentPairingRow).where(
            TournamentPairingRow.tournament_id.in_(ids)).order_by(
            TournamentPairingRow.round_number, TournamentPairingRow.position)):
        pairings[pairing.tournament_id].append(pairing)
    return [_record(row, entrants[row.id], rounds[row.id], pairings[row.id]) for row in found]


def _record(row: TournamentRow, entrant_rows: list[TournamentEntrantRow],
            started: dict[int, int], pairing_rows: list[TournamentPairingRow]) -> TournamentRecord:
    spec = TournamentSpec(
        creator=row.creator, format=Format(row.format), terms=_terms_of(row.terms),
        swiss_rounds=row.swiss_rounds, entry_cap=row.entry_cap, starts_at=row.starts_at,
        start_when=row.start_when, bots_allowed=row.bots_allowed,
        no_show_seconds=row.no_show_seconds, repeat_seconds=row.repeat_seconds,
        follows=row.follows, arena_minutes=row.arena_minutes,
        flights=(Flight.MAIN, *(Flight(word) for word in row.side_flights.split(",") if word)))
    status = Status(row.status)
    entrants = [Entrant(entrant.name, entrant.rating) for entrant in entrant_rows]
    record = TournamentRecord(row.id, spec, status, row.created_at, entrants, winner=row.winner,
                              started_at=row.started_at, revision=row.revision)
    if row.started_at is None:
        return record
    seeded = tuple(Entrant(entrant.name, entrant.rating) for entrant in sorted(
        entrant_rows, key=lambda entrant: entrant.seed or 0))
    by_round: dict[int, list[Pairing]] = {number: [] for number in sorted(started)}
    for pairing in pairing_rows:
        by_round[pairing.round_number].append(Pairing(
            pairing.first, pairing.second, pairing.winner, pairing.decided, pairing.forfeit,
            Flight(pairing.flight)))
        if pairing.match_id is not None:
            record.match_ids[(pairing.round_number, pairing.position)] = pairing.match_id
    round_count = (knockout_round_count(len(seeded)) if spec.format is Format.KNOCKOUT
                   else spec.swiss_rounds)  # an arena's: 0, its rounds being open-ended
    record.played = Tournament(spec.format, seeded, round_count, tuple(
        Round(number, tuple(pairings)) for number, pairings in by_round.items()),
        withdrawn=frozenset(entrant.name for entrant in entrant_rows if entrant.withdrawn),
        flights=spec.flights,
        # An arena over pairs nobody; a running one's director closes it when its time is up.
        closed=spec.format is Format.ARENA and not status.open)
    record.round_started_at = dict(started)
    return record
