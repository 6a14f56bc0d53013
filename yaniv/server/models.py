"""The database tables (SQLAlchemy 2): rooms with their game record, players' tokens, and
the games played in each room (for the history)."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    JSON,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    text,
)
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
    # The last move ids the room applied, [seat, round, id] each (migration 0009), stored with
    # the move: one sent again after the room moved to another process is applied once.
    move_ids: Mapped[list[object] | None] = mapped_column(JSON, nullable=True)
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


class RatingRow(Base):
    """A player's rating (OpenSkill Plackett-Luce, yaniv/server/ratings.py) and public name,
    by the hash of their player key (migration 0005)."""

    __tablename__ = "ratings"
    # The leaderboard reads the listed players from this index alone (migration 0008).
    __table_args__ = (
        Index(
            "ix_ratings_listed",
            "ordinal",
            "games",
            "public_id",
            sqlite_where=text("name_fold IS NOT NULL"),
            postgresql_where=text("name_fold IS NOT NULL"),
        ),
    )

    key_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    # The profile's address (#/player/ID): random, so that no key or hash is ever shown.
    public_id: Mapped[str] = mapped_column(String(16), unique=True)
    # The public name (opt-in) as written, and its folded form, unique without regard to case.
    name: Mapped[str | None] = mapped_column(String(24), nullable=True)
    name_fold: Mapped[str | None] = mapped_column(String(96), nullable=True, unique=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float, index=True)  # mu - 3 sigma: the leaderboard's
    games: Mapped[int] = mapped_column(Integer, default=0)  # rated games
    wins: Mapped[int] = mapped_column(Integer, default=0)  # rated games won
    updated: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now, onupdate=_now)


class RatingHistoryRow(Base):
    """A player's rating after one rated game (the profile's plot)."""

    __tablename__ = "rating_history"
    __table_args__ = (UniqueConstraint("game", "key_hash", name="uq_rating_history_game_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    key_hash: Mapped[str] = mapped_column(String(64), index=True)
    game: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float)
    place: Mapped[int] = mapped_column(Integer)  # among the game's rated people, ties shared
    people: Mapped[int] = mapped_column(Integer)  # the rated people in the game
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class BotRecordRow(Base):
    """A player's games against the computer (not rated): won and lost, per bot level."""

    __tablename__ = "bot_records"

    key_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    level: Mapped[str] = mapped_column(String(20), primary_key=True)
    won: Mapped[int] = mapped_column(Integer, default=0)
    lost: Mapped[int] = mapped_column(Integer, default=0)


class QuickTicketRow(Base):
    """A person's place in a quick-match queue (yaniv/server/quickmatch.py, migration 0006).

    The queue is these rows, so that every server process sees it and any may seat the
    people waiting: a ticket moves from ``waiting`` to ``seating`` by an atomic claim (one
    conditional UPDATE), then to ``seated`` with its room and seat, or to ``left``.
    """

    __tablename__ = "quick_tickets"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)  # the ticket: a secret
    key_hash: Mapped[str] = mapped_column(String(64), index=True)
    # The key's hash while the ticket waits or is being seated, else None: unique, so that
    # a person is in one queue at a time, whichever process they ask.
    active: Mapped[str | None] = mapped_column(String(64), nullable=True, unique=True)
    queue: Mapped[str] = mapped_column(String(80), index=True)  # a preset, or "rules:<hash>"
    rules: Mapped[dict[str, object]] = mapped_column(JSON)
    name: Mapped[str] = mapped_column(String(40))
    status: Mapped[str] = mapped_column(String(10), index=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    seen: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    claimed: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    room: Mapped[str | None] = mapped_column(String(6), nullable=True)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    token: Mapped[str | None] = mapped_column(String(100), nullable=True)  # the seat's token
    bots: Mapped[int] = mapped_column(Integer, default=0)  # computer seats at the table


class ScoreSheetRow(Base):
    """A score keeper's sheet for a game played with real cards (yaniv/server/scorekeeper.py,
    migration 0007): the players, the rules and each round as entered (the caller and each
    hand, a value or the cards); the scores are the engine's, made again at every read."""

    __tablename__ = "score_sheets"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    code: Mapped[str] = mapped_column(String(16), unique=True)  # the read-only link's: random
    key_hash: Mapped[str] = mapped_column(String(64), index=True)  # the keeper's player key
    names: Mapped[list[object]] = mapped_column(JSON)
    rules: Mapped[dict[str, object]] = mapped_column(JSON)
    rounds: Mapped[list[object]] = mapped_column(JSON)  # [{"caller", "hands": [...]}]
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
    updated: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now, onupdate=_now)
