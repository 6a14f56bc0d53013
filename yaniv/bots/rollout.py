"""The fast heuristic's whole turn on the raw game: the rollouts of the expert and the master,
and the self-play of the game-level utility (utility.py), which the coach uses: here, below all
three, so that none imports another for it."""

from __future__ import annotations

from ..cards import Card
from ..discards import legal_discards
from ..game import Game, Phase
from ..moves import DRAW_STOCK, DRAWS, SLAPS, YANIV, Discard
from . import heuristics as H

#: Highest hand value at which a rollout player calls, by the fewest cards an opponent holds.
CALL_AT = (0, 1, 3, 5, 7, 7, 7, 7, 7, 7, 7, 7)


def rollout_turn(g: Game, me: int, w_me: float, w_others: float = H.SHED_WEIGHT) -> None:
    """One whole turn of the fast heuristic for the seat to move, on the raw game.

    Seat ``me`` judges hands with weight ``w_me``, the others with ``w_others`` (by default
    like the medium level).
    """
    p = g.to_move
    assert p is not None  # a rollout stops when the round is over
    w = w_me if p == me else w_others
    rules = g.rules
    value = g.values[p]
    if g.can_yaniv() and value <= rules.yaniv_threshold:
        fewest = min(g.counts[s] for s in range(g.n) if s != p and not g.out[s])
        if value <= min(CALL_AT[min(fewest, 11)], rules.yaniv_threshold):
            g.apply(YANIV)
            return
    hand = g.hands[p]
    stock_ok = bool(g.stock)
    if not rules.draw_first:
        best = 1e9
        pick: Discard | None = None
        draw: Card | None = None
        pickable = g.pickable
        for d in legal_discards(hand, rules):
            e, dr = H.draw_choice(
                hand ^ d.mask,
                value - H.mask_value(d.mask),
                pickable,
                stock_ok,
                rules,
                H.DECK_DIST,
                w,
            )
            if e < best:
                best, pick, draw = e, d, dr
        assert pick is not None
        g.apply(pick)
        if draw is None and not stock_ok:
            draw = g.pickable[0]
        g.apply(DRAW_STOCK if draw is None else DRAWS[draw])
        if g.phase == Phase.SLAP:
            g.apply(SLAPS[g.drawn])
        return
    opts = H.draw_first_options(hand, value, g.pickable, stock_ok, rules, H.DECK_DIST, w=w)
    card = opts[0][1]
    g.apply(DRAW_STOCK if card is None else DRAWS[card])
    hand = g.hands[p]
    ds = H.best_discard_after_draw(hand, g.values[p], g.drawn, rules, w=w)
    g.apply(ds[0][1])
