"""The arena's games as Ray tasks: on a local Ray instance or an existing cluster.

Ray is optional (the ``ray`` extra: ``pip install 'yaniv[ray]'``); nothing here imports it
until a run asks for it, and without it :func:`ray_runner`'s runner raises a YanivError that
names the extra. The games are the arena's own (:func:`yaniv.arena.play_games` runs in each
task); each is seeded by its task alone, so the report is the one a local run gives for the
same seed (but for the measured decision times). Games go out in batches
(:func:`batch_size`), so that a task's overhead (a few milliseconds) stays small beside its
games, and the results are merged in game order by :func:`yaniv.arena.run_arena`.

External programs (``cmd:COMMAND``) are started on the worker that plays their game: the
command must work there.
"""

from __future__ import annotations

import logging
import math
import socket
from collections.abc import Callable, Sequence
from typing import Any

from .arena import GameTask, Runner, play_games
from .errors import YanivError

__all__ = ["RAY_EXTRA_HINT", "batch_size", "import_ray", "play_on_ray", "ray_runner"]

#: Where ``--ray`` sends a person who lacks Ray.
RAY_EXTRA_HINT = "pip install 'yaniv[ray]'"

#: Tasks per CPU the default batching aims at: enough for the last tasks to even out the
#: workers' loads, few enough for the per-task overhead to stay small.
TASKS_PER_CPU = 4

#: The most games in one task by default (a task's results come back, and the progress bar
#: moves, a batch at a time).
MAX_BATCH = 50


def import_ray() -> Any:
    """The ``ray`` module, or a YanivError naming the extra to install."""
    try:
        import ray
    except ImportError:
        raise YanivError(f"--ray needs Ray, which is not installed: {RAY_EXTRA_HINT}") from None
    return ray


def batch_size(games: int, cpus: float) -> int:
    """Games per task: about ``TASKS_PER_CPU`` tasks per CPU, at most ``MAX_BATCH`` games.

    >>> batch_size(1000, 2), batch_size(10, 2), batch_size(100_000, 64)
    (50, 2, 50)
    """
    return max(1, min(MAX_BATCH, math.ceil(games / (TASKS_PER_CPU * max(1.0, cpus)))))


def check_batch(batch: int | None) -> None:
    """Raise YanivError unless ``batch`` is None or a whole number of games, at least 1."""
    if batch is not None and (isinstance(batch, bool) or not isinstance(batch, int) or batch < 1):
        raise YanivError(f"--ray-batch {batch!r}: expected a whole number of games, at least 1")


#: Seconds to wait for a cluster's address to answer before giving up (Ray itself retries for
#: minutes).
CONNECT_TIMEOUT = 5.0


def check_reachable(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """Raise YanivError if ``HOST:PORT`` (or ``ray://HOST:PORT``) does not accept a connection.

    ``auto`` and ``local`` (Ray's own words) and addresses without a port are left to Ray.
    """
    target = address.removeprefix("ray://")
    host, sep, port = target.rpartition(":")
    if not sep or not port.isdigit() or not host:
        return
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as exc:
        raise YanivError(
            f"cannot reach the Ray cluster at {address!r}: {exc.strerror or exc} "
            "(is it running, and is the address its head node's?)"
        ) from None


def play_on_ray(
    tasks: Sequence[GameTask],
    on_game: Callable[[dict[str, Any]], None] | None = None,
    address: str | None = None,
    batch: int | None = None,
) -> list[dict[str, Any]]:
    """Play the games as Ray tasks; every game's summary (in the order they came back).

    Uses the Ray instance this process has already started or joined, if any; otherwise it
    starts one (``ray.init()``, local, or the cluster at ``address``) and shuts it down after.
    """
    check_batch(batch)
    ray = import_ray()
    started = False
    if not ray.is_initialized():
        if address is not None:
            check_reachable(address)
        try:
            ray.init(
                address=address,
                include_dashboard=False,
                logging_level=logging.WARNING,
                log_to_driver=False,
            )
        except Exception as exc:  # Ray raises ConnectionError, RuntimeError, ValueError...
            where = f"the Ray cluster at {address!r}" if address else "a local Ray instance"
            raise YanivError(f"cannot start or join {where}: {exc}") from None
        started = True
    try:
        cpus = float(ray.cluster_resources().get("CPU", 1.0))
        size = batch or batch_size(len(tasks), cpus)
        remote = ray.remote(num_cpus=1, max_retries=0)(play_games)
        pending = [remote.remote(list(tasks[i : i + size])) for i in range(0, len(tasks), size)]
        results: list[dict[str, Any]] = []
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            try:
                batch_results: list[dict[str, Any]] = ray.get(done[0])
            except ray.exceptions.RayError as exc:
                for ref in pending:
                    ray.cancel(ref, force=True)
                raise YanivError(f"a Ray task failed: {exc}") from None
            for r in batch_results:
                results.append(r)
                if on_game:
                    on_game(r)
        return results
    finally:
        if started:
            ray.shutdown()


def ray_runner(address: str | None = None, batch: int | None = None) -> Runner:
    """A runner for :func:`yaniv.arena.run_arena` that plays on Ray (see :func:`play_on_ray`).

    Checks now, before any game, that Ray is installed and that ``address`` (if given)
    answers, so that a missing extra or a wrong address is reported at once.
    """
    check_batch(batch)
    import_ray()
    if address is not None:
        check_reachable(address)

    def run(
        tasks: Sequence[GameTask], on_game: Callable[[dict[str, Any]], None] | None
    ) -> list[dict[str, Any]]:
        return play_on_ray(tasks, on_game, address, batch)

    return run
