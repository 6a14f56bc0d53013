"""The web server's abuse limits: requests a minute per client address (token buckets), the
sockets of a seat and of a room, and the size and time a request may take.

The buckets live behind ``Counter`` (one call: take a token or be told how long to wait), so
that a counter shared by many processes (Redis) can replace ``MemoryCounter`` without
touching the places that ask.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Limits:
    """What one client may do. Rates are requests a minute per address, each a token bucket
    that holds a minute's worth (a burst of that many, then one every 60/N seconds); 0 is no
    limit. The defaults leave real play (and a page reloaded often) far below them and stop
    guessing codes after a minute's worth."""

    lookups: int = 120  # GET /api/rooms/{code}
    joins: int = 120  # POST /api/rooms/{code}/join
    connects: int = 120  # websockets /ws/{code}
    creates: int = 60  # POST /api/games and POST /api/rooms
    seat_sockets: int = 4  # open sockets of one player's seat (tabs, devices); 0: no cap
    room_sockets: int = 100  # open sockets of one room, spectators included; 0: no cap
    max_body: int = 64 * 1024  # bytes of an HTTP request's body
    request_timeout: float = 10.0  # seconds for a request's headers, and for its body

    @classmethod
    def unlimited(cls) -> Limits:
        """No rate limit and no socket cap (benchmarks from one address); the body's size
        and the request's time stay limited."""
        return cls(lookups=0, joins=0, connects=0, creates=0, seat_sockets=0, room_sockets=0)

    def updated(self, options: Iterable[str]) -> Limits:
        """These limits with ``NAME=VALUE`` options applied (``yaniv serve --limit``);
        ValueError in words for an unknown name or a bad value."""
        fields = {f.name: f for f in dataclasses.fields(self)}
        changes: dict[str, int | float] = {}
        for option in options:
            name, sep, value = option.partition("=")
            name = name.strip().replace("-", "_")
            if not sep or name not in fields:
                raise ValueError(
                    f"--limit {option[:40]!r}: expected NAME=VALUE with NAME one of "
                    + ", ".join(f.replace("_", "-") for f in fields)
                )
            try:
                number: int | float = (
                    float(value) if name == "request_timeout" else _size(value.strip())
                )
            except ValueError:
                raise ValueError(
                    f"--limit {option[:40]!r}: {value[:20]!r} is not a number"
                ) from None
            if not (number >= 0 and math.isfinite(number)):
                raise ValueError(f"--limit {option[:40]!r}: the value is 0 or more")
            if name in ("max_body", "request_timeout") and number == 0:
                raise ValueError(f"--limit {option[:40]!r}: a request's size and time are limited")
            changes[name] = number
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


def _size(value: str) -> int:
    """A whole number, with an optional k (KiB) or m (MiB) suffix."""
    scale = {"k": 1024, "m": 1024 * 1024}.get(value[-1:].lower(), 1)
    digits = value[:-1] if scale > 1 else value
    if not digits.isdigit():
        raise ValueError(value)
    return int(digits) * scale


class Counter(Protocol):
    """Token buckets by key: the one call the limits need of them."""

    async def take(self, key: str, per_minute: int) -> float:
        """Count a request under ``key`` (a bucket of ``per_minute`` tokens refilled over a
        minute): 0.0 when it may go on, else the seconds until it may."""
        ...


class MemoryCounter:
    """Token buckets in this process's memory (one process; a Redis counter for many).

    At most ``max_keys`` buckets are kept: beyond that, the least recently used go (a bucket
    unused for a minute is full again anyway, and a forgotten one starts full).
    """

    def __init__(
        self, clock: Callable[[], float] = time.monotonic, max_keys: int = 100_000
    ) -> None:
        self.clock = clock
        self.max_keys = max_keys
        self._buckets: dict[str, tuple[float, float]] = {}  # key -> tokens, when counted

    async def take(self, key: str, per_minute: int) -> float:
        """See ``Counter.take``."""
        return self.take_now(key, per_minute, self.clock())

    def take_now(self, key: str, per_minute: int, now: float) -> float:
        """``take`` at the moment ``now``."""
        rate = per_minute / 60.0
        tokens, last = self._buckets.pop(key, (float(per_minute), now))
        tokens = min(float(per_minute), tokens + max(0.0, now - last) * rate)
        wait = 0.0
        if tokens >= 1.0:
            tokens -= 1.0
        else:
            wait = (1.0 - tokens) / rate
        self._buckets[key] = (tokens, now)  # last in the dict: the most recently used
        if len(self._buckets) > self.max_keys:
            for old in list(self._buckets)[: len(self._buckets) - self.max_keys // 2]:
                del self._buckets[old]
        return wait


def address_key(host: str | None) -> str:
    """Whom a request is counted against: its client's address, an IPv6 one by its /64
    network (one machine is commonly given a whole /64)."""
    if not host:
        return "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def sockets_refusal(limits: Limits, seats: Iterable[int | None], seat: int | None) -> str | None:
    """Why one more socket may not join a room whose open sockets are of ``seats`` (None for
    a spectator), in words, or None when it may."""
    seats = list(seats)
    if limits.room_sockets and len(seats) >= limits.room_sockets:
        return f"this room has {len(seats)} connections open, the most it takes: try later"
    if seat is not None and limits.seat_sockets:
        mine = sum(1 for s in seats if s == seat)
        if mine >= limits.seat_sockets:
            return (
                f"this seat has {mine} connections open, the most it takes: "
                "close another tab or device of this game first"
            )
    return None


def retry_seconds(wait: float) -> int:
    """A wait as the whole seconds of a Retry-After header (at least 1)."""
    return max(1, math.ceil(wait))
