"""The players' dice salts of each match

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-06

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0010"
down_revision: Union[str, Sequence[str], None] = "0009"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


# Plain ALTER TABLE, as in 0004: a batch would copy and drop the table, and its match_games
# rows with it.
def upgrade() -> None:
    # Matches stored before have no salts: their dice are the seed's alone, and still verify.
    op.add_column("matches", sa.Column("dice_salts", sa.JSON(), nullable=True))


def downgrade() -> None:
    op.drop_column("matches", "dice_salts")
