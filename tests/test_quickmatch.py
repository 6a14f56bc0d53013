"""Quick match (yaniv/server/quickmatch.py): the queue in the database, seated through the
Hub's public calls, on SQLite (and PostgreSQL where one is given: there also two stores, as two
processes would be, claiming from one queue at once).

The queue's waits are timed by a clock the tests move (``clock``), never by sleeping: a slow
machine would otherwise see a wait run out between two requests."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

from fastapi.testclient import TestClient  # noqa: E402

from yaniv.server import history, quickmatch  # noqa: E402
from yaniv.server.app import create_app  # noqa: E402
from yaniv.server.quickmatch import QuickSettings  # noqa: E402
from yaniv.server.storage import Store  # noqa: E402


def client(url: str, **timing: float) -> TestClient:
    c = TestClient(create_app(url, bot_delay=0.0, slap_window=0.0, web_dir=None))
    settings = quickmatch.settings_from(",".join(f"{k}={v}" for k, v in timing.items()))
    c.app.state.quick = settings  # type: ignore[attr-defined]
    return c


class Clock:
    """The queue's time (``quickmatch._now``), standing still until a test moves it."""

    def __init__(self) -> None:
        self.at = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.at

    def advance(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    stopped = Clock()
    monkeypatch.setattr(quickmatch, "_now", stopped)
    return stopped


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'yaniv.sqlite3'}"


@pytest.fixture
def app(sqlite_url: str, clock: Clock) -> Iterator[TestClient]:
    with client(sqlite_url, pair_wait=0.4, alone_wait=0.6, grace=30) as c:
        yield c


def new_key() -> str:
    return secrets.token_urlsafe(32)


def wait_for(app: TestClient, name: str, key: str, **where: Any) -> dict[str, Any]:
    where = where or {"preset": "standard"}
    r = app.post("/api/quickmatch", json={"name": name, "player_key": key, **where})
    assert r.status_code == 200, r.text
    return dict(r.json())


def poll(app: TestClient, ticket: str) -> dict[str, Any]:
    r = app.get(f"/api/quickmatch/{ticket}")
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_bad_requests_are_refused_in_words(app: TestClient) -> None:
    key = new_key()
    r = app.post("/api/quickmatch", json={"name": "Ann", "preset": "standard"})
    assert r.status_code == 400 and "player_key" in r.json()["error"]
    r = app.post("/api/quickmatch", json={"name": "Ann", "player_key": "short", "preset": "quick"})
    assert r.status_code == 400 and "player key is 32 to 100" in r.json()["error"]
    r = app.post("/api/quickmatch", json={"name": "A" * 41, "player_key": key, "preset": "quick"})
    assert r.status_code == 400 and "1 to 40 characters" in r.json()["error"]
    r = app.post("/api/quickmatch", json={"name": "Ann", "player_key": key, "preset": "draw_first"})
    assert r.status_code == 400 and "'draw_first' is not offered" in r.json()["error"]
    r = app.post("/api/quickmatch", json={"name": "Ann", "player_key": key})
    assert r.status_code == 400 and "name a preset" in r.json()["error"]
    both = {"name": "Ann", "player_key": key, "preset": "quick", "rules": {"preset": "quick"}}
    assert app.post("/api/quickmatch", json=both).status_code == 400
    r = app.post("/api/quickmatch", json={"name": "Ann", "player_key": key, "rules": {"jokers": 9}})
    assert r.status_code == 400 and "jokers" in r.json()["error"]
    r = app.get("/api/quickmatch/not*a*ticket")
    assert r.status_code == 400 and "a ticket is" in r.json()["error"]
    r = app.get(f"/api/quickmatch/{'x' * 32}")
    assert r.status_code == 404 and "no such quick-match ticket" in r.json()["error"]
    r = app.delete(f"/api/quickmatch/{'x' * 32}")
    assert r.status_code == 404
    ticket = wait_for(app, "Ann", key)["ticket"]
    r = app.post(f"/api/quickmatch/{ticket}/bots", json={"level": "grandmaster"})
    assert r.status_code == 400 and "not a bot level" in r.json()["error"]
    r = app.post(f"/api/quickmatch/{ticket}/bots", json={})
    assert r.status_code == 409 and "after 0.6 s alone" in r.json()["error"]


def test_two_people_are_seated_together_after_the_pair_wait(app: TestClient, clock: Clock) -> None:
    ann, ben = new_key(), new_key()
    first = wait_for(app, "Ann", ann)
    assert first["status"] == "waiting" and first["waiting"] == 1 and not first["offer_bots"]
    clock.advance(0.1)  # Ann came first: she has the first seat
    second = wait_for(app, "Ben", ben)
    assert second["status"] == "waiting" and second["waiting"] == 2  # not yet: the pair waits
    clock.advance(0.3)
    assert poll(app, first["ticket"])["status"] == "waiting"  # Ben has waited 0.3 s of 0.4
    clock.advance(0.1)
    a = poll(app, first["ticket"])
    b = poll(app, second["ticket"])
    assert a["status"] == b["status"] == "seated"
    assert a["room"] == b["room"] and {a["seat"], b["seat"]} == {0, 1} and a["bots"] == 0
    room = app.get(f"/api/rooms/{a['room']}").json()
    assert room["status"] == "playing"
    assert [(s["name"], s["kind"]) for s in room["seats"]] == [("Ann", "human"), ("Ben", "human")]
    # the seats are the people's: their tokens work, and their keys find the game
    with app.websocket_connect(f"/ws/{a['room']}?token={b['token']}") as ws:
        state = ws.receive_json()
        while state["type"] != "state":
            state = ws.receive_json()
        assert state["view"]["seat"] == b["seat"]
    listed = app.get("/api/history", headers={"X-Player-Key": ben}).json()
    assert [g["room"] for g in listed["games"]] == [a["room"]]
    # seated: the ticket no longer holds a queue, so a new wait may start
    assert wait_for(app, "Ann", ann)["ticket"] != first["ticket"]


def test_four_are_seated_at_once(sqlite_url: str) -> None:
    with client(sqlite_url, pair_wait=600, alone_wait=600) as app:
        tickets = [wait_for(app, f"P{i}", new_key(), preset="quick") for i in range(4)]
        assert [t["status"] for t in tickets[:3]] == ["waiting"] * 3
        assert tickets[3]["status"] == "seated"  # the fourth makes the table
        seated = [poll(app, t["ticket"]) for t in tickets]
        assert {s["room"] for s in seated} == {tickets[3]["room"]}
        assert sorted(s["seat"] for s in seated) == [0, 1, 2, 3]
        room = app.get(f"/api/rooms/{tickets[3]['room']}").json()
        assert room["rules"]["yaniv_threshold"] == 5 and room["rules"]["score_limit"] == 100
        # a fifth waits alone in the quick queue; the standard queue is another
        fifth = wait_for(app, "P4", new_key(), preset="quick")
        other = wait_for(app, "P5", new_key(), preset="standard")
        assert fifth["waiting"] == 1 and other["waiting"] == 1


def test_one_queue_at_a_time_and_leaving(app: TestClient) -> None:
    key = new_key()
    first = wait_for(app, "Ann", key)
    again = wait_for(app, "Ann", key, rules={"preset": "standard"})  # the same rules: the same
    assert again["ticket"] == first["ticket"] and again["queue"] == "standard"
    r = app.post("/api/quickmatch", json={"name": "Ann", "player_key": key, "preset": "hebrew"})
    assert r.status_code == 409 and "already waiting for a table (standard)" in r.json()["error"]
    left = app.delete(f"/api/quickmatch/{first['ticket']}").json()
    assert left["status"] == "left" and poll(app, first["ticket"])["status"] == "left"
    custom = wait_for(app, "Ann", key, rules={"preset": "hebrew", "yaniv_threshold": 3})
    assert custom["queue"].startswith("rules:")
    assert (
        wait_for(app, "Ben", new_key(), rules={"preset": "hebrew", "yaniv_threshold": 3})["waiting"]
        == 2
    )


def test_alone_one_is_offered_computer_players(app: TestClient, clock: Clock) -> None:
    ticket = wait_for(app, "Ann", new_key())["ticket"]
    clock.advance(0.5)
    assert poll(app, ticket)["offer_bots"] is False
    r = app.post(f"/api/quickmatch/{ticket}/bots", json={})
    assert r.status_code == 409 and "after 0.6 s alone" in r.json()["error"]
    clock.advance(0.1)
    assert poll(app, ticket)["offer_bots"] is True
    seated = app.post(f"/api/quickmatch/{ticket}/bots", json={"level": "easy"}).json()
    assert seated["status"] == "seated" and seated["bots"] == 3 and seated["seat"] == 0
    room = app.get(f"/api/rooms/{seated['room']}").json()
    assert [s["kind"] for s in room["seats"]] == ["human", "bot", "bot", "bot"]
    assert {s["level"] for s in room["seats"][1:]} == {"easy"}
    r = app.post(f"/api/quickmatch/{ticket}/bots", json={})
    assert r.status_code == 409 and "not waiting" in r.json()["error"]


def test_not_alone_means_no_computer_players(app: TestClient, clock: Clock) -> None:
    first = wait_for(app, "Ann", new_key())["ticket"]
    clock.advance(0.7)
    app.post("/api/quickmatch", json={"name": "Ben", "player_key": new_key(), "preset": "quick"})
    wait_for(app, "Cy", new_key(), preset="hebrew")
    assert poll(app, first)["offer_bots"] is True  # the others wait in other queues
    wait_for(app, "Dan", new_key())
    assert poll(app, first)["offer_bots"] is False
    r = app.post(f"/api/quickmatch/{first}/bots", json={})
    assert r.status_code == 409 and "someone else is waiting" in r.json()["error"]


def test_a_ticket_not_polled_leaves_the_queue(sqlite_url: str, clock: Clock) -> None:
    with client(sqlite_url, pair_wait=0.0, grace=0.5) as app:
        gone = wait_for(app, "Ann", new_key())
        clock.advance(0.7)
        other = wait_for(app, "Ben", new_key())
        assert other["status"] == "waiting" and other["waiting"] == 1  # Ann is not counted
        assert poll(app, gone["ticket"])["status"] == "left"
        assert poll(app, other["ticket"])["status"] == "waiting"


def test_two_processes_claim_each_person_once(database: str) -> None:
    """Two stores on one database (PostgreSQL: as two server processes; SQLite holds one),
    claiming from a queue of people at the same moment: nobody is seated twice."""
    quick = QuickSettings(pair_wait=0.0)
    stores = [Store(database)]
    if not database.startswith("sqlite"):
        stores.append(Store(database))
    try:
        now = quickmatch._now()
        tickets = []
        for i in range(12):
            hashed = history.key_hash(new_key())
            when = now + timedelta(milliseconds=i)
            tickets.append(
                quickmatch.enqueue(stores[0], hashed, f"P{i}", "standard", {}, when, quick)
            )
        claimed: list[list[str]] = []
        lock = threading.Lock()
        start = threading.Barrier(4)

        def worker(store: Store) -> None:
            start.wait()
            for _ in range(6):
                group = quickmatch.claim(store, "standard", now + timedelta(seconds=1), quick)
                with lock:
                    if group:
                        claimed.append([w.id for w in group])

        threads = [
            threading.Thread(target=worker, args=(stores[i % len(stores)],)) for i in range(4)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        everyone = [t for group in claimed for t in group]
        assert sorted(everyone) == sorted(tickets)  # each claimed exactly once
        assert [len(g) for g in claimed] == [4, 4, 4]
    finally:
        for store in stores:
            store.close()


def test_the_timing_from_the_environment_is_checked() -> None:
    quick = quickmatch.settings_from("pair_wait=1.5, alone_wait=3")
    assert (quick.pair_wait, quick.alone_wait, quick.grace) == (1.5, 3.0, QuickSettings().grace)
    with pytest.raises(ValueError, match="'wait' is not one of pair_wait"):
        quickmatch.settings_from("wait=3")
    with pytest.raises(ValueError, match="'grace=soon' is not NAME=SECONDS"):
        quickmatch.settings_from("grace=soon")


def test_a_claim_never_finished_goes_back_and_is_seated(sqlite_url: str, clock: Clock) -> None:
    """A process that claimed two people and died before seating them: after ``stuck``
    seconds the next poll takes them back and seats them."""
    with client(sqlite_url, pair_wait=0.0, stuck=0.4) as app:
        store = app.app.state.hub.store  # type: ignore[attr-defined]
        quick = app.app.state.quick  # type: ignore[attr-defined]
        now = quickmatch._now()
        rules = quickmatch.queue_of("standard", None)[1]
        tickets = [
            quickmatch.enqueue(store, history.key_hash(new_key()), n, "standard", rules, now, quick)
            for n in ("Ann", "Ben")
        ]
        claimed = quickmatch.claim(store, "standard", now, quick)
        assert sorted(w.id for w in claimed) == sorted(tickets)  # and then the claimer died
        clock.advance(0.3)
        assert poll(app, tickets[0])["status"] == "seating"
        clock.advance(0.2)
        seated = [poll(app, t) for t in tickets]
        assert [s["status"] for s in seated] == ["seated", "seated"]
        assert seated[0]["room"] == seated[1]["room"]
