"""Match analysis: the requests (the queue) and the results

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0006"
down_revision: Union[str, Sequence[str], None] = "0005"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    # The matches finished before this are not queued: `analyse <match>` asks for one.
    op.create_table(
        "analysis_requests",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("plies", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("requested_at", sa.BigInteger(), nullable=False),
        sa.Column("requested_by", sa.String(), nullable=True),
        sa.Column("started_at", sa.BigInteger(), nullable=True),
        sa.Column("failure", sa.String(), nullable=True),
        sa.PrimaryKeyConstraint("match_id", name=op.f("pk_analysis_requests")),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"], ondelete="CASCADE",
                                name=op.f("fk_analysis_requests_match_id_matches")),
    )
    op.create_index("ix_analysis_requests_status_requested_at", "analysis_requests",
                    ["status", "requested_at", "match_id"])
    op.create_index(op.f("ix_analysis_requests_requested_by"), "analysis_requests",
                    ["requested_by"])
    op.create_table(
        "analysis_results",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("plies", sa.Integer(), nullable=False),
        sa.Column("analysis", sa.JSON(), nullable=False),
        sa.Column("analysed_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("match_id", "plies", name=op.f("pk_analysis_results")),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"], ondelete="CASCADE",
                                name=op.f("fk_analysis_results_match_id_matches")),
    )


def downgrade() -> None:
    op.drop_table("analysis_results")
    op.drop_index(op.f("ix_analysis_requests_requested_by"), table_name="analysis_requests")
    op.drop_index("ix_analysis_requests_status_requested_at", table_name="analysis_requests")
    op.drop_table("analysis_requests")
