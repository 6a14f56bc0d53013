"""Issue 16's faults 1 and 2: a move whose write fails is undone and never shown, and a room
whose bots' moves cannot be stored recovers by itself once the database is back."""

from __future__ import annotations

import gc
import sqlite3
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from db_backends import postgres_schema, postgres_through_proxy  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402
from sqlalchemy import event  # noqa: E402
from sqlalchemy.exc import OperationalError  # noqa: E402
from test_server import client, deal_on, new_game, next_state, stored_record  # noqa: E402

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


#: How a database fails in a test: a context manager, given the app's client, during which
#: the app's statements fail.
Outage = Callable[[TestClient], AbstractContextManager[None]]


@pytest.fixture(params=["sqlite", "postgresql", "postgresql cut off"])
def failing_database(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[str, Outage]]:
    """An empty database's URL and its outage: every statement refused by a hook on the app's
    engine (SQLite, PostgreSQL), or a real PostgreSQL reached through a proxy that is cut
    (every connection broken, each new one closed at once) and then restored, so that the held
    connection's loss and the pool's reconnection are those of a server down and back."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'yaniv.sqlite3'}", database_down
    elif request.param == "postgresql":
        with postgres_schema() as url:
            yield url, database_down
    else:
        with postgres_through_proxy() as (url, proxy):

            @contextmanager
            def cut_off(_: TestClient) -> Iterator[None]:
                proxy.cut()
                try:
                    yield
                finally:
                    proxy.restore()

            yield url, cut_off


def my_turn(ws: Any, seat: int = 0, deal: bool = True) -> dict[str, Any]:
    """The next state in which ``seat`` is to start a turn. A round the bots end before that
    (a bot's Yaniv call) is dealt on (``deal_on``), or with ``deal=False`` is returned: its
    end is the person's next move."""
    asked: list[int] = []
    while True:
        state = next_state(ws)
        view = state["view"]
        if view["to_move"] == seat and view["phase"] == "start":
            return state
        if view["phase"] == "round_over" and not deal:
            return state
        deal_on(ws, view, asked)


def moves_stored(c: TestClient, code: str) -> int:
    """How many moves of its last round the room's stored record holds."""
    return len(stored_record(c, code)["rounds"][-1]["moves"])


def test_a_move_whose_write_fails_is_undone_and_never_shown(
    failing_database: tuple[str, Outage],
) -> None:
    database, outage = failing_database
    with client(database) as c:
        game = new_game(c)
        with c.websocket_connect(f"/ws/{game['room']}?token={game['token']}") as ws:
            before = my_turn(ws)["view"]
            stored = moves_stored(c, game["room"])
            move = before["legal_moves"][-1]
            with outage(c):
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
    failing_database: tuple[str, Outage], monkeypatch: pytest.MonkeyPatch
) -> None:
    database, outage = failing_database
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
            with outage(c):
                while len(told) < 3:  # its write fails: the room says so, and tries again
                    message = ws.receive_json()
                    assert message["type"] == "error", f"an unstored bot move shown: {message}"
                    assert message["saving"] == "failing"
                    told.append(message["message"])
            assert all("saving the game is failing; retrying in" in t for t in told)
            # The database is back: the bot's move is stored and the game goes on by itself.
            back = view
            while (message := ws.receive_json())["type"] != "notice":
                assert message["type"] in ("error", "state")  # a last retry's words; the move
                if message["type"] == "state":
                    back = message["view"]
            assert message["saving"] == "ok"
            # On to the person's next move: its turn, or the round's end where the bot's move
            # was a call (not dealt on: the stored round is the one that move went into).
            if back["phase"] != "round_over":
                back = my_turn(ws, deal=False)["view"]
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


def test_a_released_room_is_freed_without_the_collector(
    database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server runs the collector's full passes rarely (``tune_runtime``): a finished room
    that only a full pass could free (a reference cycle) would stay in memory for hours."""
    from test_server import ONE_ROUND, play_round

    monkeypatch.setattr(rooms, "RELEASE_AFTER", 0.05)
    with client(database) as c:
        hub = c.app.state.hub  # type: ignore[attr-defined]
        game = new_game(c, ["easy"], rules=ONE_ROUND)
        code = game["room"]
        room = weakref.ref(hub.rooms[code])
        gc.disable()
        try:
            with c.websocket_connect(f"/ws/{code}?token={game['token']}") as ws:
                play_round(ws, 0)
            for _ in range(100):
                if code not in hub.rooms:
                    break
                time.sleep(0.05)
            assert code not in hub.rooms
            time.sleep(0.2)  # the release's last steps (the store's caches) end
            assert room() is None, "the released room lives on in a reference cycle"
        finally:
            gc.enable()


@pytest.mark.parametrize("fenced", [False, True])
def test_moves_of_many_rooms_written_together(database: str, fenced: bool) -> None:
    """The writer's group commit: the moves of several rooms in one transaction (on
    PostgreSQL one UPDATE for them all), each room's status, record and move ids as given;
    with fencing tokens, a room whose token is no longer the writer's is not written and is
    named, and the others are."""
    from yaniv.server.storage import RoomState, Store

    store = Store(database)
    try:
        codes = ["MANY2A", "MANY2B", "MANY2C"]
        epoch = 1 if fenced else None
        first = [RoomState(c, {"r": 1}, [{"name": c}], "playing", None, epoch) for c in codes]
        assert store.save_rooms(first) == set()
        if fenced:  # another process takes MANY2B over (SQLite has one process only)
            other = Store(database) if database.startswith("postgresql") else store
            assert other.claim("MANY2B") == 2
            if other is not store:
                other.close()
        moves = [
            RoomState(c, {"r": 1}, [{"name": c}], "over" if c == "MANY2C" else "playing",
                      f"record of {c} é", epoch, [[0, 1, f"id-{c}"]])
            for c in codes
        ]  # fmt: skip
        assert store.save_rooms(moves) == ({"MANY2B"} if fenced else set())
        for c in codes:
            stored = store.room(c)
            assert stored is not None
            if fenced and c == "MANY2B":
                assert (stored.status, stored.record, stored.move_ids) == ("playing", None, None)
            else:
                assert stored.status == ("over" if c == "MANY2C" else "playing")
                assert stored.record == f"record of {c} é"
                assert stored.move_ids == [[0, 1, f"id-{c}"]]
    finally:
        store.close()


def test_moves_on_postgres_are_written_on_one_held_connection_that_survives_a_drop() -> None:
    """PostgreSQL: the moves' writer checks out no connection per write (a check-out pings
    the server first), and when the server drops the one it holds (a restart, a terminated
    backend), the next write is made on a fresh one, not lost and not refused."""
    from sqlalchemy import text

    from yaniv.server.storage import RoomState, Store

    with postgres_schema() as url:
        store = Store(url)
        try:
            checkouts: list[object] = []
            event.listen(store.engine, "checkout", lambda *a: checkouts.append(a))
            first = RoomState("HELD2A", {"r": 1}, [{"name": "a"}], "playing", None, 1)
            assert store.save_rooms([first]) == set()  # the insert: an ORM session
            before = len(checkouts)
            for n in range(10):
                move = RoomState("HELD2A", {"r": 1}, [{"name": "a"}], "playing", f"r{n}", 1)
                assert store.save_rooms([move]) == set()
            assert len(checkouts) - before == 1, "the writer checked out a connection per write"
            held = store._held
            assert held is not None
            pid = held.execute(text("SELECT pg_backend_pid()")).scalar()
            held.rollback()
            with store.engine.connect() as other:
                other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
            move = RoomState("HELD2A", {"r": 1}, [{"name": "a"}], "over", "after the drop", 1)
            assert store.save_rooms([move]) == set()
            stored = store.room("HELD2A")
            assert stored is not None
            assert (stored.status, stored.record) == ("over", "after the drop")
        finally:
            store.close()


def test_closing_stops_rooms_that_leave_or_come_while_it_runs(
    database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Hub.close`` stops every room even where rooms leave memory (taken over elsewhere,
    released) or come in (a lookup, a new game) during its awaits. It iterated the live
    dict: a shutdown under load failed with "dictionary changed size during iteration"."""
    import asyncio

    from yaniv.server.storage import Store

    closed: list[str] = []
    real_close = rooms.Room.close

    async def run() -> None:
        hub = rooms.Hub(Store(database), slap_window=0)
        codes = [(await hub.new_room(f"P{i}", {"preset": "standard"}))["room"] for i in range(4)]

        async def close(room: rooms.Room) -> None:
            closed.append(room.code)
            await real_close(room)
            if len(closed) == 1:  # while the first closes: one leaves, two come
                await hub.lost(codes[-1])
                for name in ("Late", "Later"):
                    codes.append((await hub.new_room(name, {"preset": "standard"}))["room"])

        monkeypatch.setattr(rooms.Room, "close", close)
        await hub.close()
        assert sorted(closed) == sorted(codes)  # each once, the one that left by lost()

    asyncio.run(run())
