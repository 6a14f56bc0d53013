"""No hidden card leaks from the web server: every message sent to every seat's websocket and
to a spectator, over whole games of 2 to 8 players under every preset, is checked against the
hands as they were when the message's state was taken.

A seat may know of another seat's hand only what a player at the table would: the cards that
seat was seen taking from the pile (and has not laid down since), and every hand once the
round's showdown shows them. That knowledge is rebuilt here from the events the message itself
carries, by the rules of the game (a pile draw is public, a stock draw is not), so a state that
told more than that would fail; nothing is taken from the view's own ``known`` list.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from card_knowledge import CARD, knowledge, this_round  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocket  # noqa: E402

from yaniv.cards import NAMES, VALUE, parse_card  # noqa: E402
from yaniv.server.app import create_app  # noqa: E402
from yaniv.server.rooms import Room  # noqa: E402

#: A stock draw of another seat that names the card ("Dana draws 7H from the stock").
NAMED_STOCK_DRAW = re.compile(r"draws? (\S+) from the stock")

#: Each game ends when a score passes this (end_mode first_over), or after MAX_ROUNDS.
SCORE_LIMIT = 50
MAX_ROUNDS = 3
#: (preset, players, extra options): every preset, 2 to 8 players, jokers and slapdown.
GAMES: list[tuple[str, int, dict[str, Any]]] = [
    ("standard", 2, {}),
    ("standard", 3, {"pickup": "any"}),
    ("standard", 5, {"jokers": 2, "jokers_in_sets": True}),
    ("quick", 2, {}),
    ("quick", 4, {"jokers": 1}),
    ("quick", 6, {}),
    ("hebrew", 3, {}),
    ("hebrew", 4, {"joker_in_run": "gaps_only"}),
    ("hebrew", 7, {"jokers": 0}),
    ("draw_first", 2, {}),
    ("draw_first", 3, {"pickup": "any"}),
    ("draw_first", 5, {"jokers": 2}),
    ("draw_first", 8, {"slapdown": "rank"}),
    ("slapdown", 2, {}),
    ("slapdown", 3, {"jokers": 2}),
    ("slapdown", 4, {"slapdown": "rank_or_run"}),
    ("slapdown", 6, {"pickup": "any"}),
    ("slapdown", 8, {"slapdown": "rank_or_run", "jokers": 2}),
    ("standard", 4, {"slapdown": "rank", "pickup": "run_ends_set_any"}),
    ("quick", 3, {"slapdown": "rank_or_run", "draw_first": True}),
    ("hebrew", 2, {"slapdown": "rank"}),
]


def choose(view: dict[str, Any], rng: random.Random) -> str:
    """A quick player: Yaniv when it may; slaps and pile draws often (so seats learn of each
    other's cards), else the discard worth the most."""
    moves: list[str] = view["legal_moves"]
    if "yaniv" in moves:
        return "yaniv"
    slaps = [m for m in moves if m.startswith("slap")]
    if slaps and rng.random() < 0.7:
        return rng.choice(slaps)
    if "pass" in moves:
        return "pass"
    takes = [m for m in moves if m.startswith("draw") and m != "draw stock"]
    if takes and (rng.random() < 0.5 or "draw stock" not in moves):
        return rng.choice(takes)
    if "draw stock" in moves:
        return "draw stock"
    discards = [m for m in moves if m.startswith("discard")]
    if discards:
        return max(discards, key=lambda m: sum(VALUE[parse_card(c)] for c in m.split()[1:]))
    return rng.choice(moves)


def next_state(ws: Any) -> dict[str, Any]:
    while True:
        message = ws.receive_json()
        assert message["type"] != "error", message
        if message["type"] == "state":
            return dict(message)


def moment(view: dict[str, Any]) -> tuple[int, int, str, int | None]:
    """A moment of the game as every seat sees it (a declined slap is seen by its player
    alone, so it is not counted)."""
    public = sum(1 for e in view["events"] if e["type"] != "pass")
    return view["round"], public, view["phase"], view["to_move"]


def play_game(
    c: TestClient, rules: dict[str, Any], players: int, rng: random.Random
) -> tuple[str, list[str]]:
    """A room of ``players`` people and a spectator, each seat played over its own websocket,
    until the game is over (or MAX_ROUNDS rounds); the room's code and the seats' tokens."""
    host = c.post("/api/rooms", json={"name": "Seat 0", "rules": rules}).json()
    code, tokens = host["room"], [host["token"]]
    for seat in range(1, players):
        joined = c.post(f"/api/rooms/{code}/join", json={"name": f"Seat {seat}"}).json()
        assert joined["seat"] == seat
        tokens.append(joined["token"])
    r = c.post(f"/api/rooms/{code}/start", json={"token": tokens[0]})
    assert r.status_code == 200, r.text
    with contextlib.ExitStack() as stack:
        stack.enter_context(c.websocket_connect(f"/ws/{code}"))  # a spectator, recorded only
        sockets = [
            stack.enter_context(c.websocket_connect(f"/ws/{code}?token={t}")) for t in tokens
        ]
        views = [next_state(ws)["view"] for ws in sockets]
        view = views[0]
        for _ in range(3000):
            if view["phase"] == "game_over" or view["round"] > MAX_ROUNDS:
                return str(code), tokens
            if view["phase"] == "round_over":
                for ws in sockets:  # the next round is dealt once every person is ready
                    ws.send_json({"type": "next_round"})
                dealt = view["round"] + 1
                while (view := next_state(sockets[0])["view"])["round"] != dealt:
                    pass
                views[0] = view
                continue
            seat = view["to_move"]
            ws = sockets[seat]
            # The mover's socket may hold older states: read up to the one of this moment.
            while moment(views[seat]) != moment(view):
                views[seat] = next_state(ws)["view"]
            ws.send_json({"type": "move", "move": choose(views[seat], rng)})
            before = moment(views[seat])
            while moment(views[seat]) == before:
                views[seat] = next_state(ws)["view"]
            view = views[seat]
    raise AssertionError("the game did not end")


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> Iterator[dict[str, Any]]:
    """An app whose every websocket message is recorded (who it went to, its text), with every
    seat's hand as it was when each state was taken."""
    sent: list[tuple[str, str]] = []  # (token or "" for a spectator, text)
    truth: dict[str, tuple[tuple[str, ...], ...]] = {}  # a view's JSON -> the hands then
    original_state, original_send = Room.state, WebSocket.send_text

    async def state(self: Room, conn: Any) -> dict[str, Any]:
        message = await original_state(self, conn)
        if self.table is not None:
            game = self.table.game
            hands = tuple(tuple(NAMES[c] for c in game.hand(s)) for s in range(len(game.names)))
            truth[json.dumps(message["view"])] = hands
        return message

    async def send_text(self: WebSocket, data: str) -> None:
        sent.append((self.query_params.get("token", ""), data))
        await original_send(self, data)

    monkeypatch.setattr(Room, "state", state)
    monkeypatch.setattr(WebSocket, "send_text", send_text)
    app = create_app(
        f"sqlite:///{tmp_path / 'leaks.sqlite3'}",
        bot_delay=0.0,
        slap_window=0.0,
        web_dir=None,
        flood_limit=100_000,
    )
    with TestClient(app) as c:
        yield {"client": c, "sent": sent, "truth": truth}


def test_no_message_shows_a_hidden_card(recorded: dict[str, Any]) -> None:
    c: TestClient = recorded["client"]
    rng = random.Random(20261129)
    seats: dict[str, tuple[str, int]] = {}  # token -> room, seat
    rounds = 0
    over = 0
    for preset, players, options in GAMES:
        rules = {"preset": preset, "end_mode": "first_over", "score_limit": SCORE_LIMIT, **options}
        code, tokens = play_game(c, rules, players, rng)
        seats.update({token: (code, seat) for seat, token in enumerate(tokens)})
        game = c.app.state.hub.rooms[code].table.game  # type: ignore[attr-defined]
        rounds += game.round_no
        over += bool(game.winners)
    # Games of several rounds (the deals are the server's, random: bounds far below the mean).
    assert rounds > len(GAMES) + 10 and over > len(GAMES) // 3, (rounds, over)

    checked = {"seat": 0, "spectator": 0, "showdown": 0, "known": 0}
    for token, text in recorded["sent"]:
        seat = seats[token][1] if token else None
        message = json.loads(text)
        if message.get("type") != "state" or message["view"] is None:
            assert not CARD.search(text), message  # errors, pongs, the room: no cards at all
            continue
        view = message["view"]
        assert view["seat"] == seat
        hands = recorded["truth"][json.dumps(view)]
        if seat is None:
            checked["spectator"] += 1
            assert view["hand"] == [] and view["drawn"] is None
        else:
            checked["seat"] += 1
            assert sorted(view["hand"]) == sorted(hands[seat])
        told, held = knowledge(view["events"], seat)
        if held is None:
            checked["showdown"] += 1
        else:
            # The state now (the pile, the known cards, this seat's hand and moves...): no card
            # of another's hand but those the events showed it taking from the pile. The
            # finished rounds' results and scores are left out (a card dealt again this round
            # was shown at an earlier showdown).
            now = {
                k: v
                for k, v in view.items()
                if k not in ("events", "result", "score_history", "rules", "names")
            }
            shown = set(CARD.findall(json.dumps(now)))
            for other, hand in enumerate(hands):
                if other != seat:
                    known = held.get(other, set())
                    checked["known"] += bool(known & set(hand))
                    leaked = shown & (set(hand) - known)
                    assert not leaked, (seat, other, sorted(leaked), view)
        # The story of this round names only cards its events show this seat; earlier rounds'
        # lines never name another seat's stock draw.
        lines = this_round(message["story"], view["round"])
        assert set(CARD.findall(" ".join(lines))) <= told, (seat, lines, told)
        for line in message["story"]:
            if seat is None or not line.startswith("You "):
                assert not NAMED_STOCK_DRAW.search(line), (seat, line)
        # The result shown is a finished round's: this round's only after its showdown.
        if view["result"] is not None and held is not None:
            assert view["round"] > 1 and view["phase"] not in ("round_over", "game_over")
    assert checked["seat"] > 3000 and checked["spectator"] > 800, checked
    assert checked["showdown"] > 100 and checked["known"] > 1000, checked
