"""The leaderboard's query time with many rated games in the database.

Fills a database (a temporary SQLite file, or ``--database URL``, migrated as the server
migrates it) with ``--games`` finished games between ``--players`` player keys, two to four a
game, each rated as the server rates it (yaniv.server.ratings.rate: OpenSkill Plackett-Luce,
ties shared), with its rooms, games and rating-history rows; a share of the players
(``--named``) chooses a public name. Then times the leaderboard as ``GET /api/leaderboard``
reads it (yaniv.server.profiles.leaderboard: the top 50 by ordinal, and the viewer's own place)
for a viewer near the top and one near the bottom (whose place counts the most rows), and a
profile as ``GET /api/profile`` reads it. Prints the figures, and JSON on its last line.

    python benchmarks/leaderboard.py --games 100000
    python benchmarks/leaderboard.py --database postgresql://yaniv_test:yaniv_test@127.0.0.1/yaniv_test
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import func, insert, select

from yaniv.server import history, profiles, ratings
from yaniv.server.models import GameRow, PlayerRow, RatingHistoryRow, RatingRow, RoomRow
from yaniv.server.storage import Store

CHUNK = 5000


def fill(store: Store, games: int, players: int, named: float, seed: int) -> dict[str, Any]:
    """Rated games between random players; the seconds it took and the rows written."""
    rng = random.Random(seed)
    keys = [history.key_hash(f"benchmark-player-{i:08d}-{seed}") for i in range(players)]
    skill = [rng.gauss(0, 1) for _ in range(players)]  # who tends to win
    state = {k: ratings.initial() for k in keys}
    counts = dict.fromkeys(keys, 0)
    wins = dict.fromkeys(keys, 0)
    start = datetime.now(UTC) - timedelta(days=365)
    began = time.perf_counter()
    rooms: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    people: list[dict[str, Any]] = []
    points: list[dict[str, Any]] = []
    with store.session() as session:
        first_id = int(session.scalar(select(func.coalesce(func.max(GameRow.id), 0))) or 0) + 1

    def flush() -> None:
        with store.session() as session, session.begin():
            if rooms:
                session.execute(insert(RoomRow), rooms)
            if rows:
                session.execute(insert(GameRow), rows)
            if people:
                session.execute(insert(PlayerRow), people)
            if points:
                session.execute(insert(RatingHistoryRow), points)
        rooms.clear()
        rows.clear()
        people.clear()
        points.clear()

    for g in range(games):
        n = rng.choice((2, 2, 3, 4))
        table = rng.sample(range(players), n)
        scores = sorted(table, key=lambda p: -(skill[p] + rng.gauss(0, 1.5)))
        places = [1 + scores.index(p) for p in table]
        if rng.random() < 0.05:  # now and then a shared first place
            places = [1 if p <= 2 else p for p in places]
        before = [state[keys[p]] for p in table]
        after = ratings.rate(before, places)
        when = start + timedelta(seconds=g * 300)
        code = f"B{g:05X}"[-6:] if g < 0xFFFFF else secrets.token_hex(3).upper()
        game_id = first_id + g
        seats = [{"name": f"P{p}", "kind": "human"} for p in table]
        rooms.append(
            {
                "code": code,
                "rules": {},
                "seats": seats,
                "status": "over",
                "created": when,
                "updated": when,
            }  # fmt: skip
        )
        rows.append(
            {
                "id": game_id,
                "room": code,
                "number": 1,
                "status": "over",
                "rules": {},
                "seats": seats,
                "summary": None,
                "started": when,
                "finished": when,
            }  # fmt: skip
        )
        for seat, (p, new, place) in enumerate(zip(table, after, places, strict=True)):
            key = keys[p]
            people.append(
                {
                    "token_hash": f"{game_id:08d}-{seat}",
                    "room": code,
                    "seat": seat,
                    "name": f"P{p}",
                    "key_hash": key,
                    "created": when,
                }  # fmt: skip
            )
            state[key] = new
            counts[key] += 1
            wins[key] += place == 1
            points.append(
                {
                    "key_hash": key,
                    "game": game_id,
                    "mu": new.mu,
                    "sigma": new.sigma,
                    "ordinal": new.ordinal,
                    "place": place,
                    "people": n,
                    "at": when,
                }  # fmt: skip
            )
        if len(rows) >= CHUNK:
            flush()
    flush()
    ratings_rows = []
    for i, key in enumerate(keys):
        r = state[key]
        name = f"Player {i}" if rng.random() < named else None
        ratings_rows.append(
            {
                "key_hash": key,
                "public_id": f"b{i:09d}",
                "name": name,
                "name_fold": None if name is None else ratings.fold(name),
                "mu": r.mu,
                "sigma": r.sigma,
                "ordinal": r.ordinal,
                "games": counts[key],
                "wins": wins[key],
                "updated": datetime.now(UTC),
            }  # fmt: skip
        )
    for i in range(0, len(ratings_rows), CHUNK):
        with store.session() as session, session.begin():
            session.execute(insert(RatingRow), ratings_rows[i : i + CHUNK])
    ranked = sorted(keys, key=lambda k: -state[k].ordinal)
    eligible = [k for k in ranked if counts[k] >= ratings.MIN_GAMES]
    return {
        "fill_seconds": round(time.perf_counter() - began, 1),
        "games": games,
        "players": players,
        "rating_history_rows": sum(counts.values()),
        "top_viewer": eligible[0],
        "bottom_viewer": eligible[-1],
    }


def timed(fn: Any, repeat: int) -> dict[str, float]:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        fn()
        times.append((time.perf_counter() - began) * 1000)
    times.sort()
    return {
        "median_ms": round(statistics.median(times), 2),
        "p95_ms": round(times[min(len(times) - 1, int(len(times) * 0.95))], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", help="a database URL (default: a temporary SQLite file)")
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=20_000)
    parser.add_argument("--named", type=float, default=0.5, help="share with a public name")
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = args.database or f"sqlite:///{Path(folder) / 'leaderboard.sqlite3'}"
        store = Store(url)
        try:
            figures: dict[str, Any] = {"backend": url.split(":", 1)[0]}
            filled = fill(store, args.games, args.players, args.named, args.seed)
            top, bottom = filled.pop("top_viewer"), filled.pop("bottom_viewer")
            figures.update(filled)
            print(
                f"filled: {args.games:,} rated games, {args.players:,} players, "
                f"{figures['rating_history_rows']:,} rating-history rows "
                f"in {figures['fill_seconds']} s ({figures['backend']})"
            )
            board = profiles.leaderboard(store, top, 50, 0, ratings.MIN_GAMES)
            figures["listed"] = board["total"]
            for label, viewer in (("top", top), ("bottom", bottom), ("anonymous", None)):
                result = timed(
                    lambda v=viewer: profiles.leaderboard(store, v, 50, 0, ratings.MIN_GAMES),
                    args.repeat,
                )
                figures[f"leaderboard_{label}_viewer"] = result
                print(
                    f"leaderboard (top 50 of {board['total']:,} listed), viewer {label:<9}: "
                    f"median {result['median_ms']:.2f} ms, p95 {result['p95_ms']:.2f} ms"
                )
            result = timed(lambda: profiles.profile(store, bottom), max(5, args.repeat // 5))
            figures["profile"] = result
            print(
                f"a profile (rating, history, figures): median {result['median_ms']:.2f} ms, "
                f"p95 {result['p95_ms']:.2f} ms"
            )
            figures["load_average_1m"] = round(os.getloadavg()[0], 2)
            print(f"load average (1 min): {figures['load_average_1m']}")
        finally:
            store.close()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
