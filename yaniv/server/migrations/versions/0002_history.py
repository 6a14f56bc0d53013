"""History: the games of each room, and the players' long-lived keys.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add players.key_hash and the games table."""
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("key_hash", sa.String(64), nullable=True))
    op.create_index("ix_players_key_hash", "players", ["key_hash"])
    op.create_table(
        "games",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "room", sa.String(6), sa.ForeignKey("rooms.code", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("record", sa.Text(), nullable=True),
        sa.Column("summary", sa.JSON(), nullable=True),
        sa.Column("started", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("room", "number", name="uq_games_room_number"),
    )
    op.create_index("ix_games_room", "games", ["room"])


def downgrade() -> None:
    """Drop the games table and players.key_hash."""
    op.drop_index("ix_games_room", table_name="games")
    op.drop_table("games")
    op.drop_index("ix_players_key_hash", table_name="players")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("key_hash")
