"""The owner epoch of each match: which node's copy of a running match may store it

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-05

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0007"
down_revision: Union[str, Sequence[str], None] = "0006"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


# Plain ALTER TABLE, no batch, as 0004: a batch would copy and drop the table, and the drop
# would delete its match_games rows with it (ON DELETE CASCADE).
def upgrade() -> None:
    # Existing rows start at 0: a saved match is claimed (its epoch goes up) before it runs
    # again, and a match running during the upgrade is run by a node that stopped for it.
    op.add_column("matches", sa.Column("owner_epoch", sa.Integer(), server_default="0",
                                       nullable=False))


def downgrade() -> None:
    op.drop_column("matches", "owner_epoch")
