"""Issue 16's faults 7 and 9: the flood limit holds per seat and per address, not only per
socket; a bot's slap window takes no pause that would tell it opened."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from starlette.websockets import WebSocketDisconnect  # noqa: E402
from test_server import client, new_game  # noqa: E402

from yaniv.server import rooms  # noqa: E402


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'yaniv.sqlite3'}"


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


def _three_sockets_flood(app: Any, url: str) -> bool:
    """Three sockets on ``url`` send 8 pings each in turn, the third one more: whether the
    third is closed for flooding."""
    with (
        app.websocket_connect(url) as a,
        app.websocket_connect(url) as b,
        app.websocket_connect(url) as c,
    ):
        for _ in range(8):
            for ws in (a, b, c):
                ws.send_json({"type": "ping"})
        c.send_json({"type": "ping"})
        return _closed_for_flooding(c, 9)


def test_many_sockets_of_one_seat_share_its_limit(db: str) -> None:
    with client(db, flood_limit=20) as app:
        game = new_game(app)
        # 8 pings a socket, under 20 each; 24 for the seat, over 20
        assert _three_sockets_flood(app, f"/ws/{game['room']}?token={game['token']}")


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
        # spectators: no seat, the address alone counts them; 8 pings a socket, under 10
        # each; 24 for the address, over 20
        assert _three_sockets_flood(app, f"/ws/{game['room']}")


def test_a_bots_slap_window_takes_no_pause_of_its_own() -> None:
    # Issue 16's fault 9: a bot that declined a slap showed its stock draw after twice the
    # bots' pause (the draw, then the pass), to everyone: the timing told that a window had
    # opened. Its own window is decided at once, so every draw shows after one pause.
    import asyncio
    from types import SimpleNamespace

    from yaniv import Game, RuleSet
    from yaniv.session import Seat, Table

    rules = RuleSet(slapdown="rank")
    window = Game.from_position(
        rules, [["4C", "KS"], ["9H", "8D"]], ["4D", "2S", "3S"], [["AH"]], 0
    )
    plain = window.clone()
    window.play("discard 4C")
    window.play("draw stock")  # 4D: a window for seat 0 (a bot)
    plain.play("discard KS")
    plain.play("draw stock")  # 4D on a K: no window; seat 1 to move
    assert window.phase.label == "slap" and plain.phase.label == "start"
    seats = [Seat("Bot", "bot", level="easy"), Seat("Me")]
    hub = SimpleNamespace(bot_delay=0.8)

    async def pauses() -> tuple[float, float]:
        room = rooms.Room(hub, "ABCDEF", rules, [None, None], "playing")  # type: ignore[arg-type]
        slap = room.pause_before(Table(rules, seats, game=window), deal=False)
        start = room.pause_before(Table(rules, seats, game=plain), deal=False)
        return slap, start

    slap, start = asyncio.run(pauses())
    assert slap == 0.0 and start == 0.8
