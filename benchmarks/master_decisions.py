"""The master's searched decisions judged by the real hidden cards (prints a table).

    .venv/bin/python benchmarks/master_decisions.py [--players 4] [--games 40] [--seed 301]
        [--rules standard] [--worlds 256] [--think-ms MS] [--jobs 2]
        [--belief PATH] [--max-worlds N] [--again NAME=VALUE[,NAME=VALUE]]...

A research measurement, not a level. The shipped master plays one seat (the next each game)
against experts. At every decision where it searched, each of its candidate turns is valued
again in ``--worlds`` worlds built from the real game (every opponent's real cards, the stock's
order sampled; a call's showdown played out exactly: ``master_oracle.Peeking``), by the same
rollouts and game-level utility. Each decision rule below is applied to the master's own
per-world values of that decision (its worlds, its candidates), and the turn it picks is judged
by those real-card values against the heuristic's turn (the expert's choice), in points of win
chance per searched decision, with a 95 % interval; the rules' rows against the shipped one are
paired (the same decisions). Rows: the shipped rule; the best candidate by the real cards (what
better worlds could still give this search); the paired test at other ``z``; no coach verdict as
the default; only the first 16 or 32 of its worlds (what a smaller budget gives).

Variants of the worlds need the search run again at the same decision: ``--belief PATH`` (a
network written by ``scripts/train_belief.py --out PATH``) and ``--max-worlds N`` each add a
row of the shipped rule on a second search with that belief or that cap, as does each
``--again`` with those ``MasterBot`` options (``benchmarks/master_ab.py``'s ``--set`` names,
comma-separated: ``--again play_power=0.5``), and then a control row, the shipped master
searched again (what the second search's own sampling moves). The real-card values share the
rollouts' policy and the utility with the search, so this measures what the worlds and the rule
lose against the search's own aim, not against perfect play.
"""

from __future__ import annotations

import argparse
import math
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import Any

from duplicate_deals import duplicate_game, turns
from master_ab import master_with, parse_sets
from master_oracle import Peeking

from yaniv.bots import belief, get_bot
from yaniv.bots.coach import mean_and_error
from yaniv.bots.master_bot import MIN_WORLDS, THINK_MS, MasterBot
from yaniv.cards import Card
from yaniv.moves import YANIV, Move
from yaniv.rules import PRESETS, RuleSet
from yaniv.view import PlayerView

Cands = list[tuple[Move, Card | None]]


@dataclass(frozen=True, slots=True)
class Rule:
    name: str
    options: dict[str, Any]  # MasterBot arguments
    worlds: int | None = None  # only the first this many of the master's worlds


RULES = (
    Rule("shipped", {}),
    *(Rule(f"paired test at z = {z:g}", {"z": z}) for z in (0.0, 0.5, 1.0, 1.5, 2.0, 3.0)),
    Rule("no coach verdict as the default", {"coach_base": False}),
    Rule("the first 16 worlds", {}, 16),
    Rule("the first 32 worlds", {}, 32),
)
ORACLE = "the best candidate by the real cards"
AGAIN = "searched again as shipped (control)"


@dataclass(frozen=True, slots=True)
class Setup:
    players: int
    seed: int
    rules: RuleSet
    worlds: int
    think_ms: float | None
    belief: str | None = None  # a trained network's path, for a second search
    max_worlds: int | None = None  # a second search's cap on its worlds
    again: tuple[str, ...] = ()  # second searches' options, each "NAME=VALUE[,NAME=VALUE]"


def variants(setup: Setup, seed: int, think_ms: float) -> dict[str, MasterBot]:
    """The second searches of ``setup``, by their rows' names (none: no control either); a
    belief that cannot be read raises ``BeliefError``."""
    out: dict[str, MasterBot] = {}
    if setup.belief is not None:
        believing = MasterBot(seed, think_ms=think_ms)
        believing.net = belief.load(Path(setup.belief).with_suffix(".f32"))
        out[f"the belief {Path(setup.belief).name}"] = believing
    if setup.max_worlds is not None:
        bot = MasterBot(seed, think_ms=think_ms)
        bot.max_worlds = setup.max_worlds
        out[f"up to {setup.max_worlds} worlds"] = bot
    for options in setup.again:
        out[f"searched again with {options}"] = master_with(
            parse_sets(options.split(",")), think_ms
        )(seed)
    if out:
        out[AGAIN] = MasterBot(seed, think_ms=think_ms)
    return out


class Watched(MasterBot):
    """The shipped master, keeping its last search: the view, the candidates, the values."""

    searched: tuple[PlayerView, Cands, list[list[float]]] | None = None

    def world_values(self, view: PlayerView, cands: Cands) -> list[list[float]] | None:
        values = super().world_values(view, cands)
        if values is not None:
            self.searched = (view, list(cands), values)
        return values


def choice(bot: MasterBot, view: PlayerView, cands: Cands, values: list[list[float]]) -> int:
    """The candidate ``bot``'s rule picks from ``values`` (as its ``_search`` and ``settle``)."""
    bot.worlds = len(values[0])
    totals = bot._tested(cands, values, bot.default_choice(view, cands, values), view.n)
    return bot.settle(totals, 1 if cands[0][0] == YANIV else 0)


def decisions(setup: Setup, index: int) -> list[dict[str, float]]:
    """Game ``index``'s searched decisions: per rule, the real-card value of its choice minus
    the heuristic's turn's; ``"agrees"`` is 1 where the shipped rule replayed the move made."""
    rules, players = setup.rules, setup.players
    deal_seed = setup.seed * 1_000_003 + index
    seat = index % players
    budget = THINK_MS if setup.think_ms is None else setup.think_ms
    master = Watched(deal_seed * 16 + seat, think_ms=budget)
    again = variants(setup, deal_seed * 16 + seat, budget)
    bots = [master if s == seat else get_bot("expert", deal_seed * 16 + s) for s in range(players)]
    judges = [MasterBot(0, **r.options) for r in RULES]
    game = duplicate_game(rules, players, deal_seed)
    out: list[dict[str, float]] = []
    for moves, to_move in enumerate(turns(game, deal_seed)):
        view = game.view(to_move)
        master.searched = None
        move = bots[to_move].choose(view)
        if to_move == seat and master.searched is not None and master.searched[0] is view:
            _, cands, values = master.searched
            real = Peeking(deal_seed * 7 + moves, worlds=setup.worlds, coach_call=False)
            real.knows, real.game = "hands", game
            judged = real.world_values(view, cands)
            if judged is not None:
                worth = [math.fsum(v) / len(v) for v in judged]
                h = 1 if cands[0][0] == YANIV else 0  # the heuristic's turn
                heuristic = worth[h]
                best = max(range(len(cands)), key=worth.__getitem__)
                row = {ORACLE: worth[best] - heuristic, f"moved {ORACLE}": float(best != h)}
                picks = []
                for rule, judge in zip(RULES, judges, strict=True):
                    used = [v[: rule.worlds] for v in values] if rule.worlds else values
                    picks.append(choice(judge, view, cands, used))
                    row[rule.name] = worth[picks[-1]] - heuristic
                    row[f"moved {rule.name}"] = float(picks[-1] != h)
                row["agrees"] = float(cands[picks[0]][0] == move)  # RULES[0] is the shipped
                for name, bot in again.items():
                    second = bot.world_values(view, cands)
                    pick = h if second is None else choice(bot, view, cands, second)
                    row[name] = worth[pick] - heuristic
                    row[f"moved {name}"] = float(pick != h)
                out.append(row)
        game.apply(move)
    return out


def interval(xs: list[float]) -> tuple[float, float]:
    """The mean of ``xs`` and the half-width of its 95 % interval."""
    if len(xs) < 2:
        return xs[0], 0.0
    m, error = mean_and_error(xs)
    return m, 1.96 * error


def table(rows: list[dict[str, float]], extra: list[str]) -> list[str]:
    if not rows:
        return ["no searched decisions"]
    agree = sum(r["agrees"] for r in rows)
    lines = [
        f"{len(rows)} searched decisions (the shipped rule replays {agree:.0f} of the moves made)",
        "| rule | picks another turn than the heuristic | real-card gain, points a decision "
        "| against the shipped rule |",
        "| --- | ---: | --- | --- |",
    ]
    shipped = [r["shipped"] for r in rows]
    names: list[str] = [RULES[0].name, ORACLE, *(r.name for r in RULES[1:]), *extra]
    for name in names:
        gains = [r[name] for r in rows]
        m, h = interval(gains)
        picks = sum(r[f"moved {name}"] for r in rows)
        against = ""
        if name != "shipped":
            dm, dh = interval([g - s for g, s in zip(gains, shipped, strict=True)])
            against = f"{100 * dm:+.3f} +- {100 * dh:.3f}"
        lines.append(f"| {name} | {picks:.0f} | {100 * m:+.3f} +- {100 * h:.3f} | {against} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=301)
    parser.add_argument("--rules", default="standard", help="a preset name")
    parser.add_argument("--worlds", type=int, default=256, help="real-card worlds a decision")
    parser.add_argument("--think-ms", type=float, default=None, help="the master's budget")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--belief", help="a trained belief's path, searched again with it")
    parser.add_argument("--max-worlds", type=int, help="searched again with this cap on worlds")
    parser.add_argument(
        "--again",
        action="append",
        default=[],
        metavar="NAME=VALUE[,NAME=VALUE]",
        help="searched again with these MasterBot options (master_ab.py's --set names)",
    )
    args = parser.parse_args()
    if args.rules not in PRESETS:
        parser.error(f"--rules: one of {', '.join(PRESETS)} (got {args.rules!r})")
    if not 2 <= args.players <= 8 or args.games < 1 or args.worlds < 2:
        parser.error("--players: 2 to 8; --games: at least 1; --worlds: at least 2")
    if args.think_ms is not None and not args.think_ms > 0:
        parser.error(f"--think-ms: a positive number (got {args.think_ms})")
    if args.max_worlds is not None and args.max_worlds < MIN_WORLDS:
        parser.error(f"--max-worlds: at least {MIN_WORLDS} (got {args.max_worlds})")
    setup = Setup(
        args.players,
        args.seed,
        RuleSet.preset(args.rules),
        args.worlds,
        args.think_ms,
        args.belief,
        args.max_worlds,
        tuple(args.again),
    )
    try:
        extra = list(variants(setup, 0, THINK_MS))
    except belief.BeliefError as exc:
        parser.error(f"--belief {args.belief}: {exc}")
    except ValueError as exc:
        parser.error(f"--again: {exc}")
    with ProcessPoolExecutor(max(1, args.jobs)) as pool:
        rows = [r for game in pool.map(decisions, repeat(setup), range(args.games)) for r in game]
    print("\n".join(table(rows, extra)))


if __name__ == "__main__":
    main()
