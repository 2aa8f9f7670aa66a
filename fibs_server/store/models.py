"""The database schema as SQLAlchemy models. Migrations in `migrations/versions` create it;
a test checks that the two agree."""
from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Double,
    ForeignKey,
    Index,
    LargeBinary,
    MetaData,
    Table,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Fixed constraint names, so later migrations (and SQLite batch rebuilds) can refer to them.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def table_of(row_class: type[Base]) -> Table:
    """A model's table, for Core statements (SQLAlchemy types `__table__` as a FromClause)."""
    table = row_class.__table__
    assert isinstance(table, Table)
    return table


def name_key(name: str) -> str:
    """The form of a user name that decides uniqueness and lookups: names ignore letter case."""
    return name.lower()


class AccountRow(Base):
    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(unique=True)
    name_key: Mapped[str] = mapped_column(unique=True)
    password_hash: Mapped[bytes] = mapped_column(LargeBinary)
    rating: Mapped[float] = mapped_column(Double)
    experience: Mapped[int]
    toggles: Mapped[dict[str, bool]] = mapped_column(JSON)
    settings: Mapped[dict[str, str]] = mapped_column(JSON)
    email: Mapped[str | None]
    # Times are Unix seconds, as in the lobby's records.
    created_at: Mapped[int] = mapped_column(BigInteger)
    last_login_at: Mapped[int | None] = mapped_column(BigInteger)
    last_login_host: Mapped[str | None]
    last_logout_at: Mapped[int | None] = mapped_column(BigInteger)
    is_admin: Mapped[bool]


class MatchRow(Base):
    __tablename__ = "matches"

    id: Mapped[int] = mapped_column(primary_key=True)
    player_a: Mapped[str] = mapped_column(ForeignKey("accounts.name"), index=True)
    player_b: Mapped[str] = mapped_column(ForeignKey("accounts.name"), index=True)
    length: Mapped[int | None]  # None = unlimited
    state: Mapped[dict[str, Any]] = mapped_column(JSON)
    # Indexed: the running matches are few in a large archive, and `dicetest` sums theirs.
    finished: Mapped[bool] = mapped_column(index=True)
    winner: Mapped[str | None] = mapped_column(ForeignKey("accounts.name"))
    started_at: Mapped[int] = mapped_column(BigInteger)
    finished_at: Mapped[int | None] = mapped_column(BigInteger)
    updated_at: Mapped[int] = mapped_column(BigInteger)
    # The first `moved_games` games of the state's history are rows of match_games, and
    # `state["history"]` holds the games after them: a finished game is written once, not
    # again with every action. Rows written before migration 0003 keep their whole history.
    moved_games: Mapped[int] = mapped_column(server_default="0")
    # The match's dice (docs/FAIRNESS.md): the secret seed in hex (None: dice that cannot be
    # verified), how many pairs it has drawn, its rolls counted for `dicetest`, and the
    # players' salts with the pair each entered at (lobby.match_records.MatchDice).
    dice_seed: Mapped[str | None]
    dice_drawn: Mapped[int] = mapped_column(server_default="0")
    dice_tally: Mapped[list[list[int]] | None] = mapped_column(JSON)
    dice_salts: Mapped[list[list[str | int] | None] | None] = mapped_column(JSON)
    # Who left the match unfinished (None: nobody, or it was resumed since), and whether it
    # was closed for that (`abandoned`, after LobbyConfig.abandon_after).
    left_by: Mapped[str | None]
    abandoned: Mapped[bool] = mapped_column(server_default=false())
    # The grace period of `left_by`'s leaving ended without a forfeit: the match waits for both
    # players, and no node's sweep times it again (until it is resumed and left again).
    waits_for_both: Mapped[bool] = mapped_column(server_default=false())
    # Which copy of the running match may store it: the node that starts or resumes it
    # claims it (one more), and every write of the lobby's is conditional on the value it
    # holds, so a node cut off from its players cannot write over the node that resumed
    # the match (lobby.match_records.StaleMatchOwner).
    owner_epoch: Mapped[int] = mapped_column(server_default="0")


class MatchGameRow(Base):
    """One game's events (`Match.to_dict()["history"][game_index]`), moved out of `state`."""
    __tablename__ = "match_games"

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"),
                                          primary_key=True)
    game_index: Mapped[int] = mapped_column(primary_key=True)
    events: Mapped[list[dict[str, Any]]] = mapped_column(JSON)


# Sums over the finished matches, kept by the transaction that finishes each (SqlMatchStore),
# so that the heavy reads of the archive read a few rows instead of every match.

class RatingChangeRow(Base):
    """One player's rating before and after one rated match (the match's `state["ratings"]`):
    the rating history."""
    __tablename__ = "rating_changes"
    __table_args__ = (Index("ix_rating_changes_player_finished_at",
                            "player", "finished_at", "match_id"),)

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"),
                                          primary_key=True)
    player: Mapped[str] = mapped_column(primary_key=True)
    finished_at: Mapped[int] = mapped_column(BigInteger)  # the match's
    rating_before: Mapped[float] = mapped_column(Double)
    rating_after: Mapped[float] = mapped_column(Double)


class RollCountRow(Base):
    """How often one roll (by the index of rules.dice_stats.ROLLS) came up in the finished
    matches with a dice tally: those `player` rolled, or with `player` EVERY_ROLL all of them,
    opening rolls too (`dicetest`)."""
    __tablename__ = "roll_counts"

    player: Mapped[str] = mapped_column(primary_key=True)
    roll: Mapped[int] = mapped_column(primary_key=True)
    count: Mapped[int] = mapped_column(BigInteger)


EVERY_ROLL = ""  # RollCountRow.player of the server's sums: no user is named so


# Talking and moderation (lobby/ports/chat_records.py). Rows that belong to one account go with it.

class MessageRow(Base):
    """A message left with `message` for a user who was not logged in."""
    __tablename__ = "messages"

    id: Mapped[int] = mapped_column(primary_key=True)
    recipient: Mapped[str] = mapped_column(
        ForeignKey("accounts.name", ondelete="CASCADE"), index=True)
    sender: Mapped[str]
    sent_at: Mapped[int] = mapped_column(BigInteger)
    text: Mapped[str]


class IgnoreRow(Base):
    """`owner` gags (kind `gag`) or blinds (kind `blind`) `target`."""
    __tablename__ = "ignores"

    owner: Mapped[str] = mapped_column(
        ForeignKey("accounts.name", ondelete="CASCADE"), primary_key=True)
    kind: Mapped[str] = mapped_column(primary_key=True)
    target: Mapped[str] = mapped_column(
        ForeignKey("accounts.name", ondelete="CASCADE"), primary_key=True)


class SanctionRow(Base):
    """A ban or mute. Not tied to the account: a ban outlives an erased account."""
    __tablename__ = "sanctions"

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str]
    name_key: Mapped[str] = mapped_column(index=True)
    name: Mapped[str]
    address: Mapped[str | None] = mapped_column(index=True)
    until: Mapped[int | None] = mapped_column(BigInteger)  # None = for good
    created_by: Mapped[str]
    created_at: Mapped[int] = mapped_column(BigInteger)


class ModerationRow(Base):
    __tablename__ = "moderation_log"

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[int] = mapped_column(BigInteger)
    admin: Mapped[str]
    action: Mapped[str]
    target: Mapped[str]
    detail: Mapped[str]


class ServerTextRow(Base):
    """Texts an administrator sets, by key (`motd`)."""
    __tablename__ = "server_texts"

    key: Mapped[str] = mapped_column(primary_key=True)
    lines: Mapped[list[str]] = mapped_column(JSON)


class NodeLinkRow(Base):
    """When each node last found one of its links to the shared services working (`link`:
    "bus"), on the database's clock: the other nodes' witness that an outage of that link
    is not theirs too (fibs_server/readiness.py)."""
    __tablename__ = "node_links"

    node: Mapped[str] = mapped_column(primary_key=True)
    link: Mapped[str] = mapped_column(primary_key=True)
    seen_at: Mapped[float] = mapped_column(Double)


# Match analysis (lobby/ports/analysis_records.py): what was asked for, and what was found.

class AnalysisRequestRow(Base):
    """One match's analysis asked for (`requested_by` None: queued when it finished), and
    how far it is: `queued`, `running`, `done` or `failed`. Queued and running rows are the
    queue; a restart takes them up again."""
    __tablename__ = "analysis_requests"
    __table_args__ = (Index("ix_analysis_requests_status_requested_at",
                            "status", "requested_at", "match_id"),)

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"),
                                          primary_key=True)
    plies: Mapped[int]
    status: Mapped[str]
    requested_at: Mapped[int] = mapped_column(BigInteger)
    # A user's name, not a foreign key: the request outlives nothing, and an erased
    # account's requests go with its matches.
    requested_by: Mapped[str | None] = mapped_column(index=True)
    started_at: Mapped[int | None] = mapped_column(BigInteger)
    failure: Mapped[str | None]


class AnalysisResultRow(Base):
    """A match analysed at `plies`: `bots.analysis.MatchAnalysis.to_dict()`. One per match
    and level, so that nothing is computed twice."""
    __tablename__ = "analysis_results"

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"),
                                          primary_key=True)
    plies: Mapped[int] = mapped_column(primary_key=True)
    analysis: Mapped[dict[str, Any]] = mapped_column(JSON)
    analysed_at: Mapped[int] = mapped_column(BigInteger)


# Puzzles (bots/puzzles.py): the blundered decisions of analysed rated matches, each player's
# puzzle rating, and who tried which puzzle (a rating moves at a player's first try only).

class PuzzleRow(Base):
    """One puzzle (`bots.puzzles.Puzzle`), stored with its analysis, and its rating so far."""
    __tablename__ = "puzzles"
    __table_args__ = (Index("ix_puzzles_match_decision", "match_id", "game", "turn", "player",
                            unique=True),)

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    game: Mapped[int]
    turn: Mapped[int]
    player: Mapped[int]
    question: Mapped[str]
    position_id: Mapped[str]
    dice: Mapped[list[int] | None] = mapped_column(JSON)
    cube: Mapped[int]
    cube_owner: Mapped[int | None]
    score: Mapped[list[int]] = mapped_column(JSON)
    best: Mapped[str]
    played: Mapped[str]
    error: Mapped[float] = mapped_column(Double)
    # Indexed: a player's next puzzle is the nearest to their rating.
    rating: Mapped[float] = mapped_column(Double, index=True)
    attempts: Mapped[int] = mapped_column(server_default="0")
    solved: Mapped[int] = mapped_column(server_default="0")


class PuzzleRatingRow(Base):
    """A player's puzzle rating (`name_key`: the lower-case name, as the accounts'), kept
    apart from the accounts: a player who never tried one has no row."""
    __tablename__ = "puzzle_ratings"

    name_key: Mapped[str] = mapped_column(primary_key=True)
    rating: Mapped[float] = mapped_column(Double)
    attempts: Mapped[int]
    solved: Mapped[int]


class PuzzleAttemptRow(Base):
    """A player's first try of a puzzle: later tries are answered but rate nothing."""
    __tablename__ = "puzzle_attempts"

    name_key: Mapped[str] = mapped_column(primary_key=True)
    puzzle_id: Mapped[int] = mapped_column(ForeignKey("puzzles.id", ondelete="CASCADE"),
                                           primary_key=True)
    solved: Mapped[bool]
    tried_at: Mapped[int] = mapped_column(BigInteger)


# Tournaments (lobby/ports/tournament_records.py): names are plain text, not foreign keys, as a
# tournament's table of results outlives nothing but reads as it was played.

class TournamentRow(Base):
    """A tournament as created (`terms`: rules.tournament.RoundTerms as JSON), its status
    (`signup`, `running`, `finished`, `cancelled`) and, at the end, its winner."""
    __tablename__ = "tournaments"

    id: Mapped[int] = mapped_column(primary_key=True)
    creator: Mapped[str]
    format: Mapped[str]
    terms: Mapped[dict[str, Any]] = mapped_column(JSON)
    swiss_rounds: Mapped[int]
    entry_cap: Mapped[int]
    starts_at: Mapped[int | None] = mapped_column(BigInteger)
    start_when: Mapped[int | None]
    bots_allowed: Mapped[bool]
    no_show_seconds: Mapped[int]
    status: Mapped[str] = mapped_column(index=True)
    created_at: Mapped[int] = mapped_column(BigInteger)
    started_at: Mapped[int | None] = mapped_column(BigInteger)
    ended_at: Mapped[int | None] = mapped_column(BigInteger)
    winner: Mapped[str | None]
    # One more at each change a command makes while it runs (a withdrawal, a reinstatement):
    # the director, which keeps a running tournament in memory, reads it again then.
    revision: Mapped[int] = mapped_column(server_default="0")
    # A recurring tournament's period, and the one of its series it was made after.
    repeat_seconds: Mapped[int | None]
    follows: Mapped[int | None] = mapped_column(index=True, unique=True)
    # A knockout's side flights, comma-separated (`consolation,lastchance`); none: "".
    side_flights: Mapped[str] = mapped_column(server_default="")
    arena_minutes: Mapped[int] = mapped_column(server_default="0")  # an arena's time


class TournamentEntrantRow(Base):
    """One entrant; `entry_number` their place in the sign-up order (1: the first to join,
    kept at the start); `seed` from the start on (1: the highest rated), `rating` then as at
    the start."""
    __tablename__ = "tournament_entrants"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True)
    name_key: Mapped[str] = mapped_column(primary_key=True)
    name: Mapped[str]
    rating: Mapped[float] = mapped_column(Double)
    joined_at: Mapped[int] = mapped_column(BigInteger)
    entry_number: Mapped[int] = mapped_column(server_default="0")
    seed: Mapped[int | None]
    withdrawn: Mapped[bool] = mapped_column(server_default=false())  # paired no more


class TournamentRoundRow(Base):
    __tablename__ = "tournament_rounds"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True)
    number: Mapped[int] = mapped_column(primary_key=True)
    started_at: Mapped[int] = mapped_column(BigInteger)


class TournamentPairingRow(Base):
    """One pairing of a round (`second` None: a bye), its result, and the match playing it
    (a plain id: a pair's saved match may be replaced, and the result is kept here)."""
    __tablename__ = "tournament_pairings"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True)
    round_number: Mapped[int] = mapped_column(primary_key=True)
    position: Mapped[int] = mapped_column(primary_key=True)
    first: Mapped[str]
    second: Mapped[str | None]
    winner: Mapped[str | None]
    decided: Mapped[bool]
    forfeit: Mapped[bool]
    match_id: Mapped[int | None]
    flight: Mapped[str] = mapped_column(server_default="main")  # rules.tournament.Flight
