"""Decision time of each bot level over positions from real games (prints ms figures).

    .venv/bin/python benchmarks/bots.py [GAMES]
"""

from __future__ import annotations

import sys
import time

from yaniv import Game
from yaniv.arena import percentile
from yaniv.bots import get_bot
from yaniv.game import Phase
from yaniv.rules import RuleSet


def main(games: int = 10) -> None:
    """Play ``games`` games of each level against medium and time every decision."""
    for level in ("random", "easy", "medium", "expert"):
        times: list[float] = []
        for seed in range(games):
            game = Game.new(RuleSet(), players=2, seed=seed)
            bots = [get_bot(level, seed), get_bot("medium", seed)]
            while game.phase != Phase.GAME_OVER:
                if game.phase == Phase.ROUND_OVER:
                    game.next_round()
                    continue
                seat = game.to_move
                assert seat is not None
                view = game.view(seat)
                t0 = time.perf_counter()
                move = bots[seat].choose(view)
                if seat == 0:
                    times.append((time.perf_counter() - t0) * 1000)
                game.apply(move)
        print(f"{level:>7}: {len(times):6d} decisions  median {percentile(times, 0.5):7.2f} ms"
              f"  p99 {percentile(times, 0.99):7.2f} ms  max {max(times):7.2f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
