"""Real processes for the many-process tests: a Redis server of the test's own (so that it can
be restarted), ``yaniv serve`` processes on PostgreSQL and that Redis, and websocket clients
that play."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from yaniv.server.deltas import apply_delta


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(check: Any, timeout: float, what: str) -> Any:
    """Poll ``check()`` until it is truthy; its value (fails after ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while True:
        with contextlib.suppress(Exception):
            value = check()
            if value:
                return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(0.05)


class Redis:
    """A redis-server on a free loopback port, without persistence (a restart loses all)."""

    def __init__(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            why = "redis-server is not installed (apt-get install redis-server)"
            if os.environ.get("CI"):
                pytest.fail(f"{why}: CI installs it (.ci/run)")
            pytest.skip(why)
        self.binary = binary
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        import redis

        wait_until(lambda: redis.Redis(port=self.port).ping(), 10, "redis-server starts")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


@contextlib.contextmanager
def redis_server() -> Iterator[Redis]:
    server = Redis()
    server.start()
    try:
        yield server
    finally:
        server.stop()


class Serve:
    """One ``yaniv serve`` process on a database and a Redis."""

    def __init__(self, database: str, redis: str, log: Path, *extra: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.command = [
            sys.executable, "-m", "yaniv.cli", "serve", "--database", database, "--redis", redis,
            "--port", str(self.port), "--no-browser", "--bot-delay", "0.05",
            "--slap-window", "0", "--round-wait", "600", "--limit", "connects=0",
            "--limit", "joins=0", "--limit", "lookups=0", "--limit", "creates=0", *extra,
        ]  # fmt: skip
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Serve:
        out = self.log.open("ab")
        self.process = subprocess.Popen(self.command, stdout=out, stderr=subprocess.STDOUT)
        wait_until(lambda: httpx.get(f"{self.url}/api/levels", timeout=1).status_code == 200,
                   30, f"the server on port {self.port} starts")  # fmt: skip
        return self

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        r = httpx.post(f"{self.url}{path}", json=body, timeout=15)
        assert r.status_code == 200, (path, r.status_code, r.text)
        data: dict[str, Any] = r.json()
        return data

    def ws(self, code: str, token: str | None = None, deltas: bool = False) -> Player:
        """A socket of room ``code`` (``deltas``: asking for deltas, as the web app does)."""
        query = "&".join(([f"token={token}"] if token else []) + (["deltas=1"] if deltas else []))
        url = f"ws://127.0.0.1:{self.port}/ws/{code}" + (f"?{query}" if query else "")
        connection = connect(url, open_timeout=10)
        return Player(connection.__enter__())  # closed by Player.close


@contextlib.contextmanager
def serving(database: str, redis: str, tmp: Path, count: int) -> Iterator[list[Serve]]:
    servers = [Serve(database, redis, tmp / f"serve-{i}.log") for i in range(count)]
    try:
        for s in servers:
            s.start()
        yield servers
    finally:
        for s in servers:
            s.stop()


class Player:
    """A websocket client of one seat (or a spectator)."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.state: dict[str, Any] | None = None
        self.errors: list[dict[str, Any]] = []
        self.deltas = 0  # deltas applied

    def _take(self, message: dict[str, Any]) -> bool:
        """Keep a state (a delta applied to the last of its stream, as the web app does: one
        of another stream is stale, one out of order asks for the whole); whether it was one."""
        if message["type"] == "delta":
            last = self.state
            if last is None or message["stream"] != last.get("stream"):
                return False
            if message["base"] != last["seq"]:
                self.send({"type": "resync"})
                return False
            self.state = apply_delta(last, message)
            self.deltas += 1
            return True
        if message["type"] == "state":
            self.state = message
            return True
        if message["type"] == "error":
            self.errors.append(message)
        return False

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ws.close()

    def send(self, message: dict[str, Any]) -> None:
        self.ws.send(json.dumps(message))

    def next_state(self, timeout: float = 15) -> dict[str, Any]:
        """The next state message (errors are kept)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no state within {timeout} s (errors: {self.errors[-3:]})")
            try:
                message = json.loads(self.ws.recv(timeout=left))
            except TimeoutError:
                continue
            if self._take(message):
                assert self.state is not None
                return dict(self.state)

    def catch_up(self, quiet: float = 0.3) -> None:
        """Read the states sent so far (until none comes for ``quiet`` seconds)."""
        while True:
            try:
                message = json.loads(self.ws.recv(timeout=quiet))
            except TimeoutError:
                return
            self._take(message)

    def view(self) -> dict[str, Any]:
        assert self.state is not None and self.state["view"] is not None
        view: dict[str, Any] = self.state["view"]
        return view

    def my_turn(self) -> bool:
        return bool(self.state and self.state["view"] and self.state["view"]["legal_moves"])

    def play(self, move_id: str | None = None) -> str:
        """Send a legal move (the first listed, Yaniv last: the round goes on); its id."""
        moves = [m for m in self.view()["legal_moves"] if m != "yaniv"] or ["yaniv"]
        move_id = move_id or uuid.uuid4().hex
        self.send({"type": "move", "move": moves[0], "id": move_id})
        return move_id


def public(view: dict[str, Any]) -> list[tuple[Any, ...]]:
    """What every seat sees alike of a round's events: their kinds, seats and sources."""
    return [
        (e.get("type"), e.get("seat"), e.get("source"), e.get("cards"))
        for e in view["events"]
        if e.get("type") != "passed"
    ]
