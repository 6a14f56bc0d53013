"""The web app's server with the app in process: the API, the websocket, storage, restarts."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from card_knowledge import CARD, knowledge, this_round  # noqa: E402
from db_backends import postgres_schema  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from yaniv.cards import NAMES, VALUE, parse_card  # noqa: E402
from yaniv.server import rooms  # noqa: E402
from yaniv.server.app import create_app  # noqa: E402
from yaniv.server.rooms import Room  # noqa: E402


def client(url: str, **settings: Any) -> TestClient:
    """A test client of an app on the database ``url`` (bots at once, no slap pause)."""
    options: dict[str, Any] = {
        "bot_delay": 0.0,
        "grace": 60.0,
        "slap_window": 0.0,
        "web_dir": None,
        "flood_limit": 10_000,
    }
    options.update(settings)
    return TestClient(create_app(url, **options))


@pytest.fixture
def db(tmp_path: Path) -> str:
    """An SQLite file's URL (the tests of what storage does not touch run on SQLite only)."""
    return f"sqlite:///{tmp_path / 'yaniv.sqlite3'}"


@pytest.fixture
def app(db: str) -> Iterator[TestClient]:
    with client(db) as c:
        yield c


@pytest.fixture
def stored_app(database: str) -> Iterator[TestClient]:
    """An app on each backend."""
    with client(database) as c:
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


def deal_on(ws: Any, view: dict[str, Any] | None, asked: list[int]) -> None:
    """At a round's end, say next_round once for it (kept in ``asked``), as a player would:
    alone with bots, the round's end waits for the person. A game's end fails the test."""
    if view is None:
        return
    assert view["phase"] != "game_over", "the game ended first"
    if view["phase"] == "round_over" and view["round"] not in asked:
        asked.append(view["round"])
        ws.send_json({"type": "next_round"})


def until_turn(ws: Any, seat: int = 0) -> dict[str, Any]:
    """The next state where ``seat`` is to move. A round the bots end before that (a bot dealt
    a low hand calls at its first turn) is dealt on (``deal_on``)."""
    asked: list[int] = []
    while True:
        view = (state := next_state(ws))["view"]
        if view is not None and view["to_move"] == seat:
            return state
        deal_on(ws, view, asked)


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


def stored_record(c: TestClient, code: str) -> dict[str, Any]:
    """The game record of room ``code`` as the app's database holds it."""
    from yaniv import record
    from yaniv.server.models import RoomRow

    with c.app.state.hub.store.session() as session:  # type: ignore[attr-defined]
        row = session.get(RoomRow, code)
        assert row is not None and row.record is not None
        return record.loads(row.record)


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
        # The state now: no card of a hand but those the events showed taken from the pile.
        # (The events name a card discarded before a refill, back in the stock since: a
        # spectator knows it was, not who drew it again; knowledge() checks the events.)
        told, held = knowledge(view["events"], None)
        assert held is not None
        now = {k: v for k, v in view.items() if k not in ("events", "result", "score_history")}
        shown = set(CARD.findall(json.dumps(now)))
        for s, hand in enumerate(hands):
            hidden = hand - held.get(s, set())
            assert not shown & hidden, (s, shown & hidden, view)
        lines = this_round(message["story"], view["round"])
        assert set(CARD.findall(" ".join(lines))) <= told, (lines, told)


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


def test_a_move_id_is_applied_once(stored_app: TestClient) -> None:
    code, tokens = friends(stored_app)
    with (
        stored_app.websocket_connect(f"/ws/{code}?token={tokens[0]}") as ws0,
        stored_app.websocket_connect(f"/ws/{code}?token={tokens[1]}") as ws1,
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
    moves = stored_record(stored_app, code)["rounds"][-1]["moves"]
    assert [m for m in moves if m[1] == discard] == [[view["to_move"], discard]]


def test_a_move_id_is_applied_once_after_the_room_is_loaded_again(database: str) -> None:
    """A move sent again after its room left a process (a restart here; a fail-over to
    another process alike) is answered with the state, not applied or refused: the ids are
    stored with the moves."""
    with client(database) as c:
        code, tokens = friends(c)
        with c.websocket_connect(f"/ws/{code}?token={tokens[0]}") as ws0:
            mover = next_state(ws0)["view"]["to_move"]
        with c.websocket_connect(f"/ws/{code}?token={tokens[mover]}") as ws:
            view = next_state(ws)["view"]
            discard = next(m for m in view["legal_moves"] if m.startswith("discard"))
            ws.send_json({"type": "move", "move": discard, "id": "sent-twice"})
            after = next_state(ws)["view"]
            assert len(after["events"]) == len(view["events"]) + 1
    with client(database) as c, c.websocket_connect(f"/ws/{code}?token={tokens[mover]}") as ws:
        assert next_state(ws)["view"] == after
        ws.send_json({"type": "move", "move": discard, "id": "sent-twice"})
        assert next_state(ws)["view"] == after  # an error (not the state) fails next_state
        ws.send_json({"type": "move", "move": discard, "id": "a-new-id"})
        refused = ws.receive_json()
        assert refused["type"] == "error" and refused["id"] == "a-new-id"


def test_bad_messages_are_answered_in_words(app: TestClient) -> None:
    game = new_game(app, name="<script>alert(1)</script> & Co")
    info = app.get(f"/api/rooms/{game['room']}").json()
    assert info["seats"][0]["name"] == "<script>alert(1)</script> & Co"
    with app.websocket_connect(f"/ws/{game['room']}?token={game['token']}") as ws:
        # Until the person is to act (or the bots ended the round), the bots' moves come in.
        while (before := next_state(ws)["view"])["to_move"] != 0 and before["phase"] not in (
            "round_over",
            "game_over",
        ):
            pass
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


def test_flooding_disconnects(db: str) -> None:
    with (
        client(db, flood_limit=20) as app,
        app.websocket_connect(f"/ws/{new_game(app)['room']}") as ws,
    ):
        for _ in range(25):
            ws.send_json({"type": "ping"})
        from starlette.websockets import WebSocketDisconnect

        messages = []
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                messages.append(ws.receive_json())
        assert any("20 messages a second" in m.get("message", "") for m in messages)
        assert closed.value.code == 1008


def test_a_restarted_server_resumes_the_game(database: str) -> None:
    with client(database) as c:
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
    with (
        client(database) as c,
        c.websocket_connect(f"/ws/{game['room']}?token={game['token']}") as ws,
    ):
        again = next_state(ws)
        assert again["view"] == state["view"]
        assert again["story"] == state["story"]
        if again["view"]["to_move"] == 0:
            ws.send_json({"type": "move", "move": again["view"]["legal_moves"][0], "id": "n"})
            assert len(next_state(ws)["view"]["events"]) > len(again["view"]["events"])


#: One round ends the game (the first score over 1 ends it).
ONE_ROUND = {"preset": "standard", "score_limit": 1, "end_mode": "first_over"}


def test_a_finished_room_comes_back_after_a_restart(database: str) -> None:
    """Finished rooms are not loaded at the start, but asked for they come back: their end,
    to a player and a spectator, and a rematch."""
    with client(database) as c:
        game = new_game(c, ["easy"], rules=ONE_ROUND)
        code = game["room"]
        with c.websocket_connect(f"/ws/{code}?token={game['token']}") as ws:
            end = play_round(ws, 0)
        assert end["view"]["phase"] == "game_over"
        assert c.get(f"/api/rooms/{code}").json()["status"] == "over"
    with client(database) as c:
        assert code not in c.app.state.hub.rooms  # type: ignore[attr-defined]
        info = c.get(f"/api/rooms/{code}")
        assert info.status_code == 200 and info.json()["status"] == "over"
        with c.websocket_connect(f"/ws/{code}?token={game['token']}") as ws:
            again = next_state(ws)["view"]
            assert again["phase"] == "game_over"
            assert again["scores"] == end["view"]["scores"]
            assert again["hand"] == end["view"]["hand"]
        with c.websocket_connect(f"/ws/{code}") as spectator:
            watched = next_state(spectator)["view"]
            assert watched["seat"] is None and watched["scores"] == end["view"]["scores"]
        r = c.post(f"/api/rooms/{code}/rematch", json={"token": game["token"], "game": 1})
        assert r.status_code == 200, r.text
        assert r.json()["status"] == "playing"
        assert c.get("/api/rooms/ABCDEF").status_code == 404  # well formed, never stored
        assert c.get("/api/rooms/x;drop").status_code == 404  # not a code: no query at all


def test_a_new_room_never_takes_a_stored_code(
    database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A finished room's code stays its own after a restart: its players' tokens open it."""
    with client(database) as c:
        old = new_game(c, ["easy"], rules=ONE_ROUND)
        with c.websocket_connect(f"/ws/{old['room']}?token={old['token']}") as ws:
            play_round(ws, 0)
    letters = iter(old["room"] + "ZZZZZZ")
    monkeypatch.setattr(rooms.secrets, "choice", lambda alphabet: next(letters))
    with client(database) as c:
        fresh = new_game(c, ["easy"])
        assert fresh["room"] == "ZZZZZZ"
        with c.websocket_connect(f"/ws/{old['room']}?token={old['token']}") as ws:
            assert next_state(ws)["view"]["phase"] == "game_over"  # the old room, unchanged


def test_reconnect_and_the_stand_in(database: str) -> None:
    with client(database, grace=0.2) as c:
        game = new_game(c, ["easy"])
        url = f"/ws/{game['room']}?token={game['token']}"
        with c.websocket_connect(url) as ws:
            state = until_turn(ws)
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


def test_a_stock_draw_under_slapdown_pauses_the_others(db: str) -> None:
    with client(db, slap_window=0.4) as c:
        game = new_game(c, ["easy"], rules={"preset": "standard", "slapdown": "rank"})
        with (
            c.websocket_connect(f"/ws/{game['room']}") as spectator,
            c.websocket_connect(f"/ws/{game['room']}?token={game['token']}") as ws,
        ):
            acted: set[tuple[int, int]] = set()
            while True:
                view = until_turn(ws)["view"]
                moment = (view["round"], len(view["events"]))
                if moment in acted:
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


def test_every_state_sent_is_already_stored(database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """No connection is ever sent a state the database does not hold yet (a player and a
    spectator, bots moving at once, over a few rounds): each state's view is the view of a
    record the database had committed before the state was sent."""
    from starlette.websockets import WebSocket

    from yaniv import record
    from yaniv.server.models import RoomRow
    from yaniv.server.storage import Store

    committed: list[str] = []  # the room's record after each commit, read back from the database
    views: dict[int | None, set[str]] = {}  # every committed view of each seat, as JSON
    read = 0
    checked: list[int | None] = []
    ahead: list[dict[str, Any]] = []
    original_save, original_send = Store.save_rooms, WebSocket.send_text

    def saving(self: Store, rooms: list[Any]) -> set[str]:
        lost = original_save(self, rooms)
        with self.session() as session:
            for r in rooms:
                row = session.get(RoomRow, r.code)
                if row is not None and row.record is not None:
                    committed.append(row.record)
        return lost

    async def sending(self: WebSocket, text: str) -> None:
        nonlocal read
        message = json.loads(text)
        if message.get("type") == "state" and message["view"] is not None:
            for stored in committed[read:]:
                game = record.resume(record.loads(stored))
                for seat in [None, *range(len(game.names))]:
                    views.setdefault(seat, set()).add(json.dumps(game.view(seat).to_dict()))
            read = len(committed)
            seat = message["view"]["seat"]
            if json.dumps(message["view"]) not in views.get(seat, set()):
                ahead.append(message["view"])
            checked.append(seat)
        await original_send(self, text)

    monkeypatch.setattr(Store, "save_rooms", saving)
    monkeypatch.setattr(WebSocket, "send_text", sending)
    with client(database) as c:
        game = new_game(c, ["easy", "random"], rules={"preset": "standard", "pickup": "any"})
        with (
            c.websocket_connect(f"/ws/{game['room']}?token={game['token']}") as ws,
            c.websocket_connect(f"/ws/{game['room']}") as spectator,
        ):
            for _ in range(3):
                if play_round(ws, 0)["view"]["phase"] == "game_over":
                    break
                ws.send_json({"type": "next_round"})
            ws.send_json({"type": "ping"})
            while ws.receive_json()["type"] != "pong":
                pass
            spectator.send_json({"type": "ping"})
            while spectator.receive_json()["type"] != "pong":
                pass
    assert checked.count(0) > 10 and checked.count(None) > 10
    assert not ahead, f"{len(ahead)} states sent before they were stored, e.g. {ahead[0]}"


def test_a_restarted_server_resumes_every_room(database: str) -> None:
    """Rooms waiting, playing among friends and playing against bots come back after a restart
    exactly as they were: the rooms, every seat's view; the players carry on."""
    with client(database) as c:
        host = c.post("/api/rooms", json={"name": "Host", "rules": {"preset": "slapdown"}}).json()
        waiting = host["room"]
        assert c.post(f"/api/rooms/{waiting}/join", json={"name": "Guest"}).status_code == 200
        r = c.post(
            f"/api/rooms/{waiting}/settings",
            json={"token": host["token"], "bots": [{"seat": 2, "level": "easy"}]},
        )
        assert r.status_code == 200
        code, tokens = friends(c)
        with (
            c.websocket_connect(f"/ws/{code}?token={tokens[0]}") as ws0,
            c.websocket_connect(f"/ws/{code}?token={tokens[1]}") as ws1,
        ):
            view = next_state(ws0)["view"]
            sockets = [ws0, ws1]
            mover = sockets[view["to_move"]]
            view = next_state(mover)["view"] if mover is ws1 else view
            mover.send_json({"type": "move", "move": greedy(view), "id": "before"})
            assert len(next_state(mover)["view"]["events"]) == len(view["events"]) + 1
        rooms = {x: c.get(f"/api/rooms/{x}").json() for x in (waiting, code)}
        table = c.app.state.hub.rooms[code].table  # type: ignore[attr-defined]
        before = {seat: table.view(seat).to_dict() for seat in (None, 0, 1)}
    with client(database) as c:
        assert {x: c.get(f"/api/rooms/{x}").json() for x in (waiting, code)} == rooms
        with (
            c.websocket_connect(f"/ws/{code}?token={tokens[0]}") as ws0,
            c.websocket_connect(f"/ws/{code}?token={tokens[1]}") as ws1,
            c.websocket_connect(f"/ws/{code}") as spectator,
        ):
            assert next_state(spectator)["view"] == before[None]
            views = [next_state(ws0)["view"], next_state(ws1)["view"]]
            assert views == [before[0], before[1]]
            # The player to move carries on where the game stopped.
            turn = views[0]["to_move"]
            sockets = [ws0, ws1]
            after = views[turn]
            sockets[turn].send_json({"type": "move", "move": greedy(after), "id": "after"})
            assert len(next_state(sockets[turn])["view"]["events"]) == len(after["events"]) + 1
        r = c.post(f"/api/rooms/{waiting}/join", json={"name": "Third"})
        assert r.status_code == 200 and r.json()["seat"] == 3
        r = c.post(f"/api/rooms/{waiting}/start", json={"token": host["token"]})
        assert r.status_code == 200 and r.json()["status"] == "playing"
    assert stored_record_at(database, code)["rounds"][-1]["moves"][-1][1] == greedy(after)


def stored_record_at(url: str, code: str) -> dict[str, Any]:
    """Room ``code``'s record in the database at ``url``, read with a store of its own."""
    from yaniv import record
    from yaniv.server.models import RoomRow
    from yaniv.server.storage import Store

    store = Store(url)
    try:
        with store.session() as session:
            row = session.get(RoomRow, code)
            assert row is not None and row.record is not None
            return record.loads(row.record)
    finally:
        store.close()


def test_postgres_urls_map_to_psycopg_and_bad_ones_are_told() -> None:
    from yaniv.server.storage import database_url

    assert database_url("postgresql://u:p@h/db") == "postgresql+psycopg://u:p@h/db"
    assert database_url("postgres://u:p@h:5433/db") == "postgresql+psycopg://u:p@h:5433/db"
    assert database_url("postgresql+psycopg://u:p@h/db") == "postgresql+psycopg://u:p@h/db"
    assert database_url("sqlite:///x.db") == "sqlite:///x.db"
    with pytest.raises(ValueError, match="unsupported database 'mysql'"):
        database_url("mysql://u@h/db")
    with pytest.raises(ValueError, match="not a database URL"):
        database_url("not a url")


def test_each_postgres_test_has_a_schema_of_its_own() -> None:
    """Two tests' schemas do not see each other's tables, and the schema goes afterwards."""
    from sqlalchemy import inspect

    from yaniv.server.storage import Store, make_engine

    with postgres_schema() as first, postgres_schema() as second:
        Store(first).close()
        engines = [make_engine(first), make_engine(second)]
        try:
            assert {"rooms", "players"} <= set(inspect(engines[0]).get_table_names())
            assert "rooms" not in inspect(engines[1]).get_table_names()
        finally:
            for engine in engines:
                engine.dispose()
    engine = make_engine(first)
    try:
        assert "rooms" not in inspect(engine).get_table_names()
    finally:
        engine.dispose()


def test_a_view_with_its_events_encoded_once_is_the_view() -> None:
    """``journal.view_dict`` (each seat's events encoded once) gives ``PlayerView.to_dict``
    for every seat and a spectator, asked after every move or only now and then."""
    import random

    from yaniv.rules import RuleSet
    from yaniv.server.journal import view_dict
    from yaniv.session import Seat, Table

    rng = random.Random(3)
    checked = 0
    for preset in ("standard", "slapdown", "draw_first"):
        seats = [Seat(name, "bot", level="random", seed=i) for i, name in enumerate("ABC")]
        table = Table(RuleSet.preset(preset), seats, seed=len(preset))
        seen: dict[int, Any] = {}
        for _ in range(4):
            while table.to_move is not None:
                table.play(table.to_move, table.decide(table.to_move))
                for seat in (None, 0, 1, 2):
                    if seat == 0 or rng.random() < 0.5:
                        view = table.view(seat)
                        assert view_dict(view, seen) == view.to_dict()
                        checked += 1
            if table.game.winners:
                break
            table.next_round()
        table.close()
    assert checked > 200


def test_a_bot_never_takes_a_persons_name(app: TestClient) -> None:
    game = new_game(app, ["easy", "easy", "easy"], name="dana")
    names = [s["name"] for s in app.get(f"/api/rooms/{game['room']}").json()["seats"]]
    assert names[0] == "dana" and len({n.casefold() for n in names}) == 4, names
    host = app.post("/api/rooms", json={"name": "Yossi"}).json()
    code = host["room"]
    r = app.post(
        f"/api/rooms/{code}/settings",
        json={
            "token": host["token"],
            "bots": [{"seat": 1, "level": "easy"}, {"seat": 2, "level": "easy"}],
        },
    )
    names = [s["name"] for s in r.json()["seats"]]
    assert names[0] == "Yossi" and len({n.casefold() for n in names}) == 3, names
    # Someone joins with a bot's name: the bot is renamed, again to a name nobody has.
    bot = names[2]
    r = app.post(f"/api/rooms/{code}/join", json={"name": bot.upper()})
    assert r.status_code == 200 and r.json()["seat"] == 3
    names = [s["name"] for s in app.get(f"/api/rooms/{code}").json()["seats"]]
    assert names[3] == bot.upper() and len({n.casefold() for n in names}) == 4, names


def test_the_close_codes(app: TestClient) -> None:
    from starlette.websockets import WebSocketDisconnect

    game = new_game(app)
    for url, code, words in [
        ("/ws/ZZZZZZ", 4404, "no room"),
        (f"/ws/{game['room']}?token=not-a-token", 4403, "token"),
    ]:
        with app.websocket_connect(url) as ws:
            message = ws.receive_json()
            assert message["type"] == "error" and words in message["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == code


@pytest.mark.parametrize(
    ("level", "threads"), [("easy", False), ("random", False), ("medium", True)]
)
def test_bots_that_answer_at_once_decide_on_the_event_loop(
    db: str, monkeypatch: pytest.MonkeyPatch, level: str, threads: bool
) -> None:
    """The levels that decide in microseconds are asked on the event loop (a hop to a thread
    cost the server more than the decision); those that think go on a thread, so that the
    other rooms go on meanwhile."""
    from yaniv.events import Discarded
    from yaniv.server import rooms

    hops: list[str] = []
    real = rooms.asyncio.to_thread

    async def counted(fn: Any, *args: Any) -> Any:
        hops.append(getattr(fn, "__name__", "?"))
        return await real(fn, *args)

    monkeypatch.setattr(rooms.asyncio, "to_thread", counted)
    with client(db) as c:
        game = new_game(c, opponents=[level, level])
        with c.websocket_connect(f"/ws/{game['room']}?token={game['token']}") as ws:
            for n in range(6):  # three turns of the person's, and the bots' between them
                view = until_turn(ws)["view"]
                ws.send_json({"type": "move", "move": greedy(view), "id": f"m{n}"})
            until_turn(ws)
        events = c.app.state.hub.rooms[game["room"]].table.game.all_events()
    assert sum(isinstance(e, Discarded) and e.seat != 0 for e in events) >= 2, events
    decided = [name for name in hops if name == "_decide"]
    assert bool(decided) is threads, hops
