"""Many server processes on one PostgreSQL database and one Redis (issue 16): people of one
room on different processes see the same game, a move id is applied once whichever process
gets it twice, a process killed mid-game loses no stored move and its rooms go on at another
process within 10 s, Redis restarted mid-game, the store's fencing token, ``--workers``."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
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

from yaniv.server import rooms  # noqa: E402
from yaniv.server.cluster import LEASE_MS, Cluster, alive_key  # noqa: E402
from yaniv.server.rooms import Hub, Link  # noqa: E402
from yaniv.server.storage import LostRoom, Store, token_hash  # noqa: E402

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


def past(player: Player, seen: int, timeout: float = 15) -> dict[str, object]:
    """The first state with more than ``seen`` events (one sent before the move, late on a
    loaded machine, is read past)."""
    while True:
        state = player.next_state(timeout)
        if len(state["view"]["events"]) > seen:
            return state


def test_people_on_two_processes_play_one_room(postgres: str, tmp_path: Path) -> None:
    with redis_server() as redis, serving(postgres, redis.url, tmp_path, 2) as (a, b):
        code, tokens = friends(a, b)
        info = httpx.get(f"{b.url}/api/rooms/{code}", timeout=10).json()
        assert info["status"] == "playing"
        assert [s["name"] for s in info["seats"]] == ["Host", "Guest"]
        # the guest's socket, relayed to the room's owner, asks for deltas as the web app does
        host, guest = a.ws(code, tokens[0]), b.ws(code, tokens[1], deltas=True)
        try:
            host.next_state()
            guest.next_state()
            moves([host, guest], 8)
            assert len(host.view()["events"]) >= 9
            assert public(host.view()) == public(guest.view())  # one order for both
            assert guest.deltas >= 8 and guest.view()["seat"] == 1
            # a move id sent twice through the process that does not own the room, and once
            # more through the one that does: applied once
            mover = host if host.my_turn() else guest
            seen = len(mover.view()["events"])
            message = {"type": "move", "move": mover.view()["legal_moves"][0], "id": "once"}
            mover.send(message)
            assert len(past(mover, seen)["view"]["events"]) == seen + 1
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
        # (the relayed one with deltas: the new owner starts it a new stream)
        remote = b.ws(far["room"], far["token"], deltas=True)
        local = a.ws(near["room"], near["token"])
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
            assert state["stream"] and state["seq"] == 1  # whole, from the new owner
            moves([remote], 3)
            assert remote.deltas >= 3
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
        host, guest = a.ws(code, tokens[0]), b.ws(code, tokens[1], deltas=True)
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


def test_a_room_in_the_set_of_rooms_in_play_but_not_in_the_store_is_dropped(
    postgres: str, tmp_path: Path
) -> None:
    """A code that Redis says is in play, with no lease and no stored room (another
    deployment's, a deleted row), leaves the set at the next sweep instead of being looked
    for in the store every second; a real room in play stays."""
    import redis as redis_lib

    from yaniv.server.cluster import LIVE_ROOMS

    with redis_server() as redis, serving(postgres, redis.url, tmp_path, 1) as (a,):
        game = a.post("/api/games", {"name": "Me", "opponents": ["easy"]})
        client = redis_lib.Redis.from_url(redis.url, decode_responses=True)
        try:
            client.sadd(LIVE_ROOMS, "QQQQQQ", "ZZZZZZ")
            wait_until(
                lambda: not any(client.smismember(LIVE_ROOMS, ["QQQQQQ", "ZZZZZZ"])),
                10,
                "the unknown codes dropped",
            )
            assert client.sismember(LIVE_ROOMS, game["room"])
        finally:
            client.close()


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


def test_processes_that_start_at_once_migrate_one_at_a_time(postgres: str) -> None:
    """Four processes opening a new database together: each would create Alembic's version
    table, and all but one fail with a duplicate key; the migration lock orders them."""
    import threading

    from sqlalchemy import Engine, text

    from yaniv.server.storage import make_engine, migrate

    engines = [make_engine(postgres) for _ in range(4)]
    start = threading.Barrier(len(engines))
    failures: list[BaseException] = []

    def open_(engine: Engine) -> None:
        start.wait()
        try:
            migrate(engine)
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=open_, args=(e,), daemon=True) for e in engines]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert not failures, failures[0]
        with engines[0].connect() as c:
            assert c.execute(text("SELECT count(*) FROM alembic_version")).scalar() == 1
    finally:
        for e in engines:
            e.dispose()


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


class Socket:
    """A websocket as a hub sees it (Link.ws), keeping what it was sent."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    async def send_text(self, data: str) -> None:
        self.texts.append(data)

    async def send_json(self, data: object) -> None:
        self.texts.append(json.dumps(data))

    async def close(self, code: int = 1000) -> None:
        self.texts.append(f"closed {code}")


class Bus:
    """The processes' channels, in memory: what a hub sends another waits until the test
    delivers it, so that a race's order is the test's and no clock's."""

    def __init__(self, *hubs: Hub) -> None:
        self.hubs = {hub.cluster.node: hub for hub in hubs if hub.cluster is not None}
        self.queue: list[tuple[str, dict[str, object]]] = []
        for hub in hubs:
            assert hub.cluster is not None
            hub.cluster.send = self.send

    async def send(self, node: str, message: dict[str, object]) -> bool:
        self.queue.append((node, json.loads(json.dumps(message))))
        return node in self.hubs

    async def deliver(self) -> None:
        """Deliver what was sent, and what that sends, until nothing more is."""
        for _ in range(200):
            while self.queue:
                node, message = self.queue.pop(0)
                await self.hubs[node]._message(message)
            await asyncio.sleep(0.01)  # the inboxes' and sockets' tasks run
            busy = [i.task for h in self.hubs.values() for i in h.remote.values() if i.task]
            if not self.queue and all(t.done() for t in busy):
                return
        raise AssertionError("the processes kept sending")


def states(socket: Socket) -> list[dict[str, object]]:
    kept = [json.loads(t) for t in socket.texts if t.startswith("{")]
    return [m for m in kept if m["type"] == "state"]


@contextlib.asynccontextmanager
async def two_processes(database: str, url: str) -> AsyncIterator[tuple[Hub, Hub, Bus, Link]]:
    """Processes A and B on one Redis (no loops of theirs run: the test renews the heartbeats
    and sweeps), a room of two people owned by A, the host's socket at A and the guest's at B
    (the Link given), attached."""
    a = Hub(Store(database), cluster=Cluster(url, "A"), slap_window=0)
    b = Hub(Store(database), cluster=Cluster(url, "B"), slap_window=0)
    bus = Bus(a, b)
    try:
        for node in ("A", "B"):
            await beat(a, node)
        host = await a.new_room("Host", {"preset": "standard"})
        code = host["room"]
        guest = await a.join(code, "Guest")
        await a.start(code, host["token"])
        here = Link(Socket(), code, token_hash(host["token"]), "127.0.0.1")
        there = Link(Socket(), code, token_hash(guest["token"]), "127.0.0.1")
        a.links.setdefault(code, {})[here.id] = here
        b.links.setdefault(code, {})[there.id] = there
        await a._settle(here)
        await b._settle(there)
        await bus.deliver()
        assert there.owner == "A" and states(there.ws)
        yield a, b, bus, there
    finally:
        for hub in (a, b):
            await hub.close()


async def beat(hub: Hub, node: str) -> None:
    """Process ``node``'s heartbeat, as its renewal sets it."""
    assert hub.cluster is not None
    await hub.cluster.redis.set(alive_key(node), "1", px=LEASE_MS)


async def restart_redis(a: Hub) -> None:
    """Redis restarts, empty; the owner's renewal takes its lease again."""
    assert a.cluster is not None
    await a.cluster.redis.flushall()
    for code in a.rooms:
        await a.cluster.acquire(code)


async def a_turn(a: Hub, bus: Bus) -> None:
    """The player to move plays a whole turn, at the owner (a message of the guest's own
    through its process would have its socket attached again: not what is tested)."""
    (room,) = a.rooms.values()
    table = room.table
    assert table is not None
    seat = next(s for s in (0, 1) if table.view(s).legal_moves)
    while table.view(seat).legal_moves:
        move = next(m for m in table.view(seat).legal_moves if str(m) != "yaniv")
        async with room.lock:
            await room._apply(seat, move)
        await room.broadcast()
    await bus.deliver()


def test_a_relayed_socket_attached_again_before_its_process_heartbeat_stays(
    postgres: str,
) -> None:
    """Redis restarts (every heartbeat lost); the guest's process attaches its socket again at
    the room's owner before its heartbeat is renewed, and the owner's sweep comes in between.
    The sweep took the socket for one of a dead process and let it go, and nothing attached it
    again: the guest heard of no move after. It stays attached (or is attached again)."""

    async def race() -> None:
        async with two_processes(postgres, redis.url) as (a, b, bus, there):
            await restart_redis(a)
            await b._reconnected()  # B hears Redis is back: it attaches its socket again
            await bus.deliver()
            await a._sweep()  # the owner's sweep, before B's heartbeat is renewed
            await bus.deliver()
            await beat(b, "B")
            await b._sweep()
            await a._sweep()
            await bus.deliver()
            seen = len(states(there.ws))
            await a_turn(a, bus)
            assert ("B", there.id) in a.remote
            assert len(states(there.ws)) > seen, "the guest heard of no move"

    with redis_server() as redis:
        asyncio.run(race())


def test_a_relayed_socket_whose_attach_is_not_answered_asks_again(
    postgres: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pub/sub delivers at most once: the owner's answer to a socket's attach, published as
    Redis comes back, may be lost. The guest's process asks again at its next sweep (once an
    answer is overdue; here at once) until one comes: the guest gets the state."""
    monkeypatch.setattr(rooms, "UNANSWERED_S", 0.0, raising=False)

    async def lost() -> None:
        async with two_processes(postgres, redis.url) as (a, b, bus, there):
            await restart_redis(a)
            await b._reconnected()
            await bus.deliver()
            seen = len(states(there.ws))
            await b._reconnected()
            bus.queue.clear()  # the attach is lost
            await b._sweep()
            await bus.deliver()
            assert len(states(there.ws)) == seen + 1, "no state after Redis is back"
            await b._sweep()  # answered: not asked again
            await bus.deliver()
            assert len(states(there.ws)) == seen + 1

    with redis_server() as redis:
        asyncio.run(lost())
