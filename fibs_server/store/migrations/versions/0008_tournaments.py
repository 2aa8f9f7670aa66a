"""Tournaments: their terms and status, entrants, rounds and pairings with results

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-08

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0008"
down_revision: Union[str, Sequence[str], None] = "0007"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def _of_tournament() -> list[sa.Column[int]]:
    return [sa.Column("tournament_id", sa.Integer(), nullable=False)]


def _cascade(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"], ondelete="CASCADE",
                                   name=op.f(f"fk_{table}_tournament_id_tournaments"))


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("creator", sa.String(), nullable=False),
        sa.Column("format", sa.String(), nullable=False),
        sa.Column("terms", sa.JSON(), nullable=False),
        sa.Column("swiss_rounds", sa.Integer(), nullable=False),
        sa.Column("entry_cap", sa.Integer(), nullable=False),
        sa.Column("starts_at", sa.BigInteger(), nullable=True),
        sa.Column("start_when", sa.Integer(), nullable=True),
        sa.Column("bots_allowed", sa.Boolean(), nullable=False),
        sa.Column("no_show_seconds", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("started_at", sa.BigInteger(), nullable=True),
        sa.Column("ended_at", sa.BigInteger(), nullable=True),
        sa.Column("winner", sa.String(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
    )
    op.create_index(op.f("ix_tournaments_status"), "tournaments", ["status"])
    op.create_table(
        "tournament_entrants",
        *_of_tournament(),
        sa.Column("name_key", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("rating", sa.Double(), nullable=False),
        sa.Column("joined_at", sa.BigInteger(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("tournament_id", "name_key", name=op.f("pk_tournament_entrants")),
        _cascade("tournament_entrants"),
    )
    op.create_table(
        "tournament_rounds",
        *_of_tournament(),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "number", name=op.f("pk_tournament_rounds")),
        _cascade("tournament_rounds"),
    )
    op.create_table(
        "tournament_pairings",
        *_of_tournament(),
        sa.Column("round_number", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("first", sa.String(), nullable=False),
        sa.Column("second", sa.String(), nullable=True),
        sa.Column("winner", sa.String(), nullable=True),
        sa.Column("decided", sa.Boolean(), nullable=False),
        sa.Column("forfeit", sa.Boolean(), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("tournament_id", "round_number", "position",
                                name=op.f("pk_tournament_pairings")),
        _cascade("tournament_pairings"),
    )


def downgrade() -> None:
    op.drop_table("tournament_pairings")
    op.drop_table("tournament_rounds")
    op.drop_table("tournament_entrants")
    op.drop_index(op.f("ix_tournaments_status"), table_name="tournaments")
    op.drop_table("tournaments")
