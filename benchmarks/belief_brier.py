"""How well the master's worlds guess the opponents' hidden cards (prints Brier scores).

    .venv/bin/python benchmarks/belief_brier.py [--combos standard:2,standard:4] [--games 12]
        [--every 15] [--worlds 200]

The expert plays itself from seeded deals (seeds from 5,000,000: none that the belief was
trained on). At every ``--every``-th turn start, for each opponent of the seat to move with
hidden cards, each guess gives every unseen card a chance of being among them, and its Brier
score is the sum over the unseen cards of the squared error (0 is a perfect guess; the mean
over the positions is printed, lower is better):

- ``uniform``: every unseen card alike (the hidden count over the unseen count);
- ``weighed``: the worlds of ``belief=False``, dealt uniformly and weighed by the low-card prior
  and the last turn (``inference.play_weigh``), each card's weighted share of ``--worlds``;
- ``net``: the belief network's chances (``belief.chances``);
- ``net worlds``: each card's share of ``--worlds`` worlds drawn by the network's odds (what
  the master searches).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from build_utility_table import RULE_SETS  # noqa: E402
from expert_selfplay import turn_starts  # noqa: E402

from yaniv.bots import belief  # noqa: E402
from yaniv.bots.inference import play_weigh  # noqa: E402
from yaniv.cards import Card  # noqa: E402
from yaniv.search import World, sample_worlds  # noqa: E402

GUESSES = ("uniform", "weighed", "net", "net worlds")


def shares(worlds: Sequence[World], seat: int, known: Sequence[Card]) -> dict[Card, float]:
    """Each card's weighted share of the worlds in which ``seat`` holds it, hidden."""
    total = sum(w.weight for w in worlds) or 1.0
    out: dict[Card, float] = {}
    for w in worlds:
        for c in w.hands[seat]:
            out[c] = out.get(c, 0.0) + w.weight / total
    for c in known:
        out.pop(c, None)
    return out


def measure(name: str, players: int, games: int, every: int, count: int) -> dict[str, float]:
    """The mean Brier score of each guess, and the positions' count."""
    scores: dict[str, list[float]] = {g: [] for g in GUESSES}
    turn = 0
    for i in range(games):
        seed = 5_000_000 + i
        rng = random.Random(seed)
        for game, view in turn_starts(RULE_SETS[name], players, seed):
            turn += 1
            if turn % every:
                continue
            odds = belief.hand_odds(view)
            weighed = sample_worlds(view, count, rng, weigh=play_weigh(view))
            drawn = sample_worlds(view, count, rng, odds=odds)
            unseen = view.unseen()
            for seat, row in odds.items():
                hidden = set(game.hand(seat)) - set(view.known[seat])
                even = len(hidden) / len(unseen)
                guesses = {
                    "uniform": dict.fromkeys(unseen, even),
                    "weighed": shares(weighed, seat, view.known[seat]),
                    "net": {c: row[c] / (1 + row[c]) for c in unseen},
                    "net worlds": shares(drawn, seat, view.known[seat]),
                }
                for g, p in guesses.items():
                    scores[g].append(sum((p.get(c, 0.0) - (c in hidden)) ** 2 for c in unseen))
    out = {g: sum(v) / max(1, len(v)) for g, v in scores.items()}
    out["positions"] = len(scores["uniform"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--combos", default="standard:2,standard:4,hebrew:2,draw_first:2,house:4")
    parser.add_argument("--games", type=int, default=12, help="games per combo")
    parser.add_argument("--every", type=int, default=15, help="every K-th turn start")
    parser.add_argument("--worlds", type=int, default=200)
    args = parser.parse_args()
    print(f"{'rules:players':>14} {'positions':>9} " + " ".join(f"{g:>10}" for g in GUESSES))
    for combo in args.combos.split(","):
        name, _, players = combo.partition(":")
        if name not in RULE_SETS or not players.isdigit():
            parser.error(
                f"--combos: {combo!r}: expected RULES:PLAYERS, RULES one of {', '.join(RULE_SETS)}"
            )
        r = measure(name, int(players), args.games, args.every, args.worlds)
        print(
            f"{combo:>14} {int(r['positions']):>9} " + " ".join(f"{r[g]:>10.3f}" for g in GUESSES),
            flush=True,
        )


if __name__ == "__main__":
    main()
