"""The interpreter's settings for a server of many games: the garbage collector, the GIL's
switch interval and the C heap (``tune_runtime``, called once by ``yaniv serve``).

The collector. A server's objects live long (rooms, their games and records, the sockets'
tasks) and its garbage is nearly all freed by reference counting: at 1,000 games over two
processes a young collection found 12 to 15 objects in cycles among some 50,000. CPython's
generations traverse each survivor again in every older generation, so with thresholds of
(20,000, 20, 50) a young collection held the event loop 40-55 ms of CPU and a middle one
about 460 ms, and those pauses set the 99th percentile of a move's latency
(``YANIV_LOAD_PAUSES`` in benchmarks/load.py shows them). Here the survivors of every automatic
collection go at once to the permanent generation (``gc.freeze``), which no automatic pass
reads again: each object is traversed once, and no pass grows with the rooms. Young
collections come on a clock (``YOUNG_EVERY``), so each stays small. The cycles that die after
their objects were frozen are freed by a full pass every ``FULL_COLLECTION_EVERY`` seconds
(``full_collection``), which thaws the permanent generation, collects everything and freezes
the survivors again.
"""

from __future__ import annotations

import ctypes
import functools
import gc
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

#: Seconds between two young collections. The collector's own count is of allocations less
#: deallocations, and a server mostly replaces what it holds (a socket's last state by the
#: next): at 500 games the young generation held 30,000 objects when that count reached 5,000,
#: a 25 ms pause (about 1 us an object). On a clock it holds what a quarter of a second made.
YOUNG_EVERY = 0.25
#: ... and allocations less deallocations that bring one sooner (CPython's default is 700).
YOUNG_THRESHOLD = 5_000
#: Seconds between the full collections a server makes of its own accord: the cycles that die
#: after their objects were frozen live that long. A pass at 1,000 games holds the event loop
#: some hundreds of ms: once in five minutes is below the 99th percentile's reach.
FULL_COLLECTION_EVERY = 300.0
#: Seconds between two hand-backs of the C heap's free pages to the system (``trim_heap``).
TRIM_EVERY = 60.0
#: glibc's mallopt parameter for the most malloc arenas.
M_ARENA_MAX = -8

# Held while a full pass runs, so that no collection freezes what the pass has thawed.
_full_pass = threading.Lock()


def tune_runtime() -> None:
    """Settings of the interpreter for a server of many games (see benchmarks/load.py).

    The collector as the module says: the objects of startup frozen, the survivors of each
    automatic collection frozen, a full pass every ``FULL_COLLECTION_EVERY`` seconds. The GIL
    is handed over every 0.5 ms rather than 5: the bots think and the database is written on
    other threads, and the event loop waited for them. Call once the app is imported.
    """
    gc.collect()
    gc.freeze()
    freeze_survivors()
    sys.setswitchinterval(0.0005)
    libc = _glibc()
    if libc is not None:  # few malloc arenas: the threads' own arenas fragment and keep pages
        libc.mallopt(M_ARENA_MAX, 2)
    collect_every(FULL_COLLECTION_EVERY)


def freeze_survivors(young: int = YOUNG_THRESHOLD) -> Callable[[], None]:
    """From now on, move what survives each collection to the permanent generation, and
    collect the young generation every ``young`` allocations; the returned function undoes
    both (the permanent generation stays as it is)."""
    saved = gc.get_threshold()

    def after(phase: str, info: dict[str, Any]) -> None:
        if phase == "stop" and not _full_pass.locked():
            gc.freeze()

    gc.callbacks.append(after)
    gc.set_threshold(young, *saved[1:])

    def undo() -> None:
        if after in gc.callbacks:
            gc.callbacks.remove(after)
        gc.set_threshold(*saved)

    return undo


def full_collection() -> int:
    """Collect every generation, the permanent one too, and freeze what survives again; the
    count of unreachable objects found."""
    with _full_pass:
        gc.unfreeze()
        try:
            return gc.collect()
        finally:
            gc.freeze()


def collect_every(
    seconds: float, trim_every: float = TRIM_EVERY, young_every: float = YOUNG_EVERY
) -> threading.Event:
    """On a thread of their own until the returned event is set: a young collection every
    ``young_every`` seconds, ``full_collection`` every ``seconds`` and ``trim_heap`` every
    ``trim_every``."""
    stop = threading.Event()

    def loop() -> None:
        collected = trimmed = time.monotonic()
        while not stop.wait(young_every):
            now = time.monotonic()
            if now - collected >= seconds:
                full_collection()
                collected = now
            else:
                gc.collect(0)
            if now - trimmed >= trim_every:
                trim_heap()
                trimmed = now

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
