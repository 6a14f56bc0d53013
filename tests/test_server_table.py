"""The table's social side on the server: the round's end waits for every person (or its
countdown), the stand-in shown and credited, the turn timer, and quick reactions."""

from __future__ import annotations

import contextlib
import json
import time
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from fastapi.testclient import TestClient  # noqa: E402
from test_server import client, deal_on, greedy, next_state, until_turn  # noqa: E402

from yaniv import record  # noqa: E402
from yaniv.server import history  # noqa: E402
from yaniv.server.models import RoomRow  # noqa: E402
from yaniv.server.schemas import REACTIONS, TURN_TIMERS, Reaction, TurnTimer  # noqa: E402

QUICK = {"preset": "standard", "yaniv_threshold": 7}


def room_of(
    c: TestClient, people: int = 2, bots: int = 0, turn_timer: int | None = None
) -> tuple[str, list[str]]:
    """A started room of ``people`` people (and ``bots`` bots after them): code and tokens."""
    body: dict[str, Any] = {"name": "Host", "rules": QUICK}
    if turn_timer is not None:
        body["turn_timer"] = turn_timer
    host = c.post("/api/rooms", json=body).json()
    code, tokens = host["room"], [host["token"]]
    for n in range(1, people):
        tokens.append(c.post(f"/api/rooms/{code}/join", json={"name": f"P{n}"}).json()["token"])
    if bots:
        wanted = [{"seat": people + i, "level": "easy"} for i in range(bots)]
        r = c.post(f"/api/rooms/{code}/settings", json={"token": tokens[0], "bots": wanted})
        assert r.status_code == 200, r.text
    r = c.post(f"/api/rooms/{code}/start", json={"token": tokens[0]})
    assert r.status_code == 200, r.text
    return code, tokens


def latest(
    ws: Any, until: Any, limit: int = 3000, errors: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Read states until one satisfies ``until`` (errors kept in ``errors`` or failing)."""
    for _ in range(limit):
        state = next_state(ws, errors)
        if until(state):
            return state
    raise AssertionError("no such state came")


def latest_dealing_on(
    ws: Any, until: Any, limit: int = 5000, dealt: list[int] | None = None
) -> dict[str, Any]:
    """``latest``, dealing on at each round's end (``deal_on``: a random deal can end a round
    at any turn); the rounds it dealt on are kept in ``dealt``."""
    asked = dealt if dealt is not None else []

    def done(state: dict[str, Any]) -> bool:
        if until(state):
            return True
        deal_on(ws, state["view"], asked)
        return False

    return latest(ws, done, limit=limit)


def moment(view: dict[str, Any]) -> tuple[Any, ...]:
    """What every seat's view of one moment shares."""
    return (
        view["round"],
        view["phase"],
        view["to_move"],
        view["stock_size"],
        view["hand_sizes"],
        view["pile"],
    )


def play_to_round_end(sockets: list[Any]) -> list[dict[str, Any]]:
    """Play every person's turns (greedily) until the round is over; each socket's state of
    the round's end."""
    states = [next_state(ws) for ws in sockets]
    for _ in range(2000):
        view = states[0]["view"]
        if view["phase"] in ("round_over", "game_over"):
            break
        seat = view["to_move"]
        now = moment(view)
        if seat >= len(sockets):  # a bot's turn: wait for it
            states[0] = latest(sockets[0], lambda s, m=now: moment(s["view"]) != m)
            continue
        ws = sockets[seat]
        while moment(states[seat]["view"]) != moment(view):
            states[seat] = next_state(ws)
        ws.send_json({"type": "move", "move": greedy(states[seat]["view"])})
        states[0] = latest(sockets[0], lambda s, m=now: moment(s["view"]) != m)
    else:
        raise AssertionError("the round did not end")
    done = [states[0]]
    for ws in sockets[1:]:
        done.append(latest(ws, lambda s: s["view"]["phase"] in ("round_over", "game_over")))
    return done


# ---------------------------------------------------------------- fault 3: the round's end


def test_one_persons_next_round_does_not_close_the_others_summary(tmp_path: Any) -> None:
    with client(f"sqlite:///{tmp_path / 'y.sqlite3'}") as c:
        code, tokens = room_of(c)
        with (
            c.websocket_connect(f"/ws/{code}?token={tokens[0]}") as ws0,
            c.websocket_connect(f"/ws/{code}?token={tokens[1]}") as ws1,
        ):
            end = play_to_round_end([ws0, ws1])
            if end[0]["view"]["phase"] == "game_over":
                pytest.skip("the first round ended the game")
            number = end[0]["view"]["round"]
            clock = end[0]["clock"]
            assert clock["kind"] == "next_round" and clock["total_ms"] == 20_000
            assert 0 < clock["remaining_ms"] <= 20_000
            assert [s["ready"] for s in end[0]["seats"]] == [False, False]
            ws0.send_json({"type": "next_round"})
            # the host is ready; the guest still reads the result: no deal
            state = latest(ws1, lambda s: s["seats"][0]["ready"])
            assert state["view"]["phase"] == "round_over" and state["view"]["round"] == number
            assert state["seats"][1]["ready"] is False
            ws0.send_json({"type": "next_round"})  # twice is still one person
            ws0.send_json({"type": "ping"})
            while ws0.receive_json()["type"] != "pong":
                pass
            assert c.app.state.hub.rooms[code].table.view(0).round_no == number  # type: ignore[attr-defined]
            ws1.send_json({"type": "next_round"})
            dealt = latest(ws0, lambda s: s["view"]["round"] == number + 1)
            assert dealt["view"]["phase"] == "start" and dealt["clock"] is None
            assert "ready" not in dealt["seats"][0]


def test_the_round_ends_countdown_deals_when_time_is_up(tmp_path: Any) -> None:
    with client(f"sqlite:///{tmp_path / 'y.sqlite3'}", round_wait=0.6) as c:
        code, tokens = room_of(c)
        with (
            c.websocket_connect(f"/ws/{code}?token={tokens[0]}") as ws0,
            c.websocket_connect(f"/ws/{code}?token={tokens[1]}") as ws1,
        ):
            end = play_to_round_end([ws0, ws1])
            if end[0]["view"]["phase"] == "game_over":
                pytest.skip("the first round ended the game")
            number = end[0]["view"]["round"]
            began = time.monotonic()
            # nobody says ready: the server's clock deals the next round by itself
            dealt = latest(ws1, lambda s: s["view"]["round"] == number + 1)
            assert time.monotonic() - began >= 0.3
            assert dealt["view"]["phase"] == "start"


def test_alone_against_the_computer_the_summary_waits_for_the_person(tmp_path: Any) -> None:
    with client(f"sqlite:///{tmp_path / 'y.sqlite3'}", round_wait=0.2) as c:
        game = c.post(
            "/api/games", json={"name": "Solo", "opponents": ["easy"], "rules": QUICK}
        ).json()
        with c.websocket_connect(f"/ws/{game['room']}?token={game['token']}") as ws:
            (end,) = play_to_round_end([ws])
            if end["view"]["phase"] == "game_over":
                pytest.skip("the first round ended the game")
            assert end["clock"] is None  # no countdown for one person
            time.sleep(0.5)
            room = c.app.state.hub.rooms[game["room"]]  # type: ignore[attr-defined]
            assert room.table.phase.label == "round_over"
            ws.send_json({"type": "next_round"})  # one person ready: all are
            latest(ws, lambda s: s["view"]["round"] == end["view"]["round"] + 1)


# ---------------------------------------------------------------- fault 4: the stand-in


def stand_in_round(c: TestClient) -> tuple[str, list[str], dict[str, Any]]:
    """A room of two people where the guest drops: the host's states until a stand-in has
    played a move for the guest (the state that shows it)."""
    code, tokens = room_of(c)
    with c.websocket_connect(f"/ws/{code}?token={tokens[0]}") as ws0:
        with c.websocket_connect(f"/ws/{code}?token={tokens[1]}") as ws1:
            next_state(ws1)
        held = latest(ws0, lambda s: "grace_ms" in s["seats"][1])
        assert held["seats"][1]["connected"] is False
        grace = held["seats"][1]
        assert grace["stand_in"] is False and 0 < grace["grace_ms"] <= 400
        assert "away" not in grace
        moved = 0
        for _ in range(3000):
            state = next_state(ws0)
            view = state["view"]
            if view["phase"] == "round_over":
                ws0.send_json({"type": "next_round"})
                continue
            if any(e.get("by") == "stand_in" for e in view["events"]):
                return code, tokens, state
            if view["to_move"] == 0 and moved < 400:
                ws0.send_json({"type": "move", "move": greedy(view), "id": f"m{moved}"})
                moved += 1
    raise AssertionError("no stand-in move came")


def test_a_stand_in_is_shown_and_its_moves_are_not_the_persons(database: str) -> None:
    with client(database, grace=0.3) as c:
        code, tokens, state = stand_in_round(c)
        seat = state["seats"][1]
        assert seat["stand_in"] is True and seat["away"] == "gone" and "grace_ms" not in seat
        marked = [e for e in state["view"]["events"] if e.get("by") == "stand_in"]
        assert marked and all(
            e.get("seat", e.get("result", {}).get("caller")) == 1 for e in marked
        ), marked
        own = [e for e in state["view"]["events"] if e.get("seat") == 0]
        assert not any("by" in e for e in own)  # the host's own moves stay the host's
        # the guest's own view marks the same moves; the record keeps them
        with c.websocket_connect(f"/ws/{code}?token={tokens[1]}") as ws1:
            mine = next_state(ws1)
            assert mine["seats"][1]["stand_in"] is False  # back: the person plays again
            if mine["view"]["round"] == state["view"]["round"]:
                assert any(e.get("by") == "stand_in" for e in mine["view"]["events"])
        with c.app.state.hub.store.session() as session:  # type: ignore[attr-defined]
            row = session.get(RoomRow, code)
            assert row is not None and row.record is not None
            data = record.loads(row.record)
    marks = data["table"]["stand_in"]
    assert marks and all(len(m) == 2 for m in marks)
    steps = history.replay_steps(data)
    by = [s for s in steps if s.get("by") == "stand_in"]
    assert by and all(s["seat"] == 1 for s in by)
    assert len(by) == len(marks)
    # a restarted server still knows which moves were the stand-in's
    with (
        client(database, grace=60.0) as c,
        c.websocket_connect(f"/ws/{code}?token={tokens[0]}") as ws0,
    ):
        again = next_state(ws0)
        room = c.app.state.hub.rooms[code]  # type: ignore[attr-defined]
        assert {tuple(m) for m in marks} <= room.table.stand_in_moves
        if again["view"]["round"] == state["view"]["round"]:
            assert [e for e in again["view"]["events"] if e.get("by") == "stand_in"]
        assert 0 < again["seats"][1]["grace_ms"] <= 60_000  # held again after the restart


# ---------------------------------------------------------------- the turn timer


def test_the_turn_timer_is_a_room_option_with_four_choices(database: str) -> None:
    assert typing_args(TurnTimer) == TURN_TIMERS == (0, 15, 30, 60)
    with client(database) as c:
        bad = c.post("/api/rooms", json={"name": "H", "turn_timer": 20})
        assert bad.status_code == 400 and "turn_timer" in bad.json()["error"]
        host = c.post("/api/rooms", json={"name": "H"}).json()
        code = host["room"]
        assert c.get(f"/api/rooms/{code}").json()["turn_timer"] == 0
        r = c.post(f"/api/rooms/{code}/settings", json={"token": host["token"], "turn_timer": 45})
        assert r.status_code == 400 and "turn_timer" in r.json()["error"]
        r = c.post(f"/api/rooms/{code}/settings", json={"token": host["token"], "turn_timer": 30})
        assert r.status_code == 200 and r.json()["turn_timer"] == 30
        guest = c.post(f"/api/rooms/{code}/join", json={"name": "G"}).json()
        r = c.post(f"/api/rooms/{code}/settings", json={"token": guest["token"], "turn_timer": 0})
        assert r.status_code == 403
        game = c.post("/api/games", json={"name": "Solo", "opponents": ["easy"]}).json()
        assert c.get(f"/api/rooms/{game['room']}").json()["turn_timer"] == 0
    with client(database) as c:  # the choice survives a restart
        assert c.get(f"/api/rooms/{code}").json()["turn_timer"] == 30
        r = c.post(f"/api/rooms/{code}/start", json={"token": host["token"]})
        assert r.status_code == 200 and r.json()["turn_timer"] == 30
        with c.websocket_connect(f"/ws/{code}?token={host['token']}") as ws:
            state = next_state(ws)
            assert state["turn_timer"] == 30
            clock = state["clock"]
            seat = state["view"]["to_move"]
            assert clock["kind"] == "turn" and clock["seat"] == seat
            assert clock["total_ms"] == 30_000 and 25_000 < clock["remaining_ms"] <= 30_000


def typing_args(alias: Any) -> tuple[Any, ...]:
    import typing

    return typing.get_args(alias)


def test_a_turn_that_runs_out_is_played_by_the_stand_in(tmp_path: Any) -> None:
    """Nobody moves: the server's clock runs out, the stand-in plays the turn (and says so);
    two timeouts in a row mark the seat away, a message of the person's brings it back. A
    client that sends anything but a move cannot stop the clock."""
    with client(f"sqlite:///{tmp_path / 'y.sqlite3'}") as c:
        code, tokens = room_of(c, people=1, bots=1, turn_timer=15)
        room = c.app.state.hub.rooms[code]  # type: ignore[attr-defined]
        room.turn_timer = 0.4  # the tests' clock: the host's choice is 15 s
        with c.websocket_connect(f"/ws/{code}?token={tokens[0]}") as ws:
            first = until_turn(ws)
            if first["clock"] is None:  # dealt before the short clock: the next state has it
                first = latest(ws, lambda s: s["clock"] is not None)
            assert first["clock"]["kind"] == "turn" and first["clock"]["seat"] == 0
            events = len(first["view"]["events"])
            for _ in range(5):  # pings and refused moves do not stop the clock
                ws.send_json({"type": "ping"})
                ws.send_json({"type": "move", "move": "slap 5D", "id": "x"})
            refused: list[dict[str, Any]] = []
            played = latest(
                ws,
                lambda s: any(
                    e.get("by") == "stand_in" and e.get("seat") == 0
                    for e in s["view"]["events"][events:]
                ),
                errors=refused,
            )
            assert len(refused) == 5 and all(e["id"] == "x" for e in refused)
            assert room.timeouts[0] == 1 and 0 not in room.idle
            assert "away" not in played["seats"][0]
            # the second turn runs out too: the seat is away, the stand-in plays on (a round
            # that ends first is dealt on, which is the person's act: two more turns run out)
            away = latest_dealing_on(ws, lambda s: s["seats"][0].get("away") == "idle")
            assert away["seats"][0]["stand_in"] is True
            assert room.timeouts[0] >= 2
            ws.send_json({"type": "back"})
            back = latest(ws, lambda s: "away" not in s["seats"][0])
            assert back["seats"][0]["stand_in"] in (False, True)  # True: a turn ran out again
            assert 0 not in room.idle or room.timeouts.get(0, 0) >= 2


def test_a_move_of_ones_own_resets_the_timeouts(tmp_path: Any) -> None:
    with client(f"sqlite:///{tmp_path / 'y.sqlite3'}") as c:
        code, tokens = room_of(c, people=1, bots=1, turn_timer=15)
        room = c.app.state.hub.rooms[code]  # type: ignore[attr-defined]
        room.turn_timer = 0.4
        with c.websocket_connect(f"/ws/{code}?token={tokens[0]}") as ws:
            latest_dealing_on(
                ws, lambda s: any(e.get("by") == "stand_in" for e in s["view"]["events"])
            )
            assert room.timeouts[0] == 1
            room.turn_timer = 30  # now there is time to move
            dealt: list[int] = []
            state = latest_dealing_on(
                ws,
                lambda s: (
                    s["view"]["to_move"] == 0
                    and s["view"]["phase"] == "start"
                    and not s["seats"][0]["stand_in"]
                ),
                dealt=dealt,
            )
            # the move has a count to reset, unless dealing on (the person's act too) did; the
            # turn after the stand-in's may have run out on the old clock as well: 1 or 2
            assert dealt or room.timeouts.get(0, 0) >= 1
            ws.send_json({"type": "move", "move": greedy(state["view"]), "id": "own"})
            latest(ws, lambda s: len(s["view"]["events"]) > len(state["view"]["events"]))
            assert room.timeouts.get(0, 0) == 0


# ---------------------------------------------------------------- quick reactions


def reactions_of(ws: Any, count: int) -> list[dict[str, Any]]:
    """The next ``count`` reaction messages (states skipped)."""
    out: list[dict[str, Any]] = []
    while len(out) < count:
        message = ws.receive_json()
        if message["type"] == "reaction":
            out.append(message)
        elif message["type"] == "error":
            raise AssertionError(message)
    return out


def first_error(ws: Any) -> dict[str, Any]:
    while (message := ws.receive_json())["type"] != "error":
        pass
    return dict(message)


def test_reactions_reach_everyone_in_the_room(tmp_path: Any) -> None:
    assert typing_args(Reaction) == REACTIONS
    with client(f"sqlite:///{tmp_path / 'y.sqlite3'}", reaction_gap=0.3) as c:
        code, tokens = room_of(c)
        with contextlib.ExitStack() as stack:
            ws0 = stack.enter_context(c.websocket_connect(f"/ws/{code}?token={tokens[0]}"))
            ws1 = stack.enter_context(c.websocket_connect(f"/ws/{code}?token={tokens[1]}"))
            spectator = stack.enter_context(c.websocket_connect(f"/ws/{code}"))
            ws1.send_json({"type": "react", "reaction": "yaniv_soon"})
            for ws in (ws0, ws1, spectator):
                (got,) = reactions_of(ws, 1)
                assert got == {"type": "reaction", "seat": 1, "reaction": "yaniv_soon"}
            # too soon again: refused in words, said to the sender only
            ws1.send_json({"type": "react", "reaction": "laugh"})
            refused = first_error(ws1)
            assert refused["about"] == "react" and "one reaction every" in refused["message"]
            assert 0 < refused["retry_ms"] <= 300
            time.sleep(0.35)
            ws1.send_json({"type": "react", "reaction": "laugh"})
            (got,) = reactions_of(ws0, 1)
            assert got["reaction"] == "laugh" and got["seat"] == 1
            # a spectator does not react
            spectator.send_json({"type": "react", "reaction": "nice"})
            assert "spectators" in first_error(spectator)["message"]


@pytest.mark.parametrize(
    "message",
    [
        {"type": "react", "reaction": "hello <b>world</b>"},
        {"type": "react", "reaction": "👍"},
        {"type": "react"},
        {"type": "react", "reaction": "nice", "text": "free words"},
        {"type": "react", "reaction": 3},
    ],
)
def test_only_the_fixed_reactions_are_accepted(tmp_path: Any, message: dict[str, Any]) -> None:
    with client(f"sqlite:///{tmp_path / 'y.sqlite3'}") as c:
        code, tokens = room_of(c)
        with (
            c.websocket_connect(f"/ws/{code}?token={tokens[0]}") as ws0,
            c.websocket_connect(f"/ws/{code}?token={tokens[1]}") as ws1,
        ):
            ws0.send_json(message)
            error = first_error(ws0)
            words = error["message"]
            assert "Traceback" not in words and words.strip()
            assert "reaction" in words or "text" in words, words
            if isinstance(message.get("reaction"), str) and message["reaction"] != "nice":
                assert "thumbs_up" in words  # the allowed ids are named
            # nothing reached the other player: the next reaction they get is a good one
            ws0.send_json({"type": "react", "reaction": "thumbs_up"})
            (got,) = reactions_of(ws1, 1)
            assert got["reaction"] == "thumbs_up"
            assert json.dumps(got, ensure_ascii=False).count("<") == 0


def test_migration_0003_goes_down_and_up_with_rooms_in_it(database: str) -> None:
    """A room stored before the turn timer (no rooms.options) loads with the timer off; the
    migration goes down and up again on each backend."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import inspect

    from yaniv.server.storage import MIGRATIONS, make_engine

    with client(database) as c:
        code, tokens = room_of(c, turn_timer=30)
        assert c.get(f"/api/rooms/{code}").json()["turn_timer"] == 30
    engine = make_engine(database)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0002")
    assert "options" not in {c["name"] for c in inspect(engine).get_columns("rooms")}
    engine.dispose()
    with client(database) as c:  # the app migrates up again at its start
        info = c.get(f"/api/rooms/{code}").json()
        assert info["status"] == "playing" and info["turn_timer"] == 0
        with c.websocket_connect(f"/ws/{code}?token={tokens[0]}") as ws:
            state = next_state(ws)
            assert state["turn_timer"] == 0 and state["clock"] is None
