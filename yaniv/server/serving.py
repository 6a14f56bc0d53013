"""Serving the app on uvicorn with a deadline for each request's headers.

uvicorn times out an idle keep-alive connection, but not one whose request's headers are
half sent: 300 such connections were held open for a minute. ``timed_protocol`` is
uvicorn's own HTTP protocol with one timer more, armed when a connection opens and after
each response, and closing the connection when the next request's headers have not all come
within ``Limits.request_timeout`` seconds. (A body's time and size are the ASGI guard's:
yaniv/server/guard.py.)
"""

from __future__ import annotations

import asyncio
from typing import Any

import uvicorn

from .limits import Limits


def _base() -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol as its "auto" setting picks it: httptools when installed."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

        return HttpToolsProtocol
    except ImportError:
        from uvicorn.protocols.http.h11_impl import H11Protocol

        return H11Protocol


def timed_protocol(header_timeout: float, base: type[asyncio.Protocol] | None = None) -> type:
    """uvicorn's HTTP protocol (``base``: httptools' or h11's) closing connections whose
    request headers take longer than ``header_timeout`` seconds."""
    parent: Any = base or _base()

    class TimedProtocol(parent):  # type: ignore[misc]
        """An HTTP connection with a deadline for its requests' headers."""

        def connection_made(self, transport: asyncio.Transport) -> None:
            self._deadline: asyncio.TimerHandle | None = None
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if not self._waiting():
                self._disarm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self._waiting():
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _waiting(self) -> bool:
            """Whether the connection waits for a request's headers."""
            transport = self.transport
            if transport is None or transport.is_closing():
                return False
            if transport.get_protocol() is not self:  # upgraded to a websocket
                return False
            cycle = self.cycle
            return cycle is None or bool(cycle.response_complete)

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(header_timeout, self._expired)

        def _disarm(self) -> None:
            if getattr(self, "_deadline", None) is not None:
                self._deadline.cancel()  # type: ignore[union-attr]
                self._deadline = None

        def _expired(self) -> None:
            self._deadline = None
            if self._waiting():
                self.transport.close()

    TimedProtocol.__qualname__ = f"Timed{parent.__name__}"
    return TimedProtocol


def server_config(app: Any, host: str, port: int, limits: Limits, **options: Any) -> uvicorn.Config:
    """The uvicorn settings ``yaniv serve`` runs the app with."""
    settings: dict[str, Any] = {
        "host": host,
        "port": port,
        "log_level": "warning",
        "ws_max_size": 1 << 20,
        "timeout_keep_alive": 5,
        # No permessage-deflate: with deltas a message is about a kilobyte, and compressing
        # each one cost a busy server an eighth of its time (docs/scaling.md, Figures).
        "ws_per_message_deflate": False,
        "http": timed_protocol(limits.request_timeout),
    }
    settings.update(options)
    return uvicorn.Config(app, **settings)
