"""The interpreter's settings for a server (``yaniv/server/runtime.py``): what survives a
collection is frozen, a full pass frees the cycles that die later, the C heap is trimmed."""

from __future__ import annotations

import gc
import os
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from yaniv.server import runtime


class Node:
    other: Node | None = None


@pytest.fixture
def frozen() -> Iterator[None]:
    """The server's collector policy for one test; the process's own restored after."""
    saved = gc.get_threshold()
    undo = runtime.freeze_survivors(young=200)
    try:
        yield
    finally:
        undo()
        gc.unfreeze()
        assert gc.get_threshold() == saved


def cycle() -> weakref.ref[Node]:
    """Two nodes that hold each other (only the collector frees them): a weak reference to one."""
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def test_what_survives_a_collection_is_frozen_and_a_full_pass_frees_its_cycles(
    frozen: None,
) -> None:
    assert gc.get_threshold()[0] == 200
    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    gc.collect(0)  # a young collection: the pair is alive, and frozen after it
    assert gc.get_freeze_count() > 0
    assert not any(o is a for o in gc.get_objects(0))
    del a, b  # now a cycle of garbage among the frozen objects
    gc.collect()  # an ordinary full collection reads no frozen object
    assert gone() is not None
    assert runtime.full_collection() >= 2
    assert gone() is None
    assert gc.get_freeze_count() > 0, "the survivors of the full pass are frozen again"


def test_survivors_of_the_automatic_collections_are_frozen(frozen: None) -> None:
    gc.unfreeze()
    kept = [[i] for i in range(2_000)]  # ten times the young threshold: collections run
    assert gc.get_freeze_count() >= len(kept) // 2
    assert len(kept) == 2_000


def test_the_server_collects_cycles_of_its_own_accord() -> None:
    """Whatever else makes a reference cycle, a server frees it within its full-collection
    period, though the collector's own passes never read it again; between, it collects the
    young generation on a clock."""
    gone = cycle()
    gc.disable()
    gc.freeze()  # as a server's survivors are: no pass but the full one reads the cycle now
    young = gc.get_stats()[0]["collections"]
    stop = runtime.collect_every(0.2, young_every=0.02)
    try:
        for _ in range(100):
            if gone() is None and gc.get_stats()[0]["collections"] > young + 3:
                break
            threading.Event().wait(0.05)
        assert gone() is None
        assert gc.get_stats()[0]["collections"] > young + 3, "no young collections on the clock"
    finally:
        stop.set()
        for thread in threading.enumerate():
            if thread.name == "yaniv-gc":
                thread.join(5)
        gc.unfreeze()  # what the passes froze: this test process's own collector again
        gc.enable()


def test_the_server_hands_free_heap_pages_back() -> None:
    """Pages freed between live chunks of the C heap stay in the process until trimmed: a
    server trims them each minute, so its memory follows what it holds."""
    if runtime._glibc() is None:
        pytest.skip("not glibc: malloc_trim is glibc's")

    def rss_mb() -> float:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        raise AssertionError("no VmRSS")

    blocks = [os.urandom(4000) for _ in range(25_000)]  # 100 MB of malloc's chunks
    kept = blocks[::50]  # one in fifty stays, holding the heap's pages between them
    del blocks
    before = rss_mb()
    assert runtime.trim_heap()
    assert before - rss_mb() > 50, "the freed pages were not handed back"
    assert len(kept) == 500
