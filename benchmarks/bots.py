"""Decision time of each bot level, and of the coach's Yaniv odds, over positions from real
games (prints ms figures).

    .venv/bin/python benchmarks/bots.py [--games N] [--json]

Each level plays ``N`` games against medium with 2 players and ``N`` with 4 (the level in
seat 0); every decision of seat 0 is timed. The coach line times
``yaniv_success_probability`` at every turn where a Yaniv call under the threshold is legal,
in the medium games of 2, 3 and 4 players.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from functools import partial

from yaniv import Game
from yaniv.arena import percentile
from yaniv.bots import get_bot
from yaniv.bots.coach import yaniv_success_probability
from yaniv.game import Phase
from yaniv.moves import YANIV
from yaniv.rules import RuleSet
from yaniv.view import PlayerView


def play(
    level: str, players: int, seed: int, watch: Callable[[PlayerView], None] | None = None
) -> list[float]:
    """One game of ``level`` (seat 0) against medium; seat 0's decision times in ms."""
    game = Game.new(RuleSet(), players=players, seed=seed)
    bots = [get_bot(level if s == 0 else "medium", seed + s) for s in range(players)]
    times: list[float] = []
    while game.phase != Phase.GAME_OVER:
        if game.phase == Phase.ROUND_OVER:
            game.next_round()
            continue
        seat = game.to_move
        assert seat is not None
        view = game.view(seat)
        if watch is not None:
            watch(view)
        t0 = time.perf_counter()
        move = bots[seat].choose(view)
        if seat == 0:
            times.append((time.perf_counter() - t0) * 1000)
        game.apply(move)
    return times


def time_coach(view: PlayerView, into: list[float]) -> None:
    """Time the coach's odds where a Yaniv call under the threshold is legal."""
    if YANIV in view.legal_moves and view.hand_value <= view.rules.yaniv_threshold:
        t0 = time.perf_counter()
        yaniv_success_probability(view)
        into.append((time.perf_counter() - t0) * 1000)


def figures(times: list[float]) -> dict[str, float]:
    """Count, median, mean, p99 and max of a list of ms times."""
    return {
        "decisions": len(times),
        "median_ms": round(percentile(times, 0.5), 3),
        "mean_ms": round(statistics.fmean(times), 3),
        "p99_ms": round(percentile(times, 0.99), 3),
        "max_ms": round(max(times), 3),
    }


def show(label: str, f: dict[str, float]) -> None:
    """One line of figures."""
    print(
        f"{label:>18}: {f['decisions']:6d} decisions  median {f['median_ms']:7.3f} ms  "
        f"mean {f['mean_ms']:7.3f} ms  p99 {f['p99_ms']:7.2f} ms  max {f['max_ms']:7.2f} ms"
    )


def main() -> None:
    """Time every level, then the coach."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games per level and size")
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    args = parser.parse_args()
    out: dict[str, dict[str, float]] = {}
    for level in ("random", "easy", "medium", "expert"):
        for players in (2, 4):
            times = [t for seed in range(args.games) for t in play(level, players, seed)]
            out[f"{level}_{players}p"] = figures(times)
            show(f"{level}, {players} players", out[f"{level}_{players}p"])
    for players in (2, 3, 4):
        coach: list[float] = []
        for seed in range(args.games):
            play("medium", players, seed, partial(time_coach, into=coach))
        out[f"coach_{players}p"] = figures(coach)
        show(f"coach, {players} players", out[f"coach_{players}p"])
    if args.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
