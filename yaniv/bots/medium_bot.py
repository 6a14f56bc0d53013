"""Level ``medium``: tracks cards, keeps pairs and run pieces, avoids feeding the next player,
and calls Yaniv when the coach says the odds are good enough for the score situation."""

from __future__ import annotations

import random

from ..cards import VALUE, mask_of
from ..game import Phase
from ..moves import DRAW_STOCK, DRAWS, PASS, YANIV, Discard, Move, Slap
from ..view import PlayerView
from . import heuristics as H
from .base import legal_moves, register
from .coach import call_expectation, opponents, should_call, yaniv_success_probability


def heuristic_move(
    view: PlayerView, rng: random.Random, feed_weight: float = 1.0, w: float = H.SHED_WEIGHT
) -> Move:
    """The best non-Yaniv move by the shared hand heuristics, with card tracking."""
    moves = view.legal_moves
    stop = H.break_stall(view, rng)
    if stop is not None:
        return stop
    rules = view.rules
    phase = view.phase
    if phase == Phase.SLAP:
        return next((m for m in moves if isinstance(m, Slap)), PASS)
    hand = mask_of(view.hand)
    value = view.hand_value
    dist = H.value_dist(view.unseen())
    collects = mask_of(view.known[view.next_seat(view.seat)])
    stock_ok = DRAW_STOCK in moves or (phase == Phase.START and view.stock_size > 0)
    legal = set(moves)
    if phase == Phase.START and not rules.draw_first:
        plans = H.plan_discard_first(
            hand, value, view.pickable, stock_ok, rules, dist, collects, feed_weight, w
        )
        for _, d, _ in plans:
            if d in legal:
                return d
    elif phase == Phase.START:
        for _, card in H.draw_first_options(
            hand, value, view.pickable, stock_ok, rules, dist, collects, feed_weight, w
        ):
            m = DRAW_STOCK if card is None else DRAWS[card]
            if m in legal:
                return m
    elif phase == Phase.DRAW:
        card = H.best_draw(hand, value, view.pickable, stock_ok, rules, dist, w)
        m = DRAW_STOCK if card is None else DRAWS[card]
        if m in legal:
            return m
    elif phase == Phase.DISCARD:
        drawn = view.drawn if view.drawn is not None else -1
        for _, d in H.best_discard_after_draw(hand, value, drawn, rules, collects, feed_weight, w):
            if d in legal:
                return d
    return next((m for m in moves if m != YANIV), moves[0])


@register("medium")
class MediumBot:
    """Card tracking, combination keeping, no feeding, and Yaniv calls weighed by the coach."""

    name = "medium"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: PlayerView) -> Move:
        """The medium move."""
        moves = legal_moves(view)
        if YANIV in moves:
            rules = view.rules
            value = view.hand_value
            if value <= rules.yaniv_threshold:
                if should_call(view, yaniv_success_probability(view)):
                    return YANIV
            elif deliberate_pays(view):
                return YANIV
        move = heuristic_move(view, self.rng)
        return move if not isinstance(move, Discard) or move in moves else moves[-1]


def deliberate_pays(view: PlayerView) -> bool:
    """A deliberate Yaniv (R15) that lands me on a bonus for a net gain (the Hebrew article's
    61 + 9 + 30 = 100, less 50), or surely ends a first-over game with me the lowest."""
    rules = view.rules
    if call_expectation(view, 0.0) > 0:
        return True
    if rules.end_mode != "first_over":
        return False
    mine = view.scores[view.seat] + view.hand_value + rules.assaf_penalty
    if mine > rules.score_limit:
        return False
    # Each opponent scores at least the value of the cards known in its hand, unless it is
    # among the lowest at or under the threshold; count only surely-high hands.
    ends = False
    for o in opponents(view):
        low_bound = sum(VALUE[c] for c in o.known)
        final = view.scores[o.seat] + low_bound
        if low_bound <= rules.yaniv_threshold or final <= mine:
            return False
        if final > rules.score_limit:
            ends = True
    return ends
