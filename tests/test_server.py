"""The web app's server with the app in process: the API, the websocket, storage, restarts."""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from fastapi.testclient import TestClient  # noqa: E402

from yaniv.cards import NAMES, VALUE, parse_card  # noqa: E402
from yaniv.server.app import create_app  # noqa: E402
from yaniv.server.rooms import Room  # noqa: E402

CARD = re.compile(r"\b(?:" + "|".join(NAMES) + r")\b")


def client(db: Path, **settings: Any) -> TestClient:
    """A test client of an app on the SQLite file ``db`` (bots at once, no slap pause)."""
    options: dict[str, Any] = {
        "bot_delay": 0.0,
        "grace": 60.0,
        "slap_window": 0.0,
        "web_dir": None,
        "flood_limit": 10_000,
    }
    options.update(settings)
    return TestClient(create_app(f"sqlite:///{db}", **options))


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "yaniv.sqlite3"


@pytest.fixture
def app(db: Path) -> Iterator[TestClient]:
    with client(db) as c:
        yield c


def new_game(
    c: TestClient,
    opponents: list[str] | None = None,
    name: str = "Me",
    rules: dict[str, Any] | None = None,
) -> dict[str, Any]:
    r = c.post(
        "/api/games", json={"name": name, "opponents": opponents or ["easy"], "rules": rules or {}}
    )
    assert r.status_code == 200, r.text
    return dict(r.json())


def key(view: dict[str, Any]) -> tuple[int, int, str]:
    """What identifies a moment of a round: the round, its events, the phase."""
    return view["round"], len(view["events"]), view["phase"]


def next_state(ws: Any, errors: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The next state message (errors are kept in ``errors`` or fail the test)."""
    while True:
        message = ws.receive_json()
        if message["type"] == "state":
            return dict(message)
        if message["type"] == "error":
            if errors is None:
                raise AssertionError(message)
            errors.append(message)


def greedy(view: dict[str, Any]) -> str:
    """Yaniv when it may be called, else the discard of the most points, else the stock."""
    moves: list[str] = view["legal_moves"]
    if "yaniv" in moves:
        return "yaniv"
    discards = [m for m in moves if m.startswith("discard")]
    if discards:
        return max(discards, key=lambda m: sum(VALUE[parse_card(c)] for c in m.split()[1:]))
    return "draw stock" if "draw stock" in moves else moves[0]


def play_round(ws: Any, seat: int, limit: int = 400) -> dict[str, Any]:
    """Play ``seat``'s first legal move whenever it is to act, until the round is over."""
    acted: set[tuple[int, int, str]] = set()
    for _ in range(limit):
        state = next_state(ws)
        view = state["view"]
        if view["phase"] in ("round_over", "game_over"):
            return state
        if view["to_move"] == seat and key(view) not in acted:
            acted.add(key(view))
            ws.send_json({"type": "move", "move": view["legal_moves"][0], "id": uuid.uuid4().hex})
    raise AssertionError("the round did not end")


def test_a_round_against_bots(app: TestClient) -> None:
    game = new_game(app, ["easy", "random"])
    assert game["seat"] == 0 and len(game["room"]) == 6 and len(game["token"]) >= 40
    with app.websocket_connect(f"/ws/{game['room']}?token={game['token']}") as ws:
        state = play_round(ws, 0)
        view = state["view"]
        assert view["result"] is not None and state["story"]
        assert [s["kind"] for s in state["seats"]] == ["human", "bot", "bot"]
        if view["phase"] == "round_over":
            ws.send_json({"type": "next_round"})
            while (state := next_state(ws))["view"]["round"] == view["round"]:
                pass
            assert state["view"]["round"] == view["round"] + 1
        ws.send_json({"type": "ping"})
        while ws.receive_json()["type"] != "pong":
            pass
    info = app.get(f"/api/rooms/{game['room']}").json()
    assert info["status"] in ("playing", "over") and info["max_players"] == 8


def friends(c: TestClient) -> tuple[str, list[str]]:
    """A started room of two people: the code and their tokens."""
    host = c.post("/api/rooms", json={"name": "Host", "rules": {"preset": "standard"}}).json()
    guest = c.post(f"/api/rooms/{host['room'].lower()}/join", json={"name": "Guest"}).json()
    assert guest["seat"] == 1 and guest["room"] == host["room"]
    r = c.post(f"/api/rooms/{host['room']}/start", json={"token": guest["token"]})
    assert r.status_code == 403 and "host" in r.json()["error"]
    r = c.post(f"/api/rooms/{host['room']}/start", json={"token": host["token"]})
    assert r.status_code == 200 and r.json()["status"] == "playing", r.text
    return host["room"], [host["token"], guest["token"]]


def test_two_friends_play_a_round(app: TestClient) -> None:
    code, tokens = friends(app)
    with (
        app.websocket_connect(f"/ws/{code}?token={tokens[0]}") as ws0,
        app.websocket_connect(f"/ws/{code}?token={tokens[1]}") as ws1,
    ):
        sockets = [ws0, ws1]
        state = next_state(ws0)
        assert state["view"]["seat"] == 0 and state["view"]["names"] == ["Host", "Guest"]
        assert [s["connected"] for s in state["seats"]] in ([True, False], [True, True])
        turn = state["view"]["to_move"]
        latest = (0, 0)
        acted: set[tuple[int, int]] = set()
        for n in range(2000):
            view = next_state(sockets[turn])["view"]
            assert view["seat"] == turn
            moment = (view["round"], len(view["events"]))
            if moment < latest:
                continue  # an older state still queued for this socket
            latest = moment
            if view["phase"] in ("round_over", "game_over"):
                assert view["result"] is not None
                return
            if view["to_move"] != turn:
                turn = view["to_move"]
            elif moment not in acted:
                acted.add(moment)
                sockets[turn].send_json({"type": "move", "move": greedy(view), "id": f"m{n}"})
    raise AssertionError("the round did not end")


def test_room_settings_bots_and_start(app: TestClient) -> None:
    host = app.post("/api/rooms", json={"name": "Host"}).json()
    code = host["room"]
    r = app.post(f"/api/rooms/{code}/start", json={"token": host["token"]})
    assert r.status_code == 409 and "2 players" in r.json()["error"]
    r = app.post(
        f"/api/rooms/{code}/settings",
        json={"token": host["token"], "bots": [{"seat": 2, "level": "easy"}]},
    )
    assert r.status_code == 200
    r = app.post(f"/api/rooms/{code}/start", json={"token": host["token"]})
    assert r.status_code == 409 and "seat 1 is empty" in r.json()["error"]
    r = app.post(
        f"/api/rooms/{code}/settings", json={"token": host["token"], "rules": {"preset": "nope"}}
    )
    assert r.status_code == 400 and "unknown preset" in r.json()["error"]
    r = app.post(
        f"/api/rooms/{code}/settings",
        json={"token": host["token"], "bots": [{"seat": 1, "level": "genius"}]},
    )
    assert r.status_code == 400 and "unknown bot level" in r.json()["error"]
    r = app.post(
        f"/api/rooms/{code}/settings",
        json={
            "token": host["token"],
            "rules": {"slapdown": "rank"},
            "bots": [{"seat": 1, "level": "medium"}],
        },
    )
    assert r.status_code == 200 and r.json()["rules"]["slapdown"] == "rank"
    assert [s["kind"] for s in r.json()["seats"]] == ["human", "bot", "bot"]
    assert app.post(f"/api/rooms/{code}/start", json={"token": host["token"]}).status_code == 200
    r = app.post(f"/api/rooms/{code}/join", json={"name": "Late"})
    assert r.status_code == 409
    assert app.get("/api/rooms/ZZZZZZ").status_code == 404
    levels = app.get("/api/levels").json()
    assert "easy" in levels["levels"] and "standard" in levels["presets"]
    assert levels["options"]["jokers"] == {"min": 0, "max": 2}


def test_a_spectator_never_sees_a_hidden_card(
    app: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[dict[str, Any], list[set[str]]]] = []
    original = Room.state

    async def recording(self: Room, conn: Any) -> dict[str, Any]:
        message = await original(self, conn)
        if conn.seat is None and self.table is not None:
            hands = [
                {NAMES[c] for c in self.table.view(s).hand} for s in range(len(self.table.seats))
            ]
            seen.append((message, hands))
        return message

    monkeypatch.setattr(Room, "state", recording)
    game = new_game(
        app,
        ["easy", "medium", "random"],
        rules={"preset": "standard", "slapdown": "rank", "pickup": "any"},
    )
    with (
        app.websocket_connect(f"/ws/{game['room']}") as spectator,
        app.websocket_connect(f"/ws/{game['room']}?token={game['token']}") as ws,
    ):
        for _ in range(3):
            play_round(ws, 0)
            ws.send_json({"type": "next_round"})
        spectator.send_json({"type": "move", "move": "yaniv", "id": "x"})
        while (message := spectator.receive_json())["type"] != "error":
            pass
        assert "spectators" in message["message"] and message["id"] == "x"
    assert len(seen) > 20
    for message, hands in seen:
        view = message["view"]
        assert view["seat"] is None and view["hand"] == [] and view["drawn"] is None
        if view["phase"] in ("round_over", "game_over"):
            continue  # every hand is shown at the round's end
        public = {k: v for k, v in view.items() if k not in ("result", "score_history")}
        shown = set(CARD.findall(json.dumps(public)))
        if view["round"] == 1:  # the story tells the whole game: earlier rounds' cards too
            shown |= set(CARD.findall(" ".join(message["story"])))
        for s, hand in enumerate(hands):
            hidden = hand - set(view["known"][s])
            assert not shown & hidden, (s, shown & hidden, view)


def test_tokens_bind_seats(app: TestClient) -> None:
    code, tokens = friends(app)
    other = new_game(app)
    with app.websocket_connect(f"/ws/{code}?token={other['token']}") as ws:
        message = ws.receive_json()
        assert message["type"] == "error" and "token" in message["message"]
    with (
        app.websocket_connect(f"/ws/{code}?token={tokens[0]}") as ws0,
        app.websocket_connect(f"/ws/{code}?token={tokens[1]}") as ws1,
    ):
        view = next_state(ws0)["view"]
        idle = 1 - view["to_move"]
        sockets = [ws0, ws1]
        move = view["legal_moves"][0] if view["legal_moves"] else "yaniv"
        sockets[idle].send_json({"type": "move", "move": move, "id": "sneak"})
        while (message := sockets[idle].receive_json())["type"] == "state":
            pass
        assert message["type"] == "error" and message["id"] == "sneak"
        assert "turn" in message["message"]
        sockets[idle].send_json({"type": "coach", "on": False})
        after = next_state(sockets[idle])["view"]
        assert (after["round"], after["events"], after["to_move"]) == (
            view["round"],
            view["events"],
            view["to_move"],
        )


def test_a_move_id_is_applied_once(app: TestClient) -> None:
    code, tokens = friends(app)
    with (
        app.websocket_connect(f"/ws/{code}?token={tokens[0]}") as ws0,
        app.websocket_connect(f"/ws/{code}?token={tokens[1]}") as ws1,
    ):
        view = next_state(ws0)["view"]
        ws = [ws0, ws1][view["to_move"]]
        view = next_state(ws)["view"] if ws is ws1 else view
        discard = next(m for m in view["legal_moves"] if m.startswith("discard"))
        ws.send_json({"type": "move", "move": discard, "id": "tap"})
        after = next_state(ws)["view"]
        assert len(after["events"]) == len(view["events"]) + 1
        ws.send_json({"type": "move", "move": discard, "id": "tap"})
        again = next_state(ws)["view"]
        assert again == after


def test_bad_messages_are_answered_in_words(app: TestClient) -> None:
    game = new_game(app, name="<script>alert(1)</script> & Co")
    info = app.get(f"/api/rooms/{game['room']}").json()
    assert info["seats"][0]["name"] == "<script>alert(1)</script> & Co"
    with app.websocket_connect(f"/ws/{game['room']}?token={game['token']}") as ws:
        before = next_state(ws)["view"]
        assert before["names"][0] == "<script>alert(1)</script> & Co"
        cases = [
            ("{not json", "JSON"),
            ("[1, 2]", "object"),
            (json.dumps({"type": "shout"}), "unknown message type"),
            (json.dumps({"type": "move"}), "move"),
            (json.dumps({"type": "move", "move": 7}), "move"),
            (json.dumps({"type": "move", "move": "discard", "id": "x" * 41}), "id"),
            (json.dumps({"type": "move", "move": "fold"}), "fold"),
            (json.dumps({"type": "coach", "on": "yes"}), "on"),
            (json.dumps({"type": "ping", "extra": 1}), "extra"),
            (json.dumps({"type": "move", "move": "x" * 17_000}), "16384 bytes"),
        ]
        for text, words in cases:
            ws.send_text(text)
            message = ws.receive_json()
            assert message["type"] == "error" and words in message["message"], (text, message)
        time.sleep(1.05)
        ws.send_json({"type": "coach", "on": True})
        state = next_state(ws)
        assert state["view"] == before and state["coach"] is not None
    r = app.post("/api/games", json={"name": "x" * 41, "opponents": ["easy"]})
    assert r.status_code == 400 and "name" in r.json()["error"]
    r = app.post("/api/games", json={"name": "Me", "opponents": []})
    assert r.status_code == 400 and "opponents" in r.json()["error"]
    r = app.post("/api/games", json={"name": "Me", "opponents": ["easy"], "rules": {"jokers": 9}})
    assert r.status_code == 400 and "jokers" in r.json()["error"]
    r = app.post("/api/games", content=b"{", headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]


def test_flooding_disconnects(db: Path) -> None:
    with (
        client(db, flood_limit=20) as app,
        app.websocket_connect(f"/ws/{new_game(app)['room']}") as ws,
    ):
        for _ in range(25):
            ws.send_json({"type": "ping"})
        messages = []
        with pytest.raises(Exception):  # noqa: B017  (the socket closes)
            while True:
                messages.append(ws.receive_json())
        assert any("20 messages a second" in m.get("message", "") for m in messages)


def test_a_restarted_server_resumes_the_game(db: Path) -> None:
    with client(db) as c:
        game = new_game(c, ["easy", "medium"])
        with c.websocket_connect(f"/ws/{game['room']}?token={game['token']}") as ws:
            moved = 0
            while moved < 6:
                view = next_state(ws)["view"]
                if view["phase"] == "round_over":
                    ws.send_json({"type": "next_round"})
                elif view["to_move"] == 0:
                    ws.send_json(
                        {"type": "move", "move": view["legal_moves"][0], "id": f"m{moved}"}
                    )
                    moved += 1
            while not (
                (state := next_state(ws))["view"]["to_move"] == 0
                or state["view"]["phase"] == "round_over"
            ):
                pass
    with client(db) as c, c.websocket_connect(f"/ws/{game['room']}?token={game['token']}") as ws:
        again = next_state(ws)
        assert again["view"] == state["view"]
        assert again["story"] == state["story"]
        if again["view"]["to_move"] == 0:
            ws.send_json({"type": "move", "move": again["view"]["legal_moves"][0], "id": "n"})
            assert len(next_state(ws)["view"]["events"]) > len(again["view"]["events"])


def test_reconnect_and_the_stand_in(db: Path) -> None:
    with client(db, grace=0.2) as c:
        game = new_game(c, ["easy"])
        url = f"/ws/{game['room']}?token={game['token']}"
        with c.websocket_connect(url) as ws:
            while (state := next_state(ws))["view"]["to_move"] != 0:
                pass
        with c.websocket_connect(url) as ws:  # back within the grace period: nothing moved
            assert next_state(ws)["view"] == state["view"]
        time.sleep(1.0)  # gone longer: a bot played the seat
        with c.websocket_connect(url) as ws:
            later = next_state(ws)["view"]
            assert (later["round"], len(later["events"])) != (
                state["view"]["round"],
                len(state["view"]["events"]),
            )
            assert later["seat"] == 0


def test_a_stock_draw_under_slapdown_pauses_the_others(db: Path) -> None:
    with client(db, slap_window=0.4) as c:
        game = new_game(c, ["easy"], rules={"preset": "standard", "slapdown": "rank"})
        with (
            c.websocket_connect(f"/ws/{game['room']}") as spectator,
            c.websocket_connect(f"/ws/{game['room']}?token={game['token']}") as ws,
        ):
            acted: set[tuple[int, int]] = set()
            while True:
                view = next_state(ws)["view"]
                moment = (view["round"], len(view["events"]))
                if view["to_move"] != 0 or moment in acted:
                    continue
                acted.add(moment)
                if view["phase"] == "draw":
                    break
                ws.send_json({"type": "move", "move": greedy(view), "id": uuid.uuid4().hex})
            sent = time.monotonic()
            ws.send_json({"type": "move", "move": "draw stock", "id": uuid.uuid4().hex})
            mine = next_state(ws)["view"]
            assert len(mine["events"]) > len(view["events"])
            assert time.monotonic() - sent < 0.35
            if mine["phase"] == "slap":
                # The card drawn may be slapped: until the player passes, the others see the
                # position before the draw, so nothing new would ever reach the spectator.
                ws.send_json({"type": "move", "move": "pass", "id": uuid.uuid4().hex})
            while len((seen := next_state(spectator)["view"])["events"]) <= len(view["events"]):
                pass
            assert time.monotonic() - sent >= 0.35
            assert seen["drawn"] is None


def test_the_stored_record_text_is_the_record() -> None:
    from yaniv import record
    from yaniv.rules import RuleSet
    from yaniv.server.journal import RecordText
    from yaniv.session import Seat, Table

    seats = [Seat("A", "bot", level="easy", seed=1), Seat("B", "bot", level="random", seed=2)]
    table = Table(RuleSet(), seats, seed=11)
    extra = {"table": {"seats": [s.to_dict() for s in table.seats]}}
    text = RecordText(table.game, extra)
    checked = 0
    for _ in range(4):
        while table.to_move is not None:
            table.play(table.to_move, table.decide(table.to_move))
            assert json.loads(text.text()) == json.loads(record.dumps(table.game, extra))
            checked += 1
        if table.game.winners:
            break
        table.next_round()
        assert json.loads(text.text()) == json.loads(record.dumps(table.game, extra))
    assert checked > 10
    resumed = record.resume(record.loads(text.text()))
    assert resumed.view(0) == table.game.view(0)
    table.close()
