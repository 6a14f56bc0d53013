"""Ratings and profiles: players' ratings and public names, their history, records per bot level.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


# New tables only (plain CREATE TABLE on both backends; no batch: see 0003).


def upgrade() -> None:
    """Add the ratings, rating_history and bot_records tables."""
    op.create_table(
        "ratings",
        sa.Column("key_hash", sa.String(64), primary_key=True),
        sa.Column("public_id", sa.String(16), nullable=False),
        sa.Column("name", sa.String(24), nullable=True),
        sa.Column("name_fold", sa.String(96), nullable=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("public_id", name="uq_ratings_public_id"),
        sa.UniqueConstraint("name_fold", name="uq_ratings_name_fold"),
    )
    op.create_index("ix_ratings_ordinal", "ratings", ["ordinal"])
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column(
            "game", sa.Integer(), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.Column("people", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("game", "key_hash", name="uq_rating_history_game_key"),
    )
    op.create_index("ix_rating_history_key_hash", "rating_history", ["key_hash"])
    op.create_index("ix_rating_history_game", "rating_history", ["game"])
    op.create_table(
        "bot_records",
        sa.Column("key_hash", sa.String(64), primary_key=True),
        sa.Column("level", sa.String(20), primary_key=True),
        sa.Column("won", sa.Integer(), nullable=False),
        sa.Column("lost", sa.Integer(), nullable=False),
    )


def downgrade() -> None:
    """Drop the three tables."""
    op.drop_table("bot_records")
    op.drop_index("ix_rating_history_game", table_name="rating_history")
    op.drop_index("ix_rating_history_key_hash", table_name="rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_ratings_ordinal", table_name="ratings")
    op.drop_table("ratings")
