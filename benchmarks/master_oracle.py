"""What the master would gain from knowing the hidden cards: the value of information (prints
figures).

    .venv/bin/python benchmarks/master_oracle.py --knows hands [--deals 150] [--seed 21]
        [--think-ms 20] [--players 2] [--rules standard]

A research measurement, not a level: the master plays one seat against experts on the arena's
deals (each deal once from every seat), but its worlds are built from the real game rather
than sampled from its view. ``--knows hands``: every opponent's cards exactly (the stock's
order still sampled); ``--knows values``: only each hand's value (the worlds of 20 times as
many sampled whose values come nearest); ``--knows nothing``: the master as shipped. The gap
between ``nothing`` and ``hands`` is what better inference of the hidden cards could be worth
to this search; ``values`` tells whether knowing how low the others are would be enough.
"""

from __future__ import annotations

import argparse
import math
import os

from duplicate_deals import duplicate_game, turns

from yaniv.bots import get_bot
from yaniv.bots.master_bot import MasterBot
from yaniv.cards import VALUE
from yaniv.game import Game, Phase
from yaniv.rules import RuleSet
from yaniv.search import World, sample_worlds
from yaniv.view import PlayerView


class Peeking(MasterBot):
    """A master whose worlds come from the real game ``self.game`` (set before each move)."""

    knows = "nothing"
    game: Game | None = None

    def sample(self, view: PlayerView, count: int) -> list[World]:
        game = self.game
        if game is None or self.knows == "nothing":
            return super().sample(view, count)
        me = view.seat
        if self.knows == "hands":
            hands = tuple(() if game.out[s] else tuple(sorted(game.hand(s))) for s in range(game.n))
            out = []
            for _ in range(count):
                stock = game.stock_top()
                self.rng.shuffle(stock)
                out.append(World(hands, tuple(stock), 1.0))
            return out
        want = {
            s: sum(VALUE[c] for c in game.hand(s))
            for s in range(game.n)
            if s != me and not game.out[s]
        }
        pool = sample_worlds(view, count * 20, self.rng)

        def miss(w: World) -> int:
            return sum(abs(sum(VALUE[c] for c in w.hands[s]) - v) for s, v in want.items())

        pool.sort(key=miss)
        return [World(w.hands, w.stock, 1.0) for w in pool[:count]]


def play(
    knows: str, deals: int, seed: int, players: int, think_ms: float, rules: RuleSet
) -> tuple[float, int, int]:
    """The peeking master's wins (shared where tied), games and capped games."""
    wins = 0.0
    games = capped = 0
    for deal in range(deals):
        deal_seed = seed * 1_000_003 + deal
        for seat in range(players):
            master = Peeking(deal_seed * 16 + seat, think_ms=think_ms)
            master.knows = knows
            bots = [
                master if s == seat else get_bot("expert", deal_seed * 16 + s)
                for s in range(players)
            ]
            game = duplicate_game(rules, players, deal_seed)
            master.game = game
            for s in turns(game, deal_seed):
                game.apply(bots[s].choose(game.view(s)))
            games += 1
            if game.phase != Phase.GAME_OVER:
                capped += 1
            elif seat in game.winners:
                wins += 1 / len(game.winners)
    return wins, games, capped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--knows", choices=("hands", "values", "nothing"), default="hands")
    parser.add_argument("--deals", type=int, default=150)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--think-ms", type=float, default=20.0)
    parser.add_argument("--rules", default="standard", help="a preset name")
    args = parser.parse_args()
    wins, games, capped = play(
        args.knows, args.deals, args.seed, args.players, args.think_ms,
        RuleSet.preset(args.rules),
    )  # fmt: skip
    rate = wins / games
    half = 1.96 * math.sqrt(rate * (1 - rate) / games)
    print(
        f"master knowing {args.knows} against {args.players - 1} expert(s), {args.rules}, "
        f"{args.think_ms:g} ms: {rate:.1%} of {games} games (+-{half:.1%}), capped {capped}; "
        f"load {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
