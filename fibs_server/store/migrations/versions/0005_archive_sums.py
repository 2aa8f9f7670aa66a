"""Sums over the finished matches: rating changes and roll counts

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03

"""
from collections import Counter
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0005"
down_revision: Union[str, Sequence[str], None] = "0004"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

EVERY_ROLL = ""  # roll_counts.player of the server's sums
MATCHES_PER_READ = 5_000  # a large archive is read in pages, not into memory at once

# Only the columns the upgrade reads.
matches = sa.table("matches", sa.column("id", sa.Integer()), sa.column("finished", sa.Boolean()),
                   sa.column("player_a", sa.String()), sa.column("player_b", sa.String()),
                   sa.column("finished_at", sa.BigInteger()), sa.column("state", sa.JSON()),
                   sa.column("dice_tally", sa.JSON()))


def upgrade() -> None:
    op.create_index(op.f("ix_matches_finished"), "matches", ["finished"])
    rating_changes = op.create_table(
        "rating_changes",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("player", sa.String(), nullable=False),
        sa.Column("finished_at", sa.BigInteger(), nullable=False),
        sa.Column("rating_before", sa.Double(), nullable=False),
        sa.Column("rating_after", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("match_id", "player", name=op.f("pk_rating_changes")),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"], ondelete="CASCADE",
                                name=op.f("fk_rating_changes_match_id_matches")),
    )
    op.create_index("ix_rating_changes_player_finished_at", "rating_changes",
                    ["player", "finished_at", "match_id"])
    roll_counts = op.create_table(
        "roll_counts",
        sa.Column("player", sa.String(), nullable=False),
        sa.Column("roll", sa.Integer(), nullable=False),
        sa.Column("count", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("player", "roll", name=op.f("pk_roll_counts")),
    )
    counts: Counter[tuple[str, int]] = Counter()
    for changes, match_counts in _finished_matches_summed():
        if changes:
            op.get_bind().execute(sa.insert(rating_changes), changes)
        counts.update(match_counts)
    if counts:
        op.get_bind().execute(sa.insert(roll_counts), [
            {"player": player, "roll": roll, "count": count}
            for (player, roll), count in sorted(counts.items())])


def _finished_matches_summed():
    """Per page of finished matches: their rating changes' rows and their roll counts, as the
    store writes them when a match finishes (as its reads did: `ratings` names the players
    before and after, a tally counts player 0's, player 1's and the opening rolls)."""
    connection = op.get_bind()
    after = 0
    while True:
        page = connection.execute(
            sa.select(matches.c.id, matches.c.player_a, matches.c.player_b,
                      matches.c.finished_at, matches.c.state["ratings"], matches.c.dice_tally)
            .where(matches.c.finished, matches.c.id > after)
            .order_by(matches.c.id).limit(MATCHES_PER_READ)).all()
        if not page:
            return
        changes = []
        counts: Counter[tuple[str, int]] = Counter()
        for match_id, player_a, player_b, finished_at, ratings, tally in page:
            for player in (player_a, player_b):
                if ratings and player in ratings:
                    before, after_match = ratings[player]
                    changes.append({"match_id": match_id, "player": player,
                                    "finished_at": finished_at, "rating_before": before,
                                    "rating_after": after_match})
            if tally is not None:
                for owner, rolls in zip((player_a, player_b, None), tally):
                    for roll, count in enumerate(rolls):
                        counts[EVERY_ROLL, roll] += count
                        if owner is not None:
                            counts[owner, roll] += count
        yield changes, counts
        after = page[-1][0]


def downgrade() -> None:
    op.drop_table("roll_counts")
    op.drop_index("ix_rating_changes_player_finished_at", table_name="rating_changes")
    op.drop_table("rating_changes")
    op.drop_index(op.f("ix_matches_finished"), table_name="matches")
