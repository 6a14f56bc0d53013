"""A/B test of a master variant against the shipped master, on the same deals (prints figures).

    .venv/bin/python benchmarks/master_ab.py --set z=1.5 --set others_weight=0.8 \\
        [--against expert] [--players 2] [--games 200] [--seed 5] [--think-ms 20] [--jobs 2]
    .venv/bin/python benchmarks/master_ab.py --table new.json [--base-table old.json] ...
    .venv/bin/python benchmarks/master_ab.py --set z=1 --journal-dir runs/ ...

Both masters sit in the same seat against the same bots (``--against``, filling the other seats) on
the same duplicate deals and bots' seeds (``yaniv.arena.compare``), so only the options differ.
Each ``--set NAME=VALUE`` is a ``MasterBot`` argument (``z``, ``others_weight``, ``beta_scale``,
``by_play``, ``belief``, ``play_power``, ``call_odds``, ``judged_calls``,
``per_opponent_calls`` (false: the rollouts' call bar the same at any table), ``like_expert``,
``coach_call``, ``coach_base``, ``candidates``, ``margin``, ``worlds``) or one of its
attributes ``close`` (points within which turns are searched) and ``sure`` (``LOW,HIGH``: the
coach's odds outside which a call is not searched). ``--table FILE`` gives the variant's
decisions the game-level utility of another table file (``scripts/build_utility_table.py --out
FILE``: other rounds, other landings), ``--base-table FILE`` the shipped master's; every other
bot, and a master without one, keeps the shipped table (``yaniv.bots.utility.using``, while
that master decides). Prints each one's win rate with its 95 %
interval, and the paired difference with its 95 % interval, a deal being the unit. The
master's budget counts simulated turns, not time, so the games do not depend on the machine's
load.

``--journal-dir DIR`` keeps each master's games in a journal there (the arena's ``--journal``),
named by its options and the table files' contents (``variant_name``), the players, the
opponents, the rules and the seed: the same command run again after a stop plays only the games
not yet played, and a run of another variant on the same deals reads the shipped master's games
back instead of playing them again. The code is not in the name: journals written before a
change to the master are not its games after it (empty the directory).
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import os
import re
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from yaniv.arena import compare
from yaniv.bots import utility
from yaniv.bots.master_bot import MasterBot
from yaniv.errors import YanivError
from yaniv.moves import Move
from yaniv.rules import RuleSet
from yaniv.view import PlayerView

ATTRIBUTES = ("close", "sure")


def parse_value(name: str, text: str, default: Any) -> Any:
    """``text`` as the type of ``name``'s default; ValueError in words otherwise."""
    if name == "sure":
        low, _, high = text.partition(",")
        return (float(low), float(high))
    if isinstance(default, bool):
        if text not in ("true", "false"):
            raise ValueError(f"{name}={text}: expected true or false")
        return text == "true"
    if isinstance(default, str):
        return text
    if isinstance(default, int) or name == "worlds":
        return int(text)
    return float(text)


def parse_sets(sets: list[str]) -> dict[str, Any]:
    """The variant's options from ``NAME=VALUE`` texts."""
    params = inspect.signature(MasterBot).parameters
    defaults = {k: p.default for k, p in params.items() if k not in ("seed", "think_ms")}
    defaults.update(close=0.0, sure=(0.0, 1.0))
    options: dict[str, Any] = {}
    for item in sets:
        name, eq, text = item.partition("=")
        if not eq or name not in defaults:
            raise ValueError(f"--set {item!r}: expected NAME=VALUE, NAME one of {sorted(defaults)}")
        try:
            options[name] = parse_value(name, text, defaults[name])
        except ValueError as exc:
            raise ValueError(f"--set {item!r}: {exc}") from None
    return options


def master_with(
    options: dict[str, Any], think_ms: float | None, table: Path | None = None
) -> type[MasterBot]:
    """A MasterBot class seated with ``options`` (the arena builds it with ``seed=``), deciding
    with the utility of the table file ``table`` (None: the shipped one)."""
    budget: dict[str, Any] = {} if think_ms is None else {"think_ms": think_ms}
    arguments = {k: v for k, v in options.items() if k not in ATTRIBUTES}
    attributes = {k: v for k, v in options.items() if k in ATTRIBUTES}

    class Variant(MasterBot):
        def __init__(self, seed: int | None = None) -> None:
            super().__init__(seed, **budget, **arguments)
            for k, v in attributes.items():
                setattr(self, k, v)

        def choose(self, view: PlayerView) -> Move:
            with utility.using(table) if table is not None else nullcontext():
                return super().choose(view)

    Variant.__name__ = "variant" if options or table else "master"
    return Variant


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    return str(value)


def variant_name(role: str, options: dict[str, Any], table: Path | None) -> str:
    """A name for a master with ``options`` deciding with ``table`` (None: the shipped one)
    that stays the same from run to run: ``role``, the options in order, the table by the hash
    of its contents (a long name by the hash of all of it)."""
    parts = [f"{k}={_option_text(v)}" for k, v in sorted(options.items())]
    if table is not None:
        parts.append(f"table={hashlib.sha256(table.read_bytes()).hexdigest()[:12]}")
    name = "-".join([role, *parts])
    if len(name) > 100 or not re.fullmatch(r"[\w=,.+-]+", name):
        name = f"{role}-{hashlib.sha256(name.encode()).hexdigest()[:16]}"
    return name


def journal_paths(
    directory: Path, names: tuple[str, str], args: argparse.Namespace
) -> tuple[Path, Path]:
    """The two masters' journal files in ``directory`` (one per master and run)."""
    against = re.sub(r"[^\w.,-]", "_", args.against)
    run = f"{args.players}p-vs-{against}-{args.rules}-seed{args.seed}"
    first, second = (directory / f"{name}-{run}.jsonl" for name in names)
    return first, second


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--against", default="expert", help="bots, the last fills the seats")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rules", default="standard", help="a preset name")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--think-ms", type=float, default=None, help="both masters' budget")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--table", type=Path, help="the variant's utility table file")
    parser.add_argument("--base-table", type=Path, help="the shipped master's utility table file")
    parser.add_argument("--journal-dir", type=Path, help="journal each master's games here")
    args = parser.parse_args(argv)
    if args.journal_dir is not None and not args.journal_dir.is_dir():
        parser.error(f"--journal-dir: {args.journal_dir} is not a directory")
    try:
        options = parse_sets(args.set)
        for table in (args.table, args.base_table):
            if table is not None:
                utility.read_table(table)  # in words now, not in a worker at the first decision
    except ValueError as exc:
        sys.exit(str(exc))
    names = (
        variant_name("variant", options, args.table),
        variant_name("base", {}, args.base_table),
    )
    journals = None if args.journal_dir is None else journal_paths(args.journal_dir, names, args)
    try:
        c = compare(
            master_with(options, args.think_ms, args.table),
            master_with({}, args.think_ms, args.base_table),
            against=args.against.split(","),
            games=args.games,
            players=args.players,
            seed=args.seed,
            rules=RuleSet.preset(args.rules),
            jobs=args.jobs,
            think_ms=args.think_ms,
            journals=journals,
            names=names,
        )
    except YanivError as exc:  # a journal of another run, say
        sys.exit(str(exc))
    for label, e in (("variant", c.a), ("master", c.b)):
        lo, hi = e.ci95
        print(f"{label:>8}: {e.win_rate:.1%} of {e.games} [{lo:.1%}, {hi:.1%}], capped {e.capped}")
    lo, hi = c.ci95
    print(
        f"variant - master: {c.difference:+.1%} [{lo:+.1%}, {hi:+.1%}] over {c.deals} deals, "
        f"{c.changed} games changed; options {options or 'none'}; tables "
        f"{args.table or 'shipped'} / {args.base_table or 'shipped'}; "
        f"load {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
