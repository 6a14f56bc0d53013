"""Level ``easy``: greedy. Sheds the most points it can, takes a pile card only when it helps,
calls Yaniv whenever its hand is at or under the threshold (never a deliberate Assaf)."""

from __future__ import annotations

import random

from ..cards import VALUE, Card, mask_of
from ..game import Phase
from ..moves import DRAW_STOCK, DRAWS, PASS, YANIV, Discard, Move, Slap
from ..view import PlayerView
from .base import legal_moves, register
from .heuristics import break_stall, combines, mask_value


def _helps(card: Card, hand: int) -> bool:
    """A pile card is worth taking when it is low or makes a pair or run piece."""
    return VALUE[card] < 5 or combines(card, hand)


@register("easy")
class EasyBot:
    """Greedy: the biggest discard, a pile card only when it helps, Yaniv at once."""

    name = "easy"
    instant = True  # a decision takes microseconds (base.decides_instantly)

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: PlayerView) -> Move:
        """The greedy move."""
        moves = legal_moves(view)
        if YANIV in moves and view.hand_value <= view.rules.yaniv_threshold:
            return YANIV
        phase = view.phase
        hand = mask_of(view.hand)
        if phase == Phase.SLAP:
            return next((m for m in moves if isinstance(m, Slap)), PASS)
        discards = [m for m in moves if isinstance(m, Discard)]
        if discards:
            # Most points, then most cards; ties broken at random.
            best = max((mask_value(d.mask), len(d.cards)) for d in discards)
            return self.rng.choice(
                [d for d in discards if (mask_value(d.mask), len(d.cards)) == best]
            )
        # A draw: discard-first after the discard, or draw-first at the start.
        stop = break_stall(view, self.rng)
        if stop is not None:
            return stop
        good = [c for c in view.pickable if DRAWS[c] in moves and _helps(c, hand)]
        if good:
            return DRAWS[min(good, key=lambda c: (VALUE[c], c))]
        if DRAW_STOCK in moves:
            return DRAW_STOCK
        return moves[0]
