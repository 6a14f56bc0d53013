"""Room options: the turn timer the host chose (rooms.options, JSON).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


# Plain ALTER TABLE on both backends (SQLite has DROP COLUMN since 3.35), not a batch: a
# batch copies the rooms table and drops the old one, and with foreign keys on, that deletes
# every room's players and games (ON DELETE CASCADE).


def upgrade() -> None:
    """Add rooms.options."""
    op.add_column("rooms", sa.Column("options", sa.JSON(), nullable=True))


def downgrade() -> None:
    """Drop rooms.options."""
    op.drop_column("rooms", "options")
