"""When each node last found its link to the shared services working (readiness)

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-06

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0014"
down_revision: Union[str, Sequence[str], None] = "0013"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "node_links",
        sa.Column("node", sa.String(), nullable=False),
        sa.Column("link", sa.String(), nullable=False),
        sa.Column("seen_at", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("node", "link", name=op.f("pk_node_links")),
    )


def downgrade() -> None:
    op.drop_table("node_links")
