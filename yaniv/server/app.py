"""The FastAPI app: the HTTP API and websocket of docs/web-protocol.md, and the static front
end (yaniv/web/) mounted at ``/``."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from redis.exceptions import RedisError
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..bots.base import bot_names
from ..rules import BOUNDS, CHOICES, HOLES, PRESETS, TARGET_BOUNDS, RuleSet
from .cluster import NO_REDIS, Cluster, SharedCounter
from .guard import Guard
from .history import router as history_router
from .limits import Counter, Limits, MemoryCounter
from .profiles import router as profiles_router
from .quickmatch import router as quick_router
from .rooms import FLOOD_LIMIT, REACTION_GAP, ROUND_WAIT, ApiError, Hub
from .schemas import Join, NewGame, NewRoom, Rematch, Settings, Start, describe
from .scorekeeper import router as scores_router
from .storage import Store, default_database_url
from .tutorial import router as tutorial_router

#: Where the static front end lives.
WEB_DIR = Path(__file__).resolve().parent.parent / "web"

MISSING_WEB = (
    "<!doctype html><meta charset=utf-8><title>Yaniv</title>"
    "<p>The web front end is missing: there is no folder {path}. The API "
    "(/api/...) and the websocket (/ws/...) work without it.</p>"
)


def options() -> dict[str, Any]:
    """Every rule option with its allowed values (for ``GET /api/levels``)."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(RuleSet):
        if f.name in CHOICES:
            out[f.name] = {"choices": list(CHOICES[f.name])}
        elif f.name in HOLES:  # a short range with a value left out: offer the others
            low, high = BOUNDS[f.name]
            out[f.name] = {"choices": [v for v in range(low, high + 1) if v not in HOLES[f.name]]}
        elif f.name in BOUNDS:
            low, high = BOUNDS[f.name]
            out[f.name] = {"min": low, "max": high}
        elif f.name == "bonus_targets":
            out[f.name] = {"min": TARGET_BOUNDS[0], "max": TARGET_BOUNDS[1], "list": True}
        else:
            out[f.name] = {"choices": [False, True]}
    return out


def create_app(
    database: str | None = None,
    *,
    bot_delay: float = 0.8,
    grace: float = 60.0,
    slap_window: float = 1.0,
    flood_limit: int = FLOOD_LIMIT,
    web_dir: Path | None = WEB_DIR,
    round_wait: float = ROUND_WAIT,
    reaction_gap: float = REACTION_GAP,
    limits: Limits | None = None,
    redis: str | None = None,
) -> FastAPI:
    """The app, with its store opened (and migrated) and its rooms resumed at startup.

    ``flood_limit`` (messages a second before a client is disconnected) is the protocol's 20;
    tests and benchmarks whose clients play as fast as a machine can raise it.
    ``round_wait``: seconds a round's end waits for its people before the next deal;
    ``reaction_gap``: seconds between two reactions of a seat.
    ``limits``: rates per client address, sockets per seat and room, a request's size and
    time (yaniv/server/limits.py; ``Limits.unlimited()`` for benchmarks from one address).
    ``redis``: a Redis URL, for many processes on one database (docs/scaling.md): rooms are
    owned by one process at a time and the rate limits are shared.
    """
    url = database or default_database_url()
    limits = limits or Limits()
    cluster = None if redis is None else Cluster(redis)
    counter: Counter = MemoryCounter() if cluster is None else SharedCounter(cluster)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = Store(url)
        hub = Hub(
            store,
            bot_delay=bot_delay,
            grace=grace,
            slap_window=slap_window,
            flood_limit=flood_limit,
            round_wait=round_wait,
            reaction_gap=reaction_gap,
            limits=limits,
            cluster=cluster,
        )
        await hub.load()
        app.state.hub = hub
        try:
            yield
        finally:
            await hub.close()

    app = FastAPI(
        title="Yaniv",
        lifespan=lifespan,
        docs_url="/api/docs",
        openapi_url="/api/openapi.json",
        redoc_url=None,
    )
    app.add_middleware(Guard, limits=limits, counter=counter)  # words, always

    def hub_of(request: Request | WebSocket) -> Hub:
        hub: Hub = request.app.state.hub
        return hub

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    @app.exception_handler(RedisError)
    async def _no_redis(_request: Request, _exc: RedisError) -> JSONResponse:
        return JSONResponse({"error": NO_REDIS}, status_code=503, headers={"Retry-After": "5"})

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in list(exc.errors())[:3]:
            where = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
            message = str(err.get("msg", "invalid")).removeprefix("Value error, ")
            parts.append(f"{where}: {message}" if where else message)
        return JSONResponse({"error": "; ".join(parts) or "invalid request"}, status_code=400)

    @app.exception_handler(ValidationError)
    async def _invalid_model(_request: Request, exc: ValidationError) -> JSONResponse:
        return JSONResponse({"error": describe(exc)}, status_code=400)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)

    @app.post("/api/games")
    async def new_game(body: NewGame, request: Request) -> dict[str, Any]:
        return await hub_of(request).new_game(
            body.name, body.opponents, body.rules, body.player_key, body.turn_timer
        )

    @app.post("/api/rooms")
    async def new_room(body: NewRoom, request: Request) -> dict[str, Any]:
        return await hub_of(request).new_room(
            body.name, body.rules, body.player_key, body.turn_timer
        )

    @app.post("/api/rooms/{code}/join")
    async def join(code: str, body: Join, request: Request) -> dict[str, Any]:
        return await hub_of(request).join(code, body.name, body.player_key)

    @app.post("/api/rooms/{code}/settings")
    async def settings(code: str, body: Settings, request: Request) -> dict[str, Any]:
        bots = None if body.bots is None else [(b.seat, b.level) for b in body.bots]
        return await hub_of(request).settings(code, body.token, body.rules, bots, body.turn_timer)

    @app.post("/api/rooms/{code}/start")
    async def start(code: str, body: Start, request: Request) -> dict[str, Any]:
        return await hub_of(request).start(code, body.token)

    @app.post("/api/rooms/{code}/rematch")
    async def rematch(code: str, body: Rematch, request: Request) -> dict[str, Any]:
        return await hub_of(request).rematch(code, body.token, body.game)

    @app.get("/api/rooms/{code}")
    async def room(code: str, request: Request) -> dict[str, Any]:
        return await hub_of(request).info(code)

    @app.get("/api/levels")
    async def levels() -> dict[str, Any]:
        return {
            "levels": bot_names(),
            "presets": {name: rules.to_dict() for name, rules in PRESETS.items()},
            "options": options(),
        }

    app.include_router(history_router)
    app.include_router(scores_router)
    app.include_router(tutorial_router)
    app.include_router(profiles_router)
    app.include_router(quick_router)

    @app.websocket("/ws/{code}")
    async def socket(
        websocket: WebSocket, code: str, token: str | None = None, deltas: bool = False
    ) -> None:
        await hub_of(websocket).connect(websocket, code, token, deltas)

    if web_dir is not None and (web_dir / "index.html").is_file():
        app.mount("/", StaticFiles(directory=web_dir, html=True), name="web")
    else:
        missing = MISSING_WEB.format(path=web_dir)

        @app.get("/", response_class=HTMLResponse)
        async def no_front_end() -> str:
            return missing

    return app
