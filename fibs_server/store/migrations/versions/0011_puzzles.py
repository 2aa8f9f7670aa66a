"""Puzzles from the analysed matches, the players' puzzle ratings and their first tries

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-06

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0011"
down_revision: Union[str, Sequence[str], None] = "0010"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    # The matches analysed before have no puzzles: only analyses stored from now on make them.
    op.create_table(
        "puzzles",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.Integer(), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("player", sa.Integer(), nullable=False),
        sa.Column("question", sa.String(), nullable=False),
        sa.Column("position_id", sa.String(), nullable=False),
        sa.Column("dice", sa.JSON(), nullable=True),
        sa.Column("cube", sa.Integer(), nullable=False),
        sa.Column("cube_owner", sa.Integer(), nullable=True),
        sa.Column("score", sa.JSON(), nullable=False),
        sa.Column("best", sa.String(), nullable=False),
        sa.Column("played", sa.String(), nullable=False),
        sa.Column("error", sa.Double(), nullable=False),
        sa.Column("rating", sa.Double(), nullable=False),
        sa.Column("attempts", sa.Integer(), server_default="0", nullable=False),
        sa.Column("solved", sa.Integer(), server_default="0", nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_puzzles")),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"], ondelete="CASCADE",
                                name=op.f("fk_puzzles_match_id_matches")),
    )
    op.create_index("ix_puzzles_match_decision", "puzzles",
                    ["match_id", "game", "turn", "player"], unique=True)
    op.create_index(op.f("ix_puzzles_rating"), "puzzles", ["rating"])
    op.create_table(
        "puzzle_ratings",
        sa.Column("name_key", sa.String(), nullable=False),
        sa.Column("rating", sa.Double(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("solved", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("name_key", name=op.f("pk_puzzle_ratings")),
    )
    op.create_table(
        "puzzle_attempts",
        sa.Column("name_key", sa.String(), nullable=False),
        sa.Column("puzzle_id", sa.Integer(), nullable=False),
        sa.Column("solved", sa.Boolean(), nullable=False),
        sa.Column("tried_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name_key", "puzzle_id", name=op.f("pk_puzzle_attempts")),
        sa.ForeignKeyConstraint(["puzzle_id"], ["puzzles.id"], ondelete="CASCADE",
                                name=op.f("fk_puzzle_attempts_puzzle_id_puzzles")),
    )


def downgrade() -> None:
    op.drop_table("puzzle_attempts")
    op.drop_table("puzzle_ratings")
    op.drop_index(op.f("ix_puzzles_rating"), table_name="puzzles")
    op.drop_index("ix_puzzles_match_decision", table_name="puzzles")
    op.drop_table("puzzles")
