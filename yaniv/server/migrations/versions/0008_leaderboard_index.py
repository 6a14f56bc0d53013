"""The leaderboard's index: the listed players (those with a public name) by ordinal, games and
public id, so that the top and a player's place are read from the index alone.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

LISTED = sa.text("name_fold IS NOT NULL")


def upgrade() -> None:
    """Add the partial index ix_ratings_listed."""
    op.create_index(
        "ix_ratings_listed",
        "ratings",
        ["ordinal", "games", "public_id"],
        sqlite_where=LISTED,
        postgresql_where=LISTED,
    )


def downgrade() -> None:
    """Drop ix_ratings_listed."""
    op.drop_index("ix_ratings_listed", table_name="ratings")
