"""Fit the calibration of the belief's Yaniv-call chance and store it in the belief's metadata.

    nice -n 10 .venv/bin/python scripts/fit_call_calibration.py [--games 40] [--dry-run]

``belief.call_chance`` counts the worlds drawn by the belief in which a call succeeds. On the
expert's self-play that count is under-confident in the middle (judged 0.55, happened about
0.65: the worlds draw each opponent's cards by their marginal chances, which spreads the hands'
values wider than they are). This script plays the expert against itself from seeded deals
(seeds from 9,000,000: neither the belief's training, its held-out games, nor the benchmarks'),
and at every turn start where the seat to move could call, tries the call on a copy of the real
game and counts the raw chance (``CALL_WORLDS`` worlds). It fits ``p = sigmoid(a * logit(raw)
+ b)`` by logistic regression (Newton's method), prints the Brier score before and after per
rule set and player count, and writes ``call_calibration`` into ``yaniv/bots/data/belief.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_utility_table import RULE_SETS  # noqa: E402
from expert_selfplay import call_positions  # noqa: E402

from yaniv.bots.belief import CALL_WORLDS, META, call_chance, logit, tempered  # noqa: E402

#: Rule set, players and a share of the games (as in the belief's training).
COMBOS = (
    ("standard", 2, 3),
    ("standard", 3, 1),
    ("standard", 4, 2),
    ("quick", 2, 1),
    ("hebrew", 2, 1),
    ("draw_first", 2, 1),
    ("slapdown", 2, 1),
    ("house", 2, 1),
    ("house", 4, 1),
)
FIRST_SEED = 9_000_000


def collect(name: str, players: int, games: int, first: int) -> list[tuple[float, float]]:
    """Per callable position: the raw chance counted in the belief's worlds, and 1.0 where the
    call succeeded."""
    rows: list[tuple[float, float]] = []
    for seed in range(first, first + games):
        rng = random.Random(seed)
        for view, succeeded in call_positions(RULE_SETS[name], players, seed):
            raw = call_chance(view, rng, CALL_WORLDS, calibrated=False)
            rows.append((raw, 1.0 if succeeded else 0.0))
    return rows


def fit(rows: list[tuple[float, float]]) -> tuple[float, float]:
    """``a, b`` of ``sigmoid(a * logit(raw) + b)`` by maximum likelihood (Newton's method)."""
    xs = [logit(raw) for raw, _ in rows]
    a, b = 1.0, 0.0
    for _ in range(50):
        ga = gb = haa = hab = hbb = 0.0
        for x, (_, y) in zip(xs, rows, strict=True):
            p = 1.0 / (1.0 + math.exp(-(a * x + b)))
            r, w = y - p, p * (1 - p)
            ga += r * x
            gb += r
            haa += w * x * x
            hab += w * x
            hbb += w
        det = haa * hbb - hab * hab
        da = (hbb * ga - hab * gb) / det
        db = (haa * gb - hab * ga) / det
        a, b = a + da, b + db
        if abs(da) + abs(db) < 1e-9:
            break
    return a, b


def brier(rows: list[tuple[float, float]], a: float, b: float) -> tuple[float, float]:
    raw = sum((p - y) ** 2 for p, y in rows) / len(rows)
    cal = sum((tempered(p, a, b) - y) ** 2 for p, y in rows) / len(rows)
    return raw, cal


def deciles(rows: list[tuple[float, float]], a: float, b: float) -> str:
    """Per decile of the calibrated chance: ``judged/happened(count)``."""
    bins: dict[int, list[tuple[float, float]]] = {}
    for raw, y in rows:
        p = tempered(raw, a, b)
        bins.setdefault(min(9, int(p * 10)), []).append((p, y))
    return " ".join(
        f"{sum(p for p, _ in b) / len(b):.2f}/{sum(y for _, y in b) / len(b):.2f}({len(b)})"
        for _, b in sorted(bins.items())
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per share")
    parser.add_argument("--dry-run", action="store_true", help="print, write nothing")
    args = parser.parse_args()
    start = time.process_time()
    per: dict[str, list[tuple[float, float]]] = {}
    seed = FIRST_SEED
    for name, players, share in COMBOS:
        games = args.games * share
        per[f"{name}:{players}"] = collect(name, players, games, seed)
        seed += games
        print(f"{name}:{players}: {len(per[f'{name}:{players}'])} positions", flush=True)
    rows = [r for rs in per.values() for r in rs]
    a, b = fit(rows)
    cpu = time.process_time() - start
    print(f"a = {a:.4f}, b = {b:.4f} over {len(rows)} positions ({cpu:.0f} CPU s)")
    figures = {}
    for key, rs in per.items():
        raw, cal = brier(rs, a, b)
        figures[key] = {"positions": len(rs), "brier_raw": round(raw, 4), "brier": round(cal, 4)}
        print(f"{key:>14}: Brier {raw:.4f} -> {cal:.4f} ({len(rs)} positions)")
    print(f"deciles, raw:        {deciles(rows, 1.0, 0.0)}")
    print(f"deciles, calibrated: {deciles(rows, a, b)}")
    if args.dry_run:
        return
    meta = json.loads(META.read_text())
    meta["call_calibration"] = {
        "a": round(a, 6),
        "b": round(b, 6),
        "positions": len(rows),
        "games_per_share": args.games,
        "fit": figures,
        "cpu_seconds": round(cpu, 1),
        "command": "scripts/fit_call_calibration.py",
    }
    META.write_text(json.dumps(meta, indent=1) + "\n")


if __name__ == "__main__":
    main()
