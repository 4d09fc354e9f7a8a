"""Race analyses, and the queue of races still to analyse.

Revision ID: 0007_race_analyses
Revises: 0006_signed_races
Create Date: 2026-12-07

Each race archived from now on is queued for analysis in its own transaction (where it was won
and lost: seahaven/analysis.py); an analyst stores the analysis and takes the race off the queue in
one transaction, so each race is analysed once. The races already on record are queued here, the
oldest first, so they are analysed too.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_race_analyses"
down_revision = "0006_signed_races"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "analysis_queue",
        sa.Column("race_id", sa.Text(), nullable=False),
        sa.Column("queued_at", sa.BigInteger(), nullable=False),
        sa.Column("taken_until", sa.BigInteger(), nullable=True),
        sa.Column("tries", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["race_id"], ["races.race_id"], name="fk_analysis_queue_race_id_races", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("race_id", name="pk_analysis_queue"),
    )
    op.create_index("ix_analysis_queue_queued_at", "analysis_queue", ["queued_at"])
    op.create_table(
        "race_analyses",
        sa.Column("race_id", sa.Text(), nullable=False),
        sa.Column("analysed_at", sa.BigInteger(), nullable=False),
        sa.Column("document", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["race_id"], ["races.race_id"], name="fk_race_analyses_race_id_races", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("race_id", name="pk_race_analyses"),
    )
    op.execute(
        "INSERT INTO analysis_queue (race_id, queued_at, taken_until, tries) "
        "SELECT race_id, archived_at, NULL, 0 FROM races"
    )


def downgrade() -> None:
    op.drop_table("race_analyses")
    op.drop_index("ix_analysis_queue_queued_at", table_name="analysis_queue")
    op.drop_table("analysis_queue")
