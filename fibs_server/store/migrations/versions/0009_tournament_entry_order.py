"""The sign-up order of a tournament's entrants: each entrant's number in it

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-06

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0009"
down_revision: Union[str, Sequence[str], None] = "0008"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


# Plain ALTER TABLE, no batch, as 0004 and 0007 (a batch copies and drops the table).
def upgrade() -> None:
    op.add_column("tournament_entrants", sa.Column("entry_number", sa.Integer(),
                                                   server_default="0", nullable=False))
    # The entrants already stored are numbered in the order they were read until now: by
    # the second of joining, then by name.
    op.execute("""
        UPDATE tournament_entrants SET entry_number = (
            SELECT count(*) FROM tournament_entrants AS earlier
            WHERE earlier.tournament_id = tournament_entrants.tournament_id
              AND (earlier.joined_at < tournament_entrants.joined_at
                   OR (earlier.joined_at = tournament_entrants.joined_at
                       AND earlier.name_key <= tournament_entrants.name_key)))
    """)


def downgrade() -> None:
    op.drop_column("tournament_entrants", "entry_number")
