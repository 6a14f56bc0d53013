"""Issue 16's fault 7: the flood limit holds per seat and per address, not only per socket."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("fastapi")

from starlette.websockets import WebSocketDisconnect  # noqa: E402
from test_server import client, db, new_game  # noqa: E402, F401  (db: the fixture)

from yaniv.server import rooms  # noqa: E402


def _closed_for_flooding(ws: Any, sent: int) -> bool:
    """Whether the socket, which sent ``sent`` pings, is told it floods and closed with
    1008, rather than answered every ping."""
    pongs = 0
    try:
        while pongs < sent:
            message = ws.receive_json()
            if "messages a second" in message.get("message", ""):
                with pytest.raises(WebSocketDisconnect) as closed:
                    while True:
                        ws.receive_json()
                return closed.value.code == 1008
            pongs += message["type"] == "pong"
    except WebSocketDisconnect:
        return True
    return False


def test_many_sockets_of_one_seat_share_its_limit(db: str) -> None:
    with client(db, flood_limit=20) as app:
        game = new_game(app)
        url = f"/ws/{game['room']}?token={game['token']}"
        with (
            app.websocket_connect(url) as a,
            app.websocket_connect(url) as b,
            app.websocket_connect(url) as c,
        ):
            for _ in range(8):  # 8 a socket, under 20 each; 24 for the seat, over 20
                for ws in (a, b, c):
                    ws.send_json({"type": "ping"})
            c.send_json({"type": "ping"})
            assert _closed_for_flooding(c, 9)


def test_one_socket_under_the_limit_is_left_alone(db: str) -> None:
    with client(db, flood_limit=20) as app:
        game = new_game(app)
        with app.websocket_connect(f"/ws/{game['room']}?token={game['token']}") as ws:
            for _ in range(15):
                ws.send_json({"type": "ping"})
            pongs = 0
            while pongs < 15:
                message = ws.receive_json()
                assert "messages a second" not in message.get("message", "")
                pongs += message["type"] == "pong"


def test_spectators_of_one_address_share_its_limit(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rooms, "ADDRESS_FLOOD_FACTOR", 2)
    with client(db, flood_limit=10) as app:
        game = new_game(app)
        url = f"/ws/{game['room']}"  # spectators: no seat, the address alone counts them
        with (
            app.websocket_connect(url) as a,
            app.websocket_connect(url) as b,
            app.websocket_connect(url) as c,
        ):
            for _ in range(8):  # 8 a socket, under 10 each; 24 for the address, over 20
                for ws in (a, b, c):
                    ws.send_json({"type": "ping"})
            c.send_json({"type": "ping"})
            assert _closed_for_flooding(c, 9)
