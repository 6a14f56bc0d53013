"""A player's history: the games their key took part in, replays of finished ones, statistics.

A browser keeps a long-lived secret *player key* and sends it (optionally) when it creates a
game or a room or joins one; the server keeps its hash with the seat (``players.key_hash``).
Every game of a room (more than one after a rematch) has a row in ``games``: written when it
starts, and given its record and a summary of its result when it is over.

``GET /api/history`` (the key in the ``X-Player-Key`` header) lists the key's games with the
player's statistics; ``GET /api/history/{id}`` gives a finished game's record and its replay,
step by step, to its players only (an unfinished game's record would show hidden cards).
"""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Header, HTTPException, Query, Request
from sqlalchemy import insert, select, update
from sqlalchemy.orm import defer

from .. import record
from ..cards import NAMES
from ..errors import YanivError
from ..moves import Draw
from ..rules import RuleSet
from . import ratings
from .models import GameRow, PlayerRow, RoomRow
from .storage import Store, token_hash

#: The header that carries the player key.
KEY_HEADER = "X-Player-Key"
#: A player key: 32 to 100 characters of base64url (the browser makes 32 random bytes).
KEY_PATTERN = re.compile(r"[A-Za-z0-9_-]{32,100}")
KEY_RULE = "a player key is 32 to 100 characters, each a letter, a digit, '-' or '_'"
#: Games listed per request at most.
MAX_LIMIT = 200


def check_key(key: str) -> str:
    """The key if it is well formed; ValueError in words if not."""
    if not isinstance(key, str) or KEY_PATTERN.fullmatch(key) is None:
        raise ValueError(KEY_RULE)
    return key


def key_hash(key: str) -> str:
    """The stored form of a player key."""
    return token_hash(key)


# ------------------------------------------------------------------ pure: records to figures


def summarize(data: dict[str, Any]) -> dict[str, Any]:
    """What the history needs of a finished game's record (a dict of ``record.loads``).

    ``winners`` and ``scores`` (the final ones), ``rounds``, and per seat: ``calls`` (Yaniv
    calls), ``yanivs`` (calls that won the round), ``assafed`` (calls caught by an Assaf),
    ``deliberate`` (calls above the threshold, R15), ``call_total`` (the hand totals at the
    calls, summed) and ``assafs`` (Assafs the seat made on another's call).
    """
    players = list(data["players"])
    n = len(players)
    per = [
        {"calls": 0, "yanivs": 0, "assafed": 0, "deliberate": 0, "call_total": 0, "assafs": 0}
        for _ in range(n)
    ]
    scores = [0] * n
    rounds = 0
    for rnd in data["rounds"]:
        result = rnd.get("result")
        if not isinstance(result, dict):
            continue
        rounds += 1
        caller = int(result["caller"])
        kind = str(result["kind"])
        mine = per[caller]
        mine["calls"] += 1
        mine["call_total"] += int(result["hand_values"][caller])
        if kind == "yaniv":
            mine["yanivs"] += 1
        elif kind == "assaf":
            mine["assafed"] += 1
            for seat in result["assafers"]:
                per[int(seat)]["assafs"] += 1
        else:
            mine["deliberate"] += 1
        scores = [int(s) for s in result["scores"]]
    return {
        "winners": [int(w) for w in data.get("winners", [])],
        "scores": scores,
        "rounds": rounds,
        "seats": per,
    }


def place(summary: dict[str, Any], seat: int) -> int:
    """The seat's place at the end (1: a winner): winners first, then by final score."""
    winners = set(summary["winners"])
    scores = summary["scores"]

    def rank(s: int) -> tuple[int, int]:
        return (0 if s in winners else 1, scores[s] if s < len(scores) else 0)

    mine = rank(seat)
    return 1 + sum(1 for s in range(len(scores)) if rank(s) < mine)


def statistics(entries: list[tuple[dict[str, Any], int]]) -> dict[str, Any]:
    """A player's figures over finished games, each given as (summary, the player's seat)."""
    games = wins = calls = yanivs = assafed = deliberate = total = assafs = 0
    for summary, seat in entries:
        games += 1
        wins += seat in summary["winners"]
        mine = summary["seats"][seat]
        calls += mine["calls"]
        yanivs += mine["yanivs"]
        assafed += mine["assafed"]
        deliberate += mine["deliberate"]
        total += mine["call_total"]
        assafs += mine["assafs"]
    return {
        "games": games,
        "wins": wins,
        "yaniv_calls": calls,
        "yaniv_successes": yanivs,
        "success_rate": round(yanivs / calls, 4) if calls else None,
        "assafs_suffered": assafed,
        "deliberate_calls": deliberate,
        "assafs_made": assafs,
        "average_call_total": round(total / calls, 2) if calls else None,
    }


def replay_steps(data: dict[str, Any]) -> list[dict[str, Any]]:
    """A finished game, move by move, everything shown: each step has the round, the seat
    that moved and its move (None at a round's deal), every hand, the top discard, the cards
    that may be taken, the stock's size, the scores, who is to move, the card a stock draw
    brought (``drawn``) and the round's result once it ended. A move the computer made for
    an absent person (or one out of time) has ``"by": "stand_in"``."""
    steps: list[dict[str, Any]] = []
    before: list[set[int]] = []
    table = data.get("table")
    marks = table.get("stand_in", []) if isinstance(table, dict) else []
    stand_in = {
        (m[0], m[1])
        for m in (marks if isinstance(marks, list) else [])
        if isinstance(m, list) and len(m) == 2 and all(isinstance(x, int) for x in m)
    }
    index = 0  # the move's place in its round
    for game, seat, move in record.iter_replay(data):
        hands = [game.hand(s) for s in range(game.n)]
        step: dict[str, Any] = {
            "round": game.round_no,
            "seat": None if move is None else seat,
            "move": None if move is None else str(move),
            "hands": [[NAMES[c] for c in h] for h in hands],
            "out": list(game.out),
            "pile": [NAMES[c] for c in game.pile[-1]] if game.pile else [],
            "pickable": [NAMES[c] for c in game.pickable],
            "stock": len(game.stock),
            "scores": list(game.scores),
            "to_move": game.to_move,
            "drawn": None,
            "result": None,
        }
        if move is None:
            index = 0
        else:
            if (game.round_no, index) in stand_in:
                step["by"] = "stand_in"
            index += 1
        if isinstance(move, Draw) and move.card is None:
            gained = set(hands[seat]) - before[seat]
            if len(gained) == 1:
                step["drawn"] = NAMES[gained.pop()]
        if move is not None and game.to_move is None and game.result is not None:
            step["result"] = game.result.to_dict()
        before = [set(h) for h in hands]
        steps.append(step)
    return steps


def preset_of(rules: dict[str, Any]) -> str:
    """The rules' preset name, or ``custom``."""
    try:
        return RuleSet.from_dict(dict(rules)).preset_name() or "custom"
    except (YanivError, TypeError, ValueError):
        return "custom"


def _iso(when: datetime | None) -> str | None:
    if when is None:
        return None
    if when.tzinfo is None:  # SQLite gives naive times back; they were written in UTC
        when = when.replace(tzinfo=UTC)
    return when.isoformat()


# ------------------------------------------------------------------ the database (its thread)


def set_key(store: Store, room: str, seat: int, hashed: str) -> None:
    """Note the player key's hash on a room's seat."""
    with store.session() as session, session.begin():
        session.execute(
            update(PlayerRow)
            .where(PlayerRow.room == room, PlayerRow.seat == seat)
            .values(key_hash=hashed)
        )


def game_started(
    store: Store, room: str, number: int, rules: dict[str, Any], seats: list[dict[str, Any]]
) -> None:
    """A room's game ``number`` has been dealt."""
    with store.transaction() as connection:  # Core: a room's creation makes it (storage.py)
        found = connection.execute(
            select(GameRow.id).where(GameRow.room == room, GameRow.number == number)
        ).first()
        if found is None:
            connection.execute(
                insert(GameRow.__table__).values(  # type: ignore[arg-type]
                    room=room, number=number, status="playing", rules=rules, seats=seats
                )
            )


def game_over(store: Store, room: str, number: int, text: str) -> None:
    """A room's game ``number`` is over: keep its record and the summary of its result, and
    (the first time only, in the same transaction) rate it (yaniv/server/ratings.py)."""
    summary = summarize(record.loads(text, f"room {room}"))
    with store.session() as session, session.begin():
        # the row locked while it is not over yet: a second call (another process) finds
        # it over and rates nothing
        first = session.scalar(
            select(GameRow.id)
            .where(GameRow.room == room, GameRow.number == number, GameRow.status != "over")
            .with_for_update()
        )
        session.execute(
            update(GameRow)
            .where(GameRow.room == room, GameRow.number == number)
            .values(status="over", record=text, summary=summary, finished=datetime.now(UTC))
        )
        if first is not None:
            places = [place(summary, seat) for seat in range(len(summary["scores"]))]
            ratings.game_finished(session, int(first), room, summary["winners"], places)


def latest_game(store: Store, room: str) -> tuple[int, str] | None:
    """The number and status of a room's latest game, if it has one."""
    with store.session() as session:
        row = session.execute(
            select(GameRow.number, GameRow.status)
            .where(GameRow.room == room)
            .order_by(GameRow.number.desc())
            .limit(1)
        ).first()
        return None if row is None else (int(row[0]), str(row[1]))


def _seats_of(session: Any, hashed: str) -> dict[str, int]:
    """The key's rooms, each with the key's (lowest) seat in it."""
    seats: dict[str, int] = {}
    for room, seat in session.execute(
        select(PlayerRow.room, PlayerRow.seat).where(PlayerRow.key_hash == hashed)
    ):
        seats[room] = min(seat, seats.get(room, seat))
    return seats


def _finished(
    session: Any, row: GameRow, want_record: bool = True
) -> tuple[str | None, dict[str, Any] | None]:
    """A finished game's record (if wanted) and summary, (None, None) for a game not over; for
    a game whose end was stored in its room but not in its row (the server stopped in
    between), the room's record."""
    if row.status == "over":
        return (row.record if want_record else None), row.summary
    status = session.scalar(select(RoomRow.status).where(RoomRow.code == row.room))
    if status != "over":
        return None, None
    latest = session.scalar(
        select(GameRow.number)
        .where(GameRow.room == row.room)
        .order_by(GameRow.number.desc())
        .limit(1)
    )
    text = session.scalar(select(RoomRow.record).where(RoomRow.code == row.room))
    if latest != row.number or text is None:
        return None, None
    try:
        return text, summarize(record.loads(text, f"room {row.room}"))
    except (YanivError, KeyError, TypeError, ValueError):
        return None, None


def list_games(store: Store, hashed: str, limit: int, offset: int) -> dict[str, Any]:
    """The key's games, newest first (a page of them), and its statistics over all of them."""
    with store.session() as session:
        seats = _seats_of(session, hashed)
        if not seats:
            return {"games": [], "total": 0, "stats": statistics([])}
        rows = session.scalars(
            select(GameRow)
            .options(defer(GameRow.record))  # the summaries suffice
            .where(GameRow.room.in_(list(seats)))
            .order_by(GameRow.started.desc(), GameRow.id.desc())
        ).all()
        games: list[dict[str, Any]] = []
        finished: list[tuple[dict[str, Any], int]] = []
        for i, row in enumerate(rows):
            seat = seats[row.room]
            _, summary = _finished(session, row, want_record=False)
            if summary is not None:
                finished.append((summary, seat))
            if not offset <= i < offset + limit:
                continue
            result = None
            if summary is not None:
                winners = list(summary["winners"])
                result = {
                    "winners": winners,
                    "won": seat in winners,
                    "place": place(summary, seat),
                    "score": summary["scores"][seat],
                    "scores": summary["scores"],
                    "rounds": summary["rounds"],
                }
            games.append(
                {
                    "id": row.id,
                    "room": row.room,
                    "number": row.number,
                    "started": _iso(row.started),
                    "finished": _iso(row.finished),
                    "status": "over" if summary is not None else "playing",
                    "players": list(row.seats),
                    "seat": seat,
                    "rules": preset_of(row.rules),
                    "result": result,
                }
            )
        return {"games": games, "total": len(rows), "stats": statistics(finished)}


class Refused(Exception):
    """A request for a replay that is refused: the HTTP status and the words."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def game_record(store: Store, hashed: str, game_id: int) -> tuple[dict[str, Any], str]:
    """The game's row as the replay shows it and its record text, for one of its players."""
    with store.session() as session:
        row = session.get(GameRow, game_id)
        if row is None:
            raise Refused(404, f"there is no game {game_id}")
        seats = _seats_of(session, hashed)
        if row.room not in seats:
            raise Refused(403, f"game {game_id} is not one of yours: only its players may see it")
        text, _ = _finished(session, row)
        if text is None:
            raise Refused(
                409,
                f"game {game_id} is not over: its replay would show cards that are still hidden",
            )
        info = {
            "id": row.id,
            "room": row.room,
            "number": row.number,
            "started": _iso(row.started),
            "finished": _iso(row.finished),
            "players": list(row.seats),
            "seat": seats[row.room],
            "rules": preset_of(row.rules),
        }
        return info, text


# ------------------------------------------------------------------ the HTTP API

router = APIRouter(prefix="/api/history")


def _store(request: Request) -> Store:
    store: Store = request.app.state.hub.store
    return store


def _hashed(key: str | None) -> str:
    if key is None or not key.strip():
        raise HTTPException(
            400, f"send your player key in the {KEY_HEADER} header (the browser keeps it)"
        )
    try:
        return key_hash(check_key(key.strip()))
    except ValueError as exc:
        raise HTTPException(400, f"{KEY_HEADER}: {exc}") from None


@router.get("")
async def history(
    request: Request,
    x_player_key: str | None = Header(default=None, alias=KEY_HEADER),
    limit: int = Query(default=50, ge=1, le=MAX_LIMIT),
    offset: int = Query(default=0, ge=0, le=1_000_000),
) -> dict[str, Any]:
    """The games of the player key, newest first, and the player's statistics."""
    hashed = _hashed(x_player_key)
    store = _store(request)
    return await store.run(list_games, store, hashed, limit, offset)


@router.get("/{game}")
async def replay(
    game: str,
    request: Request,
    x_player_key: str | None = Header(default=None, alias=KEY_HEADER),
) -> dict[str, Any]:
    """A finished game's record and its replay, step by step, for one of its players."""
    if not game.isascii() or not game.isdigit() or len(game) > 12:
        raise HTTPException(400, f"a game id is a whole number such as 17, not {game[:20]!r}")
    hashed = _hashed(x_player_key)
    store = _store(request)
    try:
        info, text = await store.run(game_record, store, hashed, int(game))
    except Refused as exc:
        raise HTTPException(exc.status, exc.message) from None
    try:
        data = record.loads(text, f"game {game}")
        steps = await asyncio.to_thread(replay_steps, data)
    except YanivError as exc:
        raise HTTPException(
            500, f"the stored record of game {game} does not replay: {exc}"
        ) from None
    return {**info, "record": data, "steps": steps}
