"""How well a Yaniv call's chance of success is judged: the coach against the belief (prints
Brier scores and a table by decile).

    .venv/bin/python benchmarks/call_odds.py [--players 4] [--games 25] [--worlds 100]
        [--rules standard]

The expert plays itself from seeded deals (seeds from 8,000,000: none that the belief was
trained on). At every turn start where the seat to move could call Yaniv at or under the
threshold, the call is tried on a copy of the real game (it succeeds where no one is Assaf)
and three judges give its chance beforehand:

- ``coach``: ``coach.yaniv_success_probability(view)``, the general calibration;
- ``coach-x``: the same told that every opponent is the expert (``against="expert"``);
- ``belief``: ``belief.call_chance``, the share of ``--worlds`` worlds drawn by the learned
  belief in which the call succeeds.

For each: the Brier score (lower is better), then per decile of the judged chance
``judged/happened(count)``.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from build_utility_table import RULE_SETS  # noqa: E402
from expert_selfplay import call_positions  # noqa: E402

from yaniv.bots.belief import call_chance  # noqa: E402
from yaniv.bots.coach import yaniv_success_probability  # noqa: E402

JUDGES = ("coach", "coach-x", "belief")


def collect(name: str, players: int, games: int, worlds: int) -> list[tuple[float, ...]]:
    """Per callable position: each judge's chance, then 1.0 where the call succeeded."""
    rows: list[tuple[float, ...]] = []
    for i in range(games):
        seed = 8_000_000 + i
        rng = random.Random(seed)
        for view, succeeded in call_positions(RULE_SETS[name], players, seed):
            rows.append(
                (
                    yaniv_success_probability(view),
                    yaniv_success_probability(view, against="expert"),
                    call_chance(view, rng, worlds),
                    1.0 if succeeded else 0.0,
                )
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=25)
    parser.add_argument("--worlds", type=int, default=100)
    parser.add_argument("--rules", default="standard", choices=sorted(RULE_SETS))
    args = parser.parse_args()
    if not 2 <= args.players <= 8:
        parser.error(f"--players {args.players}: expected 2 to 8")
    rows = collect(args.rules, args.players, args.games, args.worlds)
    if not rows:
        print("no position where a call was possible")
        return
    happened = sum(r[-1] for r in rows) / len(rows)
    print(f"{args.rules}, {args.players} players: {len(rows)} positions, {happened:.1%} succeeded")
    for j, judge in enumerate(JUDGES):
        brier = sum((r[j] - r[-1]) ** 2 for r in rows) / len(rows)
        bins: dict[int, list[tuple[float, ...]]] = {}
        for r in rows:
            bins.setdefault(min(9, int(r[j] * 10)), []).append(r)
        cells = " ".join(
            f"{sum(x[j] for x in b) / len(b):.2f}/{sum(x[-1] for x in b) / len(b):.2f}({len(b)})"
            for _, b in sorted(bins.items())
        )
        print(f"{judge:>8}: Brier {brier:.4f}  {cells}")


if __name__ == "__main__":
    main()
