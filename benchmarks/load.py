"""Load on the web server: N concurrent games over websockets on loopback.

Starts ``uvicorn`` with the app in a subprocess on 127.0.0.1 (a free port, a temporary SQLite
file or ``--database``, the interpreter tuned as ``yaniv serve`` tunes it), creates N games
against bots over HTTP, and plays each person's seat from a websocket client (the first legal
move, Yaniv when it may be called). A move's latency is the time from sending it to receiving
the state that shows it played. Bounded by ``--rounds`` per game and
``--time-limit`` in all. Prints the figures as JSON on its last line, with the machine's load
average before and after (the clients share the machine with the server, and maybe others).

    python benchmarks/load.py --rooms 50 --rounds 1 --bot-delay 0.2

The target on a 2-core machine: ``--rooms 500`` with a p99 under 100 ms and no errors.

``--workers N --redis URL --database postgresql://...`` starts N server processes sharing the
database and Redis (docs/scaling.md); game i is created at process i mod N, and its socket
is connected there too, or with ``--cross`` at the next process (every socket relayed to its
room's owner over Redis: the costly case).

With ``YANIV_LOAD_PROFILE=FILE`` in the environment the server runs under cProfile and
writes its statistics to FILE when it stops (read them with ``python -m pstats FILE``);
``YANIV_LOAD_PROFILER=yappi`` profiles every thread's CPU time with yappi instead. Where
memory goes: ``YANIV_LOAD_MEMLOG=FILE`` appends a JSON line each minute (RSS, pymalloc's
arenas, blocks, objects the collector tracks, its counts); ``YANIV_LOAD_TRACEMALLOC=PATH``
writes a tracemalloc snapshot each minute to PATH-1, PATH-2, ... (compare two with
``tracemalloc.Snapshot.load(a).compare_to(...)``; it slows the server several times).
What holds the event loop: ``YANIV_LOAD_PAUSES=FILE`` appends a JSON line for each garbage
collection of 5 ms or more and each trim of the C heap (its kind, wall and CPU milliseconds,
when).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from yaniv.server.deltas import apply_delta  # noqa: E402

SERVER = """
import os, signal, sys, uvicorn
from yaniv.server.app import create_app
url, port, delay, redis = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
profile = os.environ.get("YANIV_LOAD_PROFILE")
if profile:
    if os.environ.get("YANIV_LOAD_PROFILER") == "yappi":  # every thread, CPU time
        import yappi
        yappi.set_clock_type("cpu")
        def _stop(*_):  # uvicorn raises SIGTERM again once it has shut down
            yappi.stop()
            yappi.get_func_stats().save(profile, type="pstat")
            sys.exit(0)
        yappi.start(builtins=True)
    else:
        import cProfile
        profiler = cProfile.Profile()
        def _stop(*_):
            profiler.disable()
            profiler.dump_stats(profile)
            sys.exit(0)
        profiler.enable()
    signal.signal(signal.SIGTERM, _stop)
snapshots = os.environ.get("YANIV_LOAD_TRACEMALLOC")
if snapshots:  # where memory goes: a tracemalloc snapshot each minute, to PATH-1, PATH-2, ...
    import threading, time, tracemalloc
    tracemalloc.start(16)
    def _snap():
        for n in range(1, 10_000):
            time.sleep(60)
            tracemalloc.take_snapshot().dump(f"{snapshots}-{n}")
    threading.Thread(target=_snap, daemon=True).start()
pauses = os.environ.get("YANIV_LOAD_PAUSES")
if pauses:  # each garbage collection of 5 ms or more and each heap trim, a JSON line to PATH
    import gc, json, time
    from yaniv.server import runtime
    _began = {}
    def _log_pause(kind, began, cpu_began, **more):  # wall and this thread's CPU time
        ms = (time.perf_counter() - began) * 1000
        if ms >= 5 or kind == "trim":
            cpu_ms = round((time.thread_time() - cpu_began) * 1000, 1)
            with open(pauses, "a") as out:
                print(json.dumps({"pid": os.getpid(), "kind": kind, "ms": round(ms, 1),
                    "cpu_ms": cpu_ms, "at": round(time.time(), 2), **more}), file=out)
    def _on_gc(phase, info):
        if phase == "start":
            _began["gc"] = (time.perf_counter(), time.thread_time())
        elif "gc" in _began:
            _log_pause("gc", *_began.pop("gc"), generation=info["generation"],
                       collected=info["collected"])
    gc.callbacks.append(_on_gc)
    _trim = runtime.trim_heap
    def _timed_trim():
        began = (time.perf_counter(), time.thread_time())
        _trim()
        _log_pause("trim", *began)
    runtime.trim_heap = _timed_trim
memlog = os.environ.get("YANIV_LOAD_MEMLOG")
if memlog:  # what the memory is, each minute, a JSON line to PATH: pymalloc's arenas, objects
    import collections, gc, json, tempfile, threading, time
    def _arenas():  # sys._debugmallocstats writes to the C stderr: read it from a file
        with tempfile.TemporaryFile("w+") as tmp:
            saved = os.dup(2)
            os.dup2(tmp.fileno(), 2)
            try:
                sys._debugmallocstats()
            finally:
                os.dup2(saved, 2)
                os.close(saved)
            tmp.seek(0)
            for line in tmp:
                if "# arenas allocated current" in line:
                    return int(line.split()[-1].replace(",", ""))
        return None
    def _log():
        while True:
            time.sleep(60)
            rss = [l for l in open("/proc/self/status") if l.startswith("VmRSS")]
            with open(memlog, "a") as out:
                print(json.dumps({"pid": os.getpid(), "rss_kb": int(rss[0].split()[1]),
                    "arenas": _arenas(), "blocks": sys.getallocatedblocks(),
                    "objects": len(gc.get_objects()), "yaniv": dict(collections.Counter(
                        type(o).__name__ for o in gc.get_objects()
                        if str(type(o).__dict__.get("__module__", "")).startswith("yaniv")
                    ).most_common(12)),
                    "gc": gc.get_count(), "threads": threading.active_count()}), file=out)
    threading.Thread(target=_log, daemon=True).start()
from yaniv.server.runtime import tune_runtime
tune_runtime()  # as yaniv serve does
from yaniv.server.limits import Limits
from yaniv.server.serving import server_config
# Every client plays from one address: no per-address rate or socket cap (bodies and request
# times stay limited), served as yaniv serve serves (its headers' deadline included).
limits = Limits.unlimited()
# and no flood limit per address either (every client is 127.0.0.1)
app = create_app(url, bot_delay=delay, grace=600, slap_window=0.0, web_dir=None, limits=limits,
                 redis=redis or None, flood_limit=10_000)
uvicorn.Server(server_config(app, "127.0.0.1", port, limits)).run()
"""


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: The width of the windows of ``p99_by_window_ms``, in seconds.
WINDOW_S = 15.0


def windows(stats: Stats, start: float) -> list[float]:
    """The p99 latency (ms) of the moves sent in each ``WINDOW_S`` seconds from ``start``."""
    by: dict[int, list[float]] = {}
    for sent, latency in zip(stats.sent, stats.latencies, strict=True):
        by.setdefault(int((sent - start) // WINDOW_S), []).append(latency * 1000)
    return [round(percentile(by.get(w, []), 0.99), 1) for w in range(max(by, default=-1) + 1)]


def pressure() -> dict[str, float]:
    """Seconds since boot in which some task stalled on I/O, on memory and on the CPU (Linux's
    pressure stall information, /proc/pressure; empty where the kernel does not keep it)."""
    stalled: dict[str, float] = {}
    for kind in ("io", "memory", "cpu"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            some = Path(f"/proc/pressure/{kind}").read_text().split("\n", 1)[0]
            stalled[kind] = int(some.rsplit("total=", 1)[1]) / 1e6
    return stalled


@contextlib.contextmanager
def machine_by_window() -> Iterator[dict[str, list[float]]]:
    """Per ``WINDOW_S`` seconds from now until the block ends, the CPU seconds stolen by the
    host and the seconds stalled on I/O and on the CPU (a thread samples them)."""
    out: dict[str, list[float]] = {"stolen": [], "io": [], "cpu": []}
    stop = threading.Event()

    def sample() -> tuple[float, float, float]:
        stalled = pressure()
        return stolen_cpu(), stalled.get("io", 0.0), stalled.get("cpu", 0.0)

    def run() -> None:
        last = sample()
        while not stop.wait(WINDOW_S):
            now = sample()
            for key, a, b in zip(out, last, now, strict=True):
                out[key].append(round(b - a, 2))
            last = now

    sampler = threading.Thread(target=run, daemon=True)
    sampler.start()
    try:
        yield out
    finally:
        stop.set()
        sampler.join()


def checkpoints(url: str | None) -> dict[str, float]:
    """PostgreSQL's checkpoints so far and the milliseconds they spent writing and syncing
    (pg_stat_bgwriter; empty for SQLite or where it cannot be read)."""
    if url is None or not url.startswith("postgresql"):
        return {}
    with contextlib.suppress(Exception):  # a figure, not the run: never fail on it
        import psycopg

        query = (
            "select checkpoints_timed + checkpoints_req, checkpoint_write_time,"
            " checkpoint_sync_time from pg_stat_bgwriter"
        )
        with psycopg.connect(
            url.replace("postgresql+psycopg", "postgresql"), connect_timeout=5
        ) as c:
            row = c.execute(query).fetchone()
        if row is not None:
            return {"count": float(row[0]), "write_ms": float(row[1]), "sync_ms": float(row[2])}
    return {}


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` (0 when empty)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Stats:
    """What the clients measured."""

    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.settled: list[float] = []  # those of moves sent once every game had started
        self.sent: list[float] = []  # each timed move's sending time, beside ``latencies``
        self.all_started = float("inf")  # when the last game was created
        # Creations under way at once: httpx's pool looks over every waiting request for each
        # one it sends, so a thousand at once cost the clients more CPU than the servers.
        self.creating = asyncio.Semaphore(64)
        self.messages = 0
        self.bytes = 0  # of the messages' text, as received (before any compression)
        self.errors: list[str] = []
        self.rounds = 0


async def play(
    bases: list[str], http: httpx.AsyncClient, stats: Stats, args: argparse.Namespace, index: int
) -> None:
    """Create one game and play the person's seat for ``args.rounds`` rounds (game ``index``
    starts ``index / rooms`` of ``args.ramp`` seconds after the first)."""
    if args.ramp > 0:
        await asyncio.sleep(args.ramp * index / max(1, args.rooms))
    base = bases[index % len(bases)]
    socket_base = bases[(index + 1) % len(bases)] if args.cross else base
    async with stats.creating:
        r = await http.post(
            f"{base}/api/games",
            json={
                "name": f"Load {index}",
                "opponents": [args.level] * args.opponents,
                "rules": getattr(args, "rules", None) or {},
            },
        )
    if r.status_code != 200:
        stats.errors.append(f"create: {r.status_code} {r.text[:80]}")
        return
    game = r.json()
    url = socket_base.replace("http", "ws", 1) + f"/ws/{game['room']}?token={game['token']}"
    if not args.whole_states:
        url += "&deltas=1"  # as the web app asks
    last: dict[str, Any] | None = None
    pace = random.Random(index)
    async with websockets.connect(url, max_size=1 << 20) as ws:
        acted: set[tuple[int, int]] = set()
        sent_at: tuple[tuple[int, int], float] | None = None
        dealt = 0
        n = 0
        async for raw in ws:
            stats.messages += 1
            stats.bytes += len(raw)
            message = json.loads(raw)
            if message["type"] == "error":
                stats.errors.append(message["message"][:80])
                continue
            if message["type"] == "delta":
                if last is None or message["base"] != last["seq"]:
                    stats.errors.append("a delta out of order")
                    return
                message = apply_delta(last, message)
            if message["type"] != "state":
                continue
            last = message
            view = message["view"]
            moment = (view["round"], len(view["events"]))
            if sent_at is not None and moment != sent_at[0]:
                stats.latencies.append(time.perf_counter() - sent_at[1])
                stats.sent.append(sent_at[1])
                if sent_at[1] > stats.all_started:
                    stats.settled.append(stats.latencies[-1])
                sent_at = None
            if view["phase"] == "game_over":
                stats.rounds += 1
                return
            if view["phase"] == "round_over":
                if moment not in acted:
                    acted.add(moment)
                    stats.rounds += 1
                    dealt += 1
                    if dealt >= args.rounds:
                        return
                    await ws.send(json.dumps({"type": "next_round"}))
                continue
            if view["to_move"] == 0 and moment not in acted:
                acted.add(moment)
                if args.think > 0:  # a person's pace: half to one and a half times --think
                    await asyncio.sleep(args.think * (0.5 + pace.random()))
                moves = view["legal_moves"]
                move = "yaniv" if "yaniv" in moves else moves[0]
                n += 1
                sent_at = (moment, time.perf_counter())
                await ws.send(json.dumps({"type": "move", "move": move, "id": f"{index}-{n}"}))


async def run(args: argparse.Namespace, bases: list[str]) -> dict[str, Any]:
    """Play every game at once; the figures."""
    stats = Stats()
    # Idle connections are dropped before uvicorn's 5 s keep-alive ends: a request sent on a
    # connection the server is closing fails with a ReadError that is no fault of the server.
    limits = httpx.Limits(max_connections=100, keepalive_expiry=2.0)
    async with httpx.AsyncClient(timeout=30, limits=limits) as http:
        start, started_unix = time.perf_counter(), time.time()
        stats.all_started = start + args.ramp + 10  # the last creations' own work done too
        tasks = [asyncio.create_task(play(bases, http, stats, args, i)) for i in range(args.rooms)]
        with machine_by_window() as machine:
            done, pending = await asyncio.wait(tasks, timeout=args.time_limit)
        for task in pending:
            task.cancel()
        for task in done:
            if task.exception() is not None:
                stats.errors.append(f"client: {task.exception()!r}"[:80])
        elapsed = time.perf_counter() - start
    ms = [x * 1000 for x in stats.latencies]
    settled = [x * 1000 for x in stats.settled]
    return {
        "database": "sqlite" if args.database is None else args.database.split(":", 1)[0],
        "rooms": args.rooms,
        "workers": args.workers,
        "cross": args.cross,
        "deltas": not args.whole_states,
        "opponents": args.opponents,
        "bot_delay": args.bot_delay,
        "ramp_s": args.ramp,
        "think_s": args.think,
        "rounds_finished": stats.rounds,
        "games_unfinished": len(pending),
        "moves": len(ms),
        "latency_ms": {
            "p50": round(percentile(ms, 0.5), 2),
            "p99": round(percentile(ms, 0.99), 2),
            "mean": round(statistics.fmean(ms), 2) if ms else 0.0,
            "max": round(max(ms), 2) if ms else 0.0,
        },
        # The moves sent from 10 s after the last game's start on: the steady load, without
        # the creations' own burst.
        "settled_latency_ms": {
            "moves": len(settled),
            "p50": round(percentile(settled, 0.5), 2),
            "p99": round(percentile(settled, 0.99), 2),
        },
        # p99 of the moves sent in each WINDOW_S seconds of the run: one stall of the machine
        # shows as one bad window, a server that cannot keep up as a climb.
        "p99_by_window_ms": windows(stats, start),
        "started_unix": round(started_unix, 2),  # the windows' start, as the pauses' "at"
        # ... and in the same windows, the seconds the host took from this machine's CPUs and
        # in which some task waited for the disk or for a CPU
        "machine_by_window_s": machine,
        "messages": stats.messages,
        "messages_per_s": round(stats.messages / elapsed, 1) if elapsed else 0.0,
        "message_bytes_mean": round(stats.bytes / stats.messages) if stats.messages else 0,
        "errors": len(stats.errors),  # the games still in play at the time limit are not
        "error_samples": stats.errors[:5],
        "seconds": round(elapsed, 2),
    }


def wait_started(base: str, server: subprocess.Popen[bytes]) -> None:
    """Wait until the server at ``base`` answers (SystemExit after 30 s or if it ends)."""
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(f"{base}/api/levels", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline or server.poll() is not None:
            raise SystemExit("the server did not start")
        time.sleep(0.1)


@contextlib.contextmanager
def scratch_database(url: str | None, folder: str, name: str) -> Iterator[str]:
    """A database of this run's own: a new SQLite file named ``name`` in ``folder``, or, on
    PostgreSQL, a new schema in the database at ``url`` (its tables made there by the servers'
    migrations), dropped at the end.

    A server brings back every unfinished room it finds at its start and plays it on: in a
    database that earlier runs left rooms in, those would be measured as well (2,230 of them
    in the test database once, several times the load asked for).
    """
    if url is None:
        yield f"sqlite:///{Path(folder) / f'{name}.sqlite3'}"
        return
    from db_backends import fresh_schema  # the storage tests' own scratch schemas

    with fresh_schema(url, f"yaniv_{name}") as scratch:
        yield scratch


@contextlib.contextmanager
def servers(
    args: argparse.Namespace, name: str
) -> Iterator[list[tuple[str, subprocess.Popen[bytes]]]]:
    """``args.workers`` servers started on a scratch database of this run (a temporary
    SQLite file named ``name``, or a new schema in ``args.database``), each with its base URL;
    stopped at the end."""
    ports = [free_port() for _ in range(args.workers)]
    with (
        tempfile.TemporaryDirectory() as tmp,
        scratch_database(args.database, tmp, name) as url,
    ):
        env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
        running = [
            (
                f"http://127.0.0.1:{port}",
                subprocess.Popen(
                    [sys.executable, "-c", SERVER, url, str(port), str(args.bot_delay), args.redis],
                    env=env,
                ),
            )
            for port in ports
        ]
        try:
            for base, server in running:
                wait_started(base, server)
            yield running
        finally:
            for _, server in running:
                server.terminate()
            for _, server in running:
                try:
                    server.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    server.kill()
                    server.wait()


SERVICES = {"postgres": "postgresql", "redis-server": "redis"}


def services_cpu() -> dict[str, float]:
    """CPU seconds (user and system) of this machine's PostgreSQL and Redis processes now,
    by service: those alive when it is called (a database backend that ended during the
    run is not counted; the pool keeps its connections for the run)."""
    tick = os.sysconf("SC_CLK_TCK")
    seconds: dict[str, float] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            text = stat.read_text()
            name = text[text.index("(") + 1 : text.rindex(")")]
            service = SERVICES.get(name)
            if service is None and name.startswith("postgres"):
                service = "postgresql"  # a backend may be named by its title
            if service is not None:
                fields = text[text.rindex(")") + 2 :].split()
                used = (int(fields[11]) + int(fields[12])) / tick  # utime, stime
                seconds[service] = seconds.get(service, 0.0) + used
    return seconds


def stolen_cpu() -> float:
    """CPU seconds the hypervisor has taken from this machine's processors since boot
    (``steal`` in /proc/stat; 0 where it is not told)."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK")
    return 0.0


def main() -> None:
    """Parse the options, start the server, run the clients, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=50, help="concurrent games (max 2000)")
    parser.add_argument("--opponents", type=int, default=2, help="bots per game (1-7)")
    parser.add_argument("--level", default="random", help="the bots' level")
    parser.add_argument("--rounds", type=int, default=1, help="rounds per game (max 20)")
    parser.add_argument("--bot-delay", type=float, default=0.2, help="the server's bot pacing")
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds in all")
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="the person's mean seconds per move (0: at once, faster than anyone plays)",
    )
    parser.add_argument(
        "--ramp",
        type=float,
        default=0.0,
        help="seconds over which the games start (0: all at once, a burst no site sees)",
    )
    parser.add_argument(
        "--database",
        default=None,
        help="the server's database URL, e.g. postgresql://USER:PW@HOST/DB (the run's tables "
        "go in a new schema, dropped at the end; default: a temporary SQLite file)",
    )
    parser.add_argument(
        "--whole-states",
        action="store_true",
        help="ask for whole states, not deltas (the web app asks for deltas)",
    )
    parser.add_argument("--workers", type=int, default=1, help="server processes (1-16)")
    parser.add_argument("--redis", default="", help="a Redis URL (needed by --workers > 1)")
    parser.add_argument(
        "--cross", action="store_true", help="connect each socket at another process"
    )
    args = parser.parse_args()
    args.workers = max(1, min(args.workers, 16))
    if args.workers > 1 and not (args.redis and args.database):
        parser.error("--workers needs --redis and --database postgresql://...")
    args.rooms = max(1, min(args.rooms, 2000))
    args.rounds = max(1, min(args.rounds, 20))
    args.opponents = max(1, min(args.opponents, 7))
    load_before = list(os.getloadavg())
    services_before = services_cpu()
    stolen_before = stolen_cpu()
    pressure_before = pressure()
    checkpoints_before = checkpoints(args.database)
    with servers(args, "load") as running:
        figures = asyncio.run(run(args, [base for base, _ in running]))
        services_after = services_cpu()  # before the servers close their connections
        stolen = round(stolen_cpu() - stolen_before, 2)
        pressure_after = pressure()
        checkpoints_after = checkpoints(args.database)
    # The servers are this process's only children: their CPU seconds, user and system.
    children = os.times()
    figures["server_cpu_s"] = round(children.children_user + children.children_system, 2)
    # The clients' own (one process): near the run's seconds, they are what is slow.
    figures["client_cpu_s"] = round(children.user + children.system, 2)
    # PostgreSQL's and Redis's, where they run on this machine: the same two cores
    figures["services_cpu_s"] = {
        name: round(services_after[name] - services_before.get(name, 0.0), 2)
        for name in sorted(services_after)
    }
    # a virtual machine's CPU taken by its host: this machine's speed, which drifts, with it
    figures["stolen_cpu_s"] = stolen
    # seconds in which some task of the machine waited for the disk, memory or a CPU
    figures["stalled_s"] = {
        kind: round(pressure_after[kind] - pressure_before[kind], 2)
        for kind in sorted(pressure_after.keys() & pressure_before.keys())
    }
    # PostgreSQL's checkpoints over the run: their fsyncs stall the commits the moves wait for
    figures["checkpoints"] = {
        key: round(checkpoints_after[key] - checkpoints_before[key], 1)
        for key in sorted(checkpoints_after.keys() & checkpoints_before.keys())
    }
    figures["load_average"] = {"before": load_before, "after": list(os.getloadavg())}
    print(
        f"{figures['rooms']} games, {figures['moves']} moves timed, "
        f"p50 {figures['latency_ms']['p50']} ms, p99 {figures['latency_ms']['p99']} ms, "
        f"{figures['messages_per_s']} messages/s, {figures['errors']} errors"
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
