"""Were a level's Yaniv calls right? Each callable position's two futures, measured in the
chance of winning the game (prints a table).

    .venv/bin/python benchmarks/call_counterfactual.py [--level expert] [--players 2]
        [--games 300] [--seed 1] [--rules standard] [--against LEVEL] [--think-ms MS]
        [--jobs 2]

The level plays itself, or with ``--against`` sits in one seat (the next seat each game) against
that level in the others, whose calls are then not counted. At every turn start where a call
under the threshold is legal, the game is cloned twice: in one the seat calls now (the showdown
is exact), in the other it plays on, with copies of every bot, to the end of the round (where
it declined, as it chose; where it called, with its heuristic's turn instead). Both are judged
by the game-level utility (``yaniv.bots.utility.win_probability``; a game that ends counts 1 or
0). The table buckets the positions by the coach's odds and by what the level did: the mean of
"call" minus "play on", in points of win chance, with its 95 % interval. A positive mean among
declines means calls were missed there; a negative one among calls means calls were made that
should not have been. Playing on is one sampled future (the real stock), so each position is
noisy; the buckets' means are not.
"""

from __future__ import annotations

import argparse
import copy
import math
import random
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from itertools import repeat
from typing import Any

from duplicate_deals import duplicate_game, turns

from yaniv.bots import get_bot
from yaniv.bots.base import bot_names
from yaniv.bots.coach import yaniv_success_probability
from yaniv.bots.medium_bot import heuristic_move
from yaniv.bots.utility import win_probability
from yaniv.game import Game, Phase, ResultKind
from yaniv.moves import YANIV
from yaniv.rules import PRESETS, RuleSet

EDGES = (0.0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.97, 0.99, 1.0001)


@dataclass(frozen=True, slots=True)
class Position:
    odds: float  # the coach's chance that the call succeeds
    called: bool  # what the level did
    succeeded: bool  # whether the call would succeed (exact)
    gain: float  # win chance after calling minus after playing on


def utility(game: Game, seat: int) -> float:
    if game.phase == Phase.GAME_OVER:
        return 1.0 / len(game.winners) if seat in game.winners else 0.0
    return win_probability(game.rules, list(game.scores), seat, game.out)


def finish_round(game: Game, bots: list[Any]) -> None:
    while game.phase < Phase.ROUND_OVER:
        seat = game.to_move
        assert seat is not None
        game.apply(bots[seat].choose(game.view(seat)))


@dataclass(frozen=True, slots=True)
class Setup:
    level: str
    players: int
    seed: int
    rules: RuleSet
    against: str | None  # the others' level (None: the level plays itself)
    think_ms: float | None  # a searching level's budget (None: its default)


def positions(setup: Setup, index: int) -> list[Position]:
    """Game ``index``'s callable positions of the measured seats."""
    rules, players = setup.rules, setup.players
    out: list[Position] = []
    deal_seed = setup.seed * 1_000_003 + index
    measured = index % players if setup.against else None
    levels = [
        setup.against if setup.against and s != measured else setup.level for s in range(players)
    ]
    bots = [get_bot(lv, deal_seed * 16 + s, think_ms=setup.think_ms) for s, lv in enumerate(levels)]
    game = duplicate_game(rules, players, deal_seed)
    for seat in turns(game, deal_seed):
        view = game.view(seat)
        callable_now = (
            measured in (None, seat)
            and game.phase == Phase.START
            and YANIV in view.legal_moves
            and game.values[seat] <= rules.yaniv_threshold
        )
        if callable_now:
            copies = copy.deepcopy(bots)  # before the bot's choice moves its generator
        move = bots[seat].choose(view)
        if callable_now:
            now = game.clone()
            now.apply(YANIV)
            assert now.result is not None
            on = game.clone()
            if move == YANIV:
                on.apply(heuristic_move(view, random.Random(index), 1.0, 1.0))
            else:
                on.apply(move)
            finish_round(on, copies)
            out.append(
                Position(
                    yaniv_success_probability(view),
                    move == YANIV,
                    now.result.kind is ResultKind.YANIV,
                    utility(now, seat) - utility(on, seat),
                )
            )
        game.apply(move)
    return out


def table(found: list[Position]) -> list[str]:
    lines = [f"{len(found)} callable positions"]
    for called in (False, True):
        lines.append("calls made" if called else "calls declined")
        for lo, hi in zip(EDGES, EDGES[1:], strict=False):
            rows = [p for p in found if p.called == called and lo <= p.odds < hi]
            if not rows:
                continue
            gains = [p.gain for p in rows]
            mean = math.fsum(gains) / len(gains)
            sd = math.sqrt(math.fsum((g - mean) ** 2 for g in gains) / max(1, len(gains) - 1))
            half = 1.96 * sd / math.sqrt(len(gains))
            rate = sum(p.succeeded for p in rows) / len(rows)
            lines.append(
                f"  odds {lo:.2f}-{min(hi, 1.0):.2f}: {len(rows):6d} positions, succeeded "
                f"{rate:6.1%}, call minus play on {100 * mean:+6.2f} +- {100 * half:.2f} points"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", default="expert")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rules", default="standard", help="a preset name")
    parser.add_argument("--against", default=None, help="the other seats' level")
    parser.add_argument("--think-ms", type=float, default=None, help="a searching level's budget")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    levels = bot_names()
    for flag, level in (("--level", args.level), ("--against", args.against)):
        if level is not None and level not in levels:
            parser.error(f"{flag}: one of {', '.join(levels)} (got {level!r})")
    if args.rules not in PRESETS:
        parser.error(f"--rules: one of {', '.join(PRESETS)} (got {args.rules!r})")
    if not 2 <= args.players <= 8 or args.games < 1:
        parser.error("--players: 2 to 8; --games: at least 1")
    setup = Setup(
        args.level,
        args.players,
        args.seed,
        RuleSet.preset(args.rules),
        args.against,
        args.think_ms,
    )
    with ProcessPoolExecutor(max(1, args.jobs)) as pool:
        found = [p for game in pool.map(positions, repeat(setup), range(args.games)) for p in game]
    print("\n".join(table(found)))


if __name__ == "__main__":
    main()
