"""The server's faults of issue 16 as a hostile or unlucky client meets them: a failing store
answered in words (4), rate limits and socket caps (6), slow and large requests (8), a lone
surrogate (11)."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

import uvicorn  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402
from sqlalchemy import event  # noqa: E402
from sqlalchemy.exc import OperationalError  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from yaniv.server.app import create_app  # noqa: E402
from yaniv.server.limits import Limits, MemoryCounter, address_key  # noqa: E402
from yaniv.server.serving import server_config  # noqa: E402


def client(url: str, limits: Limits | None = None, **settings: Any) -> TestClient:
    """A test client of an app on ``url`` (bots at once, no slap pause)."""
    return TestClient(
        create_app(
            url,
            bot_delay=0.0,
            slap_window=0.0,
            web_dir=None,
            flood_limit=10_000,
            limits=limits,
        ),
        **settings,
    )


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'yaniv.sqlite3'}"


GAME = {"name": "Me", "opponents": ["easy"], "rules": {}}


# ------------------------------------------------------------------ fault 4: a failing store


def break_store(c: TestClient) -> None:
    """Every statement the app's database runs from now fails, as a database that is down."""
    engine = c.app.state.hub.store.engine  # type: ignore[attr-defined]

    def fail(*_: Any) -> None:
        raise OperationalError("(statement)", {}, sqlite3.OperationalError("server closed"))

    event.listen(engine, "before_cursor_execute", fail)


def test_a_failing_store_is_a_503_in_words_on_every_route(
    database: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Before: a plain-text 500 "Internal Server Error" and a traceback in the log."""
    with client(database) as c:
        room = c.post("/api/rooms", json={"name": "Host", "rules": {}}).json()
        break_store(c)
        caplog.clear()
        caplog.set_level(logging.INFO)
        requests = [
            ("POST", "/api/games", GAME),
            ("POST", "/api/rooms", {"name": "Host", "rules": {}}),
            ("POST", f"/api/rooms/{room['room']}/join", {"name": "Guest"}),
            ("GET", "/api/rooms/ZZZZZZ", None),  # not in memory: asked of the store
            ("GET", "/api/history", None),
        ]
        for method, path, body in requests:
            headers = {"X-Player-Key": "k" * 43}
            r = c.request(method, path, json=body, headers=headers)
            assert r.status_code == 503, (path, r.text)
            assert r.headers["content-type"] == "application/json"
            assert r.headers["retry-after"] == "5"
            words = r.json()["error"]
            if method == "POST":
                assert words.startswith("the game could not be saved; try again"), words
            else:
                assert words.startswith("the game could not be read from the database; try")
            assert "Traceback" not in words and "OperationalError" not in words
    failures = [r for r in caplog.records if "the store failed" in r.getMessage()]
    assert len(failures) == len(requests)
    assert all(r.exc_info is None and "\n" not in r.getMessage() for r in failures)
    assert not [r for r in caplog.records if r.exc_info], "no traceback in the log"


def test_a_socket_whose_room_cannot_be_read_is_told(db: str) -> None:
    with client(db) as c:
        break_store(c)
        with c.websocket_connect("/ws/ZZZZZZ") as ws:
            message = ws.receive_json()
            assert message["type"] == "error"
            assert message["message"].startswith("the game could not be read from the database")
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 1013  # try again later


def test_a_bug_is_a_500_in_words(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from yaniv.server.rooms import Hub

    async def broken(*_: Any) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr(Hub, "new_room", broken)
    with client(db) as c:
        r = c.post("/api/rooms", json={"name": "Host", "rules": {}})
        assert r.status_code == 500
        assert r.json() == {"error": "the server failed on this request (a bug): try again"}


# ------------------------------------------------------------------ fault 6: rate limits


def test_room_lookups_are_limited_per_address_with_retry_after(db: str) -> None:
    """Before: 2,000 lookups at 153 a second, none slowed."""
    with client(db, Limits(lookups=5)) as c:
        code = c.post("/api/rooms", json={"name": "Host", "rules": {}}).json()["room"]
        answers = [c.get(f"/api/rooms/{code if i % 2 else 'AAAAAA'}") for i in range(5)]
        assert [r.status_code for r in answers] == [404, 200, 404, 200, 404]
        r = c.get(f"/api/rooms/{code}")
        assert r.status_code == 429
        assert int(r.headers["retry-after"]) >= 1
        assert r.json()["error"].startswith("too many lookups (rooms, players")
        assert c.post(f"/api/rooms/{code}/join", json={"name": "G"}).status_code == 200


def test_the_buckets_are_per_address_and_refill(db: str) -> None:
    clock = [0.0]
    counter = MemoryCounter(clock=lambda: clock[0])
    assert [asyncio.run(counter.take("a", 2)) for _ in range(2)] == [0.0, 0.0]
    assert asyncio.run(counter.take("a", 2)) == pytest.approx(30.0)  # 2 a minute: one per 30 s
    assert asyncio.run(counter.take("b", 2)) == 0.0
    clock[0] = 30.0
    assert asyncio.run(counter.take("a", 2)) == 0.0
    assert asyncio.run(counter.take("a", 2)) > 0
    assert address_key("2001:db8::1") == address_key("2001:db8::ffff") == "2001:db8::/64"
    assert address_key("::ffff:10.1.2.3") == "10.1.2.3"
    assert address_key(None) == "unknown"


def test_joins_and_creations_are_limited(db: str) -> None:
    with client(db, Limits(joins=2, creates=3)) as c:
        made = [c.post("/api/rooms", json={"name": "Host", "rules": {}}) for _ in range(2)]
        made.append(c.post("/api/games", json=GAME))
        assert [r.status_code for r in made] == [200, 200, 200]
        r = c.post("/api/games", json=GAME)
        assert r.status_code == 429 and "new games and rooms" in r.json()["error"]
        code = made[0].json()["room"]
        joins = [c.post(f"/api/rooms/{code}/join", json={"name": f"G{i}"}) for i in range(3)]
        assert [r.status_code for r in joins] == [200, 200, 429]
        assert "retry-after" in joins[2].headers
        assert c.get(f"/api/rooms/{code}").status_code == 200  # lookups are counted apart


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/api/quickmatch", {"name": "Q", "preset": "standard", "player_key": "k" * 32}),
        ("POST", "/api/scores", {"players": ["A", "B"], "rules": {}}),
        ("GET", "/api/players/nobody", None),
        ("GET", "/api/scores/NOSUCH", None),
        ("GET", "/api/quickmatch/nosuchticket", None),
    ],
)
def test_the_other_pages_guessed_or_filled_are_limited_too(
    db: str, method: str, path: str, body: dict[str, Any] | None
) -> None:
    """Beyond the rooms: a queue place, a score sheet, a player's page by id are counted
    against the address like the room's calls (whatever each answers within the limit)."""
    with client(db, Limits(lookups=2, creates=2)) as c:
        answers = [c.request(method, path, json=body) for _ in range(3)]
        assert all(r.status_code != 429 for r in answers[:2]), [r.text for r in answers]
        assert answers[2].status_code == 429, answers[2].text
        assert "retry-after" in answers[2].headers and answers[2].json()["error"]


def test_websocket_connects_are_limited_with_a_close_code_and_words(db: str) -> None:
    """Before: 300 connects at 121 a second."""
    with client(db, Limits(connects=3)) as c:
        code = c.post("/api/rooms", json={"name": "Host", "rules": {}}).json()["room"]
        for _ in range(3):
            with c.websocket_connect(f"/ws/{code}") as ws:
                assert ws.receive_json()["type"] in ("room", "state")
        with c.websocket_connect(f"/ws/{code}") as ws:
            message = ws.receive_json()
            assert message["type"] == "error"
            assert message["message"].startswith("too many connections from your address")
            assert message["retry_ms"] > 0
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4429


def test_sockets_per_seat_and_per_room_are_capped(db: str) -> None:
    with client(db, Limits(seat_sockets=2, room_sockets=3)) as c:
        game = c.post("/api/games", json=GAME).json()
        seat_url = f"/ws/{game['room']}?token={game['token']}"
        with c.websocket_connect(seat_url) as a, c.websocket_connect(seat_url) as b:
            for ws in (a, b):
                assert ws.receive_json()["type"] == "state"
            with c.websocket_connect(seat_url) as third:
                message = third.receive_json()
                assert message["type"] == "error"
                assert message["message"].startswith("this seat has 2 connections open")
                with pytest.raises(WebSocketDisconnect) as closed:
                    third.receive_json()
                assert closed.value.code == 4409
            with c.websocket_connect(f"/ws/{game['room']}") as spectator:
                assert spectator.receive_json()["type"] == "state"  # the room's third
                with c.websocket_connect(f"/ws/{game['room']}") as fourth:
                    message = fourth.receive_json()
                    assert message["message"].startswith("this room has 3 connections open")
                    with pytest.raises(WebSocketDisconnect) as closed:
                        fourth.receive_json()
                    assert closed.value.code == 4409
        with c.websocket_connect(seat_url) as again:  # the others closed: room again
            assert again.receive_json()["type"] == "state"


def test_the_default_limits_leave_real_play_alone(db: str) -> None:
    """A person's evening from one address: 20 games, each with a lookup, a few sockets."""
    with client(db) as c:
        for _ in range(20):
            game = c.post("/api/games", json=GAME)
            assert game.status_code == 200, game.text
            code, token = game.json()["room"], game.json()["token"]
            assert c.get(f"/api/rooms/{code}").status_code == 200
            for _ in range(2):
                with c.websocket_connect(f"/ws/{code}?token={token}") as ws:
                    assert ws.receive_json()["type"] == "state"


def test_limit_options_are_read_and_bad_ones_told() -> None:
    limits = Limits().updated(["lookups=10", "max-body=8k", "request_timeout=2.5", "joins=0"])
    assert (limits.lookups, limits.max_body, limits.request_timeout) == (10, 8192, 2.5)
    assert limits.joins == 0 and limits.creates == Limits().creates
    for bad, words in [
        ("speed=3", "expected NAME=VALUE with NAME one of lookups, joins"),
        ("lookups", "expected NAME=VALUE"),
        ("lookups=many", "'many' is not a number"),
        ("request-timeout=-1", "0 or more"),
        ("max-body=0", "a request's size and time are limited"),
    ]:
        with pytest.raises(ValueError, match=words):
            Limits().updated([bad])


# ------------------------------------------------------------------ fault 8: size and time


def test_a_body_over_the_limit_is_a_413_in_words(db: str) -> None:
    """Before: a 30 MB body was read and answered."""
    with client(db, Limits(max_body=1024)) as c:
        big = {"name": "Host", "rules": {}, "pad": "x" * 2000}
        r = c.post("/api/rooms", json=big)
        assert r.status_code == 413
        assert r.json() == {"error": "the request's body is over 1 KiB, the most the server reads"}

        def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it comes
            yield b'{"name": "Host", "rules": {}, "pad": "'
            for _ in range(40):
                yield b"x" * 100
            yield b'"}'

        r = c.post("/api/rooms", content=chunks(), headers={"content-type": "application/json"})
        assert r.status_code == 413
        r = c.post("/api/rooms", json={"name": "Host", "rules": {}})
        assert r.status_code == 200  # a body within the limit is read as before


class LiveServer:
    """The app on uvicorn as ``yaniv serve`` runs it, on a thread, on a free port."""

    def __init__(self, url: str, limits: Limits) -> None:
        app = create_app(url, bot_delay=0.0, web_dir=None, limits=limits)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.server = uvicorn.Server(server_config(app, "127.0.0.1", self.port, limits))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:  # polling for the start, not an assertion
            assert self.thread.is_alive() and time.monotonic() < deadline
            time.sleep(0.05)
        return self

    def __exit__(self, *_: Any) -> None:
        self.server.should_exit = True
        self.thread.join(30)

    def connect(self) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=20)
        return sock


def read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (a socket timeout of 20 s
    fails the test: the server held the connection open)."""
    out = b""
    while chunk := sock.recv(65536):
        out += chunk
    return out


@pytest.fixture
def live(db: str) -> Iterator[LiveServer]:
    with LiveServer(db, Limits(request_timeout=0.5)) as server:
        yield server


def test_a_request_whose_headers_never_end_is_closed(live: LiveServer) -> None:
    """Before: 300 half-sent requests held for 60 s. The connection is closed within the
    timeout (0.5 s here; a 20 s socket timeout fails the test)."""
    with live.connect() as sock:
        sock.sendall(b"GET /api/levels HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
        assert read_all(sock) == b""


def test_a_keep_alive_connection_is_timed_for_its_next_request_too(live: LiveServer) -> None:
    with live.connect() as sock:
        sock.sendall(b"GET /api/levels HTTP/1.1\r\nHost: localhost\r\n\r\n")
        first = b""
        while b"\r\n\r\n" not in first:
            first += sock.recv(65536)
        assert first.startswith(b"HTTP/1.1 200")
        sock.sendall(b"GET /api/levels HTTP/1.1\r\nHost: local")  # and no more
        rest = read_all(sock)
        assert rest.count(b"HTTP/1.1") <= 1  # at most the rest of the first answer


def test_a_body_that_never_comes_is_a_408_in_words(live: LiveServer) -> None:
    with live.connect() as sock:
        sock.sendall(
            b"POST /api/rooms HTTP/1.1\r\nHost: localhost\r\n"
            b'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name"'
        )
        answer = read_all(sock)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408"), answer
    assert json.loads(body) == {"error": "the request's body did not come within 0.5 s"}


def test_a_declared_body_over_the_limit_is_refused_before_it_is_sent(live: LiveServer) -> None:
    with live.connect() as sock:
        sock.sendall(
            b"POST /api/rooms HTTP/1.1\r\nHost: localhost\r\n"
            b"Content-Type: application/json\r\nContent-Length: 30000000\r\n\r\n"
        )
        answer = read_all(sock)
    assert answer.startswith(b"HTTP/1.1 413"), answer
    assert b"over 64 KiB" in answer


def test_a_websocket_and_a_quick_request_are_not_cut(live: LiveServer) -> None:
    """The deadline is for headers: a websocket open longer than it stays open."""
    import websockets.sync.client

    with live.connect() as sock:
        sock.sendall(b"GET /api/levels HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        assert read_all(sock).startswith(b"HTTP/1.1 200")
    with websockets.sync.client.connect(f"ws://127.0.0.1:{live.port}/ws/ZZZZZZ") as ws:
        # a room that is not there: the answer comes after the deadline has passed
        time.sleep(1.0)  # longer than the 0.5 s deadline: the socket must outlive it
        assert json.loads(ws.recv(timeout=20))["type"] == "error"


# ------------------------------------------------------------------ fault 11: lone surrogates


def next_answer(ws: Any) -> dict[str, Any]:
    """The next message that is not a state (the bot may move meanwhile)."""
    while True:
        message = dict(ws.receive_json())
        if message["type"] != "state":
            return message


def test_a_lone_surrogate_in_a_message_gets_words(db: str) -> None:
    """Before: no reply at all (the answer quoting the id could not be encoded)."""
    with client(db) as c:
        game = c.post("/api/games", json=GAME).json()
        with c.websocket_connect(f"/ws/{game['room']}?token={game['token']}") as ws:
            assert ws.receive_json()["type"] == "state"
            for raw in [
                '{"type": "move", "move": "draw stock", "id": "\\ud800"}',
                '{"type": "move", "move": "\\udfff", "id": "x"}',
                '{"type": "\\ud800"}',
                '{"\\ud800": 1, "type": "ping"}',
                '["\\ud83d"]',
            ]:
                ws.send_text(raw)
                message = next_answer(ws)
                assert message["type"] == "error", raw
                assert "lone surrogate" in message["message"], raw
            ws.send_text("[" * 900 + "]" * 900)  # as deep as the decoder goes: still words
            assert next_answer(ws)["message"] == "a message is a JSON object with a type"
            ws.send_text('{"type": "ping", "x": "\\ud83d\\ude00"}')  # a pair is text: 😀
            assert next_answer(ws)["type"] == "error"  # (an unknown key, in words)
            ws.send_json({"type": "ping"})
            assert next_answer(ws) == {"type": "pong"}


def test_the_guard_counts_each_address_apart() -> None:
    """Two addresses have buckets of their own; an IPv6 /64 is one address."""
    from yaniv.server.guard import Guard

    async def ok(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    guard = Guard(ok, Limits(lookups=1))

    async def lookup(host: str) -> int:
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: Any) -> None:
            sent.append(message)

        scope = {"type": "http", "method": "GET", "path": "/api/rooms/AAAAAA", "headers": []}
        await guard({**scope, "client": (host, 1234)}, receive, send)
        return int(sent[0]["status"])

    async def run() -> list[int]:
        hosts = ["10.0.0.1", "10.0.0.1", "10.0.0.2", "2001:db8::1", "2001:db8::2", "2001:db9::1"]
        return [await lookup(h) for h in hosts]

    assert asyncio.run(run()) == [200, 429, 200, 200, 429, 200]
