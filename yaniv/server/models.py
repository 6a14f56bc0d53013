"""The database tables (SQLAlchemy 2): rooms with their game record, players' tokens, and
the games played in each room (for the history)."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def _now() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    """The declarative base of the server's tables."""


class RoomRow(Base):
    """A room: its code, rules, seats, status and the game record (JSON text) once started."""

    __tablename__ = "rooms"

    code: Mapped[str] = mapped_column(String(6), primary_key=True)
    rules: Mapped[dict[str, object]] = mapped_column(JSON)
    seats: Mapped[list[object]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(10), index=True)
    record: Mapped[str | None] = mapped_column(Text, nullable=True)
    # The room's options beside the rules (migration 0003): {"turn_timer": seconds}.
    options: Mapped[dict[str, object] | None] = mapped_column(JSON, nullable=True)
    # The fencing token of the process that owns the room (migration 0004; None on one
    # process): a write by a process whose lease was taken over is refused, not applied.
    epoch: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    updated: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now, onupdate=_now)


class PlayerRow(Base):
    """A person in a room: the hash of their token, their seat and name."""

    __tablename__ = "players"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    room: Mapped[str] = mapped_column(ForeignKey("rooms.code", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(40))
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    # The hash of the player's long-lived key (the browser's, across games), if one was sent.
    key_hash: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)


class GameRow(Base):
    """A game played in a room (a room holds more than one after a rematch): who sat where,
    the rules, and once it is over its record and a summary of its result."""

    __tablename__ = "games"
    __table_args__ = (UniqueConstraint("room", "number", name="uq_games_room_number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room: Mapped[str] = mapped_column(ForeignKey("rooms.code", ondelete="CASCADE"), index=True)
    number: Mapped[int] = mapped_column(Integer)  # 1, 2, ... within the room
    status: Mapped[str] = mapped_column(String(10))  # "playing" | "over"
    rules: Mapped[dict[str, object]] = mapped_column(JSON)
    seats: Mapped[list[object]] = mapped_column(JSON)  # [{"name", "kind", "level"?}]
    record: Mapped[str | None] = mapped_column(Text, nullable=True)  # once over
    summary: Mapped[dict[str, object] | None] = mapped_column(JSON, nullable=True)  # once over
    started: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    finished: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
