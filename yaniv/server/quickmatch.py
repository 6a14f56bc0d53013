"""Quick match: "play someone now". A person waits in a rule set's queue and is seated with
the others waiting there: at once when there are four, or when two (or three) have been
together for ``pair_wait`` seconds. A person alone for ``alone_wait`` seconds is offered
computer players in the empty seats, or keeps waiting.

The queue is a table (``quick_tickets``), not any process's memory, so every server process
sees it and any may seat the people waiting: each poll runs the match. A group is taken by an
atomic claim: the waiting rows are read (on PostgreSQL ``FOR UPDATE SKIP LOCKED``, so two
processes do not wait on each other) and moved to ``seating`` by one conditional UPDATE (``...
WHERE status = 'waiting'``); when it moves fewer rows than it read, another process claimed
some first, and the claim is rolled back. The claimer then seats them through the Hub's public
calls (``new_room``, ``join``, ``settings``, ``start``) and gives each ticket its room, seat
and token. A claim that was never finished (its process died) goes back to waiting after
``stuck`` seconds.

A person waits by polling ``GET /api/quickmatch/{ticket}`` (the browser keeps the ticket, so
the wait survives a reload); a ticket not polled for ``grace`` seconds has left the queue. One
queue per person: the row of a waiting ticket holds its key's hash in a unique column.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field, field_validator
from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError

from ..bots.base import bot_names
from ..errors import YanivError
from ..rules import PRESETS, RuleSet
from . import history
from .models import QuickTicketRow
from .rooms import ApiError, Hub
from .schemas import _check_rules, _clean_name
from .storage import Store

#: The presets offered by name (any rule set may be asked for as ``rules``).
OFFERED = ("standard", "quick", "hebrew")
#: The seats of a quick-match table.
TABLE = 4
#: A ticket: 32 characters of base64url.
TICKET = re.compile(r"[A-Za-z0-9_-]{20,32}")
#: Finished tickets are forgotten after this long.
KEEP = timedelta(days=1)


@dataclass(frozen=True)
class QuickSettings:
    """The queue's timing (seconds) and the computer players' level."""

    pair_wait: float = 10.0  # two or three waiting together are seated after this
    alone_wait: float = 30.0  # a person alone this long is offered computer players
    grace: float = 15.0  # a ticket not polled this long has left the queue
    stuck: float = 60.0  # a claim not finished this long goes back to waiting
    bot_level: str = "medium"


#: The environment variable that may set the timing of a server's queue, for tests and
#: trials: ``pair_wait=1,alone_wait=3,grace=15``.
ENVIRONMENT = "YANIV_QUICKMATCH"


def settings_from(text: str) -> QuickSettings:
    """Settings from ``NAME=SECONDS,...`` (ValueError in words for an unknown name or a bad
    number)."""
    values: dict[str, float] = {}
    fields = ("pair_wait", "alone_wait", "grace", "stuck")
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, value = part.partition("=")
        if name.strip() not in fields:
            raise ValueError(f"{ENVIRONMENT}: {name.strip()!r} is not one of " + ", ".join(fields))
        try:
            values[name.strip()] = float(value)
        except ValueError:
            raise ValueError(f"{ENVIRONMENT}: {part!r} is not NAME=SECONDS") from None
    base = QuickSettings()
    return QuickSettings(
        pair_wait=values.get("pair_wait", base.pair_wait),
        alone_wait=values.get("alone_wait", base.alone_wait),
        grace=values.get("grace", base.grace),
        stuck=values.get("stuck", base.stuck),
    )


def settings_of(request: Request) -> QuickSettings:
    """The app's settings (``app.state.quick``), else those of the environment, else the
    defaults."""
    found = getattr(request.app.state, "quick", None)
    if not isinstance(found, QuickSettings):
        found = settings_from(os.environ.get(ENVIRONMENT, ""))
        request.app.state.quick = found
    return found


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(when: datetime) -> datetime:
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def queue_of(preset: str | None, rules: dict[str, Any] | None) -> tuple[str, dict[str, Any]]:
    """The queue's name and its rule set (as a dict) for a preset's name or a rule set; a
    rule set equal to a preset waits in that preset's queue. ValueError in words."""
    if (preset is None) == (rules is None):
        raise ValueError("name a preset (standard, quick or hebrew) or give a rule set, not both")
    if preset is not None:
        if preset not in OFFERED:
            raise ValueError(
                f"preset: {preset[:20]!r} is not offered; presets: " + ", ".join(OFFERED)
            )
        ruleset = PRESETS[preset]
    else:
        try:
            ruleset = RuleSet.from_dict(dict(rules or {}))
        except (YanivError, TypeError, ValueError) as exc:
            raise ValueError(f"rules: {exc}") from None
    data = ruleset.to_dict()
    name = ruleset.preset_name()
    if name is None:
        digest = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:32]
        name = f"rules:{digest}"
    return name, data


class _Taken(Exception):
    """Another process claimed some of the rows first."""


class Refused(Exception):
    """A request refused: the HTTP status and the words."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Waiting:
    """A claimed ticket, to be seated."""

    id: str
    key_hash: str
    name: str
    rules: dict[str, Any]


# ------------------------------------------------------------------ the store's thread


def _live(queue: str, now: datetime, quick: QuickSettings) -> Any:
    return (
        (QuickTicketRow.queue == queue)
        & (QuickTicketRow.status == "waiting")
        & (QuickTicketRow.seen >= now - timedelta(seconds=quick.grace))
    )


def describe(store: Store, ticket: str, now: datetime, quick: QuickSettings) -> dict[str, Any]:
    """What the ticket's holder sees (and, for a waiting ticket, a heartbeat: it is polled)."""
    with store.session() as session, session.begin():
        row = session.get(QuickTicketRow, ticket)
        if row is None:
            raise Refused(404, "there is no such quick-match ticket (it may have expired)")
        out: dict[str, Any] = {
            "ticket": row.id,
            "status": row.status,
            "queue": row.queue,
            "rules": dict(row.rules),
            "name": row.name,
        }
        if row.status == "waiting" and _aware(row.seen) < now - timedelta(seconds=quick.grace):
            row.status, row.active = "left", None  # not polled in time: gone from the queue
            out["status"] = "left"
        if row.status in ("waiting", "seating"):
            if row.status == "waiting":
                row.seen = now
            waited = (now - _aware(row.created)).total_seconds()
            count = int(
                session.scalar(
                    select(func.count())
                    .select_from(QuickTicketRow)
                    .where(_live(row.queue, now, quick))
                )
                or 0
            )
            out.update(
                waiting=max(count, 1),
                waited=round(waited, 1),
                offer_bots=row.status == "waiting" and count <= 1 and waited >= quick.alone_wait,
                bots_after=quick.alone_wait,
                pair_wait=quick.pair_wait,
            )
        elif row.status == "seated":
            out.update(room=row.room, seat=row.seat, token=row.token, bots=row.bots)
        return out


def enqueue(
    store: Store,
    hashed: str,
    name: str,
    queue: str,
    rules: dict[str, Any],
    now: datetime,
    quick: QuickSettings,
) -> str:
    """A new ticket in ``queue`` for the key, or the key's ticket already waiting there;
    Refused when the key waits in another queue."""
    with store.session() as session, session.begin():
        session.execute(
            delete(QuickTicketRow).where(
                QuickTicketRow.status.in_(("seated", "left")), QuickTicketRow.created < now - KEEP
            )
        )
        mine = session.scalar(select(QuickTicketRow).where(QuickTicketRow.active == hashed))
        if mine is not None and mine.status == "waiting":
            if _aware(mine.seen) < now - timedelta(seconds=quick.grace):
                mine.status, mine.active = "left", None  # gone: a new ticket instead
                session.flush()
            elif mine.queue == queue:
                mine.seen, mine.name = now, name
                return mine.id
            else:
                raise Refused(
                    409,
                    f"you are already waiting for a table ({_queue_words(mine.queue)}): "
                    "leave that queue first",
                )
        elif mine is not None:
            raise Refused(409, "you are being seated at a table now: wait a moment")
        ticket = secrets.token_urlsafe(24)
        try:
            with session.begin_nested():
                session.add(
                    QuickTicketRow(
                        id=ticket,
                        key_hash=hashed,
                        active=hashed,
                        queue=queue,
                        rules=rules,
                        name=name,
                        status="waiting",
                        created=now,
                        seen=now,
                        bots=0,
                    )
                )
        except IntegrityError:  # the same key, at the same moment, in another process
            raise Refused(
                409, "you are already waiting for a table: leave that queue first"
            ) from None
        return ticket


def _queue_words(queue: str) -> str:
    return "your own rules" if queue.startswith("rules:") else queue


def claim(store: Store, queue: str, now: datetime, quick: QuickSettings) -> list[Waiting]:
    """The people to seat together now in ``queue`` (moved to ``seating``), or none."""
    try:
        return _claim(store, queue, now, quick)
    except _Taken:
        return []


def _claim(store: Store, queue: str, now: datetime, quick: QuickSettings) -> list[Waiting]:
    with store.session() as session, session.begin():
        session.execute(
            update(QuickTicketRow)
            .where(
                QuickTicketRow.queue == queue,
                QuickTicketRow.status == "waiting",
                QuickTicketRow.seen < now - timedelta(seconds=quick.grace),
            )
            .values(status="left", active=None)
        )
        session.execute(
            update(QuickTicketRow)
            .where(
                QuickTicketRow.queue == queue,
                QuickTicketRow.status == "seating",
                QuickTicketRow.claimed < now - timedelta(seconds=quick.stuck),
            )
            .values(status="waiting", claimed=None, seen=now)
        )
        rows = session.scalars(
            select(QuickTicketRow)
            .where(_live(queue, now, quick))
            .order_by(QuickTicketRow.created, QuickTicketRow.id)
            .limit(TABLE)
            .with_for_update(skip_locked=True)
        ).all()
        if len(rows) < TABLE:
            ready = len(rows) >= 2 and _aware(rows[1].created) <= now - timedelta(
                seconds=quick.pair_wait
            )
            if not ready:
                return []
        ids = [r.id for r in rows]
        moved = len(
            session.execute(
                update(QuickTicketRow)
                .where(QuickTicketRow.id.in_(ids), QuickTicketRow.status == "waiting")
                .values(status="seating", claimed=now)
                .returning(QuickTicketRow.id)
            ).all()
        )
        if moved != len(ids):  # another process took some of them first: roll back
            raise _Taken
        return [Waiting(r.id, r.key_hash, r.name, dict(r.rules)) for r in rows]


def claim_alone(store: Store, ticket: str, now: datetime, quick: QuickSettings) -> Waiting:
    """The ticket alone, claimed to be seated with computer players; Refused when it is not
    waiting, has not waited ``alone_wait`` seconds, or is not alone."""
    with store.session() as session, session.begin():
        row = session.get(QuickTicketRow, ticket)
        if row is None:
            raise Refused(404, "there is no such quick-match ticket (it may have expired)")
        if row.status != "waiting":
            raise Refused(409, f"this ticket is not waiting (it is {row.status})")
        waited = (now - _aware(row.created)).total_seconds()
        if waited < quick.alone_wait:
            raise Refused(
                409, f"computer players are offered after {quick.alone_wait:g} s alone in the queue"
            )
        others = session.scalar(
            select(func.count())
            .select_from(QuickTicketRow)
            .where(_live(row.queue, now, quick), QuickTicketRow.id != ticket)
        )
        if others:
            raise Refused(409, "someone else is waiting now: you will be seated together")
        moved = len(
            session.execute(
                update(QuickTicketRow)
                .where(QuickTicketRow.id == ticket, QuickTicketRow.status == "waiting")
                .values(status="seating", claimed=now)
                .returning(QuickTicketRow.id)
            ).all()
        )
        if moved != 1:
            raise Refused(409, "this ticket is being seated already")
        return Waiting(row.id, row.key_hash, row.name, dict(row.rules))


def mark_seated(store: Store, code: str, seats: list[tuple[str, int, str]], bots: int) -> None:
    """The claimed tickets are seated: each its room, seat and token."""
    with store.session() as session, session.begin():
        for ticket, seat, token in seats:
            session.execute(
                update(QuickTicketRow)
                .where(QuickTicketRow.id == ticket)
                .values(status="seated", active=None, room=code, seat=seat, token=token, bots=bots)
            )


def release(store: Store, tickets: list[str], now: datetime) -> None:
    """Claimed tickets that could not be seated go back to waiting."""
    with store.session() as session, session.begin():
        session.execute(
            update(QuickTicketRow)
            .where(QuickTicketRow.id.in_(tickets), QuickTicketRow.status == "seating")
            .values(status="waiting", claimed=None, seen=now)
        )


def leave(store: Store, ticket: str) -> dict[str, Any]:
    """The ticket leaves its queue (a seated one keeps its seat)."""
    with store.session() as session, session.begin():
        row = session.get(QuickTicketRow, ticket)
        if row is None:
            raise Refused(404, "there is no such quick-match ticket (it may have expired)")
        if row.status == "waiting":
            row.status, row.active = "left", None
        elif row.status == "seating":
            raise Refused(409, "you are being seated at a table now: it is too late to leave")
        return {"ticket": row.id, "status": row.status, "room": row.room}


# ------------------------------------------------------------------ seating (the event loop)


async def seat(hub: Hub, group: list[Waiting], bots: int, level: str) -> None:
    """A room for the claimed people (and ``bots`` computer players), dealt at once."""
    store = hub.store
    try:
        first = group[0]
        answer = await hub.new_room(first.name, first.rules, None)
        code, host = str(answer["room"]), str(answer["token"])
        seats = [(first.id, int(answer["seat"]), host)]
        await store.run(history.set_key, store, code, int(answer["seat"]), first.key_hash)
        for person in group[1:]:
            joined = await hub.join(code, person.name, None)
            seats.append((person.id, int(joined["seat"]), str(joined["token"])))
            await store.run(history.set_key, store, code, int(joined["seat"]), person.key_hash)
        if bots:
            await hub.settings(
                code, host, None, [(len(group) + i, level) for i in range(bots)], None
            )
        await hub.start(code, host)
    except (ApiError, YanivError, ValueError):
        await store.run(release, store, [p.id for p in group], _now())
        raise
    await store.run(mark_seated, store, code, seats, bots)


# ------------------------------------------------------------------ the HTTP API

router = APIRouter(prefix="/api/quickmatch")


class QuickJoin(BaseModel):
    """``POST /api/quickmatch``: wait for a table of a preset's rules, or of a rule set."""

    model_config = ConfigDict(extra="forbid", strict=True, str_max_length=200)

    name: str = Field(max_length=200)
    player_key: str
    preset: str | None = None
    rules: dict[str, Any] | None = None

    _name = field_validator("name")(_clean_name)
    _key = field_validator("player_key")(history.check_key)

    @field_validator("rules")
    @classmethod
    def _rules_size(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return None if value is None else _check_rules(value)


class QuickBots(BaseModel):
    """``POST /api/quickmatch/{ticket}/bots``: play now with computer players."""

    model_config = ConfigDict(extra="forbid", strict=True)

    level: str | None = Field(default=None, max_length=20)


def _hub(request: Request) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


def _ticket(ticket: str) -> str:
    if TICKET.fullmatch(ticket) is None:
        raise HTTPException(400, "a ticket is 20 to 32 letters, digits, '-' or '_'")
    return ticket


async def _run(store: Store, fn: Any, *args: Any) -> Any:
    try:
        return await store.run(fn, *args)
    except Refused as exc:
        raise HTTPException(exc.status, exc.message) from None


async def _poll(request: Request, ticket: str) -> dict[str, Any]:
    """The ticket's state after running the match for its queue."""
    hub, quick = _hub(request), settings_of(request)
    store = hub.store
    info: dict[str, Any] = await _run(store, describe, store, ticket, _now(), quick)
    if info["status"] in ("waiting", "seating"):  # a claim stuck in seating is taken back
        group = await _run(store, claim, store, info["queue"], _now(), quick)
        if group:
            await seat(hub, group, 0, quick.bot_level)
            info = await _run(store, describe, store, ticket, _now(), quick)
    return info


@router.post("")
async def join_queue(body: QuickJoin, request: Request) -> dict[str, Any]:
    """Wait for a table (one queue per player key); the answer is the ticket's state."""
    try:
        queue, rules = queue_of(body.preset, body.rules)
    except ValueError as exc:
        raise HTTPException(400, str(exc)) from None
    store, quick = _hub(request).store, settings_of(request)
    hashed = history.key_hash(body.player_key)
    ticket = await _run(store, enqueue, store, hashed, body.name, queue, rules, _now(), quick)
    return await _poll(request, ticket)


@router.get("/{ticket}")
async def poll(ticket: str, request: Request) -> dict[str, Any]:
    """The ticket's state: waiting (how many, for how long, whether computer players are
    offered), seated (the room, seat and token) or left; polling it keeps it in the queue."""
    return await _poll(request, _ticket(ticket))


@router.post("/{ticket}/bots")
async def with_bots(ticket: str, body: QuickBots, request: Request) -> dict[str, Any]:
    """Alone in the queue long enough: a table now, computer players in the empty seats."""
    hub, quick = _hub(request), settings_of(request)
    level = body.level or quick.bot_level
    if level not in bot_names():
        raise HTTPException(
            400, f"level: {level[:20]!r} is not a bot level; levels: " + ", ".join(bot_names())
        )
    person = await _run(hub.store, claim_alone, hub.store, _ticket(ticket), _now(), quick)
    await seat(hub, [person], TABLE - 1, level)
    info: dict[str, Any] = await _run(hub.store, describe, hub.store, ticket, _now(), quick)
    return info


@router.delete("/{ticket}")
async def leave_queue(ticket: str, request: Request) -> dict[str, Any]:
    """Leave the queue."""
    store = _hub(request).store
    result: dict[str, Any] = await _run(store, leave, store, _ticket(ticket))
    return result
