"""Tournament flights: a knockout's side flights (consolation, last chance) and the flight of
each pairing

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-06

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0016"
down_revision: Union[str, Sequence[str], None] = "0015"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


# Plain ALTER TABLE, no batch (as in 0004): a batch would copy and drop the tables, and the
# drop would delete their rows that refer to them (ON DELETE CASCADE).
def upgrade() -> None:
    op.add_column("tournaments", sa.Column("side_flights", sa.String(),
                                           server_default="", nullable=False))
    op.add_column("tournament_pairings", sa.Column("flight", sa.String(),
                                                   server_default="main", nullable=False))


def downgrade() -> None:
    op.drop_column("tournament_pairings", "flight")
    op.drop_column("tournaments", "side_flights")
