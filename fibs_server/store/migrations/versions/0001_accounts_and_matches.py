"""Accounts and matches

Revision ID: 0001
Revises:
Create Date: 2026-11-30

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0001"
down_revision: Union[str, Sequence[str], None] = None
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("name_key", sa.String(), nullable=False),
        sa.Column("password_hash", sa.LargeBinary(), nullable=False),
        sa.Column("rating", sa.Double(), nullable=False),
        sa.Column("experience", sa.Integer(), nullable=False),
        sa.Column("toggles", sa.JSON(), nullable=False),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("email", sa.String(), nullable=True),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("last_login_at", sa.BigInteger(), nullable=True),
        sa.Column("last_login_host", sa.String(), nullable=True),
        sa.Column("last_logout_at", sa.BigInteger(), nullable=True),
        sa.Column("is_admin", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accounts")),
        sa.UniqueConstraint("name", name=op.f("uq_accounts_name")),
        sa.UniqueConstraint("name_key", name=op.f("uq_accounts_name_key")),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("player_a", sa.String(), nullable=False),
        sa.Column("player_b", sa.String(), nullable=False),
        sa.Column("length", sa.Integer(), nullable=True),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.Column("finished", sa.Boolean(), nullable=False),
        sa.Column("winner", sa.String(), nullable=True),
        sa.Column("started_at", sa.BigInteger(), nullable=False),
        sa.Column("finished_at", sa.BigInteger(), nullable=True),
        sa.Column("updated_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
        sa.ForeignKeyConstraint(["player_a"], ["accounts.name"],
                                name=op.f("fk_matches_player_a_accounts")),
        sa.ForeignKeyConstraint(["player_b"], ["accounts.name"],
                                name=op.f("fk_matches_player_b_accounts")),
        sa.ForeignKeyConstraint(["winner"], ["accounts.name"],
                                name=op.f("fk_matches_winner_accounts")),
    )
    op.create_index(op.f("ix_matches_player_a"), "matches", ["player_a"])
    op.create_index(op.f("ix_matches_player_b"), "matches", ["player_b"])


def downgrade() -> None:
    op.drop_table("matches")
    op.drop_table("accounts")
