"""A soak: ``--games`` games at once, each followed by a new one, for ``--minutes``, with the
resident memory (RSS) of every server process sampled each minute.

The servers are started as benchmarks/load.py starts them (one, or ``--workers N`` sharing a
PostgreSQL database and Redis). Memory is flat when no sample after the first five minutes
is more than 20 MB above the sample at five minutes. Prints the samples and the verdict as
JSON on its last line, with the load average.

    python benchmarks/soak.py --games 100 --minutes 30
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load import Stats, play, servers  # noqa: E402

#: The growth allowed after the first five minutes (issue 16).
FLAT_MB = 20.0


def rss_mb(pid: int) -> float:
    """The resident memory of process ``pid`` in MB (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def soak(args: argparse.Namespace, bases: list[str], pids: list[int]) -> dict[str, Any]:
    stats = Stats()
    deadline = time.monotonic() + args.minutes * 60
    samples: list[list[float]] = []
    games = 0

    async def player(index: int, http: httpx.AsyncClient) -> None:
        nonlocal games
        n = index
        while time.monotonic() < deadline:
            try:
                await play(bases, http, stats, args, n)
            except Exception as exc:  # a client's failure is counted; the soak goes on
                stats.errors.append(f"client: {exc!r}"[:80])
                await asyncio.sleep(1.0)
            games += 1
            n += args.games

    async def sampler() -> None:
        while True:
            samples.append([round(rss_mb(pid), 1) for pid in pids])
            if time.monotonic() >= deadline:
                return
            await asyncio.sleep(60)

    limits = httpx.Limits(max_connections=100, keepalive_expiry=2.0)
    async with httpx.AsyncClient(timeout=30, limits=limits) as http:
        tasks = [asyncio.create_task(player(i, http)) for i in range(args.games)]
        await sampler()
        done, pending = await asyncio.wait(tasks, timeout=5)  # the games in play stop
        for task in pending:
            task.cancel()
    at5 = samples[min(5, len(samples) - 1)]
    growth = [
        round(max(s[i] for s in samples[5:]) - at5[i], 1) if len(samples) > 5 else 0.0
        for i in range(len(pids))
    ]
    return {
        "games_at_once": args.games,
        "minutes": args.minutes,
        "workers": len(pids),
        "games_played": games,
        "rounds": stats.rounds,
        "errors": len(stats.errors),
        "error_samples": stats.errors[:5],
        "rss_mb_each_minute": samples,
        "growth_after_5_min_mb": growth,
        "flat": all(g <= FLAT_MB for g in growth),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games at once (1-2000)")
    parser.add_argument("--minutes", type=float, default=30.0, help="how long (0.1-600)")
    parser.add_argument("--opponents", type=int, default=2, help="bots per game (1-7)")
    parser.add_argument("--level", default="random", help="the bots' level")
    parser.add_argument("--bot-delay", type=float, default=0.2, help="the server's bot pacing")
    parser.add_argument("--database", default=None, help="a database URL (default: SQLite)")
    parser.add_argument(
        "--rules",
        type=json.loads,
        default={"score_limit": 50},
        help="the games' rule options as JSON (default: a limit of 50, so that games end "
        "and are replaced often: memory is measured in a steady state)",
    )
    parser.add_argument("--workers", type=int, default=1, help="server processes (1-16)")
    parser.add_argument("--redis", default="", help="a Redis URL (needed by --workers > 1)")
    args = parser.parse_args()
    args.games = max(1, min(args.games, 2000))
    args.minutes = max(0.1, min(args.minutes, 600.0))
    args.rounds, args.cross = 20, False  # whole games: finished rooms must leave memory
    args.whole_states = False  # deltas, as the web app asks
    args.think, args.ramp = 0.0, 0.0
    args.workers = max(1, min(args.workers, 16))
    if args.workers > 1 and not (args.redis and args.database):
        parser.error("--workers needs --redis and --database postgresql://...")
    load_before = list(os.getloadavg())
    with servers(args, "soak") as running:
        bases = [base for base, _ in running]
        figures = asyncio.run(soak(args, bases, [server.pid for _, server in running]))
    figures["load_average"] = {"before": load_before, "after": list(os.getloadavg())}
    print(
        f"{figures['games_played']} games in {args.minutes} min, growth after 5 min "
        f"{figures['growth_after_5_min_mb']} MB: {'flat' if figures['flat'] else 'NOT flat'}"
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
