"""The records: races, their racers, players and challenges.

Revision ID: 0001_records
Revises:
Create Date: 2026-05-20

Written out column by column (never ``metadata.create_all``): a migration is what the schema was
at its revision, whatever ``schema.py`` says later.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_records"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "races",
        sa.Column("race_id", sa.Text(), nullable=False),
        sa.Column("room", sa.Text(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("preset", sa.Text(), nullable=False),
        sa.Column("deal", sa.BigInteger(), nullable=False),
        sa.Column("deal_code", sa.Text(), nullable=False),
        sa.Column("deal_grade", sa.Text(), nullable=True),
        sa.Column("chosen", sa.Boolean(), nullable=False),
        sa.Column("daily", sa.Text(), nullable=True),
        sa.Column("hints_allowed", sa.Boolean(), nullable=False),
        sa.Column("undo_allowed", sa.Boolean(), nullable=False),
        sa.Column("time_limit_ms", sa.BigInteger(), nullable=True),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("started_at", sa.BigInteger(), nullable=False),
        sa.Column("ended_at", sa.BigInteger(), nullable=False),
        sa.Column("end_reason", sa.Text(), nullable=False),
        sa.Column("racer_count", sa.Integer(), nullable=False),
        sa.Column("archived_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("race_id", name="pk_races"),
    )
    op.create_index("ix_races_preset_ended_at", "races", ["preset", "ended_at"])
    op.create_index("ix_races_daily_preset", "races", ["daily", "preset"])

    op.create_table(
        "race_racers",
        sa.Column("race_id", sa.Text(), nullable=False),
        sa.Column("player", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("progress", sa.Integer(), nullable=False),
        sa.Column("time_ms", sa.BigInteger(), nullable=True),
        sa.Column("hints", sa.Integer(), nullable=False),
        sa.Column("undos", sa.Integer(), nullable=False),
        sa.Column("bot", sa.Boolean(), nullable=False),
        sa.Column("ghost", sa.Boolean(), nullable=False),
        sa.Column("proven", sa.Boolean(), nullable=False),
        sa.Column("moves", sa.JSON(), nullable=False),
        sa.Column("ended_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["race_id"], ["races.race_id"], name="fk_race_racers_race_id_races", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("race_id", "player", name="pk_race_racers"),
    )
    op.create_index("ix_race_racers_player_ended_at_race_id", "race_racers", ["player", "ended_at", "race_id"])
    op.create_index("ix_race_racers_status_proven", "race_racers", ["status", "proven"])

    op.create_table(
        "players",
        sa.Column("player", sa.Text(), nullable=False),
        sa.Column("handle", sa.Text(), nullable=True),
        sa.Column("handle_key", sa.Text(), nullable=True),
        sa.Column("display_name", sa.Text(), nullable=False),
        sa.Column("key_hash", sa.Text(), nullable=False),
        sa.Column("password_hash", sa.Text(), nullable=True),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("deleted_at", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("player", name="pk_players"),
        sa.UniqueConstraint("handle", name="uq_players_handle"),
        sa.UniqueConstraint("handle_key", name="uq_players_handle_key"),
    )

    op.create_table(
        "challenges",
        sa.Column("challenge", sa.Text(), nullable=False),
        sa.Column("race_id", sa.Text(), nullable=False),
        sa.Column("player", sa.Text(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("created_by", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["race_id", "player"],
            ["race_racers.race_id", "race_racers.player"],
            name="fk_challenges_race_id_race_racers",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("challenge", name="pk_challenges"),
    )
    op.create_index("ix_challenges_created_by", "challenges", ["created_by"])


def downgrade() -> None:
    op.drop_table("challenges")
    op.drop_table("players")
    op.drop_table("race_racers")
    op.drop_table("races")
