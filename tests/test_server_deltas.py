"""State deltas (``/ws/CODE?deltas=1``): applied in order, they make the very states a client
without deltas is sent, in Python and in the web app's JavaScript; a resync sends the whole."""

from __future__ import annotations

import json
import shutil
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402
from test_server import client, greedy, new_game  # noqa: E402

from yaniv.server.deltas import apply_delta, delta  # noqa: E402

WEB = Path(__file__).resolve().parent.parent / "yaniv" / "web" / "js"


def plain(state: dict[str, Any]) -> dict[str, Any]:
    """A state without its stream and number (what a client without deltas is sent)."""
    return {k: v for k, v in state.items() if k not in ("stream", "seq")}


class Reader:
    """One socket's messages: whole states as they come, deltas applied to the last."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.last: dict[str, Any] | None = None
        self.states: list[dict[str, Any]] = []
        self.raw: list[dict[str, Any]] = []  # the state and delta messages as received

    def take(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """The state a message makes (None for other messages)."""
        if message["type"] == "state":
            state = message
        elif message["type"] == "delta":
            assert self.last is not None, "a delta before any whole state"
            assert message["stream"] == self.last["stream"]
            assert message["base"] == self.last["seq"] and message["seq"] == message["base"] + 1
            state = apply_delta(self.last, message)
        else:
            assert message["type"] in ("pong", "room"), message
            return None
        self.raw.append(message)
        self.last = state
        self.states.append(state)
        return state

    def until_pong(self) -> None:
        self.ws.send_json({"type": "ping"})
        while (message := self.ws.receive_json())["type"] != "pong":
            self.take(message)


def play(c: TestClient, rules: dict[str, Any] | None = None, rounds: int = 2) -> list[Reader]:
    """A game against two bots for ``rounds`` rounds, the person playing from a socket with
    deltas; beside it a socket of the same seat without, and a spectator of each kind, all
    connected before the start. The readers: [person with deltas, person whole, spectator
    with deltas, spectator whole], each holding the states from the last one before the
    start on (what all four are sent alike)."""
    host = c.post("/api/rooms", json={"name": "Host", "rules": rules or {}}).json()
    code, token = host["room"], host["token"]
    bots = [{"seat": 1, "level": "easy"}, {"seat": 2, "level": "medium"}]
    r = c.post(f"/api/rooms/{code}/settings", json={"token": token, "bots": bots})
    assert r.status_code == 200, r.text
    base = f"/ws/{code}"
    with (
        c.websocket_connect(f"{base}?token={token}&deltas=1") as mine,
        c.websocket_connect(f"{base}?token={token}") as whole,
        c.websocket_connect(f"{base}?deltas=1") as watcher,
        c.websocket_connect(base) as watcher_whole,
    ):
        readers = [Reader(ws) for ws in (mine, whole, watcher, watcher_whole)]
        for reader in readers:
            reader.until_pong()
            del reader.states[:-1]
        assert c.post(f"/api/rooms/{code}/start", json={"token": token}).status_code == 200
        person, played, moves = readers[0], 0, set()
        for _ in range(3000):
            state = person.take(mine.receive_json())
            if state is None or state["view"] is None:
                continue
            view = state["view"]
            moment = (view["round"], len(view["events"]), view["phase"])
            if view["phase"] == "game_over":
                break
            if view["phase"] == "round_over" and moment not in moves:
                moves.add(moment)
                played += 1
                if played >= rounds:
                    break
                mine.send_json({"type": "next_round"})
            elif view["to_move"] == 0 and moment not in moves:
                moves.add(moment)
                mine.send_json({"type": "move", "move": greedy(view), "id": uuid.uuid4().hex})
        else:
            raise AssertionError("the game did not get on")
        for reader in readers:
            reader.until_pong()
    return readers


@pytest.mark.parametrize("preset", ["standard", "slapdown"])
def test_deltas_make_the_states_sent_whole(tmp_path: Path, preset: str) -> None:
    with client(f"sqlite:///{tmp_path / 'd.sqlite3'}") as c:
        mine, whole, watcher, watcher_whole = play(c, {"preset": preset})
    for with_deltas, without in ((mine, whole), (watcher, watcher_whole)):
        assert [plain(s) for s in with_deltas.states] == without.states
        assert len(without.states) > 20
        assert with_deltas.raw[0]["type"] == "state"
        kinds = [m["type"] for m in with_deltas.raw[1:]]
        assert kinds and set(kinds) == {"delta"}  # one whole state, then only deltas
    # Over two rounds and a new deal, the deltas are a small part of the whole states' text.
    sent = sum(len(json.dumps(m)) for m in mine.raw)
    assert sent < sum(len(json.dumps(s)) for s in whole.states) / 3
    # A new round starts its events again: its first delta keeps none of the last round's.
    new_round = [
        m for m in mine.raw if m["type"] == "delta" and "round" in m.get("view", {}).get("set", {})
    ]
    assert new_round and all(m["view"]["events"]["keep"] == 0 for m in new_round)
    # The story is the whole game's, its last lines rewritten as a turn goes on (a discard's
    # line gains its draw): every delta keeps the lines before those.
    stories = [m["story"] for m in mine.raw if m["type"] == "delta" and "story" in m]
    assert stories and all(part["keep"] > 0 for part in stories[1:])
    assert max(len(part["add"]) for part in stories[1:]) <= 3


def test_a_resync_sends_the_whole_state(tmp_path: Path) -> None:
    with client(f"sqlite:///{tmp_path / 'r.sqlite3'}") as c:
        game = new_game(c, ["easy"])
        with c.websocket_connect(f"/ws/{game['room']}?token={game['token']}&deltas=1") as ws:
            reader = Reader(ws)
            reader.until_pong()
            # The person's turn: the room waits for them (no bot moves, no clock) from then on.
            # A round the bot ends first (a low hand called at once) is dealt on.
            asked = None
            while reader.last is None or (view := reader.last["view"])["to_move"] != 0:
                last_round = None if reader.last is None else view["round"]
                if last_round is not None and view["phase"] == "round_over" and asked != last_round:
                    asked = last_round
                    ws.send_json({"type": "next_round"})
                reader.take(ws.receive_json())
            reader.until_pong()
            assert reader.last is not None
            before = reader.last
            ws.send_json({"type": "resync"})
            message = ws.receive_json()
            assert message["type"] == "state"  # whole, the next number of the same stream
            assert message["stream"] == before["stream"] and message["seq"] == before["seq"] + 1
            assert plain(message) == plain(before)


def test_a_delta_of_equal_states_is_none_and_each_part_is_replaced() -> None:
    old = {
        "type": "state",
        "view": {"round": 1, "events": [{"a": 1}], "to_move": 0, "gone": 1},
        "story": ["one"],
        "seats": [1],
        "clock": None,
    }
    assert delta(old, json.loads(json.dumps(old))) is None
    new = {
        "type": "state",
        "view": {"round": 1, "events": [{"a": 1}, {"b": 2}], "to_move": 1},
        "story": ["one", "two"],
        "seats": [1],
        "clock": {"left": 3},
    }
    change = delta(old, new)
    assert change is not None
    assert change["set"] == {"clock": {"left": 3}} and change["unset"] == []
    assert change["view"] == {
        "set": {"to_move": 1},
        "unset": ["gone"],
        "events": {"keep": 1, "add": [{"b": 2}]},
    }
    assert change["story"] == {"keep": 1, "add": ["two"]}
    assert apply_delta(old, change) == new
    # A list that is not the last one grown (a new round) is sent whole.
    later = {**new, "story": ["three"], "view": None}
    change = delta(new, later)
    assert change is not None
    assert change["story"] == {"keep": 0, "add": ["three"]} and change["set"]["view"] is None
    assert apply_delta(new, change) == later


NODE_RUN = """
import { readFileSync } from "node:fs";
import { applyDelta } from "%s";
const messages = JSON.parse(readFileSync(process.argv[2], "utf8"));
let last = null;
const out = [];
for (const m of messages) {
  last = m.type === "delta" ? applyDelta(last, m) : m;
  out.push(last);
}
process.stdout.write(JSON.stringify(out));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_the_web_app_applies_deltas_as_the_server_means_them(tmp_path: Path) -> None:
    with client(f"sqlite:///{tmp_path / 'n.sqlite3'}") as c:
        mine, whole, _, _ = play(c, {"preset": "standard"}, rounds=2)
    script = tmp_path / "run.mjs"
    script.write_text(NODE_RUN % (WEB / "deltas.js").as_uri())
    messages = tmp_path / "messages.json"
    messages.write_text(json.dumps(mine.raw))
    done = subprocess.run(
        ["node", str(script), str(messages)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert [plain(s) for s in json.loads(done.stdout)] == whole.states
