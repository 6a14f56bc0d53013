"""Room ownership across processes: the owner's fencing token (rooms.epoch).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


# A plain ALTER TABLE, as in 0003 (a batch would copy the rooms table and, with foreign keys
# on, cascade-delete every room's players and games).


def upgrade() -> None:
    """Add rooms.epoch."""
    op.add_column("rooms", sa.Column("epoch", sa.Integer(), nullable=True))


def downgrade() -> None:
    """Drop rooms.epoch."""
    op.drop_column("rooms", "epoch")
