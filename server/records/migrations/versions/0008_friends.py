"""Friends: requests, friendships and blocks, and who sees a player's presence.

Revision ID: 0008_friends
Revises: 0007_race_analyses
Create Date: 2026-12-07

One row per direction (server/records/friends.py): a friendship is two ``friends`` rows, a request
the asker's ``requested`` row, a block the blocker's ``blocked`` row. Nothing to backfill.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_friends"
down_revision = "0007_race_analyses"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "friendships",
        sa.Column("player", sa.Text(), nullable=False),
        sa.Column("other", sa.Text(), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("since", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player"], ["players.player"], name="fk_friendships_player_players", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(["other"], ["players.player"], name="fk_friendships_other_players", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("player", "other", name="pk_friendships"),
    )
    op.create_index("ix_friendships_other", "friendships", ["other"])
    op.create_table(
        "presence_settings",
        sa.Column("player", sa.Text(), nullable=False),
        sa.Column("shown_to", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player"], ["players.player"], name="fk_presence_settings_player_players", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("player", name="pk_presence_settings"),
    )


def downgrade() -> None:
    op.drop_table("presence_settings")
    op.drop_index("ix_friendships_other", table_name="friendships")
    op.drop_table("friendships")
