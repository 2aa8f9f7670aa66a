"""Finished games of a match in rows of their own

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0003"
down_revision: Union[str, Sequence[str], None] = "0002"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

# Only the columns the downgrade moves data through.
matches = sa.table("matches", sa.column("id", sa.Integer()), sa.column("state", sa.JSON()),
                   sa.column("moved_games", sa.Integer()))
match_games = sa.table("match_games", sa.column("match_id", sa.Integer()),
                       sa.column("game_index", sa.Integer()), sa.column("events", sa.JSON()))


def upgrade() -> None:
    # Existing rows keep their whole history in `state` (moved_games 0); the store moves a
    # running match's finished games out at its next save.
    op.add_column("matches", sa.Column("moved_games", sa.Integer(), server_default="0",
                                       nullable=False))
    op.create_table(
        "match_games",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("game_index", sa.Integer(), nullable=False),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("match_id", "game_index", name=op.f("pk_match_games")),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"], ondelete="CASCADE",
                                name=op.f("fk_match_games_match_id_matches")),
    )


def downgrade() -> None:
    # Put the moved games back in front of each state's history, as 0002's code stored it.
    connection = op.get_bind()
    moved = connection.execute(
        sa.select(matches.c.id, matches.c.state, matches.c.moved_games)
        .where(matches.c.moved_games > 0)).all()
    for match_id, state, moved_games in moved:
        games = connection.scalars(
            sa.select(match_games.c.events)
            .where(match_games.c.match_id == match_id,
                   match_games.c.game_index < moved_games)
            .order_by(match_games.c.game_index)).all()
        connection.execute(sa.update(matches).where(matches.c.id == match_id).values(
            state={**state, "history": [*games, *state["history"]]}))
    op.drop_table("match_games")
    with op.batch_alter_table("matches") as batch_op:
        batch_op.drop_column("moved_games")
