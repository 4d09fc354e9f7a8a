"""Players that last: a key per device.

Revision ID: 0002_accounts
Revises: 0001_records
Create Date: 2026-05-21

A registered player's first key stays in ``players.key_hash``; each sign-in on another device
adds one here. Deleting the player deletes them (``ON DELETE CASCADE``; the account's row itself
stays, emptied, as the mark that its races' racer is a deleted player).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_accounts"
down_revision = "0001_records"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "player_keys",
        sa.Column("key_hash", sa.Text(), nullable=False),
        sa.Column("player", sa.Text(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("label", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["player"], ["players.player"], name="fk_player_keys_player_players", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("key_hash", name="pk_player_keys"),
    )
    op.create_index("ix_player_keys_player", "player_keys", ["player"])


def downgrade() -> None:
    op.drop_table("player_keys")
