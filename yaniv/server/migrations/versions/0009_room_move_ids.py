"""The move ids a room applied last (rooms.move_ids, JSON): a move sent again after its room
moved to another process is applied once.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


# A plain ALTER TABLE, as in 0003 (a batch would copy the rooms table and, with foreign keys
# on, cascade-delete every room's players and games).


def upgrade() -> None:
    """Add rooms.move_ids."""
    op.add_column("rooms", sa.Column("move_ids", sa.JSON(), nullable=True))


def downgrade() -> None:
    """Drop rooms.move_ids."""
    op.drop_column("rooms", "move_ids")
