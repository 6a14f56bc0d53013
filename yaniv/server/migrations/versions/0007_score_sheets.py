"""The score keeper for real cards: its sheets (score_sheets).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the score_sheets table."""
    op.create_table(
        "score_sheets",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("code", sa.String(16), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("names", sa.JSON(), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("rounds", sa.JSON(), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("code", name="uq_score_sheets_code"),
    )
    op.create_index("ix_score_sheets_key_hash", "score_sheets", ["key_hash"])


def downgrade() -> None:
    """Drop the score_sheets table."""
    op.drop_index("ix_score_sheets_key_hash", table_name="score_sheets")
    op.drop_table("score_sheets")
