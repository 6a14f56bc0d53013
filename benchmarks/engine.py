"""Engine throughput: random play, legal-move generation, greedy games, on both paths.

    python benchmarks/engine.py                  # a table, compiled core and pure Python
    python benchmarks/engine.py --json           # ... and one JSON object as the last line
    python benchmarks/engine.py --path pure      # one path only (compiled, pure or both)
    python benchmarks/engine.py --rules "yaniv_threshold=7 pickup=ends"   # other greedy rules

Each figure is measured on the compiled core and on the pure-Python engine (``compiled`` and
``pure`` in the keys; games made with ``Game.new(compiled=...)`` in one process); the compiled
one only where the core is built.

Greedy moves per second (the like-for-like figure of issue 20, beside another engine's): under
``--rules`` (``KEY=VALUE`` options over the standard rules; by default threshold 5, limit 100,
caller-only Assaf +30, subtract 50 at multiples of 50, jokers in sets, run ends / set any
pickup, the caller starts), every seat calls Yaniv whenever allowed, else discards the
highest-valued legal discard (the first listed of equal value), then takes the lowest-valued
takeable pile card if it is worth under 5, else the stock. A Yaniv call counts one move, a
discard and its draw two (the engine's own moves). Under these rules two greedy hands can
swap equal cards for ever: a game still going after 2,000 moves (1,000 turns, the turn limit
of jdross/yaniv's own benchmark) is ended there and counted (``greedy_cut_off_*``, of
``greedy_games_*``).

Play-outs (``yaniv.playout.play_out``): the same greedy policy, and uniformly random moves
(standard rules), but the whole game, the policy's choices included, played in one call. On
the compiled core that loop runs in C; it is the figure to set beside another engine's
driven in its own language (benchmarks/node_engine.mjs drives jdross/yaniv from JavaScript).
The loops above pay a Python call per move, as a bot or an environment does.

Greedy games per second (standard rules): the same policy, but a pile card is taken only if it
is also worth less than the best card just discarded, which keeps such swaps from starting.

Random play is also given per CPU second of this process, steadier than the wall clock on a
shared machine; the load average at the start says how shared it was. Its moves are drawn
with ``random()`` (``randrange`` would cost the loop more than the engine's own move).

Each throughput figure follows a warm-up run of ``--warmup`` seconds (the same games): the
tables of legal discards per rank and per suit fill during the first seconds of a process,
and the figures are of the steady state a long simulation runs in.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from operator import attrgetter

from yaniv import compiled, discards
from yaniv.cards import VALUE
from yaniv.game import Game, Phase
from yaniv.moves import DRAW_STOCK, DRAWS, YANIV, Move
from yaniv.playout import Policy, play_out
from yaniv.rules import RuleSet

STANDARD = RuleSet()
#: The rules of the like-for-like greedy figure (issue 20), as ``--rules`` text.
LIKE_FOR_LIKE = (
    "yaniv_threshold=5 score_limit=100 assaf_scoring=caller_only assaf_penalty=30 "
    "bonus=subtract bonus_step=50 bonus_amount=50 jokers_in_sets=true "
    "pickup=run_ends_set_any next_starter=caller"
)
#: A greedy game still going after this many moves is ended there (see the docstring).
GREEDY_CUT_OFF = 2_000
_DRAW, _START, _ROUND_OVER, _GAME_OVER = Phase.DRAW, Phase.START, Phase.ROUND_OVER, Phase.GAME_OVER
_POINTS = attrgetter("value")


def paths() -> list[tuple[str, bool]]:
    """The paths to measure: the compiled core (where built) and pure Python."""
    return ([("compiled", True)] if compiled.AVAILABLE is not None else []) + [("pure", False)]


def random_moves(seconds: float, players: int = 4, path: bool | None = None) -> int:
    """Uniformly random legal moves across whole games for ``seconds``; returns the count.
    ``path``: the compiled core (True), pure Python (False), or the default (None)."""
    draw = random.Random(1).random  # randrange costs the loop half a microsecond more
    moves = 0
    seed = 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        game = Game.new(STANDARD, players, seed, compiled=path)
        seed += 1
        legal_moves, apply = game.legal_moves, game.apply
        while True:
            phase = game.phase
            if phase is _ROUND_OVER:
                game.next_round()
                continue
            if phase is _GAME_OVER:
                break
            legal = legal_moves()
            apply(legal[int(draw() * len(legal))])
            moves += 1
    return moves


def random_play(seconds: float, players: int = 4, path: bool | None = None) -> tuple[float, float]:
    """Uniformly random legal moves, across whole games: (moves per wall-clock second, moves
    per CPU second of this process; the second is steadier on a shared machine)."""
    wall, cpu = time.perf_counter(), time.process_time()
    moves = random_moves(seconds, players, path)
    return moves / (time.perf_counter() - wall), moves / (time.process_time() - cpu)


def greedy_moves(
    seconds: float, players: int, rules: RuleSet, path: bool | None = None
) -> tuple[float, float, int, int]:
    """The like-for-like greedy figure: (moves per wall-clock second, per CPU second, games,
    games cut off), over whole games for about ``seconds``."""
    moves = cut = seed = 0
    draw_first = rules.draw_first  # a turn starts with a draw (or a call)
    wall, cpu = time.perf_counter(), time.process_time()
    deadline = wall + seconds
    while time.perf_counter() < deadline:
        game = Game.new(rules, players, seed, compiled=path)
        seed += 1
        legal_moves, apply = game.legal_moves, game.apply
        left = GREEDY_CUT_OFF
        while left:
            phase = game.phase
            if phase is _ROUND_OVER:
                game.next_round()
                continue
            if phase is _GAME_OVER:
                break
            if phase is _DRAW or (draw_first and phase is _START and not game.can_yaniv()):
                # the draws are the stock and the pickable cards
                best = min(game.pickable, key=VALUE.__getitem__, default=None)
                if best is not None and (VALUE[best] < 5 or not game.stock):
                    apply(DRAWS[best])
                else:
                    apply(DRAW_STOCK)
            else:
                legal = legal_moves()
                apply(YANIV if legal[0] is YANIV else max(legal, key=_POINTS))
            left -= 1
        moves += GREEDY_CUT_OFF - left
        cut += not left
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return moves / wall, moves / cpu, seed, cut


def playout_moves(
    seconds: float, players: int, rules: RuleSet, policy: Policy, path: bool | None = None
) -> tuple[float, float, int, int]:
    """Whole games played out by ``play_out`` for about ``seconds``: (moves per wall-clock
    second, per CPU second, games, games cut off). Greedy games stop at the cut-off."""
    moves = cut = seed = 0
    limit = GREEDY_CUT_OFF if policy == "greedy" else None
    wall, cpu = time.perf_counter(), time.process_time()
    deadline = wall + seconds
    while time.perf_counter() < deadline:
        game = Game.new(rules, players, seed, compiled=path)
        out = play_out(game, policy, seed=seed, max_moves=limit, compiled=path)
        seed += 1
        moves += out.moves
        cut += not out.finished
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return moves / wall, moves / cpu, seed, cut


def start_positions(count: int, path: bool | None = None) -> list[Game]:
    """Start-of-turn positions from random standard games, 4 players."""
    rng = random.Random(2)
    out: list[Game] = []
    seed = 0
    while len(out) < count:
        game = Game.new(STANDARD, 4, seed, compiled=path)
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
            for table in [*discards._TABLES.values(), *discards._CTABLES.values()]:
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


def greedy_games(seconds: float, players: int, path: bool | None = None) -> float:
    """Whole greedy games per second."""
    games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        game = Game.new(STANDARD, players, games, compiled=path)
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
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per throughput figure")
    parser.add_argument("--warmup", type=float, default=1.0, help="warm-up seconds per figure")
    parser.add_argument(
        "--rules", default=LIKE_FOR_LIKE, help="KEY=VALUE options of the greedy moves figure"
    )
    parser.add_argument("--path", choices=("both", "compiled", "pure"), default="both")
    args = parser.parse_args()
    rules = RuleSet.from_preset_and_options("standard", args.rules.split())
    chosen = [(name, flag) for name, flag in paths() if args.path in ("both", name)]

    figures: dict[str, float | str] = {
        "load_average_1m": round(os.getloadavg()[0], 2),
        "greedy_rules": args.rules,
    }

    def show(key: str, label: str, value: float, digits: int = 1) -> None:
        figures[key] = round(value, digits)
        print(f"{label:<58} {value:>12,.{digits}f}")

    for name, flag in chosen:
        if args.warmup > 0:
            random_moves(args.warmup, 4, flag)
            for players in (4, 2):
                greedy_moves(args.warmup, players, rules, flag)
                playout_moves(args.warmup, players, rules, "greedy", flag)
        per_wall, per_cpu = random_play(args.seconds, 4, flag)
        show(f"random_moves_per_s_{name}", f"[{name}] random-play moves/s (4 players)", per_wall)
        show(f"random_moves_per_cpu_s_{name}", f"[{name}] ... per CPU second", per_cpu)
        for players in (4, 2):
            wall, cpu, games, cut = greedy_moves(args.seconds, players, rules, flag)
            key = f"greedy_moves_per_s_{players}p_{name}"
            show(key, f"[{name}] greedy moves/s, --rules, {players} players", wall)
            show(f"greedy_moves_per_cpu_s_{players}p_{name}", f"[{name}] ... per CPU second", cpu)
            figures[f"greedy_games_{players}p_{name}"] = games
            figures[f"greedy_cut_off_{players}p_{name}"] = cut
        for players in (4, 2):
            wall, cpu, games, cut = playout_moves(args.seconds, players, rules, "greedy", flag)
            key = f"playout_greedy_moves_per_cpu_s_{players}p_{name}"
            show(key, f"[{name}] play_out greedy moves/CPU s, --rules, {players} players", cpu)
            figures[f"playout_greedy_games_{players}p_{name}"] = games
            figures[f"playout_greedy_cut_off_{players}p_{name}"] = cut
        for players in (4, 2):
            cpu = playout_moves(args.seconds, players, STANDARD, "random", flag)[1]
            key = f"playout_random_moves_per_cpu_s_{players}p_{name}"
            show(key, f"[{name}] play_out random moves/CPU s, standard, {players} players", cpu)
        for players in (2, 4):
            show(
                f"greedy_games_per_s_{players}p_{name}",
                f"[{name}] greedy games/s, standard, {players} players",
                greedy_games(args.seconds, players, flag),
            )
        positions = start_positions(2000, flag)
        show(
            f"legal_moves_us_median_{name}",
            f"[{name}] legal_moves() at a turn start, median us (warm)",
            legal_moves_us(positions, cold=False),
            3,
        )
        show(
            f"legal_moves_cold_us_median_{name}",
            f"[{name}] ... first time a hand is seen, median us (cold)",
            legal_moves_us(positions[:500], cold=True),
            3,
        )
    print(f"{'load average (1 min) at the start':<58} {figures['load_average_1m']:>12.2f}")
    if args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
