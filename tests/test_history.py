"""History, replays and statistics (yaniv/server/history.py), lobby updates over the websocket,
and rematch in a room: the app in process, on SQLite (and PostgreSQL where one is given)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from fastapi.testclient import TestClient  # noqa: E402

from yaniv import record  # noqa: E402
from yaniv.cards import deck, parse_cards  # noqa: E402
from yaniv.game import Game  # noqa: E402
from yaniv.rules import RuleSet  # noqa: E402
from yaniv.server import history  # noqa: E402
from yaniv.server.app import create_app  # noqa: E402
from yaniv.server.models import PlayerRow, RoomRow  # noqa: E402
from yaniv.server.storage import token_hash  # noqa: E402
from yaniv.state import Deal  # noqa: E402

#: Rules under which any Yaniv call ends the game: a call above the threshold is allowed (a
#: deliberate Assaf, R15) and the first score over 1 ends it.
QUICK = {"preset": "standard", "yaniv_above_threshold": True, "score_limit": 1,
         "end_mode": "first_over"}  # fmt: skip


def client(url: str) -> TestClient:
    """An app on ``url``: bots at once, no slap pause, no front end."""
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
    """The next message of type ``kind`` (others skipped; an error fails the test)."""
    while True:
        message = dict(ws.receive_json())
        if message["type"] == kind:
            return message
        assert message["type"] != "error", message


def call_out(sockets: dict[int, Any], view: dict[str, Any] | None = None) -> dict[str, Any]:
    """Each person calls Yaniv at their first turn (under QUICK that ends the game); returns
    the first socket's state at the end. ``sockets``: seat -> that player's socket; ``view``:
    the first socket's latest view, if it was read already."""
    watch = next(iter(sockets.values()))
    acted: set[tuple[int, int]] = set()
    for _ in range(500):
        if view is None:
            view = next_message(watch, "state")["view"]
        if view["phase"] == "game_over":
            return {"view": view}
        moment = (view["round"], len(view["events"]))
        seat = view["to_move"]
        if view["phase"] == "start" and seat in sockets and moment not in acted:
            acted.add(moment)
            sockets[seat].send_json({"type": "move", "move": "yaniv", "id": f"y{moment}"})
        view = None
    raise AssertionError("the game did not end")


def test_keys_and_ids_are_checked_in_words(app: TestClient) -> None:
    r = app.post("/api/games", json={"name": "Me", "opponents": ["easy"], "player_key": "short"})
    assert r.status_code == 400 and "player key" in r.json()["error"]
    r = app.post("/api/rooms", json={"name": "Me", "player_key": "x" * 31 + "<"})
    assert r.status_code == 400 and "player key" in r.json()["error"]
    r = app.post("/api/rooms", json={"name": "Me", "player_key": 12345})
    assert r.status_code == 400 and "player_key" in r.json()["error"]
    r = app.get("/api/history")
    assert r.status_code == 400 and "X-Player-Key" in r.json()["error"]
    r = app.get("/api/history", headers=headers("not a key"))
    assert r.status_code == 400 and "player key is 32 to 100" in r.json()["error"]
    r = app.get("/api/history", headers=headers(new_key()), params={"limit": 0})
    assert r.status_code == 400 and "limit" in r.json()["error"]
    fresh = app.get("/api/history", headers=headers(new_key()))
    assert fresh.status_code == 200
    assert fresh.json()["games"] == [] and fresh.json()["stats"]["games"] == 0
    r = app.get("/api/history/abc", headers=headers(new_key()))
    assert r.status_code == 400 and "whole number" in r.json()["error"]
    r = app.get("/api/history/99999", headers=headers(new_key()))
    assert r.status_code == 404 and "no game 99999" in r.json()["error"]
    r = app.get("/api/history/1")
    assert r.status_code == 400 and "X-Player-Key" in r.json()["error"]


def test_a_finished_game_in_the_history_and_its_replay(app: TestClient) -> None:
    mine, theirs = new_key(), new_key()
    # a room of two people and a bot: seat 1 (a person) starts, so nothing moves until then
    host = app.post("/api/rooms", json={"name": "Me", "rules": QUICK, "player_key": mine})
    code, token = host.json()["room"], host.json()["token"]
    pal = app.post(f"/api/rooms/{code}/join", json={"name": "Pal"}).json()["token"]
    app.post(
        f"/api/rooms/{code}/settings", json={"token": token, "bots": [{"seat": 2, "level": "easy"}]}
    )
    assert app.post(f"/api/rooms/{code}/start", json={"token": token}).status_code == 200
    other = app.post(
        "/api/games", json={"name": "Other", "opponents": ["easy"], "player_key": theirs}
    ).json()
    listed = app.get("/api/history", headers=headers(mine)).json()
    assert [g["room"] for g in listed["games"]] == [code]
    entry = listed["games"][0]
    assert entry["status"] == "playing" and entry["result"] is None and entry["seat"] == 0
    assert [p["name"] for p in entry["players"]] == ["Me", "Pal", "Noa"]
    assert [p["kind"] for p in entry["players"]] == ["human", "human", "bot"]
    assert entry["rules"] == "custom" and entry["number"] == 1
    r = app.get(f"/api/history/{entry['id']}", headers=headers(mine))
    assert r.status_code == 409 and "not over" in r.json()["error"]  # hidden cards stay hidden

    with (
        app.websocket_connect(f"/ws/{code}?token={token}") as ws0,
        app.websocket_connect(f"/ws/{code}?token={pal}") as ws1,
    ):
        end = call_out({0: ws0, 1: ws1})["view"]
    listed = app.get("/api/history", headers=headers(mine)).json()
    entry = listed["games"][0]
    assert entry["status"] == "over" and entry["finished"] is not None
    result = entry["result"]
    assert result["winners"] == end["winners"] and result["scores"] == end["scores"]
    assert result["won"] == (0 in end["winners"]) and result["score"] == end["scores"][0]
    better = sum(
        1
        for s in range(3)
        if (s not in end["winners"], end["scores"][s]) < (0 not in end["winners"], end["scores"][0])
    )
    assert result["place"] == 1 + better
    assert listed["stats"]["games"] == 1 and listed["stats"]["wins"] == int(result["won"])

    r = app.get(f"/api/history/{entry['id']}", headers=headers(theirs))
    assert r.status_code == 403 and "not one of yours" in r.json()["error"]
    replay = app.get(f"/api/history/{entry['id']}", headers=headers(mine)).json()
    assert replay["room"] == code and replay["seat"] == 0
    steps, data = replay["steps"], replay["record"]
    assert data["winners"] == end["winners"]
    moves = [m for rnd in data["rounds"] for m in rnd["moves"]]
    assert [(s["seat"], s["move"]) for s in steps if s["move"]] == [tuple(m) for m in moves]
    assert steps[0]["move"] is None
    dealt = data["rounds"][0]["deal"]["hands"]
    assert [sorted(h) for h in steps[0]["hands"]] == [sorted(h) for h in dealt]
    assert steps[-1]["result"]["game_winners"] == end["winners"]
    assert steps[-1]["scores"] == end["scores"]
    # the other player's history holds only their own game
    theirs_listed = app.get("/api/history", headers=headers(theirs)).json()
    assert [g["room"] for g in theirs_listed["games"]] == [other["room"]]


def known_record() -> dict[str, Any]:
    """Three rounds of two players whose outcome is known: seat 1 calls Yaniv with 3 and wins
    the round; seat 1 calls with 7 and seat 0 (6) catches it: Assaf; seat 0 calls with 3, seat
    1 ends on 37 + 50 = 87 > 60 and the game is over, won by seat 0 (50)."""
    rules = RuleSet.preset("standard", end_mode="first_over", score_limit=60)

    def deal(hands: list[str], starter: int) -> Deal:
        held = [parse_cards(h) for h in hands]
        rest = [c for c in deck(rules.jokers) if all(c not in h for h in held)]
        return Deal(tuple(tuple(h) for h in held), rest[0], tuple(rest[1:]), starter)

    game = Game.new(
        rules, 2, 7, names=["Ann", "Ben"], deal=deal(["KC KD KH KS QC", "RJ BJ AC AD AH"], 1)
    )
    game.play("yaniv")
    game.next_round(deal(["RJ BJ 2C 2D 2H", "AC AD AH AS 3C"], 1))
    game.play("yaniv")
    game.next_round(deal(["RJ BJ AC AD AH", "KC KD KH KS QS"], 0))
    game.play("yaniv")
    assert game.winners == (0,) and game.scores == [50, 87]
    return record.to_record(game)


def test_statistics_of_a_game_whose_outcome_is_known(app: TestClient) -> None:
    data = known_record()
    text = json.dumps(data)
    ann, ben, stranger = new_key(), new_key(), new_key()
    store = app.app.state.hub.store  # type: ignore[attr-defined]
    with store.session() as session, session.begin():
        session.add(
            RoomRow(code="KNOWN1", rules=data["rules"], seats=[], status="over", record=text)
        )
        session.flush()
        for seat, key in enumerate([ann, ben]):
            session.add(
                PlayerRow(
                    token_hash=token_hash(new_key()),
                    room="KNOWN1",
                    seat=seat,
                    name=data["players"][seat],
                    key_hash=history.key_hash(key),
                )
            )
    seats = [{"name": "Ann", "kind": "human"}, {"name": "Ben", "kind": "human"}]
    history.game_started(store, "KNOWN1", 1, data["rules"], seats)
    history.game_over(store, "KNOWN1", 1, text)

    first = app.get("/api/history", headers=headers(ann)).json()
    assert first["stats"] == {
        "games": 1,
        "wins": 1,
        "yaniv_calls": 1,
        "yaniv_successes": 1,
        "success_rate": 1.0,
        "assafs_suffered": 0,
        "deliberate_calls": 0,
        "assafs_made": 1,
        "average_call_total": 3.0,
    }
    (entry,) = first["games"]
    assert entry["result"] == {
        "winners": [0],
        "won": True,
        "place": 1,
        "score": 50,
        "scores": [50, 87],
        "rounds": 3,
    }
    assert entry["rules"] == "custom" and entry["seat"] == 0
    second = app.get("/api/history", headers=headers(ben)).json()
    assert second["stats"] == {
        "games": 1,
        "wins": 0,
        "yaniv_calls": 2,
        "yaniv_successes": 1,
        "success_rate": 0.5,
        "assafs_suffered": 1,
        "deliberate_calls": 0,
        "assafs_made": 0,
        "average_call_total": 5.0,
    }
    assert second["games"][0]["result"]["place"] == 2
    assert second["games"][0]["seat"] == 1
    assert app.get("/api/history", headers=headers(stranger)).json()["games"] == []

    replay = app.get(f"/api/history/{entry['id']}", headers=headers(ben)).json()
    steps = replay["steps"]
    assert [(s["round"], s["seat"], s["move"]) for s in steps] == [
        (1, None, None),
        (1, 1, "yaniv"),
        (2, None, None),
        (2, 1, "yaniv"),
        (3, None, None),
        (3, 0, "yaniv"),
    ]
    assert steps[0]["hands"] == [["QC", "KC", "KD", "KH", "KS"], ["AC", "AD", "AH", "RJ", "BJ"]]
    assert [s["result"]["kind"] for s in steps if s["result"]] == ["yaniv", "assaf", "yaniv"]
    assert [s["scores"] for s in steps if s["result"]] == [[50, 0], [50, 37], [50, 87]]
    assert steps[2]["scores"] == [50, 0] and steps[-1]["to_move"] is None
    r = app.get(f"/api/history/{entry['id']}", headers=headers(stranger))
    assert r.status_code == 403


def test_a_waiting_room_is_pushed_to_its_clients(app: TestClient) -> None:
    host = app.post("/api/rooms", json={"name": "Host", "player_key": new_key()}).json()
    code = host["room"]
    with (
        app.websocket_connect(f"/ws/{code}?token={host['token']}") as ws,
        app.websocket_connect(f"/ws/{code}") as spectator,
    ):
        first = next_message(ws, "room")
        assert first["status"] == "waiting" and [s["name"] for s in first["seats"]] == ["Host"]
        assert first["room"] == code and first["game"] == 0
        guest = app.post(f"/api/rooms/{code}/join", json={"name": "Guest"}).json()
        joined = next_message(ws, "room")
        assert [s["name"] for s in joined["seats"]] == ["Host", "Guest"]
        assert joined["seats"][1]["connected"] is False
        r = app.post(
            f"/api/rooms/{code}/settings",
            json={"token": host["token"], "bots": [{"seat": 2, "level": "easy"}]},
        )
        assert r.status_code == 200
        botted = next_message(ws, "room")
        assert [s["kind"] for s in botted["seats"]] == ["human", "human", "bot"]
        app.post(
            f"/api/rooms/{code}/settings",
            json={"token": host["token"], "rules": {"preset": "standard", "jokers": 0}},
        )
        assert next_message(ws, "room")["rules"]["jokers"] == 0
        with app.websocket_connect(f"/ws/{code}?token={guest['token']}") as ws_guest:
            here = next_message(ws, "room")
            assert [s["connected"] for s in here["seats"]] == [True, True, True]
            assert next_message(ws_guest, "room") == here
        gone = next_message(ws, "room")  # the guest's socket closed
        assert [s["connected"] for s in gone["seats"]] == [True, False, True]
        r = app.post(f"/api/rooms/{code}/start", json={"token": host["token"]})
        assert r.status_code == 200, r.text
        started = next_message(ws, "room")
        assert started["status"] == "playing" and started["game"] == 1
        # the spectator heard every change as well, the start last
        seen = []
        while (message := spectator.receive_json())["type"] != "state" or not message["view"]:
            if message["type"] == "room":
                seen.append(message)
        assert seen[-1] == started and len(seen) >= 5
        # once the game runs, no more room messages: states only
        state = next_message(ws, "state")
        assert state["view"] is not None
        ws.send_json({"type": "ping"})
        while (message := ws.receive_json())["type"] != "pong":
            assert message["type"] == "state", message


def test_rematch_in_a_room(app: TestClient) -> None:
    keys = [new_key(), new_key()]
    host = app.post("/api/rooms", json={"name": "Host", "rules": QUICK, "player_key": keys[0]})
    code, host_token = host.json()["room"], host.json()["token"]
    guest = app.post(f"/api/rooms/{code}/join", json={"name": "Guest", "player_key": keys[1]})
    guest_token = guest.json()["token"]
    app.post(
        f"/api/rooms/{code}/settings",
        json={"token": host_token, "bots": [{"seat": 2, "level": "easy"}]},
    )
    assert app.post(f"/api/rooms/{code}/start", json={"token": host_token}).status_code == 200
    r = app.post(f"/api/rooms/{code}/rematch", json={"token": guest_token})
    assert r.status_code == 409 and "not over" in r.json()["error"]
    with (
        app.websocket_connect(f"/ws/{code}?token={host_token}") as ws0,
        app.websocket_connect(f"/ws/{code}?token={guest_token}") as ws1,
        app.websocket_connect(f"/ws/{code}") as spectator,
    ):
        end = call_out({0: ws0, 1: ws1})["view"]
        before = app.get(f"/api/rooms/{code}").json()
        assert before["status"] == "over" and before["game"] == 1
        seats = before["seats"]
        assert [s["kind"] for s in seats] == ["human", "human", "bot"]
        r = app.post(f"/api/rooms/{code}/rematch", json={"token": "nobody"})
        assert r.status_code == 403
        r = app.post(f"/api/rooms/{code}/rematch", json={"token": guest_token, "game": 0})
        assert r.status_code == 400 and "game" in r.json()["error"]
        r = app.post(f"/api/rooms/{code}/rematch", json={"token": guest_token, "game": 1})
        assert r.status_code == 200, r.text
        info = r.json()
        assert info["status"] == "playing" and info["game"] == 2
        assert [(s["name"], s["kind"], s.get("level")) for s in info["seats"]] == [
            (s["name"], s["kind"], s.get("level")) for s in seats
        ]
        # the host asks too, having seen game 1 end: nothing changes
        again = app.post(f"/api/rooms/{code}/rematch", json={"token": host_token, "game": 1})
        assert again.status_code == 200 and again.json()["game"] == 2
        fresh = {}
        for ws in (ws0, ws1, spectator):
            while (view := next_message(ws, "state")["view"])["phase"] == "game_over":
                pass
            assert view["round"] == 1 and view["scores"] == [0, 0, 0] and view["winners"] == []
            assert view["names"] == end["names"]
            fresh[ws] = view
        assert fresh[spectator]["seat"] is None and fresh[spectator]["hand"] == []
        second = call_out({0: ws0, 1: ws1}, fresh[ws0])["view"]
        assert second["phase"] == "game_over"
    listed = app.get("/api/history", headers=headers(keys[1])).json()
    assert [(g["room"], g["number"], g["status"]) for g in listed["games"]] == [
        (code, 2, "over"),
        (code, 1, "over"),
    ]
    assert listed["stats"]["games"] == 2
    first = listed["games"][1]
    assert first["result"]["scores"] == end["scores"]
    replay = app.get(f"/api/history/{first['id']}", headers=headers(keys[0]))
    assert replay.status_code == 200 and replay.json()["record"]["winners"] == end["winners"]


def test_no_key_is_shown_to_anyone(app: TestClient) -> None:
    keys = [new_key(), new_key()]
    host = app.post("/api/rooms", json={"name": "Host", "rules": QUICK, "player_key": keys[0]})
    code = host.json()["room"]
    guest = app.post(f"/api/rooms/{code}/join", json={"name": "Guest", "player_key": keys[1]})
    app.post(f"/api/rooms/{code}/start", json={"token": host.json()["token"]})
    seen = [app.get(f"/api/rooms/{code}").text]
    with app.websocket_connect(f"/ws/{code}?token={guest.json()['token']}") as ws:
        seen.append(json.dumps(next_message(ws, "state")))
    seen.append(app.get("/api/history", headers=headers(keys[1])).text)
    secrets_of_host = [keys[0], history.key_hash(keys[0])]
    assert not any(secret in text for secret in secrets_of_host for text in seen)


def test_the_history_survives_a_restart_on_each_backend(database: str) -> None:
    key = new_key()
    with client(database) as c:
        game = c.post(
            "/api/games",
            json={"name": "Me", "opponents": ["easy"], "rules": QUICK, "player_key": key},
        ).json()
        with c.websocket_connect(f"/ws/{game['room']}?token={game['token']}") as ws:
            end = call_out({0: ws})["view"]
        playing = c.post(
            "/api/games", json={"name": "Me", "opponents": ["easy"], "player_key": key}
        ).json()
    with client(database) as c:
        listed = c.get("/api/history", headers=headers(key)).json()
        assert [(g["room"], g["status"]) for g in listed["games"]] == [
            (playing["room"], "playing"),
            (game["room"], "over"),
        ]
        assert listed["games"][1]["result"]["scores"] == end["scores"]
        assert listed["stats"]["games"] == 1
        replay = c.get(f"/api/history/{listed['games'][1]['id']}", headers=headers(key))
        assert replay.status_code == 200 and replay.json()["steps"][-1]["scores"] == end["scores"]
        r = c.get(f"/api/history/{listed['games'][0]['id']}", headers=headers(key))
        assert r.status_code == 409


def test_a_game_older_than_the_history_and_an_end_the_row_missed(tmp_path: Path) -> None:
    """A room in play without a games row (made before migration 0002) gets one when the
    server resumes it; a game whose end reached its room but not its row (the server stopped
    in between) is listed and replayed from the room's record."""
    from sqlalchemy import delete, update

    from yaniv.server.models import GameRow

    url = f"sqlite:///{tmp_path / 'yaniv.sqlite3'}"
    key = new_key()
    with client(url) as c:  # two people: nothing moves until they do
        host = c.post("/api/rooms", json={"name": "Me", "rules": QUICK, "player_key": key})
        code, token = host.json()["room"], host.json()["token"]
        guest = c.post(f"/api/rooms/{code}/join", json={"name": "Guest"}).json()["token"]
        assert c.post(f"/api/rooms/{code}/start", json={"token": token}).status_code == 200
        store = c.app.state.hub.store  # type: ignore[attr-defined]
        with store.session() as session, session.begin():
            session.execute(delete(GameRow))
        assert c.get("/api/history", headers=headers(key)).json()["games"] == []
    with client(url) as c:
        with (
            c.websocket_connect(f"/ws/{code}?token={token}") as ws0,
            c.websocket_connect(f"/ws/{code}?token={guest}") as ws1,
        ):
            end = call_out({0: ws0, 1: ws1})["view"]
        (entry,) = c.get("/api/history", headers=headers(key)).json()["games"]
        assert entry["status"] == "over" and entry["number"] == 1
        assert entry["result"]["scores"] == end["scores"]
        store = c.app.state.hub.store  # type: ignore[attr-defined]
        with store.session() as session, session.begin():
            session.execute(
                update(GameRow).values(status="playing", record=None, summary=None, finished=None)
            )
        listed = c.get("/api/history", headers=headers(key)).json()
        (again,) = listed["games"]
        assert again["status"] == "over" and again["result"] == entry["result"]
        assert listed["stats"]["games"] == 1
        replay = c.get(f"/api/history/{again['id']}", headers=headers(key)).json()
        assert replay["steps"][-1]["scores"] == end["scores"]


def test_migration_0002_goes_down_and_up(tmp_path: Path) -> None:
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import inspect

    from yaniv.server.storage import MIGRATIONS, make_engine, migrate

    engine = make_engine(f"sqlite:///{tmp_path / 'yaniv.sqlite3'}")
    migrate(engine)
    assert "games" in inspect(engine).get_table_names()
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0001")
    inspector = inspect(engine)
    assert "games" not in inspector.get_table_names()
    assert "key_hash" not in {c["name"] for c in inspector.get_columns("players")}
    migrate(engine)
    assert "key_hash" in {c["name"] for c in inspect(engine).get_columns("players")}
    engine.dispose()


def test_the_history_page_has_its_words_in_both_catalogues() -> None:
    """Every catalogue key js/history.js asks for (its templates spelt out) is in en.json and
    he.json, and the page builds its elements as text, never as markup."""
    import re

    web = Path(__file__).resolve().parent.parent / "yaniv" / "web"
    source = (web / "js" / "history.js").read_text(encoding="utf-8")
    keys = set(re.findall(r"""\bt\(\s*["']([\w.]+)["']""", source))
    keys |= {f"history.{name}" for name in ("first", "prev", "next", "last")}
    keys |= {f"history.{name}_label" for name in ("first", "prev", "next", "last")}
    columns = re.search(r"\[([^\]]*)\]\s*\.map\(\(col\)", source)
    assert columns is not None
    keys |= {f"history.col.{c}" for c in re.findall(r'"(\w+)"', columns.group(1))}
    assert "history.move.discard" in keys and "history.col.score" in keys
    assert "innerHTML" not in source and "insertAdjacentHTML" not in source
    for lang in ("en", "he"):
        catalogue = json.loads((web / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
        missing = sorted(k for k in keys if k not in catalogue)
        assert not missing, f"{lang}.json lacks {missing}"
