"""The expert playing itself, position by position: the data of the belief's training and of
its benchmarks (benchmarks/belief_brier.py, benchmarks/call_odds.py, benchmarks/rollout_calls.py),
one loop for all."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from yaniv.bots import get_bot  # noqa: E402
from yaniv.game import Game  # noqa: E402
from yaniv.moves import YANIV, Move  # noqa: E402
from yaniv.rules import RuleSet  # noqa: E402
from yaniv.state import Phase  # noqa: E402
from yaniv.view import PlayerView  # noqa: E402


def expert_turns(
    rules: RuleSet, players: int, seed: int
) -> Iterator[tuple[Game, PlayerView, Move]]:
    """The game of ``seed`` (the experts seeded ``seed * 8 + seat``): at every decision, the game
    before the move, the view of the seat to move and the expert's move; the caller may copy
    the game, not change it."""
    bots = [get_bot("expert", seed=seed * 8 + s) for s in range(players)]
    game = Game.new(rules, players=players, seed=seed)
    while not game.is_over:
        if game.phase >= Phase.ROUND_OVER:
            game.next_round()
            continue
        seat = game.to_move
        assert seat is not None
        view = game.view(seat)
        move = bots[seat].choose(view)
        yield game, view, move
        game.apply(move)


def turn_starts(rules: RuleSet, players: int, seed: int) -> Iterator[tuple[Game, PlayerView]]:
    """Of ``expert_turns``, the game and the view of the seat to move at every turn start."""
    for game, view, _move in expert_turns(rules, players, seed):
        if game.phase == Phase.START:
            yield game, view


def call_positions(rules: RuleSet, players: int, seed: int) -> Iterator[tuple[PlayerView, bool]]:
    """Of ``turn_starts``, the views where the seat to move may call Yaniv at or under the
    threshold, each with whether the call succeeds (tried on a copy of the real game)."""
    for game, view in turn_starts(rules, players, seed):
        if YANIV not in view.legal_moves or view.hand_value > rules.yaniv_threshold:
            continue
        result = game.clone().apply(YANIV)
        assert result is not None
        yield view, not result.assafers
