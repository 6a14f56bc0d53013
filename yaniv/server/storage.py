"""Where rooms and players are kept: SQLAlchemy 2 over SQLite or PostgreSQL, with Alembic.

The calls here are synchronous; the server runs them on one worker thread (``Store.run``) so
that the event loop never waits on the disk and writes reach the database in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from alembic import command as alembic_command
from alembic.config import Config
from sqlalchemy import Engine, bindparam, create_engine, event, select, text, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, OperationalError, SQLAlchemyError
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


#: The databases the server runs on, as a URL names them.
BACKENDS = "sqlite:///FILE or postgresql://USER:PASSWORD@HOST[:PORT]/DATABASE"


def database_url(url: str) -> str:
    """``url`` checked, with a plain ``postgresql://`` mapped to the psycopg 3 driver.

    SQLAlchemy's default PostgreSQL driver is psycopg2, which the server does not install;
    this is the one place a URL is mapped, so every engine (and Alembic) gets the same one.
    Raises ValueError in words for a URL that is not one of ``BACKENDS``.
    """
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise ValueError(f"not a database URL: {url[:60]!r}; expected {BACKENDS}") from None
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return url
    if backend in ("postgresql", "postgres"):
        if parsed.drivername in ("postgresql", "postgres"):
            parsed = parsed.set(drivername="postgresql+psycopg")
        return parsed.render_as_string(hide_password=False)
    raise ValueError(f"unsupported database {backend!r}: expected {BACKENDS}")


def sqlite_file(url: str) -> Path | None:
    """The file of an SQLite URL (None for another backend, memory or a ``file:`` URI)."""
    parsed = make_url(url)
    name = parsed.database
    if parsed.get_backend_name() != "sqlite" or not name or name == ":memory:":
        return None
    if name.startswith("file:"):
        return None
    return Path(name).expanduser()


def create_private(path: Path) -> None:
    """Create an SQLite file readable by its owner alone (0600), in a folder of the owner's
    alone (0700) when the folder is new: the file holds the seeds, hands and stocks of the
    games in play. An existing file or folder keeps its mode."""
    if not path.parent.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not path.exists():
        with contextlib.suppress(FileExistsError):
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))


def unwritable(path: Path, folder: bool = True) -> str | None:
    """Why the SQLite database ``path`` cannot be written, in words, or None.

    The file and its ``-wal`` and ``-shm`` companions must be writable, and (with
    ``folder``) the folder too, where SQLite makes the companions. ``os.access`` says no to
    a read-only mode (for a user other than root), an immutable file (chattr +i, even for
    root) and a file system mounted read-only.
    """
    for part in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        if part.exists() and not os.access(part, os.W_OK):
            return f"the database file {part} is read-only"
    if folder and not os.access(path.parent, os.W_OK | os.X_OK):
        return (
            f"the database's folder {path.parent} is read-only (SQLite writes its -wal "
            "and -shm files beside the database)"
        )
    return None


class ReadOnlyDatabase(OperationalError):
    """The SQLite file (or its folder) went read-only: nothing can be stored."""

    def __init__(self, words: str) -> None:
        super().__init__(None, None, sqlite3.OperationalError(words))
        self.words = words


def make_engine(url: str) -> Engine:
    """An engine for ``url``; an SQLite file is created private (``create_private``), WAL
    mode is switched on in exclusive locking mode.

    Exclusive locking keeps SQLite's wal-index in the process's memory rather than in a
    shared ``-shm`` file mapped into memory: a write to that mapping after the file went
    read-only (chattr +i, a file system remounted read-only) killed the process with
    SIGBUS, where a plain write gets an error that can be told. It also keeps a second
    server off the same file (one process owns every room of an SQLite store); the engine
    holds one connection, which the store's one thread uses.
    """
    url = database_url(url)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        path = sqlite_file(url)
        if path is not None:
            create_private(path)
        engine = create_engine(
            url, connect_args={"check_same_thread": False}, pool_size=1, max_overflow=0
        )

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA locking_mode=EXCLUSIVE")
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        return engine
    return create_engine(url, pool_pre_ping=True)


def check_database(url: str) -> None:
    """Open the database at ``url``, migrate it and try a write; ValueError in words if
    that fails (a read-only file or folder, a read-only user or server)."""
    path = sqlite_file(database_url(url))
    if path is not None and path.exists():
        reason = unwritable(path)
        if reason is not None:
            raise ValueError(f"cannot write the database: {reason}")
    try:
        engine = make_engine(url)
    except ArgumentError as exc:
        raise ValueError(f"bad database URL: {exc}") from None
    except OSError as exc:  # the SQLite file's folder or file could not be made
        raise ValueError(f"cannot create the database {path}: {exc.strerror or exc}") from None
    try:
        migrate(engine)
        with engine.connect() as connection:  # a write, rolled back
            connection.execute(text("UPDATE alembic_version SET version_num = version_num"))
            connection.rollback()
    except SQLAlchemyError as exc:
        shown = engine.url.render_as_string(hide_password=True)
        lines = str(getattr(exc, "orig", None) or exc).strip().splitlines()
        raise ValueError(
            f"cannot open the database {shown}: {lines[0] if lines else type(exc).__name__}"
        ) from None
    finally:
        engine.dispose()


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
    options: dict[str, Any] | None = None  # the room's options: {"turn_timer": seconds}
    move_ids: list[Any] | None = None  # the last move ids applied: [seat, round, id] each


@dataclass
class RoomState:
    """What ``Store.save`` writes of a room."""

    code: str
    rules: dict[str, Any]
    seats: list[Any]
    status: str
    record: str | None
    epoch: int | None = None  # the writer's fencing token (None: one process, no fence)
    move_ids: list[Any] | None = None  # the last move ids applied, with the move


class LostRoom(Exception):
    """A write by a process that no longer owns the room: another took it over (its fencing
    token is newer), so this one must let the room go. Nothing was written."""

    def __init__(self, code: str) -> None:
        super().__init__(f"room {code} is now served by another process")
        self.code = code


def _settle(future: asyncio.Future[None], error: BaseException | None) -> None:
    if future.done():
        return
    if error is None:
        future.set_result(None)
    else:
        future.set_exception(error)


class Store:
    """The database behind the server."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._file = sqlite_file(database_url(url))
        self.engine = make_engine(url)
        migrate(self.engine)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="yaniv-db")
        # Rooms waiting to be written, the latest state of each, and who waits for them: the
        # database thread writes all that is waiting in one transaction (a group commit).
        self._pending: dict[str, RoomState] = {}
        self._waiting: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None], str]] = []
        self._guard = threading.Lock()
        self._stored: set[str] = set()  # codes known to have a row (database thread only)
        # The rules and seats last written of each room (database thread only): a move
        # changes neither, so it writes only the status and the record.
        self._written: dict[str, tuple[dict[str, Any], list[Any]]] = {}

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` on the database thread and wait for it."""
        return await asyncio.wrap_future(self._worker.submit(self._call, fn, *args))

    def _call(self, fn: Callable[..., T], *args: Any) -> T:
        try:
            return fn(*args)
        except SQLAlchemyError as exc:
            raise self._explained(exc) from exc

    def _explained(self, exc: BaseException) -> BaseException:
        """``exc``, or a ReadOnlyDatabase that says which file went read-only (SQLite says
        "disk I/O error")."""
        if self._file is not None and not isinstance(exc, ReadOnlyDatabase):
            reason = unwritable(self._file, folder=False)
            if reason is not None:
                return ReadOnlyDatabase(reason)
        return exc

    async def save(
        self,
        code: str,
        rules: dict[str, Any],
        seats: list[Any],
        status: str,
        record: str | None,
        epoch: int | None = None,
        move_ids: list[Any] | None = None,
    ) -> None:
        """Store a room (``save_room``) and wait until it is committed; LostRoom where
        ``epoch`` is no longer the room's (another process owns it now).

        Rooms saved while the database thread is busy are written together in the next
        transaction, in the order of the writes queued before them on that thread.
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._guard:
            self._pending[code] = RoomState(code, rules, seats, status, record, epoch, move_ids)
            self._waiting.append((loop, future, code))
            first = len(self._waiting) == 1
        if first:
            self._worker.submit(self._write_pending)
        await future

    def _write_pending(self) -> None:
        with self._guard:
            pending, self._pending = self._pending, {}
            waiting, self._waiting = self._waiting, []
        error: BaseException | None = None
        lost: set[str] = set()
        try:
            lost = self.save_rooms(list(pending.values()))
        except BaseException as exc:  # every waiter hears of it
            error = self._explained(exc) if isinstance(exc, SQLAlchemyError) else exc
        for loop, future, code in waiting:
            mine = LostRoom(code) if error is None and code in lost else error
            loop.call_soon_threadsafe(_settle, future, mine)

    def close(self) -> None:
        """Finish pending writes and release the database."""
        self._worker.shutdown(wait=True)
        self.engine.dispose()

    # ------------------------------------------------------------- synchronous calls

    def save_room(
        self, code: str, rules: dict[str, Any], seats: list[Any], status: str, record: str | None
    ) -> None:
        """Insert or update a room."""
        self.save_rooms([RoomState(code, rules, seats, status, record)])

    def save_rooms(self, rooms: list[RoomState]) -> set[str]:
        """Insert or update rooms, in one transaction (rooms are written here alone, so what
        was last written of each is known); the codes of those not written because their
        fencing token is no longer the room's."""
        if not rooms:
            return set()
        with self._sessions.begin() as session:
            lost = self._fenced_out(session, [r for r in rooms if r.epoch is not None])
            rooms = [r for r in rooms if r.code not in lost]
            self._write(session, rooms)
        self._written.update((r.code, (r.rules, r.seats)) for r in rooms)
        self._stored.update(r.code for r in rooms)
        return lost

    @staticmethod
    def _fenced_out(session: Session, rooms: list[RoomState]) -> set[str]:
        """Of these rooms, those whose stored fencing token is not the writer's (their rows
        are locked until the transaction ends, so no claim slips in between)."""
        if not rooms:
            return set()
        rows = session.execute(
            select(RoomRow.code, RoomRow.epoch)
            .where(RoomRow.code.in_([r.code for r in rooms]))
            .with_for_update()
        ).all()
        stored: dict[str, int | None] = dict(rows)
        return {r.code for r in rooms if r.code in stored and stored[r.code] != r.epoch}

    def _write(self, session: Session, rooms: list[RoomState]) -> None:
        known = [r for r in rooms if r.code in self._stored]
        same = [r for r in known if self._written.get(r.code) == (r.rules, r.seats)]
        changed = [r for r in known if self._written.get(r.code) != (r.rules, r.seats)]
        table = RoomRow.__table__
        # A move changes neither the rules nor the seats: those are written only when changed.
        for rows, fields in (
            (same, ("status", "record", "move_ids")),
            (changed, ("rules", "seats", "status", "record", "move_ids")),
        ):
            if rows:
                session.connection().execute(
                    update(table)  # type: ignore[arg-type]
                    .where(table.c.code == bindparam("b_code"))
                    .values({f: bindparam(f"b_{f}") for f in fields}),
                    [{"b_code": r.code, **{f"b_{f}": getattr(r, f) for f in fields}} for r in rows],
                )
        for r in rooms:
            if r.code not in self._stored:
                row = session.get(RoomRow, r.code)
                if row is None:
                    session.add(
                        RoomRow(
                            code=r.code,
                            rules=r.rules,
                            seats=r.seats,
                            status=r.status,
                            record=r.record,
                            epoch=r.epoch,
                            move_ids=r.move_ids,
                        )
                    )
                else:
                    row.rules, row.seats, row.status = r.rules, r.seats, r.status
                    row.record, row.move_ids = r.record, r.move_ids

    def forget(self, code: str) -> None:
        """Drop what this process keeps of a room that left its memory (database thread):
        over any number of games, these caches stay the size of the rooms in play."""
        self._stored.discard(code)
        self._written.pop(code, None)

    def claim(self, code: str) -> int:
        """Take room ``code`` over for this process: its fencing token, one more than the
        last owner's (from then on that owner's writes are refused). The row must exist."""
        with self._sessions.begin() as session:
            row = session.get(RoomRow, code, with_for_update=True)
            if row is None:
                raise KeyError(code)
            row.epoch = (row.epoch or 0) + 1
            epoch = row.epoch
        self._written.pop(code, None)  # the last owner may have changed its rules and seats
        return epoch

    def set_options(self, code: str, options: dict[str, Any]) -> None:
        """Keep a stored room's options (the turn timer)."""
        table = RoomRow.__table__
        with self._sessions.begin() as session:
            session.connection().execute(
                update(table).where(table.c.code == code).values(options=options)  # type: ignore[arg-type]
            )

    def add_player(self, code: str, hashed: str, seat: int, name: str) -> None:
        """Keep a player's token hash, seat and name."""
        with self._sessions.begin() as session:
            session.add(PlayerRow(token_hash=hashed, room=code, seat=seat, name=name))

    def unfinished(self) -> list[StoredRoom]:
        """Every room that is waiting or playing, with its players."""
        with self._sessions() as session:
            rooms = session.scalars(select(RoomRow).where(RoomRow.status != "over")).all()
            return [self._stored_room(session, row) for row in rooms]

    def unfinished_codes(self) -> list[str]:
        """The codes of the rooms waiting or playing."""
        with self._sessions() as session:
            return list(session.scalars(select(RoomRow.code).where(RoomRow.status != "over")))

    def room(self, code: str) -> StoredRoom | None:
        """The room ``code`` in whatever state it is (a finished one is brought back when it
        is asked for, not at the start), or None."""
        with self._sessions() as session:
            row = session.get(RoomRow, code)
            return None if row is None else self._stored_room(session, row)

    def code_taken(self, code: str) -> bool:
        """Whether a room was ever stored with ``code`` (a new room must not reuse it: the
        old room's players' tokens would open it)."""
        if code in self._stored:
            return True
        with self._sessions() as session:
            return session.get(RoomRow, code) is not None

    def _stored_room(self, session: Session, row: RoomRow) -> StoredRoom:
        self._stored.add(row.code)
        players = session.scalars(select(PlayerRow).where(PlayerRow.room == row.code))
        return StoredRoom(
            row.code,
            dict(row.rules),
            list(row.seats),
            row.status,
            row.record,
            {p.token_hash: p.seat for p in players},
            None if row.options is None else dict(row.options),
            None if row.move_ids is None else list(row.move_ids),
        )

    def session(self) -> Session:
        """A plain session (tests and tools)."""
        return self._sessions()
