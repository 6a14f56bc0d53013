"""Rooms: who sits where, the table of a started game, the websocket connections, the bots.

One ``Hub`` holds every room in memory and the store behind them. Everything that changes a
room happens under the room's lock, is stored before it is broadcast, and each connection
gets only its own seat's view (spectators the spectator's).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import json
import logging
import math
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from fastapi import WebSocket
from pydantic import ValidationError
from redis.exceptions import RedisError

from .. import record
from ..bots.base import Bot, bot_names, decides_instantly, get_bot
from ..discards import as_laid
from ..errors import YanivError
from ..game import MAX_PLAYERS, MIN_PLAYERS, Phase
from ..moves import DRAW_STOCK, Move, parse_move
from ..rules import RuleSet
from ..session import Seat, Table
from . import history
from .cluster import LEASE_MS, LIVE_ROOMS, NO_REDIS, CallFailed, Cluster
from .deltas import delta
from .guard import (
    CLOSE_CROWDED,
    LONE_SURROGATE,
    failure_words,
    holds_lone_surrogate,
    one_line,
    store_failure,
)
from .journal import RecordText, view_dict
from .limits import Limits, sockets_refusal
from .schemas import (
    CLIENT_MESSAGE,
    MAX_MESSAGE,
    MESSAGE_TYPES,
    TURN_TIMERS,
    BackMessage,
    CoachMessage,
    MoveMessage,
    NextRoundMessage,
    PingMessage,
    ReactMessage,
    ResyncMessage,
    describe,
)
from .storage import LostRoom, Store, StoredRoom, token_hash

log = logging.getLogger("yaniv.server")

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
CODE_SET = frozenset(CODE_ALPHABET)
#: Messages a connection may send in one second before it is disconnected.
FLOOD_LIMIT = 20
#: The level of the bot that stands in for a player gone longer than the grace period.
STAND_IN_LEVEL = "medium"
#: Names for the computer's seats.
BOT_NAMES = ("Dana", "Yossi", "Noa", "Avi", "Tamar", "Eli", "Maya", "Omer")
#: Move ids remembered per room (a double tap is applied once).
REMEMBERED_IDS = 2000
#: Of those, the last stored with each move: enough for a client that sends its last moves
#: again after its room moved to another process.
STORED_IDS = 64
#: Seconds the round's end waits for its people to be ready before the next deal.
ROUND_WAIT = 20.0
#: Seconds between two reactions of one seat.
REACTION_GAP = 3.0
#: Turns timed out in a row after which a person is marked away.
TIMEOUTS_AWAY = 2
#: Seconds the bots' driver waits after a failed write before trying again, doubled at each
#: failure in a row up to the most.
SAVE_RETRY = 1.0
SAVE_RETRY_MAX = 30.0
#: Seconds a finished room stays in memory once nobody is connected to it; then it leaves
#: (memory stays flat over any number of games) and comes back from the store if asked for.
RELEASE_AFTER = 30.0
#: Seconds a process counts as alive after its last message here (as long as a heartbeat).
LEASE_S = LEASE_MS / 1000
#: Seconds a relayed socket waits for the owner's answer to its attach before asking again.
UNANSWERED_S = 2.0


def bot_name(seats: list[SeatInfo | None], seat: int, first: int) -> str:
    """The name of a bot put in ``seat``: ``BOT_NAMES[first]``, or the next of BOT_NAMES that
    nobody in the other seats is called (compared without case), so a bot never shares its
    name with a person (nor with another bot). There are as many names as seats, so one of
    them is always free."""
    taken = {s.name.casefold() for i, s in enumerate(seats) if s is not None and i != seat}
    for k in range(len(BOT_NAMES)):
        name = BOT_NAMES[(first + k) % len(BOT_NAMES)]
        if name.casefold() not in taken:
            return name
    return f"Bot {seat + 1}"  # unreachable while MAX_PLAYERS <= len(BOT_NAMES)


def turn_timer_of(options: dict[str, Any] | None) -> int:
    """The turn timer a room's stored options name (0, off, for none or a bad value)."""
    value = (options or {}).get("turn_timer", 0)
    return value if value in TURN_TIMERS and not isinstance(value, bool) else 0


class ApiError(Exception):
    """A refused request: the words and the HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class SeatInfo:
    """Who sits in a room's seat: a person or a bot."""

    name: str
    kind: str = "human"  # "human" | "bot"
    level: str | None = None
    seed: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (stored in the room's row)."""
        return {"name": self.name, "kind": self.kind, "level": self.level, "seed": self.seed}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SeatInfo:
        """The inverse of ``to_dict``."""
        return cls(
            str(data["name"]), str(data.get("kind", "human")), data.get("level"), data.get("seed")
        )

    def table_seat(self) -> Seat:
        """The table's seat for this one."""
        if self.kind == "bot":
            return Seat(self.name, "bot", level=self.level, seed=self.seed)
        return Seat(self.name, "remote")


class Socket(Protocol):
    """What a room sends through: a websocket, or a socket of another process."""

    async def send_text(self, data: str) -> None: ...

    async def send_json(self, data: Any) -> None: ...

    async def close(self, code: int = 1000) -> None: ...


@dataclass(eq=False)
class Conn:
    """One websocket: a player's seat or a spectator (seat None)."""

    ws: Socket  # a websocket here, or one of another process (RemoteSocket)
    seat: int | None
    coach: bool = False
    deltas: bool = False  # sent what changed after a first whole state (deltas.py)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    shown: str | None = None  # the last state a broadcast sent this connection
    shown_no: int = 0  # the room's snapshot number of that state
    room_shown: str | None = None  # the last ``room`` message sent it (lobby updates)
    room_status: str | None = None  # the room's status in that message
    # Deltas: the last state sent (as a dict: never changed after), its stream and number.
    last: dict[str, Any] | None = None
    stream: str = field(default_factory=lambda: secrets.token_hex(4))
    seq: int = 0

    async def send(self, payload: dict[str, Any] | str) -> None:
        """Send one message; a connection that went away is ignored."""
        text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
        async with self.lock:
            with contextlib.suppress(Exception):
                await self.ws.send_text(text)

    async def send_snapshot(
        self, state: dict[str, Any], number: int, again: bool = False, text: str | None = None
    ) -> None:
        """Send a state, the room's ``number``-th snapshot, unless a later one was sent (states
        are sent outside the room's lock, so two broadcasts may overlap) or, unless ``again``,
        this same state was the last one sent. ``text`` is the state's JSON where the caller
        has it. A connection with deltas is sent what changed since its last state (``again``:
        the whole state)."""
        async with self.lock:
            if number < self.shown_no:
                return
            if self.deltas:
                out = self._delta_text(state, whole=again)
                if out is None:
                    return
            else:
                out = json.dumps(state, ensure_ascii=False) if text is None else text
                if out == self.shown and not again:
                    return
                self.shown = out
            self.shown_no = number
            with contextlib.suppress(Exception):
                await self.ws.send_text(out)

    def _delta_text(self, state: dict[str, Any], whole: bool) -> str | None:
        """The message that brings this connection from its last state to ``state``, or None
        when nothing changed."""
        message: dict[str, Any]
        if self.last is None or whole:
            message = {**state, "stream": self.stream, "seq": self.seq + 1}
        else:
            change = delta(self.last, state)
            if change is None:
                return None
            message = {**change, "stream": self.stream, "base": self.seq, "seq": self.seq + 1}
        self.seq += 1
        self.last = state
        return json.dumps(message, ensure_ascii=False)


def counted(window: deque[float], now: float) -> int:
    """Add a message at ``now`` to a one-second ``window``; the messages in it."""
    window.append(now)
    while window and window[0] <= now - 1.0:
        window.popleft()
    return len(window)


#: Several people may share one address (a household, a hostel): an address may send this
#: many times the flood limit.
ADDRESS_FLOOD_FACTOR = 4


class Room:
    """A room in memory: seats, rules, status, the table once started, connections."""

    def __init__(
        self,
        hub: Hub,
        code: str,
        rules: RuleSet,
        seats: list[SeatInfo | None],
        status: str = "waiting",
        table: Table | None = None,
    ) -> None:
        self.hub = hub
        self.code = code
        self.rules = rules
        self.seats = seats
        self.status = status
        self.table = table
        self.tokens: dict[str, int] = {}  # token hash -> seat
        self.conns: set[Conn] = set()
        self.seat_sent: dict[int, deque[float]] = {}  # per seat, as Conn.sent per socket
        self.lock = asyncio.Lock()
        self.applied: OrderedDict[tuple[int, int, str], None] = OrderedDict()  # seat, round, id
        self.stand_in: dict[int, Bot] = {}  # seats a bot plays while their player is away
        self.grace_tasks: dict[int, asyncio.Task[None]] = {}
        self.driver: asyncio.Task[None] | None = None
        self.hold_seat: int | None = None  # the slap window: others wait until hold_until
        self.hold_until = 0.0
        self.flush_task: asyncio.Task[None] | None = None
        self._record: RecordText | None = None  # the table's record text, kept up to date
        self._rules_dict: tuple[RuleSet, dict[str, Any]] | None = None
        # Each seat's events encoded so far (view_dict), for the table they are of.
        self._seen: tuple[Table | None, dict[int, Any]] = (None, {})
        self.snapshots = 0  # states are numbered as they are taken, so none overtakes a later
        self.game_no = 0  # the room's games so far (a rematch deals the next one)
        self._logged: tuple[int, str] | None = None  # the game and status the history has
        self._news = asyncio.Lock()  # room messages go out in the order they are taken
        self._extra: tuple[Table | None, int] = (None, -1)  # the record's extra keys, as of
        # The clocks, kept here (monotonic time): a client is told how long is left.
        self.turn_timer = 0  # seconds a person has for a turn (0: no timer), set by the host
        self.grace_until: dict[int, float] = {}  # a dropped person's seat is held until then
        self.turn_key: tuple[int, int, int] | None = None  # round, seat, moves at its start
        self.turn_deadline: float | None = None  # when the turn in turn_key runs out
        self.turn_task: asyncio.Task[None] | None = None
        self.forced: tuple[int, int, int] | None = None  # a turn that ran out: a stand-in's
        self.timeouts: dict[int, int] = {}  # each seat's turns timed out in a row
        self.idle: set[int] = set()  # people marked away after TIMEOUTS_AWAY timeouts
        self.ready: set[int] = set()  # the people ready for the next round
        self.round_key: tuple[int, int] | None = None  # the game and round whose end waits
        self.round_deadline: float | None = None  # when the next round is dealt regardless
        self.round_task: asyncio.Task[None] | None = None
        self.release_task: asyncio.Task[None] | None = None  # leaving memory, once over
        self.reacted: dict[int, float] = {}  # each seat's last reaction (monotonic)
        self._bots: dict[int, Bot] = {}  # the stand-ins' bots, kept for the game
        # The fencing token of this process's ownership (many processes; None on one): the
        # store refuses a write with an older one (LostRoom).
        self.epoch: int | None = None

    # ------------------------------------------------------------- what the room shows

    def connected(self, seat: int) -> bool:
        """Whether a person's seat has a live connection."""
        return any(c.seat == seat for c in self.conns)

    def public_seats(self, clocks: bool = False) -> list[dict[str, Any] | None]:
        """The seats as the protocol shows them; with ``clocks`` (in a ``state``), a
        person's seat tells of the stand-in, the grace and being ready, too."""
        out: list[dict[str, Any] | None] = []
        for i, info in enumerate(self.seats):
            if info is None:
                out.append(None)
                continue
            entry: dict[str, Any] = {
                "name": info.name,
                "kind": info.kind,
                "connected": info.kind == "bot" or self.connected(i),
            }
            if info.level is not None:
                entry["level"] = info.level
            if clocks and info.kind == "human" and self.table is not None:
                entry.update(self._seat_clock(i))
            out.append(entry)
        return out

    def _seat_clock(self, seat: int) -> dict[str, Any]:
        """What a person's seat shows of the stand-in and the clocks: ``stand_in`` (the
        computer plays it now), ``away`` (``"gone"``: dropped longer than the grace,
        ``"idle"``: turns timed out), ``grace_ms`` (how long the seat is held for a dropped
        player), ``ready`` (at a round's end)."""
        out: dict[str, Any] = {"stand_in": self.standing_in(seat)}
        if seat in self.stand_in:
            out["away"] = "gone"
        elif seat in self.idle:
            out["away"] = "idle"
        until = self.grace_until.get(seat)
        if until is not None and not self.connected(seat):
            out["grace_ms"] = max(0, round((until - time.monotonic()) * 1000))
        if self.table is not None and self.table.phase is Phase.ROUND_OVER:
            out["ready"] = seat in self.ready
        return out

    def standing_in(self, seat: int) -> bool:
        """Whether the computer plays a person's seat now (away, or the turn ran out)."""
        return (
            seat in self.stand_in
            or seat in self.idle
            or (self.forced is not None and self.forced == self.turn_key and self.forced[1] == seat)
        )

    def clock(self) -> dict[str, Any] | None:
        """The clock that runs now, as the state tells it: a person's turn (``"turn"``, with
        the seat) or the wait before the next round (``"next_round"``); how long is left and
        how long it was, in milliseconds. None when no clock runs."""
        now = time.monotonic()
        if self.turn_deadline is not None and self.turn_key is not None:
            return {
                "kind": "turn",
                "seat": self.turn_key[1],
                "remaining_ms": max(0, round((self.turn_deadline - now) * 1000)),
                "total_ms": round(self.turn_timer * 1000),
            }
        if self.round_deadline is not None:
            return {
                "kind": "next_round",
                "seat": None,
                "remaining_ms": max(0, round((self.round_deadline - now) * 1000)),
                "total_ms": round(self.hub.round_wait * 1000),
            }
        return None

    def info(self) -> dict[str, Any]:
        """``GET /api/rooms/{code}``."""
        return {
            "room": self.code,
            "status": self.status,
            "rules": self.rules.to_dict(),
            "seats": self.public_seats(),
            "max_players": MAX_PLAYERS,
            "game": self.game_no,
            "turn_timer": self.turn_timer,
        }

    async def state(self, conn: Conn) -> dict[str, Any]:
        """The ``state`` message for one connection."""
        seats = self.public_seats(clocks=True)
        if self.table is None:
            return {
                "type": "state",
                "view": None,
                "story": [],
                "seats": seats,
                "coach": None,
                "clock": None,
                "turn_timer": self.turn_timer,
            }
        table = self.table
        view = table.view(conn.seat)
        if self._seen[0] is not table:
            self._seen = (table, {})
        story = [line.text for line in table.story(conn.seat)]
        coach = None
        if conn.coach and conn.seat is not None:
            coach = await asyncio.to_thread(table.coach, conn.seat)
        data = view_dict(view, self._seen[1])
        flags = table.stand_in_flags(view.events, view.round_no)
        if any(flags):  # the cached event dicts are shared: marked ones are copies
            data["events"] = [
                {**e, "by": "stand_in"} if flag else e
                for e, flag in zip(data["events"], flags, strict=True)
            ]
        return {
            "type": "state",
            "view": data,
            "story": story,
            "seats": seats,
            "coach": coach,
            "clock": self.clock(),
            "turn_timer": self.turn_timer,
        }

    async def send_state(self, conn: Conn) -> None:
        """Send one connection its state (call without the room's lock)."""
        async with self.lock:  # a state is taken under the lock: every move in it is stored
            state = await self.state(conn)
            self.snapshots += 1
            number = self.snapshots
        await conn.send_snapshot(state, number, again=True)

    async def broadcast(self) -> None:
        """Send every connection its state (during a slap window, the others wait for it).

        A connection is not sent the same state twice in a row: two broadcasts that both come
        after a change (each sends the state as it is when it runs) send it once.

        The states are taken under the room's lock (call without it), since a move is stored
        while the lock is held: taken without it, a state could show a move that is not stored
        yet. They are sent after the lock is released, numbered so none overtakes a later one.
        """
        await self._lobby_news()
        out: list[tuple[Conn, dict[str, Any], str | None]] = []
        async with self.lock:
            self.tick()
            held = self.hold_seat is not None and time.monotonic() < self.hold_until
            # A seat's state is built once, and encoded once for those sent it whole.
            states: dict[int | None, dict[str, Any]] = {}
            texts: dict[int | None, str] = {}
            for conn in list(self.conns):
                if held and conn.seat != self.hold_seat:
                    continue
                if conn.coach and conn.seat is not None:
                    out.append((conn, await self.state(conn), None))
                    continue
                if conn.seat not in states:
                    states[conn.seat] = await self.state(conn)
                state = states[conn.seat]
                if not conn.deltas and conn.seat not in texts:
                    texts[conn.seat] = json.dumps(state, ensure_ascii=False)
                out.append((conn, state, None if conn.deltas else texts[conn.seat]))
            self.snapshots += 1
            number = self.snapshots
        for conn, state, text in out:
            await conn.send_snapshot(state, number, text=text)
        if held and (self.flush_task is None or self.flush_task.done()):
            self.flush_task = asyncio.create_task(self._flush_later())

    async def _lobby_news(self) -> None:
        """While the room waits, send each connection the room (``room`` message) when it
        changed; once the game starts, those that saw it waiting hear of the start."""
        async with self._news:
            conns = [
                c for c in self.conns if self.status == "waiting" or c.room_status == "waiting"
            ]
            if not conns:
                return
            text = json.dumps({"type": "room", **self.info()}, ensure_ascii=False)
            for conn in conns:
                if conn.room_shown != text:
                    conn.room_shown, conn.room_status = text, self.status
                    await conn.send(text)

    async def _flush_later(self) -> None:
        await asyncio.sleep(max(0.0, self.hold_until - time.monotonic()))
        self.hold_seat = None
        await self.broadcast()

    # ------------------------------------------------------------- storage

    def row(self) -> tuple[str, dict[str, Any], list[Any], str, str | None]:
        """The room as the store keeps it."""
        text = None
        if self.table is not None:
            if self._record is None or self._record.game is not self.table.game:
                self._record = RecordText(self.table.game, self.table.record_extra())
                self._extra = (self.table, len(self.table.stand_in_moves))
            elif self._extra != (self.table, len(self.table.stand_in_moves)):
                self._record.set_extra(self.table.record_extra())
                self._extra = (self.table, len(self.table.stand_in_moves))
            text = self._record.text()
        if self._rules_dict is None or self._rules_dict[0] is not self.rules:
            self._rules_dict = (self.rules, self.rules.to_dict())
        return (
            self.code,
            self._rules_dict[1],
            [None if s is None else s.to_dict() for s in self.seats],
            self.status,
            text,
        )

    async def save_options(self) -> None:
        """Store the room's options (the turn timer), which the game's record does not hold."""
        store = self.hub.store
        await store.run(store.set_options, self.code, {"turn_timer": self.turn_timer})

    async def persist(self) -> None:
        """Store the room (and the game's record) now; a game's start and end go to the
        history too."""
        row = self.row()
        ids = [[*key] for key in itertools.islice(reversed(self.applied), STORED_IDS)][::-1]
        await self.hub.store.save(*row, epoch=self.epoch, move_ids=ids or None)
        if self.table is not None and self._logged != (self.game_no, self.status):
            await self._log_game(row[4])

    async def _log_game(self, text: str | None) -> None:
        """Tell the history of the game's start and, once it is over, of its record."""
        store = self.hub.store
        previous, self._logged = self._logged, (self.game_no, self.status)
        if previous is None or previous[0] != self.game_no:
            seats = [
                {k: v for k, v in s.to_dict().items() if k in ("name", "kind", "level")}
                for s in self.seats
                if s is not None
            ]
            rules = self.rules.to_dict()
            await store.run(history.game_started, store, self.code, self.game_no, rules, seats)
        if self.status == "over" and text is not None:
            await store.run(history.game_over, store, self.code, self.game_no, text)

    # ------------------------------------------------------------- the game

    def start_table(self, seed: int | None = None) -> None:
        """Seat the table and deal (the seats must all be filled)."""
        seats = [s.table_seat() for s in self.seats if s is not None]
        self.table = Table(self.rules, seats, seed=secrets.randbits(63) if seed is None else seed)
        self.status = "playing"
        self.game_no += 1

    async def rematch(self, seat: int) -> None:
        """A new game with the same seats and rules, after the last one is over (lock held)."""
        old = self.table
        if old is not None:
            await asyncio.to_thread(old.close)
        self.start_table()
        self.applied.clear()
        self.hold_seat, self.hold_until = None, 0.0
        self.forced = None
        await self.persist()
        for other, info in enumerate(self.seats):
            if (
                info is not None
                and info.kind == "human"
                and other != seat
                and not self.connected(other)
                and other not in self.stand_in
                and other not in self.grace_tasks
            ):
                self.hold(other)
        self.kick()

    def hold(self, seat: int) -> None:
        """Hold a dropped person's seat for the grace period, then let a stand-in play it."""
        self.grace_until[seat] = time.monotonic() + self.hub.grace
        self.grace_tasks[seat] = asyncio.create_task(self.guarded(self._grace(seat)))

    def automatic(self, seat: int) -> bool:
        """Whether the server plays ``seat`` now (a bot, or a stand-in for a person who is
        away or whose turn ran out)."""
        assert self.table is not None
        return self.table.seats[seat].automatic or self.standing_in(seat)

    def people(self) -> list[int]:
        """The seats of people (not bots)."""
        return [i for i, s in enumerate(self.seats) if s is not None and s.kind == "human"]

    def _bot_for(self, seat: int) -> Bot:
        """The bot that stands in for a person's seat (one per seat and game, lock held)."""
        bot = self._bots.get(seat)
        if bot is None:
            info = self.seats[seat]
            bot = self._bots[seat] = get_bot(STAND_IN_LEVEL, None if info is None else info.seed)
        return bot

    # ------------------------------------------------------------- the clocks

    def _set_task(self, name: str, coro: Any) -> None:
        """Replace the clock task ``name`` (``turn_task`` or ``round_task``) with one
        running ``coro`` (None: none)."""
        old = getattr(self, name)
        if old is not None and old is not asyncio.current_task():
            old.cancel()
        setattr(self, name, None if coro is None else asyncio.create_task(self.guarded(coro)))

    async def guarded(self, coro: Any) -> None:
        """Run a clock's or the grace's task: a store that fails is logged (the next move
        or the driver's retry saves again), a room taken over by another process is let go."""
        try:
            await coro
        except LostRoom:
            self.hub.lose_later(self.code)
        except Exception as exc:
            if not store_failure(exc):
                raise
            log.warning("room %s: the store failed: %s", self.code, one_line(exc))

    def tick(self) -> None:
        """Set the clocks for this moment (lock held): a person's turn under the turn timer
        gets its deadline once, a round's end waits for its people (a countdown when two
        people or more play), and a clock whose moment is over stops."""
        table = self.table
        now = time.monotonic()
        playing = table is not None and self.status == "playing"
        if playing and table is not None and table.phase is Phase.ROUND_OVER:
            key = (self.game_no, table.game.round_no)
            if self.round_key != key:
                self.round_key, self.ready, self.round_deadline = key, set(), None
                if len(self.people()) >= 2:  # alone with bots, a person reads at leisure
                    wait = self.hub.round_wait
                    self.round_deadline = now + wait
                    self._set_task("round_task", self._round_timeout(key, wait))
        elif self.round_key is not None:
            self.round_key, self.ready, self.round_deadline = None, set(), None
            self._set_task("round_task", None)
        turn: tuple[int, int, int] | None = None
        if playing and table is not None and self.turn_timer and table.phase < Phase.ROUND_OVER:
            seat = table.to_move
            info = None if seat is None else self.seats[seat]
            if seat is not None and info is not None and info.kind == "human":
                number = table.game.round_no
                if self.turn_key is not None and self.turn_key[:2] == (number, seat):
                    turn = self.turn_key
                else:
                    turn = (number, seat, len(table.game.moves))
        if turn != self.turn_key:
            self.turn_key, self.turn_deadline = turn, None
            self._set_task("turn_task", None)
        timed = turn is not None and not self.automatic(turn[1])
        if turn is not None and timed and self.turn_deadline is None:
            self.turn_deadline = now + self.turn_timer
            self._set_task("turn_task", self._turn_timeout(turn, float(self.turn_timer)))
        elif not timed and self.turn_deadline is not None:
            self.turn_deadline = None
            self._set_task("turn_task", None)

    async def _turn_timeout(self, turn: tuple[int, int, int], delay: float) -> None:
        """When a person's turn runs out, the stand-in plays the rest of it; after
        TIMEOUTS_AWAY such turns in a row the seat is marked away."""
        await asyncio.sleep(delay)
        async with self.lock:
            if self.turn_task is not asyncio.current_task() or self.turn_key != turn:
                return
            self.turn_task, self.turn_deadline = None, None
            if self.table is None or self.table.to_move != turn[1]:
                return
            seat = turn[1]
            self.forced = turn
            self.timeouts[seat] = self.timeouts.get(seat, 0) + 1
            if self.timeouts[seat] >= TIMEOUTS_AWAY:
                self.idle.add(seat)
            self.kick()
        await self.broadcast()

    async def _round_timeout(self, key: tuple[int, int], delay: float) -> None:
        """The countdown at a round's end ran out: the next round is dealt."""
        await asyncio.sleep(delay)
        async with self.lock:
            if self.round_task is not asyncio.current_task() or self.round_key != key:
                return
            self.round_task = None
            dealt = await self._deal()
        if dealt:
            await self.broadcast()

    async def _deal(self) -> bool:
        """Deal the next round if a round is over (lock held); whether it was dealt. Where
        storing fails, the deal is undone and the store's error raised."""
        if self.table is None or self.table.phase is not Phase.ROUND_OVER:
            return False
        before = self.table.checkpoint()
        self.table.next_round()
        await self._persist_or_undo(before, self.status)
        self.tick()
        self.kick()
        return True

    async def _persist_or_undo(self, before: Any, status: str) -> None:
        """Store the room; where the store fails, go back to ``before`` (a table checkpoint)
        and ``status`` and raise: what is not stored is never shown (lock held)."""
        assert self.table is not None
        try:
            await self.persist()
        except Exception as exc:
            if store_failure(exc) or isinstance(exc, LostRoom):
                self.table.restore(before)
                self.status = status
                self.hold_seat = None
                self.tick()
            raise

    def all_ready(self) -> bool:
        """Whether every person the round's end waits for is ready (those the computer
        plays for are not waited for)."""
        return all(s in self.ready or self.standing_in(s) for s in self.people())

    def kick(self) -> None:
        """Make sure the bots' driver runs (call with the lock held)."""
        if self.driver is None and self.table is not None and self.status == "playing":
            self.driver = asyncio.create_task(self._drive())

    async def _drive(self) -> None:
        """Play the automatic seats, paced, until a person must act or the game is over.

        Where the store fails, the move is undone (``_apply``), everyone is told that saving
        is failing, and the driver tries again after a growing pause, until the store is back.
        """
        failures = 0
        try:
            while True:
                try:
                    if not await self._drive_once():
                        return
                except LostRoom:
                    self.driver = None
                    self.hub.lose_later(self.code)
                    return
                except Exception as exc:
                    if not store_failure(exc):
                        raise
                    failures += 1
                    pause = min(SAVE_RETRY_MAX, SAVE_RETRY * 2 ** (failures - 1))
                    log.warning("room %s: the store failed: %s", self.code, one_line(exc))
                    await self.tell_all(
                        {
                            "type": "error",
                            "message": f"saving the game is failing; retrying in {pause:g} s",
                            "saving": "failing",
                        }
                    )
                    await asyncio.sleep(pause)
                    continue
                if failures:
                    failures = 0
                    await self.tell_all(
                        {"type": "notice", "message": "saving works again", "saving": "ok"}
                    )
        except asyncio.CancelledError:
            self.driver = None
            raise
        except Exception:  # a bug must not leave the room without a driver silently
            log.exception("room %s: the bots' driver failed", self.code)
            self.driver = None

    def pause_before(self, table: Table, deal: bool) -> float:
        """Seconds the driver waits before the next automatic move (or deal): the bots'
        pace, or what is left of a person's slap pause. A bot's own slap window is decided
        at once: the others see its stock draw as late as any other draw, so the timing
        never tells that a window opened and was declined (R22)."""
        if not deal and table.phase is Phase.SLAP:
            return 0.0
        return max(self.hub.bot_delay, self.hold_until - time.monotonic())

    async def tell_all(self, payload: dict[str, Any]) -> None:
        """Send ``payload`` to every connection of the room."""
        for conn in list(self.conns):
            with contextlib.suppress(Exception):  # a socket that went away
                await conn.send(payload)

    async def _drive_once(self) -> bool:
        """One automatic move (or deal); False once the driver should stop."""
        async with self.lock:
            table = self.table
            if table is None or self.status != "playing":
                self.driver = None
                return False
            seat = table.to_move
            deal = table.phase is Phase.ROUND_OVER and all(
                self.automatic(s) for s in range(len(table.seats))
            )
            if not deal and (seat is None or not self.automatic(seat)):
                self.driver = None
                return False
            if seat is not None and not table.seats[seat].automatic:
                self._bot_for(seat)  # made here, under the lock, not on the thread
        wait = self.pause_before(table, deal)
        if wait > 0:
            await asyncio.sleep(wait)
        if deal:
            async with self.lock:
                if table is self.table:
                    await self._deal()
            await self.broadcast()
            return True
        assert seat is not None
        if self._instant(seat):
            move = self._decide(seat)
        else:  # a bot that thinks does it on a thread: the other rooms go on meanwhile
            move = await asyncio.to_thread(self._decide, seat)
        async with self.lock:
            if (
                table is not self.table
                or table.to_move != seat
                or not self.automatic(seat)
                or table.why_not(seat, move) is not None
            ):
                return True
            await self._apply(seat, move, stand_in=not table.seats[seat].automatic)
        await self.broadcast()
        return True

    def _instant(self, seat: int) -> bool:
        """Whether the bot or stand-in of ``seat`` decides in microseconds."""
        assert self.table is not None
        if self.table.seats[seat].automatic:
            return self.table.decides_instantly(seat)
        return decides_instantly(STAND_IN_LEVEL)

    def _decide(self, seat: int) -> Move:
        """The move of a bot or a stand-in (on a worker thread, unless ``_instant``)."""
        assert self.table is not None
        if self.table.seats[seat].automatic:
            return self.table.decide(seat)
        bot = self._bots[seat]
        view = self.table.view(seat)
        try:
            move = bot.choose(view)
        except YanivError:
            move = view.legal_moves[-1]
        return as_laid(move, view.rules) if move in view.legal_moves else view.legal_moves[-1]

    async def _apply(self, seat: int, move: Move, stand_in: bool = False) -> None:
        """Play a checked move, store it, note a human's slap window (lock held).
        ``stand_in``: the computer made it for a person (the story and replay say so)."""
        assert self.table is not None
        before, status = self.table.checkpoint(), self.status
        self.table.play(seat, move, stand_in=stand_in)
        if self.table.phase is Phase.GAME_OVER:
            self.status = "over"
            self.release_later()  # the game ended with nobody connected (stand-ins played)
        self.tick()
        if (
            move == DRAW_STOCK
            and self.rules.slapdown != "off"
            and not self.automatic(seat)
            and self.hub.slap_window > 0
        ):
            self.hold_seat = seat
            self.hold_until = time.monotonic() + self.hub.slap_window
        await self._persist_or_undo(before, status)

    # ------------------------------------------------------------- messages from a socket

    async def handle(self, conn: Conn, text: str) -> None:
        """Answer one message of a connection."""
        if len(text.encode("utf-8", "surrogatepass")) > MAX_MESSAGE:
            await conn.send(
                {"type": "error", "message": f"a message may be {MAX_MESSAGE} bytes at most"}
            )
            return
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            await conn.send({"type": "error", "message": "the message is not valid JSON"})
            return
        if holds_lone_surrogate(data):  # no answer could quote it (not even its id)
            await conn.send({"type": "error", "message": LONE_SURROGATE})
            return
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            await conn.send({"type": "error", "message": "a message is a JSON object with a type"})
            return
        if data["type"] not in MESSAGE_TYPES:
            await conn.send(
                {
                    "type": "error",
                    "message": f"unknown message type "
                    f"{data['type'][:40]!r}; types: " + ", ".join(MESSAGE_TYPES),
                }
            )
            return
        try:
            message = CLIENT_MESSAGE.validate_python(data)
        except ValidationError as exc:
            answer: dict[str, Any] = {"type": "error", "message": describe(exc)}
            if isinstance(data.get("id"), str) and len(data["id"]) <= 40:
                answer["id"] = data["id"]
            await conn.send(answer)
            return
        if isinstance(message, PingMessage):
            await conn.send({"type": "pong"})
        elif isinstance(message, CoachMessage):
            conn.coach = message.on
            await self.send_state(conn)
        elif isinstance(message, NextRoundMessage):
            await self._next_round(conn)
        elif isinstance(message, MoveMessage):
            await self._move(conn, message)
        elif isinstance(message, ReactMessage):
            await self._react(conn, message)
        elif isinstance(message, BackMessage):
            await self._back(conn)
        elif isinstance(message, ResyncMessage):
            await self.send_state(conn)  # whole

    async def _refuse(self, conn: Conn, words: str, move_id: str | None = None) -> None:
        answer: dict[str, Any] = {"type": "error", "message": words}
        if move_id is not None:
            answer["id"] = move_id
        await conn.send(answer)

    async def _move(self, conn: Conn, message: MoveMessage) -> None:
        if conn.seat is None:
            await self._refuse(conn, "spectators watch; they do not play", message.id)
            return
        async with self.lock:
            if self.table is None or self.status == "waiting":
                await self._refuse(conn, "the game has not started", message.id)
                return
            seat = conn.seat
            key = None if message.id is None else (seat, self.table.game.round_no, message.id)
            if key is not None and key in self.applied:
                duplicate = True
            else:
                duplicate = False
                try:
                    move = parse_move(message.move)
                except YanivError as exc:
                    await self._refuse(conn, str(exc), message.id)
                    return
                reason = self.table.why_not(seat, move)
                if reason is not None:
                    await self._refuse(conn, reason, message.id)
                    return
                self._present(seat)  # a move of one's own: back from a timeout or away
                if key is not None:  # stored with the move (a fail-over keeps it)
                    self.applied[key] = None
                try:
                    await self._apply(seat, move)
                except BaseException:
                    if key is not None:
                        self.applied.pop(key, None)
                    raise
                while len(self.applied) > REMEMBERED_IDS:
                    self.applied.popitem(last=False)
                self.kick()
        if duplicate:
            await self.send_state(conn)
        else:
            await self.broadcast()

    def _present(self, seat: int) -> None:
        """A person acted: no longer away after timeouts, nor stood in for this turn."""
        self.timeouts.pop(seat, None)
        self.idle.discard(seat)
        if self.forced is not None and self.forced[1] == seat:
            self.forced = None

    async def _next_round(self, conn: Conn) -> None:
        """A person is ready for the next round: it is dealt once every person is (or when
        the countdown ends), never by one person for the others."""
        if conn.seat is None:
            await self._refuse(conn, "spectators watch; they do not deal")
            return
        async with self.lock:
            if self.table is None or self.table.phase is not Phase.ROUND_OVER:
                changed = False
            else:
                self.tick()
                self._present(conn.seat)
                changed = conn.seat not in self.ready
                self.ready.add(conn.seat)
                if self.all_ready():
                    changed = await self._deal()
        if changed:
            await self.broadcast()
        else:
            await self.send_state(conn)

    async def _react(self, conn: Conn, message: ReactMessage) -> None:
        """Show a reaction beside the sender's seat to everyone in the room, at most one
        every ``reaction_gap`` seconds a seat."""
        if conn.seat is None:
            await self._refuse(conn, "spectators watch; they do not react")
            return
        seat = conn.seat
        gap = self.hub.reaction_gap
        async with self.lock:
            if self.table is None:
                await self._refuse(conn, "reactions are for the table: the game has not started")
                return
            now = time.monotonic()
            last = self.reacted.get(seat)
            if last is not None and now - last < gap:
                wait = gap - (now - last)
                await conn.send(
                    {
                        "type": "error",
                        "message": f"one reaction every {gap:g} seconds: wait {wait:.1f} s more",
                        "about": "react",
                        "retry_ms": round(wait * 1000),
                    }
                )
                return
            self.reacted[seat] = now
            conns = list(self.conns)
        text = json.dumps({"type": "reaction", "seat": seat, "reaction": message.reaction})
        for other in conns:
            await other.send(text)

    async def _back(self, conn: Conn) -> None:
        """A person marked away (turns timed out) takes the seat back."""
        if conn.seat is None:
            await self._refuse(conn, "spectators watch; they have no seat to take back")
            return
        async with self.lock:
            self._present(conn.seat)
            self.tick()
        await self.broadcast()

    # ------------------------------------------------------------- coming and going

    async def attach(self, conn: Conn) -> None:
        """A connection joins: a returning player takes the seat back from the stand-in."""
        self.conns.add(conn)
        if conn.seat is not None:
            task = self.grace_tasks.pop(conn.seat, None)
            if task is not None:
                task.cancel()
            self.grace_until.pop(conn.seat, None)
            self.stand_in.pop(conn.seat, None)
        await self.broadcast()

    async def detach(self, conn: Conn) -> None:
        """A connection leaves: a player's seat is held for the grace period; the last one
        to leave a finished room lets it leave memory."""
        self.conns.discard(conn)
        seat = conn.seat
        if seat is not None and not self.connected(seat) and seat not in self.grace_tasks:
            self.hold(seat)
        await self.broadcast()
        self.release_later()

    def release_later(self) -> None:
        """Let a finished room nobody is connected to leave memory after ``RELEASE_AFTER``."""
        if self.status == "over" and not self.conns and self.release_task is None:
            self.release_task = asyncio.create_task(self._release())

    async def _release(self) -> None:
        try:
            await asyncio.sleep(RELEASE_AFTER)
            async with self.lock:
                if self.status != "over" or self.conns:
                    return  # a rematch, or someone came back: it stays
                if self.hub.rooms.get(self.code) is self:
                    del self.hub.rooms[self.code]
            await self.close()
            await self.hub.released(self.code)
        finally:
            self.release_task = None

    async def _grace(self, seat: int) -> None:
        await asyncio.sleep(self.hub.grace)
        async with self.lock:
            self.grace_tasks.pop(seat, None)
            self.grace_until.pop(seat, None)
            if self.connected(seat) or self.table is None or self.status != "playing":
                return
            self.stand_in[seat] = self._bot_for(seat)
            if self.round_key is not None and self.all_ready():  # the others wait no longer
                await self._deal()
            self.tick()
            self.kick()
        await self.broadcast()

    async def close(self) -> None:
        """Stop the room's tasks and its table."""
        tasks = [self.driver, self.flush_task, self.turn_task, self.round_task]
        if self.release_task is not asyncio.current_task():
            tasks.append(self.release_task)
        for task in [*tasks, *self.grace_tasks.values()]:
            if task is not None:
                task.cancel()
        # A cancelled task keeps its CancelledError, whose traceback holds the task's frames
        # and so this room: were the room to keep its tasks, the two would make a cycle that
        # only the collector's rare full passes free (server/runtime.py), and memory would grow
        # with every finished game. Dropped, they leave with their last reference.
        self.driver = self.flush_task = self.turn_task = self.round_task = None
        if self.release_task is not asyncio.current_task():
            self.release_task = None
        self.grace_tasks.clear()
        if self.table is not None:
            await asyncio.to_thread(self.table.close)


MOVING = "the room is moving to another server process; try again in a few seconds"

#: The Hub calls a process runs for another (by name): the HTTP API about one room.
ROUTED: dict[str, Callable[..., Awaitable[dict[str, Any]]]] = {}


def at_owner(
    method: Callable[..., Awaitable[dict[str, Any]]],
) -> Callable[..., Awaitable[dict[str, Any]]]:
    """A Hub call about one room (its code first), run by the process that owns the room:
    asked through Redis where another process does."""

    @functools.wraps(method)
    async def routed(hub: Hub, code: str, *args: Any) -> dict[str, Any]:
        try:
            return await method(hub, code, *args)
        except Elsewhere as moved:
            return await hub._remote_call(moved.node, method.__name__, [code, *args])
        except LostRoom:
            hub.lose_later(code.strip().upper())
            raise ApiError(503, MOVING) from None

    ROUTED[method.__name__] = method
    return routed


class Elsewhere(Exception):
    """The room is owned by another process (``node``)."""

    def __init__(self, node: str) -> None:
        super().__init__(f"the room is served by process {node}")
        self.node = node


class Link:
    """A websocket of this process: its room, whose owner (here or elsewhere) it is
    attached to, and its own message window (the flood limit per socket)."""

    def __init__(
        self, ws: WebSocket, code: str, hashed: str | None, address: str, deltas: bool = False
    ) -> None:
        self.ws = ws
        self.deltas = deltas  # the client asked for deltas (deltas.py)
        self.code = code
        self.hashed = hashed  # the token's hash (None: a spectator)
        self.address = address
        self.id = secrets.token_hex(8)
        self.conn: Conn | None = None  # attached to the room owned here
        self.room: Room | None = None
        self.owner: str | None = None  # attached to the room owned by this process
        self.sent: deque[float] = deque()
        self.closed = False
        self.outbox: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.sender: asyncio.Task[None] | None = None
        self.settling = asyncio.Lock()  # one attachment at a time (Hub._settle)
        # When an attach was sent to the owner that has not been answered yet (None: it was).
        # Pub/sub delivers at most once: an attach, or the state that answers it, published
        # as Redis comes back is lost, and the sweep asks again.
        self.asked: float | None = None

    def deliver(self, kind: str, value: Any) -> None:
        """Queue what the owner sent for this socket (a text, or a close), in order."""
        self.outbox.put_nowait((kind, value))
        if self.sender is None or self.sender.done():
            self.sender = asyncio.create_task(self._send())

    async def _send(self) -> None:
        while not self.outbox.empty():
            kind, value = self.outbox.get_nowait()
            with contextlib.suppress(Exception):
                if kind == "text":
                    await self.ws.send_text(value)
                else:
                    self.closed = True
                    await self.ws.close(code=int(value))


class RemoteSocket:
    """A socket of another process, as a room owned here sees it (Conn.ws)."""

    def __init__(self, cluster: Cluster, node: str, link: str) -> None:
        self.cluster, self.node, self.link = cluster, node, link

    async def send_text(self, text: str) -> None:
        await self.cluster.send(self.node, {"kind": "out", "conn": self.link, "text": text})

    async def send_json(self, data: Any) -> None:
        await self.send_text(json.dumps(data, ensure_ascii=False))

    async def close(self, code: int = 1000) -> None:
        await self.cluster.send(self.node, {"kind": "close", "conn": self.link, "code": code})


class Inbox:
    """The messages of another process's socket for a room owned here, handled one after
    another, as a local socket's are."""

    def __init__(self, code: str, address: str) -> None:
        self.code = code
        self.address = address
        self.conn: Conn | None = None
        self.room: Room | None = None
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None


class Hub:
    """Every room, the store behind them, and the server's settings."""

    def __init__(
        self,
        store: Store,
        *,
        bot_delay: float = 0.8,
        grace: float = 60.0,
        slap_window: float = 1.0,
        flood_limit: int = FLOOD_LIMIT,
        round_wait: float = ROUND_WAIT,
        reaction_gap: float = REACTION_GAP,
        limits: Limits | None = None,
        cluster: Cluster | None = None,
    ) -> None:
        self.store = store
        self.cluster = cluster  # many processes (Redis); None: this one alone
        self.limits = limits or Limits()  # the sockets a seat and a room may have open
        self.flood_limit = flood_limit
        self.round_wait = round_wait
        self.reaction_gap = reaction_gap
        self.bot_delay = bot_delay
        self.grace = grace
        self.slap_window = slap_window
        self.rooms: dict[str, Room] = {}
        # per address: the times of its messages in the last second (the flood limit)
        self.address_sent: dict[str, deque[float]] = {}
        self.loading = asyncio.Lock()
        # This process's websockets, by room and id, wherever their room is owned.
        self.links: dict[str, dict[str, Link]] = {}
        # Sockets of other processes attached to rooms owned here: (process, id) -> inbox.
        self.remote: dict[tuple[str, str], Inbox] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._sweeps = 0
        # Per process: when it last sent this one a message (monotonic). A message proves the
        # sender alive as well as its heartbeat does; after Redis restarts (the heartbeats
        # lost), a socket attached again before its process's heartbeat was renewed must not
        # be taken for one of a dead process.
        self.heard: dict[str, float] = {}

    # ------------------------------------------------------------- start and stop

    async def load(self) -> None:
        """Bring back every unfinished room from the store, each game where it stopped; with
        other processes, those no live process owns (the others are theirs)."""
        if self.cluster is not None:
            cluster = self.cluster
            cluster.on_lost = self.lost
            cluster.on_reconnect = self._reconnected
            cluster.on_sweep = self._sweep
            await cluster.start(self._message)
            codes = await self.store.run(self.store.unfinished_codes)
            if codes:
                await cluster.redis.sadd(LIVE_ROOMS, *codes)
            for code in codes:
                with contextlib.suppress(Elsewhere):
                    await self.find(code)
            return
        for stored in await self.store.run(self.store.unfinished):
            room = await self._bring_back(stored)
            if room is not None:
                async with room.lock:
                    room.kick()

    async def _bring_back(self, stored: StoredRoom) -> Room | None:
        """A stored room made live again (and registered), or None when its record fails."""
        try:
            room = self._revive(stored)
        except (YanivError, KeyError, TypeError, ValueError) as exc:
            log.error("room %s could not be resumed: %s", stored.code, exc)
            return None
        self.rooms[room.code] = room
        latest = await self.store.run(history.latest_game, self.store, room.code)
        if latest is not None:
            room.game_no, _ = latest
            room._logged = latest
        elif room.table is not None:
            room.game_no = 1  # a game older than the history: its row comes with a move
        return room

    def _revive(self, stored: StoredRoom) -> Room:
        seats = [None if s is None else SeatInfo.from_dict(s) for s in stored.seats]
        table = None
        if stored.record is not None:
            data = record.loads(stored.record, f"room {stored.code}")
            game = record.resume(data)
            table_seats = [Seat.from_dict(s) for s in data["table"]["seats"]]
            stand_in = data["table"].get("stand_in", [])
            table = Table(
                game.rules,
                table_seats,
                game=game,
                stand_in_moves=stand_in if isinstance(stand_in, list) else [],
            )
        room = Room(self, stored.code, RuleSet.from_dict(stored.rules), seats, stored.status, table)
        room.tokens = dict(stored.players)
        for seat, number, move_id in stored.move_ids or []:
            room.applied[(int(seat), int(number), str(move_id))] = None
        room.turn_timer = turn_timer_of(stored.options)
        # Nobody is connected yet: every person's seat is held for the grace period.
        for seat, info in enumerate(seats):
            if info is not None and info.kind == "human" and stored.status == "playing":
                room.hold(seat)
        return room

    async def close(self) -> None:
        """Stop every room and release the store (and the rooms' leases: another process
        takes them over at once)."""
        # Rooms leave (taken over, released: whoever takes one out closes it) and come (a
        # lookup, a new game) while one closes: pass over those in memory until each is
        # closed, once (kept by identity: a room that left and came back is a new object).
        closed: dict[int, Room] = {}
        while left := [r for r in self.rooms.values() if closed.get(id(r)) is not r]:
            for room in left:
                if self.rooms.get(room.code) is room:  # (not taken out meanwhile)
                    closed[id(room)] = room
                    await room.close()
        if self.cluster is not None:
            await self.cluster.close()
        await asyncio.to_thread(self.store.close)

    # ------------------------------------------------------------- requests

    async def find(self, code: str) -> Room | None:
        """The room with ``code``, or None. A finished room is not loaded at the start; it is
        brought back from the store when asked for (its players may come back to its end,
        or ask for a rematch, after a restart)."""
        code = code.strip().upper()
        room = self.rooms.get(code)
        if room is not None or len(code) != CODE_LENGTH or not set(code) <= CODE_SET:
            return room
        cluster = self.cluster
        if cluster is not None:
            owner = await cluster.owner(code)
            if owner is not None and owner != cluster.node:
                raise Elsewhere(owner)
        stored = await self.store.run(self.store.room, code)
        if stored is None:
            return None
        async with self.loading:  # two requests for the same room bring it back once
            room = self.rooms.get(code)
            if room is not None:
                return room
            if cluster is None:
                return await self._bring_back(stored)
            return await self._take_over(code)

    async def _take_over(self, code: str) -> Room | None:
        """Own room ``code`` (its lease, then its fencing token, then its state as last
        stored: what its last owner wrote after that is refused), or Elsewhere."""
        cluster = self.cluster
        assert cluster is not None
        if not await cluster.acquire(code):
            raise Elsewhere(await cluster.owner(code) or "")
        try:
            epoch = await self.store.run(self.store.claim, code)
            stored = await self.store.run(self.store.room, code)
        except BaseException:
            await cluster.release(code)
            raise
        room = None if stored is None else await self._bring_back(stored)
        if room is None:
            await cluster.release(code)
            return None
        room.epoch = epoch
        log.info("room %s: served by this process now (epoch %d)", code, epoch)
        if room.status == "playing":
            async with room.lock:
                room.kick()
        for link in list(self.links.get(code, {}).values()):  # sockets here that waited
            self._spawn(self._settle(link))
        return room

    async def room(self, code: str) -> Room:
        """The room with ``code``, or a 404 (Elsewhere: another process owns it)."""
        room = await self.find(code)
        if room is None:
            raise ApiError(404, f"there is no room {code[:10]!r}")
        return room

    @at_owner
    async def info(self, code: str) -> dict[str, Any]:
        """``GET /api/rooms/{code}``, from the process that owns the room."""
        return (await self.room(code)).info()

    async def _remote_call(self, node: str, op: str, args: list[Any]) -> dict[str, Any]:
        """Run the Hub call ``op`` at process ``node``, which owns the room."""
        assert self.cluster is not None
        try:
            answer = await self.cluster.call(node, op, args)
        except CallFailed as exc:
            raise ApiError(503, f"{exc}: try again in a few seconds") from None
        if "error" in answer:
            raise ApiError(int(answer.get("status", 500)), str(answer["error"]))
        result: dict[str, Any] = answer["ok"]
        return result

    async def _new_code(self) -> str:
        """A code never used, whose lease this process holds (with other processes)."""
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if code in self.rooms or await self.store.run(self.store.code_taken, code):
                continue
            if self.cluster is None or await self.cluster.acquire(code):
                return code

    def _created(self, room: Room) -> None:
        """Register a new room (its row is written with the first fencing token)."""
        if self.cluster is not None:
            room.epoch = 1
        self.rooms[room.code] = room

    @staticmethod
    def _rules(options: dict[str, Any]) -> RuleSet:
        try:
            return RuleSet.from_dict(options)
        except (YanivError, TypeError, ValueError) as exc:
            raise ApiError(400, str(exc)) from None

    @staticmethod
    def _level(level: str) -> str:
        if level not in bot_names():
            raise ApiError(
                400, f"unknown bot level {level[:20]!r}; levels: " + ", ".join(bot_names())
            )
        return level

    async def _add_player(self, room: Room, seat: int, name: str, key: str | None = None) -> str:
        token = secrets.token_urlsafe(32)
        hashed = token_hash(token)
        room.tokens[hashed] = seat
        await self.store.run(self.store.add_player, room.code, hashed, seat, name)
        if key is not None:
            await self.store.run(
                history.set_key, self.store, room.code, seat, history.key_hash(key)
            )
        return token

    async def new_game(
        self,
        name: str,
        opponents: list[str],
        rules: dict[str, Any],
        key: str | None = None,
        turn_timer: int = 0,
    ) -> dict[str, Any]:
        """A game against the computer, dealt at once (no turn timer unless asked for)."""
        ruleset = self._rules(rules)
        seats: list[SeatInfo | None] = [SeatInfo(name)]
        for i, level in enumerate(opponents):
            seats.append(
                SeatInfo(bot_name(seats, i + 1, i), "bot", self._level(level), secrets.randbits(31))
            )
        room = Room(self, await self._new_code(), ruleset, seats)
        room.turn_timer = turn_timer
        self._created(room)
        async with room.lock:
            room.start_table()
            await room.persist()
            await room.save_options()
            token = await self._add_player(room, 0, name, key)
            room.kick()
        return {"room": room.code, "token": token, "seat": 0}

    async def new_room(
        self, name: str, rules: dict[str, Any], key: str | None = None, turn_timer: int = 0
    ) -> dict[str, Any]:
        """A room for friends; the creator is its host (seat 0)."""
        room = Room(self, await self._new_code(), self._rules(rules), [SeatInfo(name)])
        room.turn_timer = turn_timer
        self._created(room)
        async with room.lock:
            await room.persist()
            await room.save_options()
            token = await self._add_player(room, 0, name, key)
        return {"room": room.code, "token": token, "seat": 0}

    @at_owner
    async def join(self, code: str, name: str, key: str | None = None) -> dict[str, Any]:
        """A person takes the next free seat of a waiting room."""
        room = await self.room(code)
        async with room.lock:
            if room.status != "waiting":
                raise ApiError(409, "the game has started: watch it instead")
            free = [i for i, s in enumerate(room.seats) if s is None]
            if free:
                seat = free[0]
                room.seats[seat] = SeatInfo(name)
            elif len(room.seats) < MAX_PLAYERS:
                seat = len(room.seats)
                room.seats.append(SeatInfo(name))
            else:
                raise ApiError(409, f"the room is full ({MAX_PLAYERS} seats)")
            for i, other in enumerate(room.seats):  # a bot of the newcomer's name is renamed
                if (
                    other is not None
                    and other.kind == "bot"
                    and other.name.casefold() == name.casefold()
                ):
                    renamed = bot_name(room.seats, i, i)
                    room.seats[i] = SeatInfo(renamed, "bot", other.level, other.seed)
            await room.persist()
            token = await self._add_player(room, seat, name, key)
        await room.broadcast()
        return {"room": room.code, "token": token, "seat": seat}

    def _host(self, room: Room, token: str) -> None:
        if room.tokens.get(token_hash(token)) != 0:
            raise ApiError(403, "only the room's host may do that")

    @at_owner
    async def settings(
        self,
        code: str,
        token: str,
        rules: dict[str, Any] | None,
        bots: list[tuple[int, str]] | None,
        turn_timer: int | None = None,
    ) -> dict[str, Any]:
        """The host changes the rules, the turn timer or puts bots in seats, before the
        start."""
        room = await self.room(code)
        async with room.lock:
            self._host(room, token)
            if room.status != "waiting":
                raise ApiError(409, "the game has started: the settings are fixed")
            ruleset = self._rules(rules) if rules is not None else room.rules
            seats = list(room.seats)
            for seat, level in bots or []:
                self._level(level)
                if seat >= MAX_PLAYERS:
                    raise ApiError(400, f"seat {seat}: seats are 0 to {MAX_PLAYERS - 1}")
                while len(seats) <= seat:
                    seats.append(None)
                current = seats[seat]
                if current is not None and current.kind == "human":
                    raise ApiError(409, f"seat {seat} is {current.name}'s")
                name = bot_name(seats, seat, seat)
                seats[seat] = SeatInfo(name, "bot", level, secrets.randbits(31))
            room.rules, room.seats = ruleset, seats
            await room.persist()
            if turn_timer is not None and turn_timer != room.turn_timer:
                room.turn_timer = turn_timer
                await room.save_options()
        await room.broadcast()
        return room.info()

    @at_owner
    async def start(self, code: str, token: str) -> dict[str, Any]:
        """The host deals the first round."""
        room = await self.room(code)
        async with room.lock:
            self._host(room, token)
            if room.status != "waiting":
                raise ApiError(409, "the game has already started")
            empty = [i for i, s in enumerate(room.seats) if s is None]
            if empty:
                raise ApiError(409, f"seat {empty[0]} is empty: fill it with a bot")
            if len(room.seats) < MIN_PLAYERS:
                raise ApiError(
                    409,
                    f"a game needs {MIN_PLAYERS} players at least: wait for a friend or add a bot",
                )
            try:
                room.start_table()
            except YanivError as exc:
                raise ApiError(400, str(exc)) from None
            await room.persist()
            room.kick()
        await room.broadcast()
        return room.info()

    @at_owner
    async def rematch(self, code: str, token: str, game: int | None) -> dict[str, Any]:
        """Any player of the room starts a new game with the same seats once the last is over.

        ``game``: the number of the game the player saw end; when a newer one has already
        started (another player asked first), nothing changes.
        """
        room = await self.room(code)
        async with room.lock:
            seat = room.tokens.get(token_hash(token))
            if seat is None:
                raise ApiError(403, "this token is not a player's of this room")
            if game is not None and game > room.game_no:
                raise ApiError(400, f"game: this room has had {room.game_no} games, not {game}")
            if game is None or game == room.game_no:  # else someone asked first: no change
                if room.status != "over" or room.table is None:
                    raise ApiError(409, "the game is not over: a rematch comes after its end")
                await room.rematch(seat)
        await room.broadcast()
        return room.info()

    # ------------------------------------------------------------- the flood limit

    def flooding(self, link: Link, now: float) -> bool:
        """Count a message of this process's socket ``link``; whether its socket or its
        address (all of them, ``ADDRESS_FLOOD_FACTOR`` times the limit) sent too many in the
        last second."""
        limit = self.flood_limit
        over = counted(link.sent, now) > limit
        window = self.address_sent.setdefault(link.address, deque())
        over = counted(window, now) > limit * ADDRESS_FLOOD_FACTOR or over
        if len(self.address_sent) > 4096:  # forget the quiet addresses (memory stays bounded)
            for key in [k for k, w in self.address_sent.items() if not w or w[-1] <= now - 1]:
                del self.address_sent[key]
        return over

    def seat_flooding(self, room: Room, conn: Conn, now: float) -> bool:
        """Count a message of a seat, at the process that owns its room (the seat's sockets
        may be on several processes); whether the seat sent too many in the last second."""
        if conn.seat is None:
            return False
        window = room.seat_sent.setdefault(conn.seat, deque())
        return counted(window, now) > self.flood_limit

    async def _flooded(self, conn: Conn) -> None:
        await conn.send(
            {"type": "error", "message": f"more than {self.flood_limit} messages a second: goodbye"}
        )
        with contextlib.suppress(Exception):
            await conn.ws.close(code=1008)

    # ------------------------------------------------------------- sockets

    async def connect(
        self, ws: WebSocket, code: str, token: str | None, deltas: bool = False
    ) -> None:
        """Serve one websocket until it closes, attached to its room wherever it is owned."""
        await ws.accept()
        code = code.strip().upper()
        try:
            room = await self.find(code)
        except Elsewhere:
            room = None
            elsewhere = True
        except (RedisError, OSError):
            await ws.send_json({"type": "error", "message": NO_REDIS})
            await ws.close(code=1013)  # try again later
            return
        else:
            elsewhere = False
        if room is None and not elsewhere:
            await ws.send_json({"type": "error", "message": f"there is no room {code[:10]!r}"})
            await ws.close(code=4404)
            return
        address = ws.client.host if ws.client is not None else ""
        link = Link(ws, code, token_hash(token) if token else None, address, deltas)
        self.links.setdefault(code, {})[link.id] = link
        try:
            await self._settle(link)
            while not link.closed:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:
                    raw = message.get("bytes") or b""
                    text = (
                        raw.decode("utf-8", "replace")
                        if len(raw) <= MAX_MESSAGE
                        else ("x" * (MAX_MESSAGE + 1))
                    )
                if self.flooding(link, time.monotonic()):
                    await ws.send_json(
                        {
                            "type": "error",
                            "message": f"more than {self.flood_limit} messages a second: goodbye",
                        }
                    )
                    await ws.close(code=1008)
                    break
                await self._from_link(link, text)
        except Exception as exc:  # a socket that breaks mid-message
            log.debug("room %s: connection ended: %s", code, exc)
        finally:
            # Shielded: a handler cancelled as its socket closes (Starlette's test client does
            # that, a server shutting down too) still releases the seat and tells the room.
            await asyncio.shield(self._unlink(link))

    async def _from_link(self, link: Link, text: str) -> None:
        """A message of this process's socket: handled here where its room is owned here,
        else sent to the owner."""
        if link.conn is None or link.room is None or self.rooms.get(link.code) is not link.room:
            await self._settle(link)
        if link.closed:
            return
        if link.conn is not None and link.room is not None:
            room, conn = link.room, link.conn
            if self.seat_flooding(room, conn, time.monotonic()):
                await self._flooded(conn)
                link.closed = True
                return
            await self._handle(room, conn, text)
            return
        sent = False
        if link.owner is not None and self.cluster is not None:
            with contextlib.suppress(RedisError, OSError):
                sent = await self.cluster.send(
                    link.owner,
                    {
                        "kind": "msg",
                        "room": link.code,
                        "conn": link.id,
                        "node": self.cluster.node,
                        "text": text,
                    },
                )
        if not sent:
            await link.ws.send_json({"type": "error", "message": MOVING})

    async def _handle(self, room: Room, conn: Conn, text: str) -> None:
        """Answer a message in a room owned here; a failing store is told in words."""
        try:
            await room.handle(conn, text)
        except LostRoom:
            await conn.send({"type": "error", "message": f"not played: {MOVING}"})
            self.lose_later(room.code)
        except Exception as exc:
            if not store_failure(exc):
                raise
            # The store failed (down, locked, read-only): the sender is told, in words, and
            # the socket stays open for the next try.
            log.warning("room %s: the store failed: %s", room.code, one_line(exc))
            await conn.send({"type": "error", "message": failure_words(exc, True)})

    async def _admit(
        self, room: Room, ws: Any, hashed: str | None, deltas: bool = False
    ) -> Conn | None:
        """The connection of a socket to a room owned here (its seat from its token), or
        None when it is refused (told why and closed)."""
        seat = None
        if hashed is not None:
            seat = room.tokens.get(hashed)
            if seat is None:
                await ws.send_json(
                    {"type": "error", "message": "this token is not a player's of this room"}
                )
                await ws.close(code=4403)
                return None
        crowded = sockets_refusal(self.limits, (c.seat for c in room.conns), seat)
        if crowded is not None:
            await ws.send_json({"type": "error", "message": crowded})
            await ws.close(code=CLOSE_CROWDED)
            return None
        conn = Conn(ws, seat, deltas=deltas)
        await room.attach(conn)
        return conn

    async def _settle(self, link: Link, again: bool = False) -> None:
        """Attach this process's socket to its room where it is owned now: here (taken over
        if nobody owns it), or at another process (``again``: tell that process again)."""
        async with link.settling:
            await self._settle_now(link, again)

    async def _settle_now(self, link: Link, again: bool) -> None:
        code = link.code
        room = self.rooms.get(code)
        owner: str | None = None
        if room is None:
            try:
                room = await self.find(code)
            except Elsewhere as moved:
                owner = moved.node or None
            except (RedisError, OSError):
                return  # Redis is down: the socket's next message, or the sweep, tries again
        if room is not None:
            if link.conn is None or link.room is not room:
                link.owner = None
                conn = await self._admit(room, link.ws, link.hashed, link.deltas)
                if conn is None:
                    link.closed = True
                    return
                link.conn, link.room = conn, room
            return
        link.conn = link.room = None
        if owner is None or self.cluster is None:
            return  # nobody owns it this moment (or it is gone): the next message tries again
        if owner != link.owner or again:
            try:
                heard = await self.cluster.send(
                    owner,
                    {
                        "kind": "attach",
                        "room": code,
                        "conn": link.id,
                        "node": self.cluster.node,
                        "token": link.hashed,
                        "address": link.address,
                        "deltas": link.deltas,
                    },
                )
            except (RedisError, OSError):
                return
            # Not heard (the owner's channel is broken a moment): the sweep tries again.
            link.owner = owner if heard else None
            link.asked = time.monotonic()

    async def _unlink(self, link: Link) -> None:
        links = self.links.get(link.code)
        if links is not None:
            links.pop(link.id, None)
            if not links:
                del self.links[link.code]
        if link.conn is not None and link.room is not None:
            await link.room.detach(link.conn)
        elif link.owner is not None and self.cluster is not None:
            with contextlib.suppress(RedisError, OSError):
                await self.cluster.send(
                    link.owner,
                    {
                        "kind": "detach",
                        "room": link.code,
                        "conn": link.id,
                        "node": self.cluster.node,
                    },
                )

    # ------------------------------------------------------------- other processes

    async def _message(self, message: dict[str, Any]) -> None:
        """A message from another process (on this process's channel, in order)."""
        kind = message.get("kind")
        sender = message.get("node") if kind != "call" else message.get("from")
        if isinstance(sender, str):
            self.heard[sender] = time.monotonic()
        if kind in ("out", "close"):
            link = self._link(str(message.get("conn")))
            if link is not None:
                link.asked = None  # the owner answered
                link.deliver(
                    "text" if kind == "out" else "close",
                    message.get("text") if kind == "out" else message.get("code", 1000),
                )
        elif kind == "moved":
            for link in list(self.links.get(str(message.get("room")), {}).values()):
                if link.owner == message.get("node"):
                    link.owner = None
                    await self._settle(link)
        elif kind in ("attach", "msg", "detach"):
            key = (str(message.get("node")), str(message.get("conn")))
            inbox = self.remote.get(key)
            if inbox is None:
                if kind != "attach":
                    if kind == "msg":  # the owner forgot it (a restart): attach again
                        await self._tell(
                            key[0],
                            {"kind": "moved", "room": message.get("room"), "node": self._node()},
                        )
                    return
                inbox = self.remote[key] = Inbox(
                    str(message.get("room")), str(message.get("address") or "")
                )
            inbox.queue.put_nowait(message)
            if inbox.task is None or inbox.task.done():
                inbox.task = asyncio.create_task(self._drain(key, inbox))
        elif kind == "call":
            self._spawn(self._answer(message))

    def _node(self) -> str:
        return "" if self.cluster is None else self.cluster.node

    async def _tell(self, node: str, message: dict[str, Any]) -> None:
        if self.cluster is not None:
            with contextlib.suppress(RedisError, OSError):
                await self.cluster.send(node, message)

    def _link(self, link_id: str) -> Link | None:
        for links in self.links.values():
            link = links.get(link_id)
            if link is not None:
                return link
        return None

    async def _drain(self, key: tuple[str, str], inbox: Inbox) -> None:
        """Handle another process's socket's messages for a room owned here, in order."""
        assert self.cluster is not None
        node, link_id = key
        while not inbox.queue.empty():
            message = inbox.queue.get_nowait()
            kind = message["kind"]
            room = self.rooms.get(inbox.code)
            if kind == "detach":
                self.remote.pop(key, None)
                if inbox.conn is not None and inbox.room is not None:
                    await inbox.room.detach(inbox.conn)
                return
            if room is None:  # not (or no longer) owned here: the socket looks again
                self.remote.pop(key, None)
                await self._tell(node, {"kind": "moved", "room": inbox.code, "node": self._node()})
                return
            if kind == "attach":
                if inbox.conn is not None and inbox.room is room:
                    await room.send_state(inbox.conn)  # attached again (after an outage)
                    continue
                ws = RemoteSocket(self.cluster, node, link_id)
                token = message.get("token")
                conn = await self._admit(
                    room,
                    ws,
                    token if isinstance(token, str) else None,
                    message.get("deltas") is True,
                )
                if conn is None:
                    self.remote.pop(key, None)
                    return
                inbox.conn, inbox.room = conn, room
            elif kind == "msg" and inbox.conn is not None and inbox.room is room:
                if self.seat_flooding(room, inbox.conn, time.monotonic()):
                    await self._flooded(inbox.conn)
                    continue
                await self._handle(room, inbox.conn, str(message.get("text", "")))

    async def _answer(self, message: dict[str, Any]) -> None:
        """Run a Hub call another process asked for (a room owned here) and answer it."""
        assert self.cluster is not None
        method = ROUTED.get(str(message.get("op")))
        args = message.get("args")
        answer: dict[str, Any]
        if method is None or not isinstance(args, list) or not args:
            answer = {"error": "unknown call", "status": 500}
        else:
            try:
                answer = {"ok": await method(self, *args)}
            except ApiError as exc:
                answer = {"error": exc.message, "status": exc.status}
            except (Elsewhere, LostRoom):
                answer = {"error": MOVING, "status": 503}
            except Exception as exc:
                if store_failure(exc):
                    answer = {"error": failure_words(exc, True), "status": 503}
                else:
                    log.exception("a call from another process failed")
                    answer = {"error": "the server failed; try again", "status": 500}
        await self.cluster.answer(message, answer)

    def _spawn(self, coro: Any) -> None:
        """Run ``coro`` in a task of its own, kept until it ends."""
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def lose_later(self, code: str) -> None:
        """Let room ``code`` go (another process took it over), outside the caller's task
        (which may be one of the room's own)."""
        self._spawn(self.lost(code))

    async def lost(self, code: str) -> None:
        """Room ``code`` is owned by another process now: it leaves memory here, and its
        sockets here and elsewhere are attached to its new owner."""
        room = self.rooms.pop(code, None)
        if room is None:
            return
        log.warning("room %s: another process serves it now", code)
        await room.close()
        for key, inbox in list(self.remote.items()):
            if inbox.code == code:
                self.remote.pop(key, None)
                await self._tell(key[0], {"kind": "moved", "room": code, "node": self._node()})
        if self.cluster is not None:
            await self.cluster.release(code)
        for link in list(self.links.get(code, {}).values()):
            link.conn = link.room = None
            link.owner = None
            await self._settle(link)

    async def released(self, code: str) -> None:
        """A finished room left memory: the store's caches of it and its lease go, and it
        is no longer in play."""
        await self.store.run(self.store.forget, code)
        if self.cluster is not None:
            await self.cluster.release(code, finished=True)

    async def _reconnected(self) -> None:
        """Redis is back: every socket here attached elsewhere is attached again (what was
        sent meanwhile is lost; the owner sends the state afresh)."""
        for links in list(self.links.values()):
            for link in list(links.values()):
                if link.owner is not None:
                    await self._settle(link, again=True)

    async def _sweep(self) -> None:
        """Every second: take over rooms whose process died, attach this process's sockets
        to their rooms' new owners, and let go of sockets of processes that died."""
        cluster = self.cluster
        assert cluster is not None
        self._sweeps += 1
        if self._sweeps % 30 == 0:  # the set of rooms in play is refilled from the store
            codes = await self.store.run(self.store.unfinished_codes)
            if codes:
                await cluster.redis.sadd(LIVE_ROOMS, *codes)
        for code in await cluster.orphans():
            if code not in self.rooms:
                with contextlib.suppress(Elsewhere):
                    if await self.find(code) is None:
                        # Not in the store (a row deleted, another deployment's room on the
                        # same Redis): not in play. Left in the set, it was looked for in the
                        # store every second, by every process, for ever.
                        await cluster.redis.srem(LIVE_ROOMS, code)
        now = time.monotonic()
        for code, links in list(self.links.items()):
            if code in self.rooms:
                continue
            owner = await cluster.owner(code)
            for link in list(links.values()):
                if owner is None or owner != link.owner:
                    await self._settle(link)
                elif link.asked is not None and now - link.asked > UNANSWERED_S:
                    await self._settle(link, again=True)  # the attach or its answer was lost
        nodes = {node for node, _ in self.remote}
        recent = {n for n in nodes if now - self.heard.get(n, -math.inf) < LEASE_S}
        gone = nodes - recent - await cluster.alive(nodes - recent)
        for node in set(self.heard) - nodes:  # no socket of it here: forgotten
            if now - self.heard[node] >= LEASE_S:
                del self.heard[node]
        for key, inbox in list(self.remote.items()):
            if key[0] in gone:
                self.remote.pop(key, None)
                if inbox.conn is not None and inbox.room is not None:
                    await inbox.room.detach(inbox.conn)
                    # Its process may be alive still (its heartbeat late, lost with a Redis
                    # restart): told, it attaches the socket again. A dead one hears nothing.
                    await self._tell(
                        key[0], {"kind": "moved", "room": inbox.code, "node": self._node()}
                    )
