"""Quick match: the queue's tickets (quick_tickets), shared by every server process.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the quick_tickets table."""
    op.create_table(
        "quick_tickets",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("active", sa.String(64), nullable=True),
        sa.Column("queue", sa.String(80), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed", sa.DateTime(timezone=True), nullable=True),
        sa.Column("room", sa.String(6), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("token", sa.String(100), nullable=True),
        sa.Column("bots", sa.Integer(), nullable=False),
        sa.UniqueConstraint("active", name="uq_quick_tickets_active"),
    )
    op.create_index("ix_quick_tickets_key_hash", "quick_tickets", ["key_hash"])
    op.create_index("ix_quick_tickets_queue", "quick_tickets", ["queue"])
    op.create_index("ix_quick_tickets_status", "quick_tickets", ["status"])


def downgrade() -> None:
    """Drop the quick_tickets table."""
    op.drop_index("ix_quick_tickets_status", table_name="quick_tickets")
    op.drop_index("ix_quick_tickets_queue", table_name="quick_tickets")
    op.drop_index("ix_quick_tickets_key_hash", table_name="quick_tickets")
    op.drop_table("quick_tickets")
