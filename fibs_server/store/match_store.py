"""The lobby's MatchStore on SQLAlchemy: a mixin of SqlStore (which gives `_writes`,
`_reads` for methods that only read, `_updates`, its GroupCommit, and `_now`)."""
from __future__ import annotations

import dataclasses
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    Integer,
    and_,
    bindparam,
    case,
    delete,
    func,
    insert,
    or_,
    select,
    true,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from fibs_server.lobby.ports.analysis_records import QueueLimits
from fibs_server.lobby.ports.match_records import (
    FIRST_OWNER_EPOCH,
    MatchDice,
    MatchRecord,
    RatedMatch,
    RatingChange,
    RatingUpdate,
    StaleMatchOwner,
)
from fibs_server.rules.dice_stats import ROLLS
from fibs_server.store.account_store import ACCOUNTS_BY_NAME_KEY, no_account
from fibs_server.store.analysis_store import queue_analysis
from fibs_server.store.group_commit import GroupCommit, RowsByKey
from fibs_server.store.models import (
    EVERY_ROLL,
    MatchGameRow,
    MatchRow,
    RatingChangeRow,
    RollCountRow,
    name_key,
    table_of,
)
from fibs_server.store.transactions import Transactions

_MATCHES = table_of(MatchRow)
_RATING_CHANGES = table_of(RatingChangeRow)
_ROLL_COUNTS = table_of(RollCountRow)
# The owner epoch a write holds, a bind parameter of every update of RUNNING_MATCHES_BY_ID
# (None: any; see lobby.match_records.MatchStore).
_HELD_EPOCH = "held_epoch"
RUNNING_MATCHES_BY_ID = RowsByKey(
    _MATCHES.c.id, ~_MATCHES.c.finished,
    _MATCHES.c.owner_epoch == func.coalesce(bindparam(_HELD_EPOCH, type_=Integer),
                                            _MATCHES.c.owner_epoch),
    dependents=table_of(MatchGameRow))


class SqlMatchStore:
    """Matches, naming their players exactly as the accounts spell them.

    A match's finished games are written once, as rows of match_games, and each save writes
    only the state with the current game's history (see MatchRow.moved_games); reads put the
    whole history back together.

    The transaction that finishes a match adds it to the sums the archive's heavy reads
    read (rating_changes, roll_counts): the rating history and `dicetest` read a few rows
    whatever the archive's size, and never disagree with the matches."""
    _writes: Transactions
    _reads: Transactions
    _updates: GroupCommit
    _now: Callable[[], int]
    # Per match saved since start, how many of its games are surely in match_games, so a
    # save sends only the games finished since. Never more than are there: it is set
    # after a commit, and read from the row when the match is claimed (another node may
    # have stored it since, or replaced it by a match that got its id on SQLite). Unknown
    # (after a restart) counts as none: the next save sends every finished game once, and
    # the rows already there are kept.
    _moved_games: dict[int, int]
    _finished_matches_queued: tuple[int, QueueLimits] | None  # see SqlAnalysisStore

    async def create_match(self, player_a: str, player_b: str, length: int | None,
                           state: dict[str, Any], dice: MatchDice | None = None, *,
                           replace: bool = True) -> int:
        """With `replace`, the pair's running match, if any, is replaced: deleted, its games
        with it (ON DELETE CASCADE), in the same transaction, so a start writes without
        reading first."""
        now = self._now()
        replaced = select(MatchRow.id).where(~MatchRow.finished, _between(player_a, player_b))
        stored = _StoredState.of(state, moved_already=0)
        new_match = insert(_MATCHES).values(
            player_a=player_a, player_b=player_b, length=length, state=stored.state,
            moved_games=stored.moved_games, finished=False, started_at=now, updated_at=now,
            owner_epoch=FIRST_OWNER_EPOCH, **_dice_columns(dice))

        # Group-committed: with a transaction each, 1,000 match starts at once queued on the one
        # SQLite connection past its 30 s checkout timeout (docs/PERFORMANCE.md, "Limits").
        def insert_match(session: Session) -> tuple[int, list[int]]:
            connection = session.connection()
            replaced_ids = list(connection.scalars(replaced)) if replace else []
            if replaced_ids:
                connection.execute(delete(_MATCHES).where(_MATCHES.c.id.in_(replaced_ids)))
            new_key = connection.execute(new_match).inserted_primary_key
            assert new_key is not None  # an insert of one row
            match_id: int = new_key[0]
            RUNNING_MATCHES_BY_ID.add_dependents(connection, stored.game_rows(match_id))
            return match_id, replaced_ids
        match_id, replaced_ids = await self._updates.run(insert_match)
        for replaced_id in replaced_ids:
            self._moved_games.pop(replaced_id, None)  # it is saved no more
        self._moved_games[match_id] = stored.moved_games
        return match_id

    async def claim_match(self, match_id: int) -> int:
        """One statement (UPDATE ... RETURNING, on SQLite and PostgreSQL alike): two nodes
        claiming at once get two epochs, the later one owning the match."""
        claim = (update(_MATCHES).where(_MATCHES.c.id == match_id, ~_MATCHES.c.finished)
                 .values(owner_epoch=_MATCHES.c.owner_epoch + 1)
                 .returning(_MATCHES.c.owner_epoch, _MATCHES.c.moved_games))

        def claim_row(session: Session) -> tuple[int, int]:
            row = session.connection().execute(claim).one_or_none()
            if row is None:
                raise LookupError(_no_running_match(match_id))  # changed nothing
            return row.owner_epoch, row.moved_games
        epoch, moved_games = await self._updates.run(claim_row)
        self._moved_games[match_id] = moved_games
        return epoch

    async def save_match_state(self, match_id: int, state: dict[str, Any],
                               dice: MatchDice | None = None, *,
                               epoch: int | None = None) -> None:
        stored = _StoredState.of(state, moved_already=self._moved_games.get(match_id, 0))
        try:
            await self._updates.update(
                RUNNING_MATCHES_BY_ID, match_id,
                {"state": stored.state, "moved_games": stored.moved_games,
                 "updated_at": self._now(), _HELD_EPOCH: epoch, **_dice_columns(dice)},
                missing=_not_written(match_id, epoch), dependents=stored.game_rows(match_id))
        except StaleMatchOwner:
            self._moved_games.pop(match_id, None)  # another node saves it now
            raise
        self._moved_games[match_id] = stored.moved_games

    async def finish_match(self, match_id: int, state: dict[str, Any], winner: str | None,
                           ratings: list[RatingUpdate], dice: MatchDice | None = None,
                           abandoned: bool = False, *, epoch: int | None = None) -> None:
        now = self._now()
        stored = _StoredState.of(state, moved_already=self._moved_games.get(match_id, 0))

        def finish(session: Session) -> None:
            connection = session.connection()
            RUNNING_MATCHES_BY_ID.update_one(
                connection, match_id, {"state": stored.state, "moved_games": stored.moved_games,
                                       "finished": True, "winner": winner,
                                       "finished_at": now, "updated_at": now,
                                       "abandoned": abandoned, _HELD_EPOCH: epoch,
                                       **_dice_columns(dice)},
                missing=_not_written(match_id, epoch))
            # After the update: a match that is not running gets no games.
            RUNNING_MATCHES_BY_ID.add_dependents(connection, stored.game_rows(match_id))
            for rating in ratings:
                ACCOUNTS_BY_NAME_KEY.update_one(
                    connection, name_key(rating.name),
                    {"rating": rating.rating, "experience": rating.experience},
                    missing=no_account(rating.name))
            _sum_finished(connection, match_id, stored.state.get("ratings"), now)
            if queued is not None:  # in this transaction: a crash cannot lose the request
                plies, limits = queued
                queue_analysis(connection, match_id, plies, None, limits, now)
        queued = self._finished_matches_queued
        try:
            await self._writes.run(finish)
        except StaleMatchOwner:
            self._moved_games.pop(match_id, None)  # another node stores it now
            raise
        self._moved_games.pop(match_id, None)  # it is saved no more

    async def running_match(self, name_a: str, name_b: str) -> MatchRecord | None:
        def read(session: Session) -> MatchRecord | None:
            row = session.scalar(select(MatchRow)
                                 .where(~MatchRow.finished, _between(name_a, name_b))
                                 .order_by(MatchRow.id.desc()).limit(1))
            return None if row is None else _records(session, [row])[0]
        return await self._reads.run(read)

    async def running_matches(self, name: str) -> list[MatchRecord]:
        return await self._reads.run(lambda session: _records(
            session, session.scalars(_RUNNING_MATCHES, {"name": name}).all()))

    async def finished_matches(self, name: str, limit: int) -> list[MatchRecord]:
        return await self._reads.run(_matching_records(
            select(MatchRow).where(MatchRow.finished, _plays_in(name))
            .order_by(MatchRow.finished_at.desc(), MatchRow.id.desc()).limit(limit)))

    async def rating_history(self, name: str, limit: int) -> list[RatingChange]:
        # This serves a page, for any name asked: at most `limit` rows of an index.
        changes = RatingChangeRow
        query = (select(changes.finished_at, changes.rating_before, changes.rating_after)
                 .where(changes.player == name)
                 .order_by(changes.finished_at.desc(), changes.match_id.desc()).limit(limit))
        rows = await self._reads.run(_all_rows(query))
        return [RatingChange(*row) for row in reversed(rows)]

    async def rated_matches(self, name: str, before: int | None,
                            limit: int) -> list[RatedMatch]:
        # A page for any name asked, as the rating history: `limit` rows of the same index,
        # each joined to its match by key; only the score is read of the state.
        changes = RatingChangeRow
        query = (select(MatchRow.id, MatchRow.player_a, MatchRow.player_b, MatchRow.length,
                        MatchRow.winner, MatchRow.state["score"], changes.finished_at,
                        changes.rating_before, changes.rating_after)
                 .join(MatchRow, MatchRow.id == changes.match_id)
                 .where(changes.player == name)
                 .order_by(changes.finished_at.desc(), changes.match_id.desc()).limit(limit))
        if before is not None:
            # Null (so no rows) when `before` is not one of the player's rated matches.
            after = (select(changes.finished_at)
                     .where(changes.player == name, changes.match_id == before)
                     .scalar_subquery())
            query = query.where(or_(changes.finished_at < after,
                                    and_(changes.finished_at == after,
                                         changes.match_id < before)))
        rows = await self._reads.run(_all_rows(query))
        return [RatedMatch(*row) for row in rows]

    async def rated_matches_finished(self, start: int, end: int, after: int,
                                     limit: int) -> list[MatchRecord]:
        """The rated matches finished from `start` to before `end` (Unix seconds) with an id
        above `after`, by id, `limit` at most: the open record's pages (store/open_record.py)."""
        # Rated: its rating changes are stored (looked up by their key's first column).
        rated = select(RatingChangeRow.match_id).where(RatingChangeRow.match_id == MatchRow.id)
        return await self._reads.run(_matching_records(
            select(MatchRow).where(MatchRow.id > after, MatchRow.finished,
                                   MatchRow.finished_at >= start, MatchRow.finished_at < end,
                                   rated.exists())
            .order_by(MatchRow.id).limit(limit)))

    async def rated_match_counts(self, name: str) -> tuple[int, int]:
        changes = RatingChangeRow
        query = (select(func.count(), func.sum(case((MatchRow.winner == name, 1), else_=0)))
                 .select_from(changes).join(MatchRow, MatchRow.id == changes.match_id)
                 .where(changes.player == name))
        played, won = (await self._reads.run(_all_rows(query)))[0]
        return played, won or 0

    async def match_by_id(self, match_id: int) -> MatchRecord | None:
        """Any stored match, running or finished (`fibs-server export-match`, `fairdice`)."""
        def read(session: Session) -> MatchRecord | None:
            row = session.get(MatchRow, match_id)
            return None if row is None else _records(session, [row])[0]
        return await self._reads.run(read)

    async def mark_left(self, match_id: int, name: str | None, *,
                        epoch: int | None = None) -> None:
        # The first to leave is the one who left: the other may log out later, waiting.
        still_there = _MATCHES.c.left_by.is_(None) if name is not None else true()
        owned = true() if epoch is None else _MATCHES.c.owner_epoch == epoch
        statement = (update(_MATCHES)
                     .where(_MATCHES.c.id == match_id, ~_MATCHES.c.finished, still_there, owned)
                     .values(left_by=name, waits_for_both=False))

        def mark(session: Session) -> None:
            connection = session.connection()
            if connection.execute(statement).rowcount == 0:
                # Kept as it was (someone left first), or not running: nothing to say. Not
                # this node's: say so.
                why = _not_written(match_id, epoch)(connection)
                if isinstance(why, StaleMatchOwner):
                    raise why
        await self._writes.run(mark)

    async def mark_waiting(self, match_id: int, left_by: str) -> bool:
        statement = (update(_MATCHES)
                     .where(_MATCHES.c.id == match_id, ~_MATCHES.c.finished,
                            _MATCHES.c.left_by == left_by)
                     .values(waits_for_both=True))

        def mark(session: Session) -> bool:
            return bool(session.connection().execute(statement).rowcount)
        return await self._writes.run(mark)

    async def left_matches(self) -> list[MatchRecord]:
        return await self._reads.run(_matching_records(
            select(MatchRow).where(~MatchRow.finished, MatchRow.left_by.is_not(None))
            .order_by(MatchRow.id)))

    async def idle_matches(self, before: int) -> list[MatchRecord]:
        return await self._reads.run(_matching_records(
            select(MatchRow).where(~MatchRow.finished, MatchRow.updated_at < before)
            .order_by(MatchRow.id)))

    async def match_counts(self, name: str) -> tuple[int, int]:
        def count(session: Session) -> tuple[int, int]:
            unfinished = session.scalar(
                select(func.count()).where(~MatchRow.finished, _plays_in(name)))
            # _plays_in first: whois is frequent (a bot's keep-alive), and the players'
            # columns are indexed.
            abandoned = session.scalar(
                select(func.count()).where(_plays_in(name), MatchRow.abandoned,
                                           MatchRow.left_by == name))
            return unfinished or 0, abandoned or 0
        return await self._reads.run(count)

    async def roll_tally(self, name: str | None) -> list[int]:
        """The finished matches' sums (roll_counts) and the tallies of the running ones,
        few: summed in the unit of work, off the event loop for a SQLite file."""
        summed = select(RollCountRow.roll, RollCountRow.count).where(
            RollCountRow.player == (EVERY_ROLL if name is None else name))
        running = select(MatchRow.player_a, MatchRow.dice_tally).where(
            ~MatchRow.finished, MatchRow.dice_tally.is_not(None))
        if name is not None:
            running = running.where(_plays_in(name))

        def read(session: Session) -> list[int]:
            total = [0] * len(ROLLS)
            for roll, count in session.execute(summed):
                total[roll] += count
            for player_a, tally in session.execute(running):
                assert tally is not None  # selected so
                counted = tally if name is None else [tally[0 if player_a == name else 1]]
                for row in counted:
                    total = [a + b for a, b in zip(total, row)]
            return total
        return await self._reads.run(read)


@dataclasses.dataclass
class _StoredState:
    """How a match state is stored: every game of its history but the last (the one being
    played, or just ended) in match_games, the state holding the rest. A state without
    history (not a rules-engine match) is stored as it is."""
    state: dict[str, Any]
    moved_games: int
    new_games: dict[int, list[dict[str, Any]]]  # by game index: those not moved already

    @classmethod
    def of(cls, state: dict[str, Any], *, moved_already: int) -> _StoredState:
        if "history" not in state:
            return cls(state, 0, {})
        history = state["history"]
        moved = max(len(history) - 1, 0)
        return cls({**state, "history": history[moved:]}, moved,
                   {index: history[index] for index in range(moved_already, moved)})

    def game_rows(self, match_id: int) -> list[dict[str, Any]]:
        return [{"match_id": match_id, "game_index": index, "events": events}
                for index, events in self.new_games.items()]


def _sum_finished(connection: Connection, match_id: int, ratings: dict[str, Any] | None,
                  finished_at: int) -> None:
    """Add the match just finished to the archive's sums: each player's rating change (its
    state's `ratings`: match_play writes {name: [before, after]} there) and its roll counts
    (the tally as stored now: a finish without dice keeps the saved one)."""
    player_a, player_b, tally = connection.execute(
        select(MatchRow.player_a, MatchRow.player_b, MatchRow.dice_tally)
        .where(MatchRow.id == match_id)).one()
    changes = [{"match_id": match_id, "player": player, "finished_at": finished_at,
                "rating_before": ratings[player][0], "rating_after": ratings[player][1]}
               for player in (player_a, player_b) if ratings and player in ratings]
    if changes:
        connection.execute(insert(_RATING_CHANGES), changes)
    if tally is not None:
        add_roll_counts(connection, roll_counts(player_a, player_b, tally))


def roll_counts(player_a: str, player_b: str, tally: list[list[int]]) -> Counter[tuple[str, int]]:
    """A match's tally as roll_counts rows count it, by (player, roll): player 0's rolls,
    player 1's and the opening rolls, all of them counted for the server too."""
    counts: Counter[tuple[str, int]] = Counter()
    for owner, rolls in zip((player_a, player_b, None), tally):
        for roll, count in enumerate(rolls):
            counts[EVERY_ROLL, roll] += count
            if owner is not None:
                counts[owner, roll] += count
    return counts


def add_roll_counts(connection: Connection, counts: Counter[tuple[str, int]]) -> None:
    """Add `counts` (negative ones subtract) to roll_counts in one statement, in key order:
    transactions that finish matches at once on PostgreSQL lock the rows they share (the
    server's) in the same order, so none waits for another in a cycle."""
    dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
    statement = dialect.insert(_ROLL_COUNTS)
    statement = statement.on_conflict_do_update(
        index_elements=[_ROLL_COUNTS.c.player, _ROLL_COUNTS.c.roll],
        set_={"count": _ROLL_COUNTS.c.count + statement.excluded.count})
    connection.execute(statement, [{"player": player, "roll": roll, "count": count}
                                   for (player, roll), count in sorted(counts.items())])


def uncount_matches(connection: Connection, matches: ColumnElement[bool]) -> None:
    """Take the finished matches that `matches` selects out of roll_counts, before they are
    deleted (their rating changes go with them: ON DELETE CASCADE)."""
    counts: Counter[tuple[str, int]] = Counter()
    for player_a, player_b, tally in connection.execute(
            select(MatchRow.player_a, MatchRow.player_b, MatchRow.dice_tally)
            .where(matches, MatchRow.finished, MatchRow.dice_tally.is_not(None))):
        assert tally is not None  # selected so
        counts.update(roll_counts(player_a, player_b, tally))
    if counts:
        add_roll_counts(connection, Counter({key: -count for key, count in counts.items()}))


def _matching_records(query: Any) -> Callable[[Session], list[MatchRecord]]:
    """A unit of work reading the matches `query` selects, as records."""
    return lambda session: _records(session, session.scalars(query).all())


def _all_rows(query: Any) -> Callable[[Session], list[Any]]:
    """A unit of work reading every row `query` selects."""
    return lambda session: list(session.execute(query))


def _records(session: Session, rows: Sequence[MatchRow]) -> list[MatchRecord]:
    """`rows` as records, each state with its whole history: the games moved to match_games
    put back in front of those the state holds."""
    moved = {row.id: row.moved_games for row in rows if row.moved_games}
    games: defaultdict[int, list[list[dict[str, Any]]]] = defaultdict(list)
    if moved:
        found = session.execute(
            select(MatchGameRow.match_id, MatchGameRow.game_index, MatchGameRow.events)
            .where(MatchGameRow.match_id.in_(moved))
            .order_by(MatchGameRow.match_id, MatchGameRow.game_index))
        for match_id, game_index, events in found:
            # On PostgreSQL each statement reads the latest commit: a save since the match's
            # row was read may have added games that its state still holds.
            if game_index < moved[match_id]:
                games[match_id].append(events)
    return [_record_from_row(row, games.get(row.id, [])) for row in rows]


def _no_running_match(match_id: int) -> str:
    return f"no running match with id {match_id}"


def _not_written(match_id: int, epoch: int | None) -> Callable[[Connection], LookupError]:
    """Why a write of the running match `match_id` by the owner of `epoch` changed no row:
    no such running match, or another owner now (StaleMatchOwner)."""
    def why(connection: Connection) -> LookupError:
        owner = connection.scalar(select(_MATCHES.c.owner_epoch).where(
            _MATCHES.c.id == match_id, ~_MATCHES.c.finished))
        if owner is None or epoch is None or owner == epoch:
            return LookupError(_no_running_match(match_id))
        return StaleMatchOwner(match_id, epoch, owner)
    return why


def _between(name_a: str, name_b: str) -> ColumnElement[bool]:
    """The pair's matches, whichever of them invited."""
    return or_(and_(MatchRow.player_a == name_a, MatchRow.player_b == name_b),
               and_(MatchRow.player_a == name_b, MatchRow.player_b == name_a))


def _plays_in(name: str | BindParameter[str]) -> ColumnElement[bool]:
    return or_(MatchRow.player_a == name, MatchRow.player_b == name)


# What every login asks (resume_waiting_matches): built once, not in the event loop at each.
_RUNNING_MATCHES = (select(MatchRow).where(~MatchRow.finished, _plays_in(bindparam("name")))
                    .order_by(MatchRow.id))


def _dice_columns(dice: MatchDice | None) -> dict[str, Any]:
    """The matches columns of `dice`; none when they are not given (left as they are)."""
    if dice is None:
        return {}
    return {"dice_seed": dice.seed, "dice_drawn": dice.drawn, "dice_tally": dice.tally,
            "dice_salts": dice.salts}


def _record_from_row(row: MatchRow, moved_games: list[list[dict[str, Any]]]) -> MatchRecord:
    state = row.state
    if moved_games:
        state = {**state, "history": [*moved_games, *state["history"]]}
    dice = (None if row.dice_tally is None
            else MatchDice(row.dice_seed, row.dice_drawn, row.dice_tally, row.dice_salts))
    return MatchRecord(match_id=row.id, player_a=row.player_a, player_b=row.player_b,
                       length=row.length, state=state, finished=row.finished,
                       winner=row.winner, started_at=row.started_at,
                       finished_at=row.finished_at, dice=dice,
                       left_by=row.left_by, abandoned=row.abandoned,
                       waits_for_both=row.waits_for_both,
                       owner_epoch=row.owner_epoch)
