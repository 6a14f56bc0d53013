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


def upgrade() -> None:
    """Add rooms.options."""
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("options", sa.JSON(), nullable=True))


def downgrade() -> None:
    """Drop rooms.options."""
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("options")
