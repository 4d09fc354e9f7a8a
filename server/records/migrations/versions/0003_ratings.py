"""Ratings: each registered player's rating per preset, and what each rated race did to it.

Revision ID: 0003_ratings
Revises: 0002_accounts
Create Date: 2026-05-22

docs/ratings.md has the model. ``ratings`` holds a player's current belief (mu, sigma) per preset;
``rating_history`` one row per rated racer of each rated race, written in the race's own
transaction (so a race written twice rates once). A history row names its racer's row, as a
challenge does: a rating change is always of a race on record.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_ratings"
down_revision = "0002_accounts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ratings",
        sa.Column("player", sa.Text(), nullable=False),
        sa.Column("preset", sa.Text(), nullable=False),
        sa.Column("mu", sa.Double(), nullable=False),
        sa.Column("sigma", sa.Double(), nullable=False),
        sa.Column("races", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["player"], ["players.player"], name="fk_ratings_player_players", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("player", "preset", name="pk_ratings"),
    )
    op.create_index("ix_ratings_preset_mu", "ratings", ["preset", "mu"])

    op.create_table(
        "rating_history",
        sa.Column("race_id", sa.Text(), nullable=False),
        sa.Column("player", sa.Text(), nullable=False),
        sa.Column("preset", sa.Text(), nullable=False),
        sa.Column("mu_before", sa.Double(), nullable=False),
        sa.Column("sigma_before", sa.Double(), nullable=False),
        sa.Column("mu_after", sa.Double(), nullable=False),
        sa.Column("sigma_after", sa.Double(), nullable=False),
        sa.Column("rating_before", sa.Integer(), nullable=False),
        sa.Column("rating_after", sa.Integer(), nullable=False),
        sa.Column("races", sa.Integer(), nullable=False),
        sa.Column("ended_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["race_id", "player"],
            ["race_racers.race_id", "race_racers.player"],
            name="fk_rating_history_race_id_race_racers",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("race_id", "player", name="pk_rating_history"),
    )
    op.create_index(
        "ix_rating_history_player_preset_ended_at_race_id",
        "rating_history",
        ["player", "preset", "ended_at", "race_id"],
    )


def downgrade() -> None:
    op.drop_table("rating_history")
    op.drop_table("ratings")
