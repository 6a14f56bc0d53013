"""Decision time of each bot level, and of the coach's Yaniv odds, over positions from real
games (prints ms figures).

    .venv/bin/python benchmarks/bots.py [--games N] [--json]
    nice -n 15 .venv/bin/python benchmarks/bots.py --cap-check [--levels random,easy]
        [--players 2,4] [--games 10000] [--first-deal 0] [--budget-s S] [--jobs 2]
        [--rules standard] [--json]

Each level plays ``N`` games against medium with 2 players and ``N`` with 4 (the level in
seat 0); every decision of seat 0 is timed. The coach line times
``yaniv_success_probability`` at every turn where a Yaniv call under the threshold is legal,
in the medium games of 2, 3 and 4 players.

``--cap-check`` plays ``--games`` games of each level against itself (every seat that level,
the arena's deals and seeds: ``yaniv.arena.play_game``) and counts the games stopped at the
arena's move cap (``--max-moves``, the arena's 5,000 by default): the issue's figure is 0 in
10,000 games of each level. ``--budget-s`` stops a (level, players) run after that many seconds
and reports how many games it played; the capped games' indices are printed for a replay
(the arena's game index: deal * players, rotation 0, since the rotations of a lineup of one
level would replay the same game), and so is the longest game's. ``--first-deal K`` starts at
deal K, so that a run stopped by its budget after K games is completed on the same deals.
``--jobs N`` plays them in N processes (the games counted are still the first deals in order);
its CPU seconds are the games' own, summed over the processes.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from yaniv import Game
from yaniv.arena import MAX_MOVES, GameTask, percentile, play_game
from yaniv.bots import get_bot
from yaniv.bots.coach import opponents, yaniv_success_probability
from yaniv.cards import VALUE
from yaniv.game import Phase
from yaniv.moves import YANIV, Move
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


def timed_game(task: GameTask) -> tuple[dict[str, Any], float]:
    """``play_game(task)``, and the CPU seconds it took (in the process that played it)."""
    cpu0 = time.process_time()
    return play_game(task), time.process_time() - cpu0


def cap_check(
    level: str,
    players: int,
    games: int,
    rules: RuleSet,
    seed: int,
    max_moves: int,
    budget_s: float | None,
    think_ms: float | None,
    first_deal: int = 0,
    jobs: int = 1,
) -> dict[str, object]:
    """Self-play games of ``level`` until ``games`` are played or ``budget_s`` is spent: how
    many were capped at ``max_moves``, which, and their moves. With ``jobs`` > 1 the games are
    played in that many forked processes; the games counted are still the first deals in
    order (a run stopped by its budget leaves no gap for ``--first-deal`` to fill)."""
    t0 = time.perf_counter()
    capped: list[int] = []
    moves: list[int] = []
    errors = 0
    longest = -1
    cpu = 0.0
    # Rotation 0 of deal i: the rotations of a lineup of one level would replay its deal.
    tasks = (
        GameTask(
            i * players, (level,) * players, rules, seed, max_moves=max_moves, think_ms=think_ms
        )
        for i in range(first_deal, first_deal + games)
    )
    pool = mp.get_context("fork").Pool(jobs) if jobs > 1 else None
    played = map(timed_game, tasks) if pool is None else pool.imap(timed_game, tasks)
    step = max(1, games // 20)
    try:
        for r, cpu_s in played:
            cpu += cpu_s
            if int(r["moves"]) > max(moves, default=-1):
                longest = int(r["index"])
            moves.append(int(r["moves"]))
            errors += bool(r["errors"])
            if r["capped"]:
                capped.append(int(r["index"]))
            if len(moves) % step == 0:
                print(
                    f"  {level}, {players} players: {len(moves)} of {games} games, capped "
                    f"{len(capped)}, {time.perf_counter() - t0:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
            if len(moves) == games or (
                budget_s is not None and time.perf_counter() - t0 > budget_s
            ):
                break
    finally:
        if pool is not None:
            pool.terminate()  # the games past the budget, unfinished, are not counted
    return {
        "level": level,
        "players": players,
        "games": len(moves),
        "capped": len(capped),
        "capped_games": capped[:50],
        "errors": errors,
        "mean_moves": round(statistics.fmean(moves), 1) if moves else 0.0,
        "max_moves": max(moves, default=0),
        "longest_game": longest,
        "cpu_s": round(cpu, 3),  # a short run (a test's few games) is not rounded to 0
        "wall_s": round(time.perf_counter() - t0, 1),
    }


# ----------------------------------------------------------------- the former points rule


def points_expectation(view: PlayerView, p: float) -> float:
    """The coach's former ``call_expectation``, in points: the others' mean hand on success,
    my hand and the penalty on an Assaf (after my bonus; 60 more for going over the limit)."""
    rules = view.rules
    mine = view.hand_value
    if rules.assaf_scoring == "caller_only" and mine <= rules.yaniv_threshold:
        fail = rules.assaf_penalty
    else:
        fail = mine + rules.assaf_penalty
    new = view.scores[view.seat] + fail
    if rules.bonus == "halve" and new in rules.bonus_targets:
        fail -= new - new // 2
    elif rules.bonus == "subtract" and new % rules.bonus_step == 0:
        fail -= rules.bonus_amount
    if new > rules.score_limit:
        fail += 60
    opps = opponents(view)
    hand = sum(sum(VALUE[c] for c in o.known) + 4.0 * o.unknown for o in opps)
    return p * hand / max(1, len(opps)) - (1 - p) * fail


def points_should_call(view: PlayerView, p: float, margin: float = 0.0) -> bool:
    """The coach's former ``should_call``: a sure call, or points beating -(hand / 2 + 2)."""
    return p >= 0.995 or points_expectation(view, p) > -0.5 * view.hand_value - 2.0 + margin


class PointsRule:
    """A level deciding its Yaniv calls by the former points rule (the rest is its own)."""

    def __init__(self, level: str, seed: int | None = None) -> None:
        self.bot = get_bot(level, seed)
        self.name = f"{level}-points"

    def choose(self, view: PlayerView) -> Move:
        """The level's move, with the points rule patched in for this decision."""
        from yaniv.bots import expert_bot, medium_bot

        # The levels' modules hold the coach's functions by name: patched there, for this call.
        places = [
            (medium_bot, "should_call", points_should_call),
            (medium_bot, "call_expectation", points_expectation),
            (expert_bot, "should_call", points_should_call),
        ]
        saved = [getattr(module, name) for module, name, _ in places]
        for module, name, rule in places:
            setattr(module, name, rule)
        try:
            return self.bot.choose(view)
        finally:
            for (module, name, _), old in zip(places, saved, strict=True):
                setattr(module, name, old)


def ab_points(level: str, players: int, deals: int, rules: RuleSet, seed: int) -> dict[str, Any]:
    """``level`` as it is against ``players - 1`` of it with the former points rule, every
    deal played in each rotation: its wins (shared wins split) with a 95 % interval."""
    from yaniv import arena

    class Seated(PointsRule):
        def __init__(self, seed: int | None = None) -> None:
            super().__init__(level, seed)

    arena._OBJECTS["points-rule"] = Seated  # the arena seats a class with its seed
    lineup = (level,) + ("points-rule",) * (players - 1)
    wins = 0.0
    games = capped = errors = 0
    for i in range(deals * players):
        r = play_game(GameTask(i, lineup, rules, seed))
        games += 1
        capped += bool(r["capped"])
        errors += bool(r["errors"])
        seat = r["entrants"].index(0)
        if seat in r["winners"]:
            wins += 1 / len(r["winners"])
    lo, hi = arena.wilson(wins, games)
    return {"level": level, "players": players, "games": games, "wins": wins,
            "rate": wins / games, "ci95": [lo, hi], "capped": capped, "errors": errors}  # fmt: skip


def main() -> None:
    """Time every level, then the coach (or, with ``--cap-check``, count capped games)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=None, help="games per level and size")
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    parser.add_argument("--cap-check", action="store_true", help="count capped self-play games")
    parser.add_argument("--levels", default="random,easy,medium,expert")
    parser.add_argument("--players", default="2,4")
    parser.add_argument("--rules", default="standard", help="a preset name")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first-deal", type=int, default=0, help="--cap-check: the first deal")
    parser.add_argument("--max-moves", type=int, default=MAX_MOVES)
    parser.add_argument("--budget-s", type=float, default=None, help="seconds per level/size")
    parser.add_argument("--jobs", type=int, default=1, help="--cap-check: processes")
    parser.add_argument("--think-ms", type=float, default=None, help="the master's budget")
    parser.add_argument("--ab-points", metavar="LEVEL", help="LEVEL against the points rule")
    args = parser.parse_args()
    if args.ab_points:
        for players in (int(x) for x in args.players.split(",")):
            deals = 150 if args.games is None else args.games
            ab = ab_points(args.ab_points, players, deals, RuleSet.preset(args.rules), args.seed)
            lo, hi = ab["ci95"]
            print(
                f"{args.ab_points} against {players - 1} with the points rule, {args.rules}: "
                f"{ab['rate']:.1%} of {ab['games']} [{lo:.1%}, {hi:.1%}], capped {ab['capped']}, "
                f"errors {ab['errors']}",
                flush=True,
            )
        return
    if args.cap_check:
        report = []
        for level in args.levels.split(","):
            for players in (int(x) for x in args.players.split(",")):
                r = cap_check(
                    level,
                    players,
                    10_000 if args.games is None else args.games,
                    RuleSet.preset(args.rules),
                    args.seed,
                    args.max_moves,
                    args.budget_s,
                    args.think_ms,
                    args.first_deal,
                    args.jobs,
                )
                report.append(r)
                print(
                    f"{level:>8}, {players} players: {r['games']:6d} games, capped "
                    f"{r['capped']} {r['capped_games'] if r['capped'] else ''}, errors "
                    f"{r['errors']}, moves mean {r['mean_moves']} max {r['max_moves']} (game "
                    f"{r['longest_game']}), "
                    f"{r['cpu_s']} CPU s, load {os.getloadavg()[0]:.2f}",
                    flush=True,
                )
        if args.json:
            print(json.dumps(report))
        return
    if args.games is None:
        args.games = 10
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
