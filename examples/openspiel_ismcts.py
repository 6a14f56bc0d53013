"""OpenSpiel's ISMCTS on Yaniv: information-set Monte Carlo tree search against random play.

    pip install -e '.[openspiel]'
    python examples/openspiel_ismcts.py                       # 20 rounds, 2 players
    python examples/openspiel_ismcts.py --rounds 200 --simulations 200 --json
    python examples/openspiel_ismcts.py --options ""          # the standard game (slow)

The game is ``python_yaniv`` (yaniv/envs/openspiel.py), one round per episode: +1 for the
round's winner. The searcher is OpenSpiel's own ``ISMCTSBot``
(open_spiel/python/algorithms/ismcts.py) with random rollouts; it samples the worlds it
searches with the game's ``resample_from_infostate`` (the hidden cards dealt again, consistent
with everything the searcher has seen). Its opponent is OpenSpiel's uniform random bot. The
searcher takes each seat in turn. Prints the searcher's win rate with a 95% Wilson interval.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import yaniv.envs.openspiel as yos

#: The small rule set the example plays by default: three cards, Yaniv at 10 or less, so that
#: random rollouts end a round in tens of moves.
SMALL = "hand_size=3,yaniv_threshold=10"


def wilson(wins: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95% Wilson interval of a win rate."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def play_round(game: Any, bots: list[Any], rng: np.random.RandomState) -> list[float]:
    """One round (an episode): chance sampled from its outcomes, each seat's bot stepped."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(bots[state.current_player()].step(state))
    return list(state.returns())


def play(
    rounds: int,
    simulations: int,
    players: int = 2,
    seed: int = 1,
    params: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """``rounds`` rounds of the ISMCTS bot against random bots; its wins and win rate."""
    game = pyspiel.load_game(yos.SHORT_NAME, {"players": players, **(params or {})})
    rng = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    searcher = ismcts.ISMCTSBot(
        game, evaluator, uct_c=2.0, max_simulations=simulations, random_state=rng
    )
    wins = 0.0
    t0 = time.perf_counter()
    for r in range(rounds):
        seat = r % players
        bots = [
            searcher if s == seat else pyspiel.make_uniform_random_bot(s, seed * 1000 + r)
            for s in range(players)
        ]
        wins += play_round(game, bots, rng)[seat] == 1.0
    low, high = wilson(wins, rounds)
    return {
        "rounds": rounds,
        "players": players,
        "simulations": simulations,
        "seed": seed,
        "params": params or {},
        "wins": wins,
        "win_rate": wins / rounds,
        "ci95": [round(low, 3), round(high, 3)],
        "chance": 1 / players,
        "seconds": round(time.perf_counter() - t0, 1),
    }


def main() -> None:
    """Play and print the result."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--simulations", type=int, default=50, help="ISMCTS simulations a move")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--options",
        default=SMALL,
        help=f"rule options over the standard game, KEY=VALUE,... (default {SMALL!r}; '' for "
        "the standard game, whose long random rounds make each move many times slower)",
    )
    parser.add_argument("--max-moves", type=int, default=300, help="a round's move cap")
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    args = parser.parse_args()
    params: dict[str, Any] = {"max_moves": args.max_moves}
    if args.options:
        params["options"] = args.options
    result = play(args.rounds, args.simulations, args.players, args.seed, params)
    low, high = result["ci95"]
    print(
        f"ISMCTS ({args.simulations} simulations) vs random, {args.players} players: "
        f"won {result['wins']:.0f} of {args.rounds} rounds ({result['win_rate']:.1%}, "
        f"95% {low:.1%} to {high:.1%}; chance {result['chance']:.0%}) in {result['seconds']} s"
    )
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
