"""The server's guard at its door: an ASGI middleware around the app (inside Starlette's
error middleware) that answers in words, always.

- Requests a minute per client address (``limits``): lookups, joins, websocket connects
  and room or game creation; over the limit, 429 with Retry-After (a websocket: an ``error``
  message and close code 4429).
- An HTTP request's body: at most ``Limits.max_body`` bytes (413), within
  ``Limits.request_timeout`` seconds (408). (A websocket message's lone surrogate is
  refused by ``holds_lone_surrogate``, for the rooms; pydantic refuses one in a body.)
- An exception out of the app: a failing store (the database down, locked, read-only) is a
  503 "the game could not be saved; try again" and one line in the log; anything else is a
  bug, a 500 in words (its traceback logged). A websocket gets an ``error`` and a close
  (1013: try again later, or 1011).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sqlite3
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from sqlalchemy.exc import DisconnectionError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from .limits import Counter, Limits, MemoryCounter, address_key, retry_seconds
from .storage import ReadOnlyDatabase

log = logging.getLogger("yaniv.server")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Close code of a websocket refused for its rate (the HTTP status in the 4000s).
CLOSE_RATE = 4429
#: Close code of a websocket refused because its seat or room has too many open.
CLOSE_CROWDED = 4409
#: Close code of a websocket whose store failed: try again later (RFC 6455).
CLOSE_TRY_LATER = 1013

_ROOM = r"[^/]{1,64}"
#: (method, path pattern, kind of request in ``Limits``); websockets use method "WS".
ROUTES = (
    ("GET", re.compile(rf"/api/rooms/{_ROOM}"), "lookups"),
    # what a guessed id or code opens: a player's profile, a score sheet, a queue ticket
    ("GET", re.compile(rf"/api/(?:players|scores|quickmatch)/{_ROOM}"), "lookups"),
    ("POST", re.compile(rf"/api/rooms/{_ROOM}/join"), "joins"),
    ("POST", re.compile(r"/api/(?:games|rooms)/?"), "creates"),
    # what makes rows: a place in the quick-match queue, its tables with bots, a score sheet
    ("POST", re.compile(rf"/api/(?:quickmatch(?:/{_ROOM}/bots)?|scores)/?"), "creates"),
    ("PUT", re.compile(r"/api/profile/name/?"), "creates"),
    ("WS", re.compile(rf"/ws/{_ROOM}"), "connects"),
)

_WORDS = {
    "lookups": "lookups (rooms, players, score sheets, queue tickets)",
    "joins": "joins",
    "connects": "connections",
    "creates": "new games and rooms (queue places, score sheets and names too)",
}


def kind_of(method: str, path: str) -> str | None:
    """Which rate a request counts against, if any."""
    for m, pattern, kind in ROUTES:
        if m == method and pattern.fullmatch(path):
            return kind
    return None


def holds_lone_surrogate(value: Any) -> bool:
    """Whether a decoded JSON value holds a lone surrogate (``"\\ud800"``) in a string or a
    key: text that cannot be written back as UTF-8, so no answer could quote it. (A walk
    without recursion: a message may nest as deep as the JSON decoder allows.)"""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


#: The words for a message that holds a lone surrogate.
LONE_SURROGATE = (
    "the message holds a lone surrogate (such as \\ud800), which is not text: send valid Unicode"
)


def store_failure(exc: BaseException) -> bool:
    """Whether ``exc`` is the database failing (down, locked, full, read-only, out of
    connections) rather than a bug (an integrity or programming error is one)."""
    return isinstance(
        exc,
        OperationalError
        | InterfaceError
        | DisconnectionError
        | PoolTimeout
        | sqlite3.OperationalError,
    )


def failure_words(exc: BaseException, saving: bool) -> str:
    """What a client is told of a failing store."""
    first = (
        "the game could not be saved; try again"
        if saving
        else "the game could not be read from the database; try again"
    )
    if isinstance(exc, ReadOnlyDatabase):
        return f"{first} ({exc.words})"
    return f"{first} (the database is not answering)"


def one_line(exc: BaseException) -> str:
    """An exception in one line, for the log."""
    orig = getattr(exc, "orig", None)
    text = str(orig if orig is not None else exc).strip().splitlines()
    return f"{type(orig if orig is not None else exc).__name__}: {text[0] if text else ''}"


class Guard:
    """The ASGI middleware (``app.add_middleware(Guard, limits=..., counter=...)``)."""

    def __init__(
        self, app: ASGIApp, limits: Limits | None = None, counter: Counter | None = None
    ) -> None:
        self.app = app
        self.limits = limits or Limits()
        self.counter = counter or MemoryCounter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _wait(self, scope: Scope, method: str) -> tuple[str, float] | None:
        """The kind of request and the seconds to wait, when it is over its rate."""
        kind = kind_of(method, scope.get("path", ""))
        if kind is None:
            return None
        per_minute = getattr(self.limits, kind)
        if not per_minute:
            return None
        client = scope.get("client")
        key = f"{kind}:{address_key(client[0] if client else None)}"
        wait = await self.counter.take(key, per_minute)
        return (kind, wait) if wait > 0 else None

    # ------------------------------------------------------------- HTTP

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        limited = await self._wait(scope, scope.get("method", "GET"))
        if limited is not None:
            kind, wait = limited
            seconds = retry_seconds(wait)
            await _answer(
                send,
                429,
                f"too many {_WORDS[kind]} from your address: at most "
                f"{getattr(self.limits, kind)} a minute; try again in {seconds} s",
                [(b"retry-after", str(seconds).encode())],
            )
            return
        headers = dict(scope.get("headers") or [])
        if b"content-length" in headers or b"transfer-encoding" in headers:
            body = await self._body(headers, receive, send)
            if body is None:
                return
            receive = _replay(body, receive)
        started = False

        async def watched(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as exc:
            method = scope.get("method", "GET")
            where = f"{method} {scope.get('path', '')}"
            if store_failure(exc):
                log.warning("%s: the store failed: %s", where, one_line(exc))
                if not started:
                    await _answer(
                        send,
                        503,
                        failure_words(exc, method != "GET"),
                        [(b"retry-after", b"5")],
                    )
                return
            log.exception("%s failed", where)
            if not started:
                await _answer(send, 500, "the server failed on this request (a bug): try again")

    async def _body(
        self, headers: dict[bytes, bytes], receive: Receive, send: Send
    ) -> bytes | None:
        """The request's body, read within the limits (None: refused, answered)."""
        limit = self.limits.max_body
        declared = headers.get(b"content-length", b"").strip()
        if declared:
            if not declared.isdigit():
                await _answer(send, 400, "the Content-Length header is not a number")
                return None
            if int(declared) > limit:
                await _answer(send, 413, _too_large(limit), close=True)
                return None
        chunks: list[bytes] = []
        size = 0
        deadline = time.monotonic() + self.limits.request_timeout
        while True:
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                seconds = f"{self.limits.request_timeout:g}"
                await _answer(
                    send, 408, f"the request's body did not come within {seconds} s", close=True
                )
                return None
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await _answer(send, 413, _too_large(limit), close=True)
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)

    # ------------------------------------------------------------- websockets

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        limited = await self._wait(scope, "WS")
        if limited is not None:
            kind, wait = limited
            await refuse_socket(
                receive,
                send,
                f"too many connections from your address: at most "
                f"{getattr(self.limits, kind)} a minute; try again in {retry_seconds(wait)} s",
                CLOSE_RATE,
                retry_ms=round(wait * 1000),
            )
            return
        state = {"accepted": False, "closed": False}

        async def watched(message: Message) -> None:
            if message["type"] == "websocket.accept":
                state["accepted"] = True
            elif message["type"] == "websocket.close":
                state["closed"] = True
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as exc:
            where = f"websocket {scope.get('path', '')}"
            if store_failure(exc):
                log.warning("%s: the store failed: %s", where, one_line(exc))
                words, code = failure_words(exc, saving=False), CLOSE_TRY_LATER
            else:
                log.exception("%s failed", where)
                words, code = "the server failed on this connection (a bug)", 1011
            if state["closed"]:
                return
            try:
                if not state["accepted"]:
                    await send({"type": "websocket.accept"})
                await send({"type": "websocket.send", "text": _error_text(words)})
                await send({"type": "websocket.close", "code": code})
            except Exception as again:  # the client has gone
                log.debug("%s: could not tell the client: %s", where, again)


async def refuse_socket(
    receive: Receive, send: Send, words: str, code: int, retry_ms: int | None = None
) -> None:
    """Accept a websocket only to tell it why it is refused, then close it with ``code``."""
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.send", "text": _error_text(words, retry_ms)})
    await send({"type": "websocket.close", "code": code})


def _error_text(words: str, retry_ms: int | None = None) -> str:
    data: dict[str, Any] = {"type": "error", "message": words}
    if retry_ms is not None:
        data["retry_ms"] = retry_ms
    return json.dumps(data)


def _too_large(limit: int) -> str:
    return f"the request's body is over {limit // 1024} KiB, the most the server reads"


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the body read already, then waits on the client's."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


async def _answer(
    send: Send,
    status: int,
    words: str,
    headers: list[tuple[bytes, bytes]] | None = None,
    close: bool = False,
) -> None:
    """Send ``{"error": words}`` with ``status``."""
    body = json.dumps({"error": words}).encode()
    head = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *(headers or []),
    ]
    if close:
        head.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})
