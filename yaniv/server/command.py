"""``yaniv serve``: the web app on uvicorn."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import logging
import sys
import threading
import time
import webbrowser

import typer


def serve_command(
    host: str = typer.Option("127.0.0.1", help="the address to listen on"),
    port: int = typer.Option(8000, min=0, max=65535, help="the port to listen on"),
    database: str | None = typer.Option(
        None,
        help="a SQLAlchemy URL (default: an SQLite file in the user's data directory; "
        "postgresql://... for PostgreSQL)",
    ),
    bot_delay: float = typer.Option(
        0.8, min=0.0, max=30.0, help="seconds a bot waits before each move"
    ),
    grace: float = typer.Option(
        60.0, min=0.0, help="seconds a dropped player's seat is held before a bot plays it"
    ),
    slap_window: float = typer.Option(
        1.0,
        min=0.0,
        max=10.0,
        help="seconds the others wait after a person's stock draw under slapdown",
    ),
    round_wait: float = typer.Option(
        20.0,
        min=0.0,
        max=600.0,
        help="seconds a round's end waits for its people to be ready before the next deal",
    ),
    limit: list[str] = typer.Option(  # noqa: B008
        [],
        "--limit",
        metavar="NAME=VALUE",
        help="an abuse limit (repeatable): lookups, joins, connects, creates (a minute per "
        "client address, 0: none; 120, 120, 120, 60), seat-sockets (4), room-sockets (100), "
        "max-body (bytes, 64k), request-timeout (seconds, 10); docs/web-protocol.md",
    ),
    redis: str | None = typer.Option(
        None,
        help="a Redis URL (redis://host:6379/0): many processes, on this machine or others, "
        "serve the same rooms from one PostgreSQL database (docs/scaling.md)",
    ),
    workers: int = typer.Option(
        1, min=1, max=64, help="server processes on this machine (more than 1 needs --redis)"
    ),
    fd: int | None = typer.Option(None, hidden=True, help="a listening socket (a worker's)"),
    browser: bool = typer.Option(
        True, "--browser/--no-browser", help="open the web app in a browser"
    ),
) -> None:
    """Play Yaniv in the browser: against the computer, or with friends in a room."""
    try:
        import uvicorn

        from .app import WEB_DIR, create_app
        from .limits import Limits
        from .serving import server_config
        from .storage import check_database, database_url, default_database_url
    except ImportError as exc:
        typer.echo(f"the web app needs its extra: pip install 'yaniv[web]' ({exc})", err=True)
        raise typer.Exit(1) from None
    # Checked (and migrated) here, so that a bad URL or a server that is down is told in
    # words rather than as uvicorn's startup traceback.
    try:
        limits = Limits().updated(limit)
        url = database_url(database or default_database_url())
        if redis is not None or workers > 1:
            check_shared(url, redis, workers)
        check_database(url)
    except ValueError as exc:
        typer.echo(f"yaniv serve: {exc}", err=True)
        raise typer.Exit(2) from None
    if workers > 1 and fd is None:
        from .workers import supervise

        typer.echo(f"Yaniv is served at http://{host}:{port}/ by {workers} processes")
        raise typer.Exit(supervise(workers, host, port, sys.argv[2:]))
    app = create_app(
        url,
        bot_delay=bot_delay,
        grace=grace,
        slap_window=slap_window,
        round_wait=round_wait,
        limits=limits,
        redis=redis,
    )
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    address = f"http://{shown}:{port}/"
    if not (WEB_DIR / "index.html").is_file():
        typer.echo(f"note: the front end is missing ({WEB_DIR}); the API still works")
    typer.echo(f"Yaniv is served at {address} (database {_hidden(url)}); Ctrl+C stops it")
    if browser:
        threading.Timer(1.0, _open, args=(address,)).start()
    # The server's own warnings (a store failing, a room taken over) reach the operator.
    logging.basicConfig(format="%(asctime)s %(name)s: %(message)s", level=logging.WARNING)
    tune_runtime()
    options = {} if fd is None else {"fd": fd}
    uvicorn.Server(server_config(app, host, port, limits, **options)).run()


def check_shared(url: str, redis: str | None, workers: int) -> None:
    """ValueError in words where many processes cannot share this database and Redis."""
    if redis is None:
        raise ValueError(
            f"--workers {workers}: processes share their rooms through Redis: add --redis redis://..."
        )
    if url.startswith("sqlite"):
        raise ValueError(
            "--redis: SQLite is one process's file; processes share a database server: "
            "--database postgresql://..."
        )
    import redis as redis_client

    try:
        redis_client.Redis.from_url(redis, socket_connect_timeout=3).ping()
    except (redis_client.RedisError, OSError) as exc:
        raise ValueError(f"cannot reach Redis at {redis}: {exc}") from None


def tune_runtime() -> None:
    """Settings of the interpreter for a server of many games (see benchmarks/load.py).

    The objects that exist at startup are left out of the garbage collector's passes and the
    young ones are collected less often: with the default thresholds, a full collection every
    few seconds held the event loop 200 to 500 ms at 500 games (every move in flight waited).
    The GIL is handed over every 0.5 ms rather than 5: the bots think and the database is
    written on other threads, and the event loop waited for them. Call once the app is
    imported.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 50)
    sys.setswitchinterval(0.0005)
    libc = _glibc()
    if libc is not None:  # few malloc arenas: the threads' own arenas fragment and keep pages
        libc.mallopt(M_ARENA_MAX, 2)
    collect_every(FULL_COLLECTION_EVERY)


#: Seconds between the full collections a server makes of its own accord. With the thresholds
#: above the collector's own full passes come hours apart: garbage in a reference cycle (a
#: library's, or one of ours yet unknown) would live that long. A pass at 500 games holds the
#: event loop a few hundred ms: once in five minutes is below the 99th percentile's reach.
FULL_COLLECTION_EVERY = 300.0


#: Seconds between two hand-backs of the C heap's free pages to the system (``trim_heap``).
TRIM_EVERY = 60.0
#: glibc's mallopt parameter for the most malloc arenas.
M_ARENA_MAX = -8


def collect_every(seconds: float, trim_every: float = TRIM_EVERY) -> threading.Event:
    """Run a full collection every ``seconds``, and ``trim_heap`` every ``trim_every``, on a
    thread of their own until the returned event is set."""
    stop = threading.Event()

    def loop() -> None:
        collected = time.monotonic()
        while not stop.wait(min(seconds, trim_every)):
            if time.monotonic() - collected >= seconds:
                gc.collect()
                collected = time.monotonic()
            trim_heap()

    threading.Thread(target=loop, name="yaniv-gc", daemon=True).start()
    return stop


@functools.cache
def _glibc() -> ctypes.CDLL | None:
    """The C library where it is glibc (its malloc has mallopt and malloc_trim), else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    if not (hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt")):
        return None  # another C library (musl)
    return libc


def trim_heap() -> bool:
    """Hand the C heap's free pages back to the system (glibc's malloc_trim): the server's
    large strings (a state's JSON, a record's text) are malloc's, and the pages freed between
    live chunks otherwise stay in the process for good. False where there is no glibc."""
    libc = _glibc()
    if libc is None:
        return False
    libc.malloc_trim(0)
    return True


def _open(address: str) -> None:
    with contextlib.suppress(webbrowser.Error):
        webbrowser.open(address)


def _hidden(url: str) -> str:
    """The URL with any password hidden."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "(unparsed URL)"
