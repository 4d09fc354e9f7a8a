"""Finished arenas: each arena once, and every player's final standing in it.

Revision ID: 0004_arenas
Revises: 0003_ratings
Create Date: 2026-12-02

docs/arenas.md has the rules. The node pairing an arena writes it at its end, in one transaction
keyed by its code (a second write changes nothing); until then its standings stay in the store.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_arenas"
down_revision = "0003_ratings"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "arenas",
        sa.Column("code", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("preset", sa.Text(), nullable=False),
        sa.Column("deal_grade", sa.Text(), nullable=True),
        sa.Column("created_by", sa.Text(), nullable=False),
        sa.Column("starts_at", sa.BigInteger(), nullable=False),
        sa.Column("ends_at", sa.BigInteger(), nullable=False),
        sa.Column("player_count", sa.Integer(), nullable=False),
        sa.Column("archived_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("code", name="pk_arenas"),
    )
    op.create_index("ix_arenas_ends_at_code", "arenas", ["ends_at", "code"])

    op.create_table(
        "arena_players",
        sa.Column("code", sa.Text(), nullable=False),
        sa.Column("player", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("races", sa.Integer(), nullable=False),
        sa.Column("ends_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["code"], ["arenas.code"], name="fk_arena_players_code_arenas", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("code", "player", name="pk_arena_players"),
    )
    op.create_index("ix_arena_players_player_ends_at_code", "arena_players", ["player", "ends_at", "code"])


def downgrade() -> None:
    op.drop_table("arena_players")
    op.drop_table("arenas")
