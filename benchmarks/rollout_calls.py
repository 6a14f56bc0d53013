"""How well the rollouts' call rules follow the expert's own calls, by the players still in the
game (prints a table).

    .venv/bin/python benchmarks/rollout_calls.py [--players 2,4,6,8] [--games 20]
        [--rules standard]

The expert plays itself (``expert_selfplay.expert_turns``; game ``i`` of a table size: seed
``6_000_000 + i``).
At every turn start where the seat to move may call Yaniv at or under the threshold, the
expert's choice (call or not) is set beside each rule's:

- ``CALL_AT``: the fixed table by the fewest cards an opponent holds (the plain rollout policy);
- ``flat``: ``quick_call_chance`` at least ``CALL_CHANCE``, whatever the table;
- ``per opponent``: at least ``call_chance_needed`` (``CALL_CHANCE`` to the power of the
  opponents still in the game; ``judged_call``), the rule of the master's rollouts.

Per count of players in: the positions, how often the expert called, and for each rule how
often it calls and how often it agrees with the expert (``calls/agrees``). A rule that calls
far less than the expert drags the rollouts' rounds on (rounds of the utility's self-play
stalled at eight players under ``flat``).
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from build_utility_table import RULE_SETS  # noqa: E402
from expert_selfplay import expert_turns  # noqa: E402

from yaniv.bots.rollout import (  # noqa: E402
    CALL_CHANCE,
    judged_call,
    quick_call_chance,
    table_call,
)
from yaniv.game import Game  # noqa: E402
from yaniv.moves import YANIV  # noqa: E402
from yaniv.rules import RuleSet  # noqa: E402
from yaniv.state import Phase  # noqa: E402

RULES: dict[str, Callable[[Game, int], bool]] = {
    "CALL_AT": table_call,
    "flat": lambda g, p: quick_call_chance(g, p) >= CALL_CHANCE,
    "per opponent": judged_call,
}


def collect(rules: RuleSet, players: int, games: int) -> dict[int, list[tuple[bool, ...]]]:
    """Per count of players in: per callable position, the expert's choice, then each rule's."""
    rows: dict[int, list[tuple[bool, ...]]] = defaultdict(list)
    for i in range(games):
        for game, _view, move in expert_turns(rules, players, 6_000_000 + i):
            p = game.to_move
            assert p is not None
            if (
                game.phase == Phase.START
                and game.hands[p]
                and game.can_yaniv()
                and game.values[p] <= rules.yaniv_threshold
            ):
                judged = tuple(rule(game, p) for rule in RULES.values())
                rows[game.out.count(False)].append((move == YANIV, *judged))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="2,4,6,8", help="table sizes, comma-separated")
    parser.add_argument("--games", type=int, default=20, help="games per table size")
    parser.add_argument("--rules", default="standard", choices=sorted(RULE_SETS))
    args = parser.parse_args()
    try:
        sizes = [int(n) for n in args.players.split(",")]
    except ValueError:
        parser.error(f"--players {args.players!r}: expected numbers such as 2,4")
    if not all(2 <= n <= 8 for n in sizes):
        parser.error(f"--players {args.players}: each from 2 to 8")
    rows: dict[int, list[tuple[bool, ...]]] = defaultdict(list)
    for n in sizes:
        for active, found in collect(RULE_SETS[args.rules], n, args.games).items():
            rows[active] += found
    names = list(RULES)
    print(f"{args.rules}: rule calls % / agrees with the expert %, by players in")
    print(f"{'in':>3} {'positions':>9} {'expert':>7} " + " ".join(f"{n:>13}" for n in names))
    for active in sorted(rows):
        found = rows[active]
        cells = []
        for j in range(1, len(names) + 1):
            calls = sum(r[j] for r in found) / len(found)
            agrees = sum(r[j] == r[0] for r in found) / len(found)
            cells.append(f"{calls:6.1%}/{agrees:6.1%}")
        expert = sum(r[0] for r in found) / len(found)
        print(f"{active:>3} {len(found):>9} {expert:7.1%} " + " ".join(f"{c:>13}" for c in cells))


if __name__ == "__main__":
    main()
