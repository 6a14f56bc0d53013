"""Ratings, profiles and the leaderboard.

Every finished game with two or more people (each with a player key) updates their ratings:
OpenSkill's Plackett-Luce model over the final places, where players who share a place (two
winners, or equal final scores) share a rank. Only the people are rated; a computer seat takes
no part in the update, though the places come from the whole table. A game of one person
against the computer is not rated: it counts in the person's record per bot level (won or
lost against each level that sat at the table).

A player may choose a public name (opt-in) to appear on the leaderboard, unique without
regard to case; it is kept and shown as plain text. A profile is found by a random public id,
never by the key or its hash: ``GET /api/profile`` (the key in ``X-Player-Key``) is the
player's own, ``GET /api/players/{id}`` a named player's, ``PUT /api/profile/name`` sets or
clears the name, ``GET /api/leaderboard`` lists the named players by rating ordinal
(mu - 3 sigma) with a minimum of rated games, and the viewer's own place.
"""

from __future__ import annotations

import secrets
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Header, HTTPException, Query, Request
from openskill.models import PlackettLuce
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .history import KEY_HEADER, _hashed, list_games, place
from .models import BotRecordRow, GameRow, PlayerRow, RatingHistoryRow, RatingRow
from .storage import Store

#: The model: OpenSkill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300).
MODEL = PlackettLuce()
#: Rated games a player needs to appear on the leaderboard.
MIN_GAMES = 5
#: A public name's length, after stripping.
NAME_MIN, NAME_MAX = 2, 24
#: Players listed on a leaderboard page at most.
MAX_LIMIT = 100
#: Points of the rating history a profile gives at most (the latest ones).
HISTORY_POINTS = 200


@dataclass(frozen=True)
class Rating:
    """A player's skill estimate: mean and uncertainty."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The conservative estimate the leaderboard orders by: mu - 3 sigma."""
        return self.mu - 3 * self.sigma


def initial() -> Rating:
    """A new player's rating."""
    return Rating(MODEL.mu, MODEL.sigma)


def rate(ratings: list[Rating], places: list[int]) -> list[Rating]:
    """The ratings after a game in which the players finished at ``places`` (1 is first;
    equal places are a tie and share the rank), by OpenSkill's Plackett-Luce model."""
    if len(ratings) != len(places) or len(ratings) < 2:
        raise ValueError("a rated game needs two or more players, each with a place")
    teams = [[MODEL.create_rating([r.mu, r.sigma])] for r in ratings]
    out = MODEL.rate(teams, ranks=[float(p) for p in places])
    return [Rating(float(team[0].mu), float(team[0].sigma)) for team in out]


def fold(name: str) -> str:
    """A name's form for the uniqueness check: NFKC, case folded, inner spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def check_name(name: str) -> str:
    """A public name, stripped; ValueError in words if it cannot be one."""
    if not isinstance(name, str):
        raise ValueError("a public name is text")
    name = " ".join(name.split())
    if not NAME_MIN <= len(name) <= NAME_MAX:
        raise ValueError(f"a public name is {NAME_MIN} to {NAME_MAX} characters")
    if any(unicodedata.category(ch).startswith("C") for ch in name):
        raise ValueError("a public name may not hold control characters")
    return name


# ------------------------------------------------------------------ at a game's end


def _ensure(session: Session, hashed: str) -> None:
    """Make the key's rating row if it has none (at once on both backends, even when another
    process makes it at the same moment)."""
    start = initial()
    values = {
        "key_hash": hashed,
        "public_id": secrets.token_urlsafe(9),
        "mu": start.mu,
        "sigma": start.sigma,
        "ordinal": start.ordinal,
        "games": 0,
        "wins": 0,
        "updated": datetime.now(UTC),
    }
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        session.execute(postgresql.insert(RatingRow).values(**values).on_conflict_do_nothing())
    elif dialect == "sqlite":
        session.execute(sqlite.insert(RatingRow).values(**values).on_conflict_do_nothing())
    elif session.get(RatingRow, hashed) is None:  # pragma: no cover - another backend
        session.add(RatingRow(**values))
        session.flush()


def _bump_bot_record(session: Session, hashed: str, level: str, won: bool) -> None:
    row = session.get(BotRecordRow, (hashed, level), with_for_update=True)
    if row is None:
        try:
            with session.begin_nested():
                session.add(BotRecordRow(key_hash=hashed, level=level, won=0, lost=0))
        except IntegrityError:  # another process made it first
            pass
        row = session.get(
            BotRecordRow, (hashed, level), with_for_update=True, populate_existing=True
        )
        assert row is not None
    if won:
        row.won += 1
    else:
        row.lost += 1


def game_finished(session: Session, game_id: int, room: str, summary: dict[str, Any]) -> None:
    """Rate a game that has just ended (history.game_over calls it once, in its transaction):
    the people's ratings, or the one person's record against the computer."""
    game = session.get(GameRow, game_id)
    if game is None:
        return
    seats = list(game.seats)
    people = [i for i, s in enumerate(seats) if isinstance(s, dict) and s.get("kind") == "human"]
    levels = sorted(
        {
            str(s.get("level"))
            for s in seats
            if isinstance(s, dict) and s.get("kind") == "bot" and s.get("level")
        }
    )
    keys: dict[str, int] = {}  # key hash -> its (lowest) seat: one person, one rating
    for seat, hashed in session.execute(
        select(PlayerRow.seat, PlayerRow.key_hash).where(
            PlayerRow.room == room, PlayerRow.key_hash.is_not(None)
        )
    ):
        if seat in people and hashed is not None:
            keys[hashed] = min(seat, keys.get(hashed, seat))
    winners = set(summary["winners"])
    if len(people) >= 2:
        if len(keys) >= 2:
            _rate_people(session, game_id, summary, keys, winners)
        return
    if len(people) == 1 and levels and keys:
        hashed, seat = next(iter(keys.items()))
        for level in levels:
            _bump_bot_record(session, hashed, level, seat in winners)


def _rate_people(
    session: Session,
    game_id: int,
    summary: dict[str, Any],
    keys: dict[str, int],
    winners: set[int],
) -> None:
    order = sorted(keys)  # lock the rows in one order: no deadlock between two games' ends
    for hashed in order:
        _ensure(session, hashed)
    rows = {
        row.key_hash: row
        for row in session.scalars(
            select(RatingRow)
            .where(RatingRow.key_hash.in_(order))
            .order_by(RatingRow.key_hash)
            .with_for_update()
            .execution_options(populate_existing=True)
        )
    }
    seats = [keys[k] for k in order]
    places = [place(summary, s) for s in seats]
    before = [Rating(rows[k].mu, rows[k].sigma) for k in order]
    after = rate(before, places)
    # the place among the rated people alone (ties shared): what the profile shows
    among = [1 + sum(1 for q in places if q < p) for p in places]
    now = datetime.now(UTC)
    for hashed, seat, new, mine in zip(order, seats, after, among, strict=True):
        row = rows[hashed]
        row.mu, row.sigma, row.ordinal = new.mu, new.sigma, new.ordinal
        row.games += 1
        row.wins += seat in winners
        row.updated = now
        session.add(
            RatingHistoryRow(
                key_hash=hashed,
                game=game_id,
                mu=new.mu,
                sigma=new.sigma,
                ordinal=new.ordinal,
                place=mine,
                people=len(order),
                at=now,
            )
        )


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
            (RatingRow.ordinal > row.ordinal)
            | ((RatingRow.ordinal == row.ordinal) & (RatingRow.games > row.games))
            | (
                (RatingRow.ordinal == row.ordinal)
                & (RatingRow.games == row.games)
                & (RatingRow.public_id < row.public_id)
            ),
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
