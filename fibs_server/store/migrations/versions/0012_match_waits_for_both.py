"""A left timed match whose grace period ended without a forfeit: it waits for both players

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-06

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0012"
down_revision: Union[str, Sequence[str], None] = "0011"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


# Plain ALTER TABLE, no batch (as in 0004): a batch would copy and drop the table, and the
# drop would delete its match_games rows with it (ON DELETE CASCADE).
def upgrade() -> None:
    # A match whose grace period ended before: no node records it any more, so a sweep may
    # time it once again, as before this column.
    op.add_column("matches", sa.Column("waits_for_both", sa.Boolean(),
                                       server_default=sa.false(), nullable=False))


def downgrade() -> None:
    op.drop_column("matches", "waits_for_both")
