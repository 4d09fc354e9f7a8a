"""Signed race records and the keys that signed them.

Revision ID: 0006_signed_races
Revises: 0005_guest_claims
Create Date: 2026-12-06

Each race archived from now on is also kept as a signed document (Ed25519 over its canonical
JSON, seahaven/verify.py), written in the race's own transaction, so a race is signed exactly once;
the keys that signed are kept with their validity for /api/v1/keys. Races archived before this
revision have no signed record (the API says so with 404).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_signed_races"
down_revision = "0005_guest_claims"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "signing_keys",
        sa.Column("key_id", sa.Text(), nullable=False),
        sa.Column("public_key", sa.Text(), nullable=False),
        sa.Column("since", sa.BigInteger(), nullable=False),
        sa.Column("until", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("key_id", name="pk_signing_keys"),
    )
    op.create_table(
        "race_signatures",
        sa.Column("race_id", sa.Text(), nullable=False),
        sa.Column("key_id", sa.Text(), nullable=False),
        sa.Column("document", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["race_id"], ["races.race_id"], name="fk_race_signatures_race_id_races", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(["key_id"], ["signing_keys.key_id"], name="fk_race_signatures_key_id_signing_keys"),
        sa.PrimaryKeyConstraint("race_id", name="pk_race_signatures"),
    )


def downgrade() -> None:
    op.drop_table("race_signatures")
    op.drop_table("signing_keys")
