"""Verifiable dice, dice statistics and abandoned matches

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0004"
down_revision: Union[str, Sequence[str], None] = "0003"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


COLUMNS = ("dice_seed", "dice_drawn", "dice_tally", "left_by", "abandoned")


# Plain ALTER TABLE, no batch: SQLite (3.35 on) adds and drops these columns in place, where a
# batch would copy and drop the table, and the drop would delete its match_games rows with it
# (ON DELETE CASCADE).
def upgrade() -> None:
    # Matches stored before have no seed: their dice cannot be verified, and are not counted
    # by `dicetest` (no tally).
    op.add_column("matches", sa.Column("dice_seed", sa.String(), nullable=True))
    op.add_column("matches", sa.Column("dice_drawn", sa.Integer(), server_default="0",
                                       nullable=False))
    op.add_column("matches", sa.Column("dice_tally", sa.JSON(), nullable=True))
    op.add_column("matches", sa.Column("left_by", sa.String(), nullable=True))
    op.add_column("matches", sa.Column("abandoned", sa.Boolean(), server_default=sa.false(),
                                       nullable=False))


def downgrade() -> None:
    for column in reversed(COLUMNS):
        op.drop_column("matches", column)
