"""Messages, gags and blinds, bans and mutes, moderation log, server texts

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0002"
down_revision: Union[str, Sequence[str], None] = "0001"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "messages",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("recipient", sa.String(), nullable=False),
        sa.Column("sender", sa.String(), nullable=False),
        sa.Column("sent_at", sa.BigInteger(), nullable=False),
        sa.Column("text", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_messages")),
        sa.ForeignKeyConstraint(["recipient"], ["accounts.name"], ondelete="CASCADE",
                                name=op.f("fk_messages_recipient_accounts")),
    )
    op.create_index(op.f("ix_messages_recipient"), "messages", ["recipient"])
    op.create_table(
        "ignores",
        sa.Column("owner", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("target", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("owner", "kind", "target", name=op.f("pk_ignores")),
        sa.ForeignKeyConstraint(["owner"], ["accounts.name"], ondelete="CASCADE",
                                name=op.f("fk_ignores_owner_accounts")),
        sa.ForeignKeyConstraint(["target"], ["accounts.name"], ondelete="CASCADE",
                                name=op.f("fk_ignores_target_accounts")),
    )
    op.create_table(
        "sanctions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("name_key", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("address", sa.String(), nullable=True),
        sa.Column("until", sa.BigInteger(), nullable=True),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sanctions")),
    )
    op.create_index(op.f("ix_sanctions_name_key"), "sanctions", ["name_key"])
    op.create_index(op.f("ix_sanctions_address"), "sanctions", ["address"])
    op.create_table(
        "moderation_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", sa.BigInteger(), nullable=False),
        sa.Column("admin", sa.String(), nullable=False),
        sa.Column("action", sa.String(), nullable=False),
        sa.Column("target", sa.String(), nullable=False),
        sa.Column("detail", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_moderation_log")),
    )
    op.create_table(
        "server_texts",
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("lines", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_server_texts")),
    )


def downgrade() -> None:
    op.drop_table("server_texts")
    op.drop_table("moderation_log")
    op.drop_table("sanctions")
    op.drop_table("ignores")
    op.drop_table("messages")
