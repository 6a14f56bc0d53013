"""Abuse of the web server from one address, as issue 16 measured it: how far the limits let
a hostile script go.

Starts ``yaniv serve`` (its default limits, or ``--limit NAME=VALUE`` passed on) on a free
port of 127.0.0.1 with a temporary SQLite file, then, one after the other: ``--lookups`` room
lookups of random codes, ``--joins`` joins of random codes, ``--connects`` websocket connects,
``--half-open`` connections whose request headers are never finished (how many the server
closed within ``--hold`` seconds), and one 30 MB body. Prints the figures as JSON on its last
line.

    python benchmarks/abuse.py
    python benchmarks/abuse.py --limit lookups=0 --limit joins=0  # no rate limit: the before
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def code(rng: random.Random) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(6))


async def requests(
    http: httpx.AsyncClient, n: int, make: Any, rng: random.Random
) -> dict[str, Any]:
    """``n`` requests one after the other: how many were answered with each status, and how
    many a second got through (not 429)."""
    statuses: dict[int, int] = {}
    start = time.perf_counter()
    for _ in range(n):
        r = await make(http, code(rng))
        statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
    took = time.perf_counter() - start
    through = n - statuses.get(429, 0)
    return {"statuses": statuses, "seconds": round(took, 2), "through": through}


async def connects(base: str, n: int, room: str) -> dict[str, Any]:
    """``n`` websocket connects to a room: how many were served, how many refused (4429)."""
    served = refused = 0
    start = time.perf_counter()
    for _ in range(n):
        async with websockets.connect(f"{base}/ws/{room}") as ws:
            message = json.loads(await ws.recv())
            if message["type"] == "error":
                refused += 1
            else:
                served += 1
    return {"served": served, "refused": refused, "seconds": round(time.perf_counter() - start, 2)}


async def half_open(port: int, n: int, hold: float) -> dict[str, Any]:
    """``n`` connections that send half a request: how many the server closed within
    ``hold`` seconds, and when (seconds from the start)."""
    streams = []
    for _ in range(n):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /api/levels HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        streams.append((reader, writer))
    start = time.perf_counter()

    async def closed(reader: asyncio.StreamReader) -> float | None:
        try:
            await asyncio.wait_for(reader.read(), hold)
            return time.perf_counter() - start
        except (TimeoutError, ConnectionError):
            return None

    times = await asyncio.gather(*(closed(r) for r, _ in streams))
    for _, writer in streams:
        writer.close()
    done = sorted(t for t in times if t is not None)
    return {
        "opened": n,
        "closed_by_server": len(done),
        "last_closed_s": round(done[-1], 2) if done else None,
    }


async def big_body(http: httpx.AsyncClient, size: int) -> dict[str, Any]:
    start = time.perf_counter()
    body = b'{"name": "x", "rules": {}, "pad": "' + b"x" * size + b'"}'
    try:
        r = await http.post(
            "/api/rooms", content=body, headers={"content-type": "application/json"}
        )
        status: int | str = r.status_code
    except httpx.HTTPError as exc:  # the server closed the connection mid-body
        status = type(exc).__name__
    return {"bytes": len(body), "status": status, "seconds": round(time.perf_counter() - start, 2)}


async def attack(port: int, args: argparse.Namespace) -> dict[str, Any]:
    base = f"http://127.0.0.1:{port}"
    rng = random.Random(16)
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        room = (await http.post("/api/rooms", json={"name": "Host", "rules": {}})).json()["room"]
        out: dict[str, Any] = {
            "lookups": await requests(
                http, args.lookups, lambda h, c: h.get(f"/api/rooms/{c}"), rng
            ),
            "joins": await requests(
                http,
                args.joins,
                lambda h, c: h.post(f"/api/rooms/{c}/join", json={"name": "G"}),
                rng,
            ),
        }
        out["connects"] = await connects(base.replace("http", "ws", 1), args.connects, room)
        out["half_open"] = await half_open(port, args.half_open, args.hold)
        out["body_30mb"] = await big_body(http, 30 * 1024 * 1024)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lookups", type=int, default=2000)
    parser.add_argument("--joins", type=int, default=2000)
    parser.add_argument("--connects", type=int, default=300)
    parser.add_argument("--half-open", type=int, default=300)
    parser.add_argument("--hold", type=float, default=30.0, help="seconds to wait for closes")
    parser.add_argument("--limit", action="append", default=[], help="passed to yaniv serve")
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        command = [
            sys.executable,
            "-m",
            "yaniv.cli",
            "serve",
            "--no-browser",
            "--port",
            str(port),
            "--database",
            f"sqlite:///{Path(folder) / 'abuse.sqlite3'}",
        ]
        for limit in args.limit:
            command += ["--limit", limit]
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    httpx.get(f"http://127.0.0.1:{port}/api/levels", timeout=2)
                    break
                except httpx.HTTPError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        why = server.stderr.read() if server.stderr else b""
                        raise SystemExit(f"the server did not start: {why!r}") from None
                    time.sleep(0.1)
            figures = asyncio.run(attack(port, args))
        finally:
            server.terminate()
            server.wait(30)
    figures["limits"] = args.limit or "defaults"
    figures["load_average"] = os.getloadavg()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
