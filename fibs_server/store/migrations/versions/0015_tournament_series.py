"""Recurring tournaments: a tournament's period (`every day|week`) and the one of its series
it was made after

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-06

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0015"
down_revision: Union[str, Sequence[str], None] = "0014"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


# Plain ALTER TABLE, no batch (as in 0004): a batch would copy and drop the table, and the
# drop would delete the rows that refer to it (ON DELETE CASCADE). A unique constraint
# cannot be added to a SQLite table in place, so `follows` is unique by an index.
def upgrade() -> None:
    op.add_column("tournaments", sa.Column("repeat_seconds", sa.Integer(), nullable=True))
    op.add_column("tournaments", sa.Column("follows", sa.Integer(), nullable=True))
    op.create_index(op.f("ix_tournaments_follows"), "tournaments", ["follows"], unique=True)


def downgrade() -> None:
    op.drop_index(op.f("ix_tournaments_follows"), table_name="tournaments")
    op.drop_column("tournaments", "follows")
    op.drop_column("tournaments", "repeat_seconds")
