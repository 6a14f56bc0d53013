"""Ratings: the model, and the update at a game's end (profiles.py reads them).

Every finished game with two or more people (each with a player key) updates their ratings:
OpenSkill's Plackett-Luce model over the final places, where players who share a place (two
winners, or equal final scores) share a rank. Only the people are rated; a computer seat takes
no part in the update, though the places come from the whole table. A game of one person
against the computer is not rated: it counts in the person's record per bot level (won or
lost against each level that sat at the table).

history.game_over calls ``game_finished`` once per game, in its own transaction, with each
seat's final place (history.place: winners first, then by score; equal places are ties).
"""

from __future__ import annotations

import secrets
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime

from openskill.models import PlackettLuce
from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .models import BotRecordRow, GameRow, PlayerRow, RatingHistoryRow, RatingRow

#: The model: OpenSkill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300).
MODEL = PlackettLuce()
#: Rated games a player needs to appear on the leaderboard.
MIN_GAMES = 5
#: A public name's length, after stripping.
NAME_MIN, NAME_MAX = 2, 24


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


def game_finished(
    session: Session, game_id: int, room: str, winners: list[int], places: list[int]
) -> None:
    """Rate a game that has just ended (history.game_over calls it once, in its transaction),
    given its winners and each seat's final place: the people's ratings, or the one person's
    record against the computer."""
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
    won = set(winners)
    if len(people) >= 2:
        if len(keys) >= 2:
            _rate_people(session, game_id, places, keys, won)
        return
    if len(people) == 1 and levels and keys:
        hashed, seat = next(iter(keys.items()))
        for level in levels:
            _bump_bot_record(session, hashed, level, seat in won)


def _rate_people(
    session: Session,
    game_id: int,
    final: list[int],
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
    places = [final[s] for s in seats]
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
