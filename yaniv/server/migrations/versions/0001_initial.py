"""The initial tables: rooms and players.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the rooms and players tables."""
    op.create_table(
        "rooms",
        sa.Column("code", sa.String(6), primary_key=True),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("record", sa.Text(), nullable=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_rooms_status", "rooms", ["status"])
    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column(
            "room", sa.String(6), sa.ForeignKey("rooms.code", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_players_token_hash", "players", ["token_hash"], unique=True)
    op.create_index("ix_players_room", "players", ["room"])


def downgrade() -> None:
    """Drop both tables."""
    op.drop_table("players")
    op.drop_table("rooms")
