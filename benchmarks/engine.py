"""Engine throughput: random play, legal-move generation, greedy games.

    python benchmarks/engine.py          # a table
    python benchmarks/engine.py --json   # ... and one JSON object as the last line

Greedy: call Yaniv whenever allowed, discard the legal discard worth the most points, draw a
pickable card worth less than 5 (and less than the best card just discarded, or two greedy
players can swap equal cards forever) or else the stock.

Random play is also given per CPU second of this process, steadier than the wall clock on a
shared machine; the load average at the start says how shared it was.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from collections.abc import Callable

from yaniv import discards
from yaniv.cards import VALUE
from yaniv.game import Game, Phase
from yaniv.moves import DRAW_STOCK, DRAWS, YANIV, Move
from yaniv.rules import RuleSet

STANDARD = RuleSet()


def random_moves(seconds: float, players: int = 4) -> int:
    """Uniformly random legal moves across whole games for ``seconds``; returns the count."""
    rng = random.Random(1)
    moves = 0
    seed = 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        game = Game.new(STANDARD, players, seed)
        seed += 1
        while True:
            phase = game.phase
            if phase is Phase.ROUND_OVER:
                game.next_round()
                continue
            if phase is Phase.GAME_OVER:
                break
            legal = game.legal_moves()
            game.apply(legal[rng.randrange(len(legal))])
            moves += 1
    return moves


def random_play(seconds: float, players: int = 4) -> tuple[float, float]:
    """Uniformly random legal moves, across whole games: (moves per wall-clock second, moves
    per CPU second of this process; the second is steadier on a shared machine)."""
    wall, cpu = time.perf_counter(), time.process_time()
    moves = random_moves(seconds, players)
    return moves / (time.perf_counter() - wall), moves / (time.process_time() - cpu)


def start_positions(count: int) -> list[Game]:
    """Start-of-turn positions from random standard games, 4 players."""
    rng = random.Random(2)
    out: list[Game] = []
    seed = 0
    while len(out) < count:
        game = Game.new(STANDARD, 4, seed)
        seed += 1
        while game.phase < Phase.ROUND_OVER and len(out) < count:
            if game.phase is Phase.START and rng.random() < 0.3:
                out.append(game.clone())
            legal = game.legal_moves()
            game.apply(rng.choice(legal))
    return out


def legal_moves_us(positions: list[Game], cold: bool) -> float:
    """Median microseconds of ``legal_moves()`` over the positions.

    Cold: a hand not yet in the table (composed from the tables of its ranks and suits); warm: the
    steady state of a long simulation, where the hand's discards are already in the table.
    """
    times: list[float] = []
    reps = 1 if cold else 200
    for game in positions:
        if cold:
            for table in discards._TABLES.values():
                table.clear()
        else:
            game.legal_moves()
        t0 = time.perf_counter()
        for _ in range(reps):
            game.legal_moves()
        times.append((time.perf_counter() - t0) / reps * 1e6)
    return statistics.median(times)


def greedy_move(game: Game) -> Move:
    """The greedy policy of the benchmark."""
    legal = game.legal_moves()
    if legal[0] is YANIV:
        return YANIV
    if game.phase is Phase.SLAP:
        return legal[0]
    if game.phase is Phase.DRAW or (game.phase is Phase.START and game.rules.draw_first):
        best = min(game.pickable, key=VALUE.__getitem__)
        shed = max(VALUE[c] for c in game.pile[-1]) if game.phase is Phase.DRAW else 10
        if VALUE[best] < min(5, shed) or not game.stock:
            return DRAWS[best]
        return DRAW_STOCK
    return max(legal, key=lambda m: m.value)  # type: ignore[union-attr]


def greedy_games(seconds: float, players: int) -> float:
    """Whole greedy games per second."""
    games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        game = Game.new(STANDARD, players, games)
        while True:
            phase = game.phase
            if phase is Phase.ROUND_OVER:
                game.next_round()
            elif phase is Phase.GAME_OVER:
                break
            else:
                game.apply(greedy_move(game))
        games += 1
    return games / (time.perf_counter() - start)


def main() -> None:
    """Run every benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per throughput figure")
    args = parser.parse_args()

    figures: dict[str, float] = {"load_average_1m": round(os.getloadavg()[0], 2)}
    per_wall, per_cpu = random_play(args.seconds)
    figures["random_moves_per_s"] = round(per_wall, 1)
    figures["random_moves_per_cpu_s"] = round(per_cpu, 1)
    print(f"{'random-play moves per second (4 players)':<48} {per_wall:>12,.1f}")
    print(f"{'... per CPU second of this process':<48} {per_cpu:>12,.1f}")
    runs: list[tuple[str, str, Callable[[], float]]] = [
        (
            "greedy_games_per_s_2p",
            "greedy games per second, 2 players",
            lambda: greedy_games(args.seconds, 2),
        ),
        (
            "greedy_games_per_s_4p",
            "greedy games per second, 4 players",
            lambda: greedy_games(args.seconds, 4),
        ),
    ]
    for key, label, run in runs:
        figures[key] = round(run(), 1)
        print(f"{label:<48} {figures[key]:>12,.1f}")
    positions = start_positions(2000)
    figures["legal_moves_us_median"] = round(legal_moves_us(positions, cold=False), 3)
    print(
        f"{'legal_moves() at a turn start, median us (warm)':<48} "
        f"{figures['legal_moves_us_median']:>12.3f}"
    )
    figures["legal_moves_cold_us_median"] = round(legal_moves_us(positions[:500], cold=True), 3)
    print(
        f"{'... first time a hand is seen, median us (cold)':<48} "
        f"{figures['legal_moves_cold_us_median']:>12.3f}"
    )
    figures["greedy_games_per_s"] = figures["greedy_games_per_s_4p"]
    print(f"{'load average (1 min) at the start':<48} {figures['load_average_1m']:>12.2f}")
    if args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
