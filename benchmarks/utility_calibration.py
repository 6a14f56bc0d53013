"""How well the game-level utility (``yaniv.bots.utility``) predicts who wins, in a level's
self-play (prints a table).

    .venv/bin/python benchmarks/utility_calibration.py [--rules standard] [--players 2]
        [--level expert] [--games 200] [--seed 7000000] [--jobs 1]

The level plays itself from seeded games (the bots seeded ``seed * 8 + seat``). At every round's
start, each active seat's chance of winning the game by the utility is set against what
happened (1 for a win, a shared win in part, 0 for a loss). Prints, per tenth of the judged
chance, the mean judged chance against the share that won, with their count; the Brier score;
and the temper that would calibrate it, ``a, b`` of ``sigmoid(a * logit(p) + b)`` fitted by
logistic regression (``a`` under 1: the utility is over-confident, the game's end nearer or
surer than it is). A research measurement: the utility models each seat's score as an
independent chain of the rollout policy's round points (its docstring), so how far it is from
real games is a figure, not a test.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from itertools import repeat
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1] / "scripts"))

from fit_call_calibration import brier, fit  # noqa: E402

from yaniv.arena import MAX_MOVES  # noqa: E402
from yaniv.bots import get_bot  # noqa: E402
from yaniv.bots.base import bot_names  # noqa: E402
from yaniv.bots.belief import tempered  # noqa: E402
from yaniv.bots.utility import win_chances  # noqa: E402
from yaniv.game import Game  # noqa: E402
from yaniv.rules import PRESETS, RuleSet  # noqa: E402
from yaniv.state import Phase  # noqa: E402

Row = tuple[float, float]  # the utility's chance for a seat, and its share of the game won


def game_rows(rules: RuleSet, players: int, level: str, seed: int) -> list[Row]:
    """The game of ``seed`` played by ``level`` in every seat: per round start and active
    seat, the utility's chance that the seat wins and the share of the game it won (none
    where the game reached the arena's move cap: it has no winner)."""
    bots = [get_bot(level, seed=seed * 8 + s) for s in range(players)]
    game = Game.new(rules, players=players, seed=seed)
    judged: list[tuple[int, float]] = []
    at_start = True
    for _ in range(MAX_MOVES):
        if game.is_over:
            break
        if game.phase == Phase.ROUND_OVER:
            game.next_round()
            at_start = True
            continue
        if at_start:
            chances = win_chances(rules, game.scores, game.out)
            judged += [(s, chances[s]) for s in game.active_seats()]
            at_start = False
        seat = game.to_move
        assert seat is not None
        game.apply(bots[seat].choose(game.view(seat)))
    if not game.is_over:
        return []
    winners = game.winners
    return [(p, 1 / len(winners) if s in winners else 0.0) for s, p in judged]


def table(rows: list[Row], a: float, b: float) -> list[str]:
    """Per tenth of the judged chance: judged against won, raw and tempered, with counts."""
    lines = [
        "| judged | positions | judged, won | tempered, won |",
        "| --- | ---: | --- | --- |",
    ]
    for tenth in range(10):
        sel = [(p, y) for p, y in rows if min(9, int(p * 10)) == tenth]
        if not sel:
            continue
        won = sum(y for _, y in sel) / len(sel)
        judged = sum(p for p, _ in sel) / len(sel)
        temp = sum(tempered(p, a, b) for p, _ in sel) / len(sel)
        lines.append(
            f"| {tenth / 10:.1f}-{(tenth + 1) / 10:.1f} | {len(sel)} | "
            f"{judged:.3f}, {won:.3f} | {temp:.3f}, {won:.3f} |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="standard", choices=sorted(PRESETS))
    parser.add_argument("--players", type=int, default=2, choices=range(2, 9))
    parser.add_argument("--level", default="expert", choices=bot_names())
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7_000_000)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    if args.games < 1 or args.jobs < 1:
        parser.error("--games and --jobs must be 1 or more")
    rules = RuleSet.preset(args.rules)
    seeds = range(args.seed, args.seed + args.games)
    with ProcessPoolExecutor(args.jobs) as pool:
        games = pool.map(game_rows, repeat(rules), repeat(args.players), repeat(args.level), seeds)
        rows = [row for rs in games for row in rs]
    if not rows:
        print(f"every game reached the move cap ({MAX_MOVES} moves): nothing to judge")
        return 1
    try:
        a, b = fit(rows)
        fitted = f"temper a = {a:.3f}, b = {b:.3f}"
    except (ZeroDivisionError, OverflowError):  # too few games: the outcomes are separable
        a, b, fitted = 1.0, 0.0, "too few games to fit a temper"
    raw, cal = brier(rows, a, b)
    print(
        f"{args.rules}, {args.players} players, {args.level} self-play, {args.games} games: "
        f"{len(rows)} positions; Brier {raw:.4f}, tempered {cal:.4f}; {fitted}"
    )
    print("\n".join(table(rows, a, b)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
