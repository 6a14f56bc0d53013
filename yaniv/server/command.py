"""``yaniv serve``: the web app on uvicorn."""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
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
        from .runtime import tune_runtime
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
