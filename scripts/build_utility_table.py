#!/usr/bin/env python
"""Rebuild yaniv/bots/data/round_points.json, the shipped part of the game-level utility.

For each rule set below and 2 to 8 players it plays ``--rounds`` rounds of self-play with the
expert's rollout policy (``yaniv.bots.utility.self_play_points``, seeded per entry from
``utility.SEED``, the entry's rule key and its players) and stores the histogram of one
player's raw round points; then ``--landing-rounds`` rounds of the policy like the expert's,
the scores drawn as in a game (``utility.self_play_landing``), and stores how often a seat
that many points under the bonus score it aims at landed on it. The same seeds and rounds give
the same entries (the file also records the CPU seconds it took).

    nice -n 10 .venv/bin/python scripts/build_utility_table.py    # 1000 and 4000 rounds each
    nice -n 10 .venv/bin/python scripts/build_utility_table.py --rounds 5000 --jobs 2

Cost of the shipped file (6 rule sets x 7 player counts: 42 entries of 1000 rounds and 42 of
4000 landing rounds): 870 CPU seconds (0.24 CPU-hours), 457 s wall with two jobs, the file's
"cpu_seconds", on session 34's 2-core machine; 416 CPU seconds on the faster machine of the
build before (505 before the rollouts' calls were judged per opponent, which shortened the
landings' rounds of many players).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from yaniv.bots import utility as U  # noqa: E402
from yaniv.rules import RuleSet  # noqa: E402

#: The issue's house rule set: threshold 5, limit 100, caller-only Assaf +30, subtract 50 at
#: 50/100, jokers in sets, run ends / set any pickup, caller starts.
HOUSE = RuleSet(
    yaniv_threshold=5,
    score_limit=100,
    assaf_scoring="caller_only",
    assaf_penalty=30,
    bonus="subtract",
    bonus_step=50,
    bonus_amount=50,
    jokers_in_sets=True,
    pickup="run_ends_set_any",
    next_starter="caller",
)
RULE_SETS: dict[str, RuleSet] = {
    **{
        name: RuleSet.preset(name)
        for name in ("standard", "quick", "hebrew", "draw_first", "slapdown")
    },
    "house": HOUSE,
}
OUT = Path(__file__).resolve().parent.parent / "yaniv" / "bots" / "data" / U.DATA_FILE


def _entry(job: tuple[str, int, int, int]) -> tuple[str, dict[str, Any], dict[str, Any], float]:
    name, players, rounds, landing_rounds = job
    t0 = time.process_time()
    entry = U.table_entry(RULE_SETS[name], players, rounds)
    landing = U.landing_entry(RULE_SETS[name], players, landing_rounds)
    return name, entry, landing, time.process_time() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=U.TABLE_ROUNDS)
    parser.add_argument("--landing-rounds", type=int, default=U.LANDING_ROUNDS)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    jobs = [(name, k, args.rounds, args.landing_rounds) for name in RULE_SETS for k in range(2, 9)]
    seen: set[tuple[str, str, int]] = set()
    entries: list[dict[str, Any]] = []
    landings: list[dict[str, Any]] = []
    cpu = 0.0
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for name, entry, landing, seconds in pool.map(_entry, jobs):
            cpu += seconds
            print(f"{name:<10} {entry['players']} players {seconds:6.1f} s cpu", flush=True)
            # Two names with the same round (or landing) rules share an entry.
            for kind, item, out in (("points", entry, entries), ("landing", landing, landings)):
                key = (kind, item["key"], item["players"])
                if key not in seen:
                    seen.add(key)
                    item["rules"] = name
                    out.append(item)
    data = {
        "version": U.VERSION,
        "what": "raw round points of one player, by round rules and players: "
        "self-play of the expert's rollout policy; and landings on a bonus score, "
        "[tries, landed] per need 1..50, by rules and players: self-play of the policy "
        "like the expert's (yaniv.bots.utility)",
        "seed": U.SEED,
        "rounds": args.rounds,
        "landing_rounds": args.landing_rounds,
        "cpu_seconds": round(cpu, 1),
        "command": "nice -n 10 .venv/bin/python scripts/build_utility_table.py "
        f"--rounds {args.rounds} --landing-rounds {args.landing_rounds}",
        "entries": entries,
        "landing": landings,
    }
    args.out.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(
        f"wrote {args.out} ({len(entries)} and {len(landings)} entries) in "
        f"{time.perf_counter() - t0:.0f} s wall, {cpu:.0f} s cpu, {os.cpu_count()} cores",
    )


if __name__ == "__main__":
    main()
