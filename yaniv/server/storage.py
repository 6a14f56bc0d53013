"""Where rooms and players are kept: SQLAlchemy 2 over SQLite or PostgreSQL, with Alembic.

The calls here are synchronous; the server runs them on one worker thread (``Store.run``) so
that the event loop never waits on the disk and writes reach the database in order.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from alembic import command as alembic_command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event, select
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from .models import PlayerRow, RoomRow

T = TypeVar("T")

MIGRATIONS = Path(__file__).parent / "migrations"


def default_database_url() -> str:
    """An SQLite file in the user's data directory."""
    from platformdirs import user_data_dir

    return f"sqlite:///{Path(user_data_dir('yaniv')) / 'yaniv-web.sqlite3'}"


def token_hash(token: str) -> str:
    """The stored form of a token (tokens are long random secrets, so SHA-256 suffices)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def make_engine(url: str) -> Engine:
    """An engine for ``url``; an SQLite file's folder is created, WAL mode is switched on."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        return engine
    return create_engine(url, pool_pre_ping=True)


def migrate(engine: Engine) -> None:
    """Bring the database up to the newest Alembic revision."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option(
        "sqlalchemy.url", engine.url.render_as_string(hide_password=False).replace("%", "%%")
    )
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        alembic_command.upgrade(config, "head")


@dataclass
class StoredRoom:
    """A room as the database holds it."""

    code: str
    rules: dict[str, Any]
    seats: list[Any]
    status: str
    record: str | None
    players: dict[str, int]  # token hash -> seat


class Store:
    """The database behind the server."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = make_engine(url)
        migrate(self.engine)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="yaniv-db")

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` on the database thread and wait for it."""
        return await asyncio.wrap_future(self._worker.submit(fn, *args))

    def close(self) -> None:
        """Finish pending writes and release the database."""
        self._worker.shutdown(wait=True)
        self.engine.dispose()

    # ------------------------------------------------------------- synchronous calls

    def code_taken(self, code: str) -> bool:
        """Whether a room with ``code`` exists."""
        with self._sessions() as session:
            return session.get(RoomRow, code) is not None

    def save_room(
        self, code: str, rules: dict[str, Any], seats: list[Any], status: str, record: str | None
    ) -> None:
        """Insert or update a room."""
        with self._sessions.begin() as session:
            row = session.get(RoomRow, code)
            if row is None:
                session.add(
                    RoomRow(code=code, rules=rules, seats=seats, status=status, record=record)
                )
            else:
                row.rules, row.seats, row.status, row.record = rules, seats, status, record

    def add_player(self, code: str, hashed: str, seat: int, name: str) -> None:
        """Keep a player's token hash, seat and name."""
        with self._sessions.begin() as session:
            session.add(PlayerRow(token_hash=hashed, room=code, seat=seat, name=name))

    def unfinished(self) -> list[StoredRoom]:
        """Every room that is waiting or playing, with its players."""
        with self._sessions() as session:
            rooms = session.scalars(select(RoomRow).where(RoomRow.status != "over")).all()
            out = []
            for row in rooms:
                players = session.scalars(select(PlayerRow).where(PlayerRow.room == row.code))
                out.append(
                    StoredRoom(
                        row.code,
                        dict(row.rules),
                        list(row.seats),
                        row.status,
                        row.record,
                        {p.token_hash: p.seat for p in players},
                    )
                )
            return out

    def session(self) -> Session:
        """A plain session (tests and tools)."""
        return self._sessions()
