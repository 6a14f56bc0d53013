"""The bots' ladder (issue 17): each level against the one below it, under each preset and the
issue's house rule set, in 2 players (one against one) and in 4 (one against three), on the
arena's duplicate deals (every deal played once per seat rotation). Prints each rung's win
rate with its 95 % (Wilson) interval, whether the rung holds (2 players: the interval's lower
end above 55 %; 4 players: above the fair share of 25 %), and the upper level's decision times;
on stderr, each rung's games so far, about every tenth of them.

    .venv/bin/python benchmarks/ladder.py [--levels random,easy,medium,expert,master]
        [--rules standard,quick,hebrew,draw_first,slapdown,house] [--players 2,4]
        [--games 400] [--seed 1] [--jobs 2] [--think-ms 20] [--journal-dir DIR] [--json]

``house`` is the rule set of the issue (and of benchmarks/engine.py's greedy figure): threshold
5, limit 100, caller-only Assaf +30, subtract 50 at multiples of 50, jokers in sets, run ends
or a set's any card picked up, the caller starts. ``--games`` is per rung, rounded up to whole
deals. Every rung of a run uses the same seed, so the rungs of one rule set share their deals.
``--journal-dir`` keeps each rung's games in a journal of its own there (the arena's
``--journal``): the same command run again after a stop plays only the games not yet played.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from engine import LIKE_FOR_LIKE

from yaniv.arena import run_arena
from yaniv.bots.base import bot_names
from yaniv.errors import YanivError
from yaniv.rules import PRESETS, RuleSet

#: The issue's house rule set, by the name ``--rules`` knows it by.
HOUSE = "house"
#: The lower end of the interval a rung must clear, by players (2: the issue's 55 %; more: the
#: fair share).
BAR = {2: 0.55}


def rule_set(name: str) -> RuleSet:
    """A preset by name, or the house rule set."""
    if name == HOUSE:
        return RuleSet.from_preset_and_options("standard", LIKE_FOR_LIKE.split())
    return RuleSet.preset(name)


def bar(players: int) -> float:
    """The lower end of the 95 % interval that a rung of ``players`` must clear."""
    return BAR.get(players, 1 / players)


class Progress:
    """Reports a rung's games as they finish, on stderr, about every tenth of them: a long
    rung (an hour and more at the master's default budget) shows where it is, and a run cut
    short leaves its count so far."""

    def __init__(self, label: str, games: int, out: TextIO | None = None) -> None:
        self.label = label
        self.games = games
        self.every = max(1, games // 10)
        self.out = out or sys.stderr  # looked up now: a test may have replaced it
        self.done = 0
        self.wins = 0
        self.t0 = time.perf_counter()

    def __call__(self, game: dict[str, Any]) -> None:
        self.done += 1
        # The upper level is entrant 0; a shared win counts whole, as the arena counts it.
        self.wins += any(game["entrants"][s] == 0 for s in game["winners"])
        if self.done % self.every == 0 or self.done == self.games:
            minutes = (time.perf_counter() - self.t0) / 60
            print(
                f"{self.label}: {self.done}/{self.games} games, upper won {self.wins} "
                f"({self.wins / self.done:.1%}), {minutes:.1f} min",
                file=self.out,
                flush=True,
            )


def rung(
    upper: str,
    lower: str,
    label: str,
    rules: RuleSet,
    players: int,
    games: int,
    seed: int,
    jobs: int,
    think_ms: float | None,
    journal_dir: Path | None = None,
) -> dict[str, Any]:
    """One rung: ``upper`` in one seat, ``lower`` in the others, over ``games`` games rounded up
    to whole deals, under ``rules`` (named ``label`` in the progress lines). With
    ``journal_dir``, its games are journaled there (read back where a run before played them)."""
    games = -(-games // players) * players
    journal = None
    if journal_dir is not None:
        journal = journal_dir / f"{label}-{players}p-{upper}-over-{lower}-seed{seed}.jsonl"
    t0 = time.perf_counter()
    progress = Progress(f"{label}, {players} players, {upper} > {lower}", games)
    report = run_arena(
        [upper, lower],
        players,
        games,
        rules,
        seed=seed,
        jobs=jobs,
        think_ms=think_ms,
        on_game=progress,
        journal=journal,
    )
    top = report["bots"][0]
    lo, hi = top["ci95"]
    return {
        "upper": upper,
        "lower": lower,
        "players": players,
        "games": top["games"],
        "win_rate": top["win_rate"],
        "ci95": [lo, hi],
        "bar": bar(players),
        "holds": lo > bar(players),
        "capped": report["capped"],
        "capped_games": report["capped_games"],  # the arena's game indices, for a replay
        "errors": len(report["errors"]),
        "decision_ms": top["decision_ms"],
        "seconds": time.perf_counter() - t0,
    }


def row(rules: str, r: dict[str, Any]) -> str:
    """A markdown table row of one rung."""
    lo, hi = r["ci95"]
    ms = r["decision_ms"]
    return (
        f"| {rules} | {r['players']} | {r['upper']} > {r['lower']} | {r['games']} "
        f"| {r['win_rate']:.1%} | {lo:.1%}-{hi:.1%} | {'yes' if r['holds'] else 'no'} "
        f"| {ms['median']:.2f} / {ms['p99']:.2f} | {r['capped']} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default="random,easy,medium,expert,master")
    parser.add_argument("--rules", default=",".join([*PRESETS, HOUSE]))
    parser.add_argument("--players", default="2,4")
    parser.add_argument("--games", type=int, default=400, help="games per rung")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--think-ms", type=float, default=None, help="the master's budget")
    parser.add_argument(
        "--journal-dir", type=Path, default=None, help="journal each rung's games here"
    )
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    args = parser.parse_args(argv)
    levels = args.levels.split(",")
    unknown = [level for level in levels if level not in bot_names()]
    if unknown or len(levels) < 2:
        parser.error(f"--levels: two or more of {', '.join(bot_names())} (got {args.levels!r})")
    names = args.rules.split(",")
    bad = [n for n in names if n != HOUSE and n not in PRESETS]
    if bad:
        parser.error(f"--rules: unknown {', '.join(bad)}; known: {', '.join([*PRESETS, HOUSE])}")
    try:
        players = [int(p) for p in args.players.split(",")]
    except ValueError:
        parser.error(f"--players: numbers such as 2,4 (got {args.players!r})")
    if args.games < 1:
        parser.error("--games: at least 1")
    if args.journal_dir is not None and not args.journal_dir.is_dir():
        parser.error(f"--journal-dir: {args.journal_dir} is not a directory")
    print(
        "| rules | players | rung | games | upper's win rate | 95 % interval | holds "
        "| upper's decision ms, p50 / p99 | capped |"
    )
    print("| --- | ---: | --- | ---: | ---: | --- | --- | --- | ---: |")
    results: dict[str, list[dict[str, Any]]] = {}
    for name in names:
        rules = rule_set(name)
        for n in players:
            for lower, upper in zip(levels, levels[1:], strict=False):
                try:
                    r = rung(
                        upper,
                        lower,
                        name,
                        rules,
                        n,
                        args.games,
                        args.seed,
                        args.jobs,
                        args.think_ms,
                        args.journal_dir,
                    )
                except YanivError as exc:  # a journal of another run, say
                    print(f"error: {exc}", file=sys.stderr)
                    return 2
                results.setdefault(name, []).append(r)
                print(row(name, r), flush=True)
    held = sum(r["holds"] for rs in results.values() for r in rs)
    total = sum(len(rs) for rs in results.values())
    print(f"{held} of {total} rungs hold", file=sys.stderr)
    if args.json:
        print(json.dumps({"seed": args.seed, "think_ms": args.think_ms, "rungs": results}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
