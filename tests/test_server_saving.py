"""Issue 16's faults 1 and 2: a move whose write fails is undone and never shown, and a room
whose bots' moves cannot be stored recovers by itself once the database is back."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402
from sqlalchemy import event  # noqa: E402
from sqlalchemy.exc import OperationalError  # noqa: E402
from test_server import client, new_game, next_state, stored_record  # noqa: E402

from yaniv.server import rooms  # noqa: E402


@contextmanager
def database_down(c: TestClient) -> Iterator[None]:
    """Every statement the app's database runs fails until the block ends (a server down)."""
    engine = c.app.state.hub.store.engine  # type: ignore[attr-defined]

    def fail(*_: Any) -> None:
        raise OperationalError("(statement)", {}, sqlite3.OperationalError("server closed"))

    event.listen(engine, "before_cursor_execute", fail)
    try:
        yield
    finally:
        event.remove(engine, "before_cursor_execute", fail)


def my_turn(ws: Any, seat: int = 0) -> dict[str, Any]:
    """The next state in which ``seat`` is to start a turn."""
    while True:
        state = next_state(ws)
        view = state["view"]
        if view["to_move"] == seat and view["phase"] == "start":
            return state


def moves_stored(c: TestClient, code: str) -> int:
    """How many moves of its last round the room's stored record holds."""
    return len(stored_record(c, code)["rounds"][-1]["moves"])


def test_a_move_whose_write_fails_is_undone_and_never_shown(database: str) -> None:
    with client(database) as c:
        game = new_game(c)
        with c.websocket_connect(f"/ws/{game['room']}?token={game['token']}") as ws:
            before = my_turn(ws)["view"]
            stored = moves_stored(c, game["room"])
            move = before["legal_moves"][-1]
            with database_down(c):
                ws.send_json({"type": "move", "move": move, "id": "first"})
                message = ws.receive_json()
                assert message["type"] == "error", f"a state for an unstored move: {message}"
                assert "could not be saved; try again" in message["message"]
            ws.send_json({"type": "coach", "on": False})  # asks for the state again
            again = next_state(ws)["view"]
            assert again["hand"] == before["hand"] and again["events"] == before["events"]
            assert again["to_move"] == 0 and again["phase"] == "start"
            assert moves_stored(c, game["room"]) == stored
            # The database is back: the same move (its id was never applied) goes through.
            ws.send_json({"type": "move", "move": move, "id": "first"})
            after = next_state(ws)["view"]
            assert after["phase"] == "draw" and len(after["events"]) == len(before["events"]) + 1
            assert moves_stored(c, game["room"]) == stored + 1
    # ... and a new server on the same database finds it so.
    with (
        client(database) as c,
        c.websocket_connect(f"/ws/{game['room']}?token={game['token']}") as ws,
    ):
        assert next_state(ws)["view"]["events"] == after["events"]


def test_a_room_whose_bot_cannot_save_recovers_by_itself(
    database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rooms, "SAVE_RETRY", 0.05)
    with client(database, bot_delay=1.0) as c:
        game = new_game(c)
        with c.websocket_connect(f"/ws/{game['room']}?token={game['token']}") as ws:
            view = my_turn(ws)["view"]
            ws.send_json({"type": "move", "move": view["legal_moves"][-1], "id": "a"})
            assert next_state(ws)["view"]["phase"] == "draw"
            ws.send_json({"type": "move", "move": "draw stock", "id": "b"})
            view = next_state(ws)["view"]
            assert view["to_move"] == 1  # the bot's turn: it moves after its second's pause
            stored = moves_stored(c, game["room"])
            told: list[str] = []
            with database_down(c):
                while len(told) < 3:  # its write fails: the room says so, and tries again
                    message = ws.receive_json()
                    assert message["type"] == "error", f"an unstored bot move shown: {message}"
                    assert message["saving"] == "failing"
                    told.append(message["message"])
            assert all("saving the game is failing; retrying in" in t for t in told)
            # The database is back: the bot's move is stored and the game goes on by itself.
            while (message := ws.receive_json())["type"] != "notice":
                assert message["type"] in ("error", "state")  # a last retry's words; the move
            assert message["saving"] == "ok"
            back = my_turn(ws)["view"]
            assert len(back["events"]) > len(view["events"])
            assert moves_stored(c, game["room"]) > stored


def test_checkpoints_restore_the_table(tmp_path: Path) -> None:
    from yaniv.session import Seat, Table

    table = Table(rules=rooms.RuleSet(), seats=[Seat("A"), Seat("B", "bot", level="easy")], seed=3)
    before = table.checkpoint()
    fingerprint = table.game.fingerprint()
    while table.to_move == 1:
        table.play(1, table.decide(1))
    table.play(0, table.game.legal_moves()[0], stand_in=True)
    assert table.stand_in_moves and table.game.fingerprint() != fingerprint
    table.restore(before)
    assert table.game.fingerprint() == fingerprint and not table.stand_in_moves


def test_a_finished_room_leaves_memory_and_comes_back(
    database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from test_server import ONE_ROUND, play_round

    monkeypatch.setattr(rooms, "RELEASE_AFTER", 0.05)
    with client(database) as c:
        hub = c.app.state.hub  # type: ignore[attr-defined]
        game = new_game(c, ["easy"], rules=ONE_ROUND)
        code = game["room"]
        with c.websocket_connect(f"/ws/{code}?token={game['token']}") as ws:
            end = play_round(ws, 0)
            assert end["view"]["phase"] == "game_over"
            time.sleep(0.3)
            assert code in hub.rooms  # someone is still at its end: it stays
        for _ in range(100):  # the last socket gone, it leaves memory
            if code not in hub.rooms:
                break
            time.sleep(0.05)
        assert code not in hub.rooms
        for _ in range(100):  # nor does the store's cache keep it (the release goes on)
            if code not in hub.store._written:
                break
            time.sleep(0.05)
        assert code not in hub.store._written and code not in hub.store._stored
        # ... and comes back from the store when asked for, as it was.
        with c.websocket_connect(f"/ws/{code}?token={game['token']}") as ws:
            again = next_state(ws)["view"]
            assert again["phase"] == "game_over" and again["scores"] == end["view"]["scores"]
            r = c.post(f"/api/rooms/{code}/rematch", json={"token": game["token"], "game": 1})
            assert r.status_code == 200 and r.json()["status"] == "playing"
        time.sleep(0.3)
        assert code in hub.rooms  # a game in play never leaves
