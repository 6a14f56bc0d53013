"""Memory over many games in one process: the engine's tables must not grow without bound.

    python benchmarks/memory.py                 # 10,000 random 4-player games
    python benchmarks/memory.py --games 2000 --json

Prints the process's resident memory (RSS, MB) every tenth of the run; the last line is one
JSON object with the figures.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

from yaniv.game import Game, Phase
from yaniv.rules import PRESETS, RuleSet


def rss_mb() -> float:
    """The resident set size of this process now, in MB (Linux /proc)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def play(game: Game, rng: random.Random, cap: int = 5000) -> int:
    """Random legal moves to the end of the game (or the cap); returns the moves made."""
    for moves in range(cap):
        phase = game.phase
        if phase is Phase.GAME_OVER:
            return moves
        if phase is Phase.ROUND_OVER:
            game.next_round()
            continue
        legal = game.legal_moves()
        game.apply(legal[rng.randrange(len(legal))])
    return cap


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--json", action="store_true", help="only the JSON line")
    args = parser.parse_args()
    rng = random.Random(1)
    presets = [RuleSet.preset(name) for name in PRESETS]
    marks: list[tuple[int, float]] = [(0, rss_mb())]
    moves = 0
    start = time.perf_counter()
    step = max(1, args.games // 10)
    for i in range(1, args.games + 1):
        game = Game.new(presets[i % len(presets)], 2 + i % 3, seed=i)
        moves += play(game, rng)
        if i % step == 0:
            marks.append((i, rss_mb()))
            if not args.json:
                print(f"{i:>7} games  {marks[-1][1]:7.1f} MB")
    seconds = time.perf_counter() - start
    after_first = marks[1][1] if len(marks) > 1 else marks[0][1]
    print(
        json.dumps(
            {
                "games": args.games,
                "moves": moves,
                "seconds": round(seconds, 1),
                "rss_start_mb": round(marks[0][1], 1),
                "rss_after_first_tenth_mb": round(after_first, 1),
                "rss_end_mb": round(marks[-1][1], 1),
                "growth_after_first_tenth_mb": round(marks[-1][1] - after_first, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
