"""Profiles and the leaderboard: what the ratings (ratings.py) and the history say of a player.

A player may choose a public name (opt-in) to appear on the leaderboard, unique without
regard to case; it is kept and shown as plain text. A profile is found by a random public id,
never by the key or its hash: ``GET /api/profile`` (the key in ``X-Player-Key``) is the
player's own, ``GET /api/players/{id}`` a named player's, ``PUT /api/profile/name`` sets or
clears the name, ``GET /api/leaderboard`` lists the named players by rating ordinal
(mu - 3 sigma) with a minimum of rated games, and the viewer's own place.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Header, HTTPException, Query, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .history import KEY_HEADER, _hashed, list_games
from .models import BotRecordRow, PlayerRow, RatingHistoryRow, RatingRow
from .ratings import MIN_GAMES, MODEL, _ensure, check_name, fold
from .storage import Store

#: Players listed on a leaderboard page at most.
MAX_LIMIT = 100
#: Points of the rating history a profile gives at most (the latest ones).
HISTORY_POINTS = 200


# ------------------------------------------------------------------ reading (the store's thread)


class Refused(Exception):
    """A request refused: the HTTP status and the words."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _iso(when: datetime | None) -> str | None:
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.isoformat()


def _listed(min_games: int) -> Any:
    return (RatingRow.name_fold.is_not(None)) & (RatingRow.games >= min_games)


def _place(session: Session, row: RatingRow, min_games: int) -> int:
    """The row's place on the leaderboard (1 + the listed players ranked above it)."""
    above = session.scalar(
        select(func.count())
        .select_from(RatingRow)
        .where(
            _listed(min_games),
            # one range of the listed index (ordinal first), the ties told apart within it
            RatingRow.ordinal >= row.ordinal,
            (RatingRow.ordinal > row.ordinal)
            | (RatingRow.games > row.games)
            | ((RatingRow.games == row.games) & (RatingRow.public_id < row.public_id)),
        )
    )
    return 1 + int(above or 0)


def _known(session: Session, hashed: str) -> bool:
    if session.get(RatingRow, hashed) is not None:
        return True
    return (
        session.scalar(select(PlayerRow.id).where(PlayerRow.key_hash == hashed).limit(1))
        is not None
    )


def profile(store: Store, hashed: str, own: bool = True) -> dict[str, Any]:
    """A player's profile: the rating and its history, the figures of every finished game,
    the record per bot level, the public name and the leaderboard place."""
    with store.session() as session:
        if not _known(session, hashed):
            raise Refused(404, "no games are known for this player key: play one first")
        row = session.get(RatingRow, hashed)
        rating = None
        board = None
        if row is not None and row.games > 0:
            rating = {
                "mu": round(row.mu, 4),
                "sigma": round(row.sigma, 4),
                "ordinal": round(row.ordinal, 4),
                "games": row.games,
                "wins": row.wins,
            }
            board = {
                "min_games": MIN_GAMES,
                "listed": row.name is not None and row.games >= MIN_GAMES,
                "place": _place(session, row, MIN_GAMES) if row.games >= MIN_GAMES else None,
                "needed": max(0, MIN_GAMES - row.games),
            }
        points = session.execute(
            select(
                RatingHistoryRow.game,
                RatingHistoryRow.mu,
                RatingHistoryRow.sigma,
                RatingHistoryRow.ordinal,
                RatingHistoryRow.place,
                RatingHistoryRow.people,
                RatingHistoryRow.at,
            )
            .where(RatingHistoryRow.key_hash == hashed)
            .order_by(RatingHistoryRow.id.desc())
            .limit(HISTORY_POINTS)
        ).all()
        history = [
            {
                "game": int(p.game) if own else None,
                "mu": round(p.mu, 4),
                "sigma": round(p.sigma, 4),
                "ordinal": round(p.ordinal, 4),
                "place": p.place,
                "people": p.people,
                "at": _iso(p.at),
            }
            for p in reversed(points)
        ]
        bots = [
            {"level": b.level, "won": b.won, "lost": b.lost}
            for b in session.scalars(
                select(BotRecordRow)
                .where(BotRecordRow.key_hash == hashed)
                .order_by(BotRecordRow.level)
            )
        ]
        public_id = row.public_id if row is not None else None
        name = row.name if row is not None else None
    stats = list_games(store, hashed, 1, 0)["stats"]
    return {
        "own": own,
        "id": public_id if (own or name is not None) else None,
        "name": name,
        "start": {"mu": MODEL.mu, "sigma": MODEL.sigma},
        "rating": rating,
        "leaderboard": board,
        "history": history,
        "stats": stats,
        "bots": bots,
    }


def public_profile(store: Store, public_id: str) -> dict[str, Any]:
    """A named player's profile by its public id."""
    with store.session() as session:
        hashed = session.scalar(
            select(RatingRow.key_hash).where(
                RatingRow.public_id == public_id, RatingRow.name.is_not(None)
            )
        )
    if hashed is None:
        raise Refused(404, f"there is no public player {public_id[:20]!r}")
    return profile(store, hashed, own=False)


def set_name(store: Store, hashed: str, name: str | None) -> dict[str, Any]:
    """Set (or with None clear) the key's public name; Refused if the key is unknown or the
    name is another player's."""
    folded = None if name is None else fold(name)
    with store.session() as session, session.begin():
        if not _known(session, hashed):
            raise Refused(404, "no games are known for this player key: play one first")
        _ensure(session, hashed)
        if folded is not None:
            holder = session.scalar(select(RatingRow.key_hash).where(RatingRow.name_fold == folded))
            if holder is not None and holder != hashed:
                raise Refused(409, f"the name {name!r} is taken: choose another")
        try:
            with session.begin_nested():
                session.execute(
                    update(RatingRow)
                    .where(RatingRow.key_hash == hashed)
                    .values(name=name, name_fold=folded)
                )
        except IntegrityError:  # taken at the same moment by another request
            raise Refused(409, f"the name {name!r} is taken: choose another") from None
        row = session.get(RatingRow, hashed)
        assert row is not None
        return {"name": row.name, "id": row.public_id}


def leaderboard(
    store: Store, hashed: str | None, limit: int, offset: int, min_games: int
) -> dict[str, Any]:
    """The named players with ``min_games`` rated games or more, best ordinal first (a page of
    them), and the viewer's own place when the viewer's key is given."""
    with store.session() as session:
        rows = session.execute(
            select(
                RatingRow.public_id,
                RatingRow.name,
                RatingRow.mu,
                RatingRow.sigma,
                RatingRow.ordinal,
                RatingRow.games,
                RatingRow.wins,
            )
            .where(_listed(min_games))
            .order_by(RatingRow.ordinal.desc(), RatingRow.games.desc(), RatingRow.public_id)
            .limit(limit)
            .offset(offset)
        ).all()
        total = session.scalar(
            select(func.count()).select_from(RatingRow).where(_listed(min_games))
        )
        players = [
            {
                "place": offset + i + 1,
                "id": r.public_id,
                "name": r.name,
                "mu": round(r.mu, 4),
                "sigma": round(r.sigma, 4),
                "ordinal": round(r.ordinal, 4),
                "games": r.games,
                "wins": r.wins,
            }
            for i, r in enumerate(rows)
        ]
        you = None
        if hashed is not None:
            mine = session.get(RatingRow, hashed)
            if mine is not None and mine.games > 0:
                enough = mine.games >= min_games
                you = {
                    "id": mine.public_id,
                    "name": mine.name,
                    "ordinal": round(mine.ordinal, 4),
                    "games": mine.games,
                    "listed": enough and mine.name is not None,
                    "place": _place(session, mine, min_games) if enough else None,
                    "needed": max(0, min_games - mine.games),
                }
    return {
        "min_games": min_games,
        "total": int(total or 0),
        "players": players,
        "you": you,
    }


# ------------------------------------------------------------------ the HTTP API

router = APIRouter(prefix="/api")


class PublicName(BaseModel):
    """``PUT /api/profile/name``: the public name, or null to leave the leaderboard."""

    model_config = ConfigDict(extra="forbid", strict=True)

    name: str | None = Field(max_length=200)


def _store(request: Request) -> Store:
    store: Store = request.app.state.hub.store
    return store


async def _answer(store: Store, fn: Any, *args: Any) -> dict[str, Any]:
    try:
        result: dict[str, Any] = await store.run(fn, *args)
    except Refused as exc:
        raise HTTPException(exc.status, exc.message) from None
    return result


@router.get("/profile")
async def own_profile(
    request: Request, x_player_key: str | None = Header(default=None, alias=KEY_HEADER)
) -> dict[str, Any]:
    """The profile of the player key's owner."""
    hashed = _hashed(x_player_key)
    store = _store(request)
    return await _answer(store, profile, store, hashed)


@router.get("/players/{public_id}")
async def player(public_id: str, request: Request) -> dict[str, Any]:
    """A named player's profile."""
    if not 1 <= len(public_id) <= 16 or not all(
        c.isascii() and (c.isalnum() or c in "-_") for c in public_id
    ):
        raise HTTPException(
            400, f"a player id is up to 16 letters, digits, '-' or '_', not {public_id[:20]!r}"
        )
    store = _store(request)
    return await _answer(store, public_profile, store, public_id)


@router.put("/profile/name")
async def public_name(
    body: PublicName,
    request: Request,
    x_player_key: str | None = Header(default=None, alias=KEY_HEADER),
) -> dict[str, Any]:
    """Choose a public name for the leaderboard (null: none)."""
    hashed = _hashed(x_player_key)
    try:
        name = None if body.name is None else check_name(body.name)
    except ValueError as exc:
        raise HTTPException(400, f"name: {exc}") from None
    store = _store(request)
    return await _answer(store, set_name, store, hashed, name)


@router.get("/leaderboard")
async def board(
    request: Request,
    x_player_key: str | None = Header(default=None, alias=KEY_HEADER),
    limit: int = Query(default=50, ge=1, le=MAX_LIMIT),
    offset: int = Query(default=0, ge=0, le=1_000_000),
    min_games: int = Query(default=MIN_GAMES, ge=1, le=10_000),
) -> dict[str, Any]:
    """The top named players by rating ordinal, and the viewer's place."""
    hashed = None if x_player_key is None else _hashed(x_player_key)
    store = _store(request)
    return await _answer(store, leaderboard, store, hashed, limit, offset, min_games)
