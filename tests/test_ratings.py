"""Ratings, profiles and the leaderboard (yaniv/server/ratings.py): the model against the
Plackett-Luce update written out here from Weng and Lin's paper (ties shared), and the API on
SQLite (and PostgreSQL where one is given)."""

from __future__ import annotations

import math
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")
pytest.importorskip("openskill")

from fastapi.testclient import TestClient  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from sqlalchemy import select  # noqa: E402

from yaniv.server import history, ratings  # noqa: E402
from yaniv.server.app import create_app  # noqa: E402
from yaniv.server.models import (  # noqa: E402
    GameRow,
    PlayerRow,
    RatingHistoryRow,
    RatingRow,
    RoomRow,
)
from yaniv.server.ratings import Rating  # noqa: E402
from yaniv.server.storage import Store  # noqa: E402

#: Any Yaniv call ends the game (a call above the threshold is allowed; the first score over
#: 1 ends it), so each person's first turn decides it.
QUICK = {"preset": "standard", "yaniv_above_threshold": True, "score_limit": 1,
         "end_mode": "first_over"}  # fmt: skip


# ------------------------------------------------------------------ the model


def plackett_luce(
    players: list[tuple[float, float]],
    ranks: list[int],
    beta: float = 25 / 6,
    tau: float = 25 / 300,
    kappa: float = 1e-4,
) -> list[tuple[float, float]]:
    """Weng and Lin (2011), algorithm 4 (Plackett-Luce), one player a team, as OpenSkill
    applies it: the sigma first widened by tau; A_q the number of players sharing q's rank
    (a tie shares the rank, and the update's weight is divided among them)."""
    sig2 = [s * s + tau * tau for _, s in players]
    n = len(players)
    c = math.sqrt(sum(s2 + beta * beta for s2 in sig2))
    e = [math.exp(m / c) for m, _ in players]
    sum_q = [sum(e[i] for i in range(n) if ranks[i] >= ranks[q]) for q in range(n)]
    shared = [sum(1 for i in range(n) if ranks[i] == ranks[q]) for q in range(n)]
    out = []
    for i in range(n):
        omega = delta = 0.0
        for q in range(n):
            if ranks[q] <= ranks[i]:
                p = e[i] / sum_q[q]
                delta += p * (1 - p) / shared[q]
                omega += ((1 - p) if q == i else -p) / shared[q]
        gamma = math.sqrt(sig2[i]) / c
        mu = players[i][0] + sig2[i] / c * omega
        sigma = math.sqrt(sig2[i] * max(1 - gamma * sig2[i] / (c * c) * delta, kappa))
        out.append((mu, sigma))
    return out


@given(
    st.lists(
        st.tuples(st.floats(0, 50), st.floats(0.5, 9), st.integers(1, 4)), min_size=2, max_size=4
    )
)
def test_the_update_is_plackett_luce_with_ties_shared(
    table: list[tuple[float, float, int]],
) -> None:
    before = [Rating(mu, sigma) for mu, sigma, _ in table]
    places = [p for _, _, p in table]
    after = ratings.rate(before, places)
    expected = plackett_luce([(r.mu, r.sigma) for r in before], places)
    for got, (mu, sigma) in zip(after, expected, strict=True):
        assert got.mu == pytest.approx(mu, abs=1e-9)
        assert got.sigma == pytest.approx(sigma, abs=1e-9)
        assert got.ordinal == pytest.approx(mu - 3 * sigma, abs=1e-9)


def test_a_tie_is_shared_and_order_counts() -> None:
    start = ratings.initial()
    tied = ratings.rate([start, start, start], [1, 1, 3])
    assert tied[0] == tied[1]  # the two winners share the place: the same rating
    assert tied[0].mu > start.mu > tied[2].mu
    alone = ratings.rate([start, start, start], [1, 2, 3])
    assert alone[0].mu > tied[0].mu  # a first shared is worth less than a first alone
    assert tied[2].mu > alone[2].mu  # and the last loses less to a tie than to a full order
    assert ratings.rate([start, start], [1, 1])[0].mu == pytest.approx(start.mu)
    with pytest.raises(ValueError, match="two or more"):
        ratings.rate([start], [1])


def _summary(winners: list[int], scores: list[int]) -> dict[str, Any]:
    seat = {"calls": 0, "yanivs": 0, "assafed": 0, "deliberate": 0, "call_total": 0, "assafs": 0}
    return {
        "winners": winners,
        "scores": scores,
        "rounds": 1,
        "seats": [dict(seat) for _ in scores],
    }


def test_a_game_rates_its_people_only_once_with_ties_shared(database: str) -> None:
    """Three people and a bot: two winners share first, and the bot takes no part."""
    store = Store(database)
    keys = [history.key_hash(secrets.token_urlsafe(32)) for _ in range(3)]
    seats = [{"name": n, "kind": "human"} for n in ("A", "B", "C")]
    seats.append({"name": "Bot", "kind": "bot", "level": "easy"})
    try:
        with store.session() as session, session.begin():
            session.add(RoomRow(code="ABCDEF", rules={}, seats=seats, status="over"))
            session.flush()
            for seat, hashed in enumerate(keys):
                session.add(
                    PlayerRow(
                        token_hash=f"t{seat}", room="ABCDEF", seat=seat, name="x", key_hash=hashed
                    )
                )
            session.add(GameRow(room="ABCDEF", number=1, status="playing", rules={}, seats=seats))
        summary = _summary([0, 1], [5, 5, 40, 2])
        places = [history.place(summary, seat) for seat in range(4)]
        assert places == [1, 1, 4, 3]  # the two winners share first; the bot is third
        with store.session() as session, session.begin():
            game_id = session.scalar(select(GameRow.id))
            assert game_id is not None
            ratings.game_finished(session, game_id, "ABCDEF", summary["winners"], places)
        with store.session() as session:
            rows = {r.key_hash: r for r in session.scalars(select(RatingRow))}
            points = session.scalars(select(RatingHistoryRow)).all()
        start = ratings.initial()
        expected = ratings.rate([start] * 3, places[:3])
        for hashed, want in zip(keys, expected, strict=True):
            assert rows[hashed].mu == pytest.approx(want.mu)
            assert rows[hashed].sigma == pytest.approx(want.sigma)
            assert rows[hashed].games == 1
        assert rows[keys[0]].mu == rows[keys[1]].mu and rows[keys[0]].wins == 1
        assert rows[keys[2]].wins == 0
        assert sorted(p.place for p in points) == [1, 1, 3] and {p.people for p in points} == {3}
    finally:
        store.close()


# ------------------------------------------------------------------ the API


def client(url: str) -> TestClient:
    return TestClient(
        create_app(url, bot_delay=0.0, slap_window=0.0, web_dir=None, flood_limit=10_000)
    )


@pytest.fixture
def app(tmp_path: Path) -> Iterator[TestClient]:
    with client(f"sqlite:///{tmp_path / 'yaniv.sqlite3'}") as c:
        yield c


def new_key() -> str:
    return secrets.token_urlsafe(32)


def headers(key: str) -> dict[str, str]:
    return {"X-Player-Key": key}


def next_message(ws: Any, kind: str) -> dict[str, Any]:
    while True:
        message = dict(ws.receive_json())
        if message["type"] == kind:
            return message
        assert message["type"] != "error", message


def play_out(sockets: dict[int, Any]) -> dict[str, Any]:
    """Each person calls Yaniv at their first turn (under QUICK that ends the game); the final
    view."""
    watch = next(iter(sockets.values()))
    acted: set[tuple[int, int]] = set()
    for _ in range(500):
        view = next_message(watch, "state")["view"]
        if view["phase"] == "game_over":
            return dict(view)
        moment = (view["round"], len(view["events"]))
        seat = view["to_move"]
        if view["phase"] == "start" and seat in sockets and moment not in acted:
            acted.add(moment)
            sockets[seat].send_json({"type": "move", "move": "yaniv", "id": f"y{moment}"})
    raise AssertionError("the game did not end")


def two_people_game(app: TestClient, first: str, second: str) -> dict[str, Any]:
    """A room of two people with keys, played to its end; the final view (and its room)."""
    host = app.post("/api/rooms", json={"name": "Ann", "rules": QUICK, "player_key": first})
    code, token = host.json()["room"], host.json()["token"]
    pal = app.post(f"/api/rooms/{code}/join", json={"name": "Ben", "player_key": second})
    assert app.post(f"/api/rooms/{code}/start", json={"token": token}).status_code == 200
    with (
        app.websocket_connect(f"/ws/{code}?token={token}") as ws0,
        app.websocket_connect(f"/ws/{code}?token={pal.json()['token']}") as ws1,
    ):
        return {**play_out({0: ws0, 1: ws1}), "room": code}


def places_of(view: dict[str, Any]) -> list[int]:
    scores, winners = view["scores"], set(view["winners"])
    return [
        1
        + sum(1 for s in range(2) if (s not in winners, scores[s]) < (t not in winners, scores[t]))
        for t in range(2)
    ]


def test_bad_requests_are_refused_in_words(app: TestClient) -> None:
    r = app.get("/api/profile")
    assert r.status_code == 400 and "X-Player-Key" in r.json()["error"]
    r = app.get("/api/profile", headers=headers("short"))
    assert r.status_code == 400 and "player key is 32 to 100" in r.json()["error"]
    r = app.get("/api/profile", headers=headers(new_key()))
    assert r.status_code == 404 and "no games are known" in r.json()["error"]
    r = app.put("/api/profile/name", json={"name": "Someone"}, headers=headers(new_key()))
    assert r.status_code == 404 and "no games are known" in r.json()["error"]
    r = app.get("/api/players/nobody")
    assert r.status_code == 404 and "no public player 'nobody'" in r.json()["error"]
    r = app.get("/api/players/a<b>")
    assert r.status_code == 400 and "player id" in r.json()["error"]
    r = app.get("/api/leaderboard", params={"limit": 0})
    assert r.status_code == 400 and "limit" in r.json()["error"]
    r = app.get("/api/leaderboard", headers=headers("not a key"))
    assert r.status_code == 400 and "player key" in r.json()["error"]


def test_a_game_of_two_people_rates_both_and_the_leaderboard(app: TestClient) -> None:
    ann, ben = new_key(), new_key()
    end = two_people_game(app, ann, ben)
    places = places_of(end)
    start = ratings.initial()
    expected = ratings.rate([start, start], places)
    mine = app.get("/api/profile", headers=headers(ann)).json()
    theirs = app.get("/api/profile", headers=headers(ben)).json()
    for profile, want, seat in ((mine, expected[0], 0), (theirs, expected[1], 1)):
        assert profile["own"] is True and profile["name"] is None
        assert profile["rating"]["mu"] == pytest.approx(want.mu, abs=1e-3)
        assert profile["rating"]["sigma"] == pytest.approx(want.sigma, abs=1e-3)
        assert profile["rating"]["games"] == 1
        assert profile["rating"]["wins"] == int(seat in end["winners"])
        assert [p["ordinal"] for p in profile["history"]] == [pytest.approx(want.ordinal, abs=1e-3)]
        assert profile["stats"]["games"] == 1 and profile["stats"]["yaniv_calls"] >= 0
        assert profile["bots"] == []
    assert mine["history"][0]["place"] == places[0]
    # the end told again (as a second process would): nothing is rated twice
    store = app.app.state.hub.store  # type: ignore[attr-defined]
    with store.session() as session:
        text = session.scalar(select(GameRow.record).where(GameRow.room == end["room"]))
    history.game_over(store, end["room"], 1, text)
    again = app.get("/api/profile", headers=headers(ann)).json()
    assert again["rating"] == mine["rating"] and len(again["history"]) == 1
    # nobody is on the leaderboard before choosing a name; the viewer still learns their place
    board = app.get("/api/leaderboard", params={"min_games": 1}, headers=headers(ann)).json()
    assert board["players"] == [] and board["total"] == 0
    assert board["you"]["listed"] is False and board["you"]["place"] == 1
    # names: too long, control characters, markup as text, taken regardless of case
    r = app.put("/api/profile/name", json={"name": "x" * 25}, headers=headers(ann))
    assert r.status_code == 400 and "2 to 24 characters" in r.json()["error"]
    r = app.put("/api/profile/name", json={"name": "a\u0007b"}, headers=headers(ann))
    assert r.status_code == 400 and "control characters" in r.json()["error"]
    r = app.put("/api/profile/name", json={"name": 5}, headers=headers(ann))
    assert r.status_code == 400 and "name" in r.json()["error"]
    markup = "<b>Ann</b>"
    assert (
        app.put("/api/profile/name", json={"name": markup}, headers=headers(ann)).json()["name"]
        == markup
    )
    r = app.put("/api/profile/name", json={"name": "<B>ANN</B>"}, headers=headers(ben))
    assert r.status_code == 409 and "taken" in r.json()["error"]
    assert (
        app.put("/api/profile/name", json={"name": "Ben"}, headers=headers(ben)).status_code == 200
    )
    # the leaderboard: best ordinal first, the minimum of games applied
    board = app.get("/api/leaderboard", params={"min_games": 1}, headers=headers(ben)).json()
    names = [p["name"] for p in board["players"]]
    ordinals = [p["ordinal"] for p in board["players"]]
    assert sorted(names) == ["<b>Ann</b>", "Ben"] and ordinals == sorted(ordinals, reverse=True)
    assert board["you"]["place"] == 1 + names.index("Ben") and board["you"]["listed"] is True
    assert app.get("/api/leaderboard").json()["players"] == []  # 5 games are needed by default
    # a public profile: by its id, without the game ids
    public = app.get(f"/api/players/{board['players'][0]['id']}").json()
    assert public["own"] is False and public["name"] == board["players"][0]["name"]
    assert public["history"][0]["game"] is None
    # withdrawn: gone from the board, and its profile no longer public
    ben_id = theirs["id"]
    assert (
        app.put("/api/profile/name", json={"name": None}, headers=headers(ben)).status_code == 200
    )
    assert app.get(f"/api/players/{ben_id}").status_code == 404
    board = app.get("/api/leaderboard", params={"min_games": 1}).json()
    assert [p["name"] for p in board["players"]] == ["<b>Ann</b>"]


def test_games_against_the_computer_count_per_level_and_are_not_rated(app: TestClient) -> None:
    key = new_key()
    answer = app.post(
        "/api/games",
        json={"name": "Me", "opponents": ["easy", "easy"], "rules": QUICK, "player_key": key},
    ).json()
    with app.websocket_connect(f"/ws/{answer['room']}?token={answer['token']}") as ws:
        end = play_out({0: ws})
    profile = app.get("/api/profile", headers=headers(key)).json()
    assert profile["rating"] is None and profile["history"] == []
    won = int(0 in end["winners"])
    assert profile["bots"] == [{"level": "easy", "won": won, "lost": 1 - won}]
    assert profile["stats"]["games"] == 1
    board = app.get("/api/leaderboard", params={"min_games": 1}, headers=headers(key)).json()
    assert board["you"] is None


def test_ratings_survive_a_restart_on_each_backend(database: str) -> None:
    ann, ben = new_key(), new_key()
    with client(database) as c:
        two_people_game(c, ann, ben)
        before = c.get("/api/profile", headers=headers(ann)).json()
    with client(database) as c:
        after = c.get("/api/profile", headers=headers(ann)).json()
    assert after["rating"] == before["rating"] and after["history"] == before["history"]


def test_the_rating_migrations_go_down_and_up(database: str) -> None:
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import inspect

    from yaniv.server.storage import MIGRATIONS, make_engine, migrate

    engine = make_engine(database)
    try:
        migrate(engine)
        inspector = inspect(engine)
        assert {"ratings", "rating_history", "bot_records", "quick_tickets"} <= set(
            inspector.get_table_names()
        )
        assert "ix_ratings_listed" in {i["name"] for i in inspector.get_indexes("ratings")}
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.downgrade(config, "0004")
        names = set(inspect(engine).get_table_names())
        assert not names & {"ratings", "rating_history", "bot_records", "quick_tickets"}
        migrate(engine)
        assert "ix_ratings_listed" in {i["name"] for i in inspect(engine).get_indexes("ratings")}
    finally:
        engine.dispose()


def test_an_end_told_by_two_processes_at_once_is_rated_once(database: str) -> None:
    """Two stores (PostgreSQL: as two processes; SQLite holds one) store the same game's end
    at the same moment: the ratings move once."""
    import threading

    from sqlalchemy import delete, update

    ann, ben = new_key(), new_key()
    with client(database) as c:
        end = two_people_game(c, ann, ben)
        rated = c.get("/api/profile", headers=headers(ann)).json()["rating"]
    stores = [Store(database)]
    if not database.startswith("sqlite"):
        stores.append(Store(database))
    try:
        with stores[0].session() as session, session.begin():
            text = session.scalar(select(GameRow.record).where(GameRow.room == end["room"]))
            session.execute(delete(RatingHistoryRow))
            session.execute(delete(RatingRow))
            session.execute(update(GameRow).values(status="playing"))  # as before its end
        assert text is not None
        start = threading.Barrier(4)
        failures: list[BaseException] = []

        def tell(store: Store) -> None:
            start.wait()
            try:
                history.game_over(store, end["room"], 1, text)
            except BaseException as exc:  # reported below
                failures.append(exc)

        threads = [threading.Thread(target=tell, args=(stores[i % len(stores)],)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert not failures, failures
        with stores[0].session() as session:
            rows = session.scalars(select(RatingRow)).all()
            points = session.scalars(select(RatingHistoryRow)).all()
        assert sorted(r.games for r in rows) == [1, 1] and len(points) == 2
        mine = next(r for r in rows if r.key_hash == history.key_hash(ann))
        assert mine.mu == pytest.approx(rated["mu"], abs=1e-3)
    finally:
        for store in stores:
            store.close()
