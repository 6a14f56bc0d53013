"""A game on the arena's duplicate deals (``yaniv.arena.deal_for``), move by move, for the
benchmarks that watch or branch a game as the arena would play it."""

from __future__ import annotations

from collections.abc import Iterator

from yaniv.arena import deal_for
from yaniv.game import Game, Phase
from yaniv.rules import RuleSet

#: Moves after which a game is stopped (the arena's cap).
MAX_MOVES = 5_000


def duplicate_game(rules: RuleSet, players: int, deal_seed: int) -> Game:
    """The game of ``deal_seed`` at its first deal."""
    return Game.new(
        rules, players=players, seed=deal_seed,
        deal=deal_for(rules, [False] * players, 1, deal_seed, 1),
    )  # fmt: skip


def turns(game: Game, deal_seed: int, max_moves: int = MAX_MOVES) -> Iterator[int]:
    """The seat to move before each move of ``game``, each next round dealt as the arena deals
    it, until the game is over or ``max_moves`` moves were made. The caller applies one move
    for each seat yielded."""
    moves = 0
    while game.phase != Phase.GAME_OVER and moves < max_moves:
        if game.phase == Phase.ROUND_OVER:
            result = game.result
            assert result is not None and result.next_starter is not None
            game.next_round(
                deal_for(game.rules, game.out, game.round_no + 1, deal_seed, result.next_starter)
            )
            continue
        seat = game.to_move
        assert seat is not None
        yield seat
        moves += 1
