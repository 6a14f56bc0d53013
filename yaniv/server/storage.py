"""Where rooms and players are kept: SQLAlchemy 2 over SQLite or PostgreSQL, with Alembic.

The calls here are synchronous; the server runs them on one worker thread (``Store.run``) so
that the event loop never waits on the disk and writes reach the database in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from alembic import command as alembic_command
from alembic.config import Config
from sqlalchemy import (
    Connection,
    Engine,
    Update,
    bindparam,
    create_engine,
    event,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, OperationalError, SQLAlchemyError
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


#: The PostgreSQL advisory lock that migrations take (any constant of this program's own).
MIGRATION_LOCK = 0x59414E4956  # "YANIV"


def migrate(engine: Engine) -> None:
    """Bring the database up to the newest Alembic revision."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option(
        "sqlalchemy.url", engine.url.render_as_string(hide_password=False).replace("%", "%%")
    )
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            # Processes that start at once (yaniv serve --workers, or many machines) would
            # each create the version table and all but one fail: one migrates at a time,
            # the others then find the database at head. Held to the transaction's end.
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
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


def _room_update(fields: tuple[str, ...], fence: bool) -> Update:
    table = RoomRow.__table__
    where = table.c.code == bindparam("b_code")
    if fence:
        where &= table.c.epoch == bindparam("b_epoch")
    return (
        update(table)  # type: ignore[arg-type]
        .where(where)
        .values({f: bindparam(f"b_{f}") for f in fields})
    )


# The writer's statements, built once (building them for every write cost it as much as the
# UPDATE's own parameters), by (the rules and seats unchanged, a fencing token to check).
_PLAY = ("status", "record", "move_ids")
_UPDATES = {
    (same, fence): _room_update(_PLAY if same else ("rules", "seats", *_PLAY), fence)
    for same in (True, False)
    for fence in (True, False)
}
_FENCE = (
    select(RoomRow.code, RoomRow.epoch)
    .where(RoomRow.code.in_(bindparam("codes", expanding=True)))
    .with_for_update()
)


class LostRoom(Exception):
    """A write by a process that no longer owns the room: another took it over (its fencing
    token is newer), so this one must let the room go. Nothing was written."""

    def __init__(self, code: str) -> None:
        super().__init__(f"room {code} is now served by another process")
        self.code = code


Failure = BaseException | None


def _settle_all(settled: list[tuple[asyncio.Future[None], Failure]]) -> None:
    """Wake the waiters of a write: each hears None (written) or its error."""
    for future, error in settled:
        if future.done():
            continue
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
        # PostgreSQL: the database thread holds one connection for its Core statements (the
        # moves' writes, a room's creation; ``transaction``). A check-out from the pool for
        # each pinged the server first: a round trip and a transaction more per write, about
        # a third of the writer's time. SQLite's pool has one connection, which every call
        # checks out, so none is held there.
        self._hold = self.engine.dialect.name != "sqlite"
        self._held: Connection | None = None

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` on the database thread and wait for it."""
        return await asyncio.wrap_future(self._worker.submit(self._call, fn, *args))

    def _call(self, fn: Callable[..., T], *args: Any) -> T:
        try:
            return self._once_more_if_dropped(fn, *args)
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
        # One wake-up of each event loop for all its waiters: a call_soon_threadsafe each
        # wrote to the loop's wake-up socket once per room written.
        by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[None], Failure]]] = {}
        for loop, future, code in waiting:
            mine = LostRoom(code) if error is None and code in lost else error
            by_loop.setdefault(loop, []).append((future, mine))
        for loop, settled in by_loop.items():
            loop.call_soon_threadsafe(_settle_all, settled)

    def close(self) -> None:
        """Finish pending writes and release the database."""
        self._worker.shutdown(wait=True)
        self.release_held()
        self.engine.dispose()

    # ------------------------------------------------------------- synchronous calls

    def save_room(
        self, code: str, rules: dict[str, Any], seats: list[Any], status: str, record: str | None
    ) -> None:
        """Insert or update a room."""
        self.save_rooms([RoomState(code, rules, seats, status, record)])

    @staticmethod
    def _once_more_if_dropped(fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)``, made once more where it found the held connection dropped by the
        server (a restart, a terminated backend), which shows only at its next use. Safe
        where the first commit did land after all: a room's write gives the same values
        under the same fence, and the others find what they would have written."""
        try:
            return fn(*args)
        except DBAPIError as exc:
            if not exc.connection_invalidated:
                raise
        return fn(*args)

    def save_rooms(self, rooms: list[RoomState]) -> set[str]:
        """Insert or update rooms, in one transaction (rooms are written here alone, so what
        was last written of each is known); the codes of those not written because their
        fencing token is no longer the room's."""
        return self._once_more_if_dropped(self._save_rooms, rooms)

    def _save_rooms(self, rooms: list[RoomState]) -> set[str]:
        if not rooms:
            return set()
        if all(r.code in self._stored for r in rooms):
            # A move: the rows exist, so SQLAlchemy Core on a plain connection does it
            # (the ORM session's own bookkeeping was a fifth of the writer's time).
            with self.transaction() as connection:
                lost = self._update(connection, rooms)
        else:
            with self._sessions.begin() as session:
                connection = session.connection()
                new = [r for r in rooms if r.code not in self._stored]
                lost = self._fenced_out(connection, [r for r in new if r.epoch is not None])
                lost |= self._update(connection, [r for r in rooms if r.code in self._stored])
                self._insert(session, [r for r in new if r.code not in lost])
        rooms = [r for r in rooms if r.code not in lost]
        self._written.update((r.code, (r.rules, r.seats)) for r in rooms)
        self._stored.update(r.code for r in rooms)
        return lost

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Connection]:
        """A transaction of Core statements on the database thread: on PostgreSQL on the
        connection it holds (replaced once the server dropped it), elsewhere on one from the
        pool."""
        if not self._hold:
            with self.engine.begin() as connection:
                yield connection
            return
        if self._held is None or self._held.invalidated or self._held.closed:
            self._held = self.engine.connect()
        held = self._held
        try:
            with held.begin():
                yield held
        except DBAPIError as exc:
            if exc.connection_invalidated:
                self.release_held()
            raise

    def release_held(self) -> None:
        """Give the held connection back (database thread, or once it is stopped)."""
        held, self._held = self._held, None
        if held is not None:
            with contextlib.suppress(SQLAlchemyError):
                held.close()

    @staticmethod
    def _fenced_out(connection: Connection, rooms: list[RoomState]) -> set[str]:
        """Of these rooms, those whose stored fencing token is not the writer's (their rows
        are locked until the transaction ends, so no claim slips in between)."""
        if not rooms:
            return set()
        rows = connection.execute(_FENCE, {"codes": [r.code for r in rooms]}).all()
        stored: dict[str, int | None] = dict(rows)
        return {r.code for r in rooms if r.code in stored and stored[r.code] != r.epoch}

    def _update(self, connection: Connection, rooms: list[RoomState]) -> set[str]:
        """Update rows known to exist; the codes of those not written, their fencing token
        being no longer the writer's. A move changes neither the rules nor the seats: those
        are written only when changed.

        The fence is the UPDATE's own condition (epoch = the writer's): a claim that came
        first has changed the epoch, one that comes later waits for this transaction. Only
        when fewer rows were written than asked is it looked up which were refused.
        """
        fenced = [r for r in rooms if r.epoch is not None]
        batches: dict[tuple[bool, bool], list[dict[str, Any]]] = {}
        for r in rooms:
            row: dict[str, Any] = {"b_code": r.code, "b_status": r.status}
            row.update(b_record=r.record, b_move_ids=r.move_ids)
            same = self._written.get(r.code) == (r.rules, r.seats)
            if not same:
                row.update(b_rules=r.rules, b_seats=r.seats)
            if r.epoch is not None:
                row["b_epoch"] = r.epoch
            batches.setdefault((same, r.epoch is not None), []).append(row)
        written, counted = 0, True
        sane = connection.dialect.supports_sane_multi_rowcount  # a sum over many rows
        postgres = connection.dialect.name == "postgresql"
        for (same, fence), rows in batches.items():
            if same and postgres and len(rows) > 1:
                count = self._update_moves(connection, rows, fence)  # one statement's rowcount
            else:
                count = connection.execute(_UPDATES[same, fence], rows).rowcount
                counted = counted and (sane or len(rows) == 1 or not fence)
            if fence:
                written += count
        if counted and written == len(fenced):
            return set()
        return self._fenced_out(connection, fenced)

    @staticmethod
    def _update_moves(connection: Connection, rows: list[dict[str, Any]], fence: bool) -> int:
        """PostgreSQL: the moves of many rooms in one UPDATE ... FROM VALUES; the rows
        written. An executemany of the same cost half as much again in the writer's CPU (the
        statement per room, and its parameters through SQLAlchemy's types)."""
        one = "(%s,%s,%s,%s::json,%s::int)" if fence else "(%s,%s,%s,%s::json)"
        params: list[Any] = []
        for row in rows:
            ids = row["b_move_ids"]
            params += (row["b_code"], row["b_status"], row["b_record"])
            params.append(None if ids is None else json.dumps(ids, ensure_ascii=False))
            if fence:
                params.append(row["b_epoch"])
        names = "code, status, record, move_ids" + (", epoch" if fence else "")
        sql = (
            f"UPDATE {RoomRow.__tablename__} AS r SET status = v.status, record = v.record,"
            " move_ids = v.move_ids, updated = now() "
            f"FROM (VALUES {','.join([one] * len(rows))}) AS v({names}) WHERE r.code = v.code"
            + (" AND r.epoch = v.epoch" if fence else "")
        )
        return int(connection.exec_driver_sql(sql, tuple(params)).rowcount)

    @staticmethod
    def _insert(session: Session, rooms: list[RoomState]) -> None:
        """Write rooms not known to have a row (new, or written before this process)."""
        for r in rooms:
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
        # Core on a plain connection, here and in the other writes of a room's creation: the
        # ORM session's own work was a third of each of these small transactions.
        with self.transaction() as connection:
            connection.execute(
                update(table).where(table.c.code == code).values(options=options)  # type: ignore[arg-type]
            )

    def add_player(self, code: str, hashed: str, seat: int, name: str) -> None:
        """Keep a player's token hash, seat and name."""
        with self.transaction() as connection:
            connection.execute(
                insert(PlayerRow.__table__).values(  # type: ignore[arg-type]
                    token_hash=hashed, room=code, seat=seat, name=name
                )
            )

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
        with self.transaction() as connection:
            found = connection.execute(select(RoomRow.code).where(RoomRow.code == code))
            return found.first() is not None

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
