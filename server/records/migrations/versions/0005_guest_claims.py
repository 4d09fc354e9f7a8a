"""A guest's races kept by the player they became.

Revision ID: 0005_guest_claims
Revises: 0004_arenas
Create Date: 2026-12-06

A guest (an anonymous session, player id ``p...``) who registers hands its races to the new
player in the registration's transaction; this table remembers which guest became whom, once
(the guest id is the key): a second registration from the same session claims nothing, and a race
of the guest archived later (it ended just before, or waited out a database outage) is filed under
the player.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_guest_claims"
down_revision = "0004_arenas"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "guest_claims",
        sa.Column("guest", sa.Text(), nullable=False),
        sa.Column("player", sa.Text(), nullable=False),
        sa.Column("claimed_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player"], ["players.player"], name="fk_guest_claims_player_players", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("guest", name="pk_guest_claims"),
    )
    op.create_index("ix_guest_claims_player", "guest_claims", ["player"])


def downgrade() -> None:
    op.drop_table("guest_claims")
