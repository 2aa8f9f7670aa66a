"""An arena tournament's time, in minutes (0 for the other formats)

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-06

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0017"
down_revision: Union[str, Sequence[str], None] = "0016"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


# Plain ALTER TABLE, no batch (as in 0013).
def upgrade() -> None:
    op.add_column("tournaments", sa.Column("arena_minutes", sa.Integer(),
                                           server_default="0", nullable=False))


def downgrade() -> None:
    op.drop_column("tournaments", "arena_minutes")
