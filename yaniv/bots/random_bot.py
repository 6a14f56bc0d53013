"""Level ``random``: a uniformly random legal move, but Yaniv whenever it is legal at or under
the threshold, so that games end."""

from __future__ import annotations

import random

from ..moves import YANIV, Move
from ..view import PlayerView
from .base import legal_moves, register


@register("random")
class RandomBot:
    """Plays a uniformly random legal move; calls Yaniv whenever allowed at or under the
    threshold, so games end (a deliberate call above it is one random move among the rest)."""

    name = "random"
    instant = True  # a decision takes microseconds (base.decides_instantly)

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: PlayerView) -> Move:
        """A random legal move, Yaniv first."""
        moves = legal_moves(view)
        if YANIV in moves and view.hand_value <= view.rules.yaniv_threshold:
            return YANIV
        return self.rng.choice(moves)
