"""Many server processes on one PostgreSQL database and one Redis (issue 16): people of one
room on different processes see the same game, a move id is applied once whichever process
gets it twice, a process killed mid-game loses no stored move and its rooms go on at another
process within 10 s, Redis restarted mid-game, the store's fencing token, ``--workers``."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("redis")
pytest.importorskip("websockets")

import httpx  # noqa: E402
from cluster_support import (  # noqa: E402
    Player,
    Serve,
    free_port,
    public,
    redis_server,
    serving,
    wait_until,
)
from db_backends import postgres_schema  # noqa: E402

from yaniv.server.storage import LostRoom, Store  # noqa: E402

#: Seconds within which another process must take over a killed one's rooms (issue 16).
TAKEOVER = 10.0


@pytest.fixture
def postgres() -> Iterator[str]:
    with postgres_schema() as url:
        yield url


def friends(a: Serve, b: Serve) -> tuple[str, list[str]]:
    """A room made at ``a``, joined and started through ``b`` (the calls reach the owner)."""
    host = a.post("/api/rooms", {"name": "Host", "rules": {"preset": "standard"}})
    guest = b.post(f"/api/rooms/{host['room']}/join", {"name": "Guest"})
    assert guest["seat"] == 1
    started = b.post(f"/api/rooms/{host['room']}/start", {"token": host["token"]})
    assert started["status"] == "playing"
    return host["room"], [host["token"], guest["token"]]


def moves(players: list[Player], count: int, timeout: float = 30) -> None:
    """``count`` moves, each by the player to act, each answered by a state to everyone."""
    for _ in range(count):
        deadline = time.monotonic() + timeout
        while True:
            for p in players:
                p.catch_up()
                if p.view()["phase"] == "round_over":  # a bot called: on to the next round
                    p.send({"type": "next_round"})
            mover = next((p for p in players if p.my_turn()), None)
            if mover is not None:
                break
            assert time.monotonic() < deadline, "nobody's turn came"
        seen = len(mover.view()["events"])
        mover.play()
        for p in players:  # every player hears of the move
            while len(p.next_state(timeout)["view"]["events"]) <= seen:
                pass


def test_people_on_two_processes_play_one_room(postgres: str, tmp_path: Path) -> None:
    with redis_server() as redis, serving(postgres, redis.url, tmp_path, 2) as (a, b):
        code, tokens = friends(a, b)
        info = httpx.get(f"{b.url}/api/rooms/{code}", timeout=10).json()
        assert info["status"] == "playing"
        assert [s["name"] for s in info["seats"]] == ["Host", "Guest"]
        host, guest = a.ws(code, tokens[0]), b.ws(code, tokens[1])
        try:
            host.next_state()
            guest.next_state()
            moves([host, guest], 8)
            assert len(host.view()["events"]) >= 9
            assert public(host.view()) == public(guest.view())  # one order for both
            # a move id sent twice through the process that does not own the room, and once
            # more through the one that does: applied once
            mover = host if host.my_turn() else guest
            seen = len(mover.view()["events"])
            message = {"type": "move", "move": mover.view()["legal_moves"][0], "id": "once"}
            mover.send(message)
            assert len(mover.next_state()["view"]["events"]) == seen + 1
            mover.send(message)
            assert len(mover.next_state()["view"]["events"]) == seen + 1
            token = tokens[0] if mover is host else tokens[1]
            again = (b if mover is host else a).ws(code, token)
            try:
                again.next_state()
                again.send(message)
                assert len(again.next_state()["view"]["events"]) == seen + 1
                assert not [e for e in again.errors + mover.errors if "id" in e]
            finally:
                again.close()
        finally:
            host.close()
            guest.close()


def test_a_killed_process_loses_no_move_and_its_rooms_go_on(postgres: str, tmp_path: Path) -> None:
    with redis_server() as redis, serving(postgres, redis.url, tmp_path, 3) as (a, b, c):
        far = a.post("/api/games", {"name": "Far", "opponents": ["easy"], "rules": {}})
        near = a.post("/api/games", {"name": "Near", "opponents": ["easy", "easy"], "rules": {}})
        # one person at another process than the room's, one at the room's own
        remote, local = b.ws(far["room"], far["token"]), a.ws(near["room"], near["token"])
        try:
            for p in (remote, local):
                p.next_state()
                moves([p], 4)
            for p in (remote, local):
                p.catch_up(quiet=1.0)  # the bots' moves after the person's: all in
            stored = {p: len(p.view()["events"]) for p in (remote, local)}
            killed = time.monotonic()
            a.kill()
            # the room goes on at another process, and the person on it hears so at once
            state = remote.next_state(timeout=TAKEOVER)
            assert time.monotonic() - killed < TAKEOVER
            assert len(state["view"]["events"]) >= stored[remote], "a stored move was lost"
            moves([remote], 3)
            # the person whose socket was at the killed process comes back at another
            back = c.ws(near["room"], near["token"])
            try:
                state = wait_until(lambda: back.next_state(2), TAKEOVER, "the room comes back")
                assert len(state["view"]["events"]) >= stored[local], "a stored move was lost"
                moves([back], 3)
            finally:
                back.close()
        finally:
            remote.close()
            local.close()


def test_the_game_goes_on_after_redis_restarts(postgres: str, tmp_path: Path) -> None:
    with redis_server() as redis, serving(postgres, redis.url, tmp_path, 2) as (a, b):
        code, tokens = friends(a, b)
        host, guest = a.ws(code, tokens[0]), b.ws(code, tokens[1])
        try:
            host.next_state()
            guest.next_state()
            moves([host, guest], 4)
            redis.stop()
            # meanwhile: what needs Redis is refused in words, what does not goes on
            refused = httpx.get(f"{b.url}/api/rooms/{code}", timeout=10)
            assert refused.status_code == 503 and "Redis" in refused.json()["error"]
            created = httpx.post(f"{a.url}/api/games", json={"name": "N", "opponents": ["easy"]})
            assert created.status_code == 503 and "Redis" in created.json()["error"]
            assert httpx.get(f"{a.url}/api/rooms/{code}", timeout=10).status_code == 200
            time.sleep(1.0)
            redis.start()  # empty: leases, channels and the set of rooms are gone
            # after the processes are back on Redis, the guest's socket is attached again
            wait_until(lambda: guest.next_state(2), 20, "a state after Redis is back")
            moves([host, guest], 4, timeout=20)
            assert public(host.view()) == public(guest.view())
        finally:
            host.close()
            guest.close()


def test_a_write_with_an_old_fencing_token_is_refused(database: str) -> None:
    """The process whose room was taken over (a newer token claimed) cannot write it."""
    store = Store(database)
    try:
        rules: dict[str, object] = {}
        asyncio.run(store.save("FENCE2", rules, [], "waiting", None, epoch=1))
        assert store.claim("FENCE2") == 2
        with pytest.raises(LostRoom):
            asyncio.run(store.save("FENCE2", rules, [], "playing", None, epoch=1))
        stored = store.room("FENCE2")
        assert stored is not None and stored.status == "waiting"  # nothing was written
        asyncio.run(store.save("FENCE2", rules, [], "playing", None, epoch=2))
        stored = store.room("FENCE2")
        assert stored is not None and stored.status == "playing"
    finally:
        store.close()


def test_workers_serve_one_port(postgres: str, tmp_path: Path) -> None:
    with redis_server() as redis:
        port = free_port()
        command = [
            sys.executable, "-m", "yaniv.cli", "serve", "--workers", "2", "--database", postgres,
            "--redis", redis.url, "--port", str(port), "--no-browser", "--bot-delay", "0.05",
        ]  # fmt: skip
        with (tmp_path / "workers.log").open("wb") as out:
            supervisor = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            wait_until(lambda: httpx.get(f"{url}/api/levels", timeout=1).status_code == 200,
                       30, "the workers start")  # fmt: skip
            workers = wait_until(
                lambda: len(children(supervisor.pid)) == 2 and children(supervisor.pid),
                30,
                "two workers",
            )
            game = httpx.post(f"{url}/api/games", json={"name": "W", "opponents": ["easy"]})
            assert game.status_code == 200, game.text
            # whichever worker answers, the room is found and served
            for _ in range(6):
                info = httpx.get(f"{url}/api/rooms/{game.json()['room']}", timeout=10)
                assert info.status_code == 200 and info.json()["status"] == "playing"
        finally:
            supervisor.send_signal(signal.SIGTERM)
            assert supervisor.wait(timeout=30) == 0
        assert not [pid for pid in workers if Path(f"/proc/{pid}").exists()]


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (Linux)."""
    out = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return [int(p) for p in out]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--workers", "2"], "--redis"),
        (["--redis", "redis://127.0.0.1:1/0"], "postgresql"),
    ],
)
def test_many_processes_need_redis_and_a_database_server(
    tmp_path: Path, args: list[str], words: str
) -> None:
    database = f"sqlite:///{tmp_path / 'one.sqlite3'}"
    done = subprocess.run(
        [sys.executable, "-m", "yaniv.cli", "serve", "--no-browser", "--database", database, *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert words in done.stderr and "Traceback" not in done.stderr
