"""Tournament withdrawals: an entrant out of the later rounds, and each tournament's revision
(a change made by a command, which the director reads the tournament again for)

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-06

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0013"
down_revision: Union[str, Sequence[str], None] = "0012"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


# Plain ALTER TABLE, no batch (as in 0004): a batch would copy and drop the tables, and the
# drop would delete their rows that refer to them (ON DELETE CASCADE).
def upgrade() -> None:
    op.add_column("tournament_entrants", sa.Column("withdrawn", sa.Boolean(),
                                                   server_default=sa.false(), nullable=False))
    op.add_column("tournaments", sa.Column("revision", sa.Integer(),
                                           server_default="0", nullable=False))


def downgrade() -> None:
    op.drop_column("tournaments", "revision")
    op.drop_column("tournament_entrants", "withdrawn")
