"""Policy-based inference: how likely each opponent's observed play was, given a guess of its
hidden cards, under a model of how a player decides (the shared hand heuristic).

The master weighs the worlds it samples (``yaniv.search.sample_worlds``) by ``play_weigh``:
a guess of an opponent's hidden cards is worth the coach's low-card prior (a card of value
``v`` kept with likelihood ``exp(-beta * v)``, ``beta`` growing with its turns this round)
times the likelihood of what it did at its last turn, had it held those cards:

- **the discard and the draw** (discard first): every legal discard of the hand it held then,
  each with each draw it could make (the stock, or a card of the pile group before it), is
  scored by the heuristic (``heuristics.hand_eval`` / ``stock_eval``: lower is better), and
  the observed pair has the softmax probability ``exp(-score / TAU)``, normalised. The hand
  it held is the guess plus what it laid, less what it drew: a pile card (public), or after a
  stock draw each hidden card of the guess in turn (the one drawn is not known), averaged.
- **the discard after its draw** (draw first): the same softmax over the discards of the hand
  it held after drawing (the guess plus what it laid), the draw itself not modelled.
- **not calling** (discard first, where the hand at the turn's start is the one judged): a
  hand at or under the threshold that did not call was less likely the lower it was
  (``1 - call_chance(value)``; a hand of 0 calls almost surely).

Only the last turn is read: earlier hands would need to know which of the hidden cards came
from which stock draw. A turn with a slap in it, or a guess that does not fit the turn (it
drew a pile card the guess lacks), is not judged (likelihood 1). Everything comes from the
view: the events of this round as that seat saw them, and the rules.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..cards import VALUE, Card, mask_of
from ..discards import classify, legal_discards, pickable
from ..events import Dealt, Discarded, Drew, Slapped
from ..rules import RuleSet
from ..view import PlayerView
from . import heuristics as H
from .coach import BETA0, BETA1

#: The softmax temperature of the opponent model, in the heuristic's points: about how much
#: worse a turn may score and still be played now and then.
TAU = 2.0
#: The shed weight of the opponent model (the expert's).
SHED_WEIGHT = 1.0
#: The chance that a hand of value ``v`` at or under the threshold calls:
#: ``CALL_AT_ZERO - CALL_SLOPE * v``, clamped to [0, 1]; not calling has at least ``FLOOR``.
CALL_AT_ZERO = 1.0
CALL_SLOPE = 0.1
FLOOR = 0.02


@dataclass(frozen=True, slots=True)
class LastTurn:
    """What a player was seen to do at its last turn of the round."""

    laid: tuple[Card, ...]  # the discard
    source: str  # "stock" or "pile"
    drawn: Card | None  # the pile card drawn (None after a stock draw)
    offered: tuple[Card, ...]  # the pile cards it could have drawn
    draw_first: bool  # drew before it laid


def last_turns(view: PlayerView) -> dict[int, LastTurn]:
    """Each seat's last whole turn of this round as ``view`` saw it (none for a seat whose
    last turn had a slap in it, or whose pile group before it is not known)."""
    rules = view.rules
    out: dict[int, LastTurn] = {}
    group: tuple[Card, ...] | None = None  # the pile's top group
    offered: dict[int, tuple[Card, ...] | None] = {}  # what the seat's draw could take
    laid: dict[int, tuple[Card, ...]] = {}
    drew: dict[int, tuple[str, Card | None]] = {}
    for event in view.events:
        if isinstance(event, Dealt):
            group = (event.up,)
        elif isinstance(event, Drew):
            seat = event.seat
            if rules.draw_first:  # the draw opens the turn: the group is the one before
                laid.pop(seat, None)
                offered[seat] = _offered(group, rules)
            drew[seat] = (event.source, event.card)
        elif isinstance(event, Discarded):
            seat = event.seat
            if not rules.draw_first:  # the discard opens the turn
                drew.pop(seat, None)
                offered[seat] = _offered(group, rules)
            laid[seat] = event.cards
            group = event.cards
        elif isinstance(event, Slapped):
            offered[event.seat] = None  # a slap changes the hand and the group: not judged
            group = None
    for seat, cards in laid.items():
        seen = drew.get(seat)
        offer = offered.get(seat)
        if seen is None or offer is None:
            continue
        source, card = seen
        out[seat] = LastTurn(cards, source, card, offer, rules.draw_first)
    return out


def _offered(group: tuple[Card, ...] | None, rules: RuleSet) -> tuple[Card, ...] | None:
    if group is None:
        return None
    kind = 0 if len(group) == 1 else classify(group, rules)
    return pickable(group, kind, rules.pickup)


def call_chance(value: int) -> float:
    """The modelled chance that a hand of ``value``, at or under the threshold, calls."""
    return min(1.0, max(0.0, CALL_AT_ZERO - CALL_SLOPE * value))


def _softmax_share(scores: Sequence[float], chosen: float) -> float:
    low = min(scores)
    total = math.fsum(math.exp(-(s - low) / TAU) for s in scores)
    return math.exp(-(chosen - low) / TAU) / total


def turn_likelihood(before: int, turn: LastTurn, rules: RuleSet, dist: Sequence[float]) -> float:
    """The model's chance of the observed discard and draw from the hand ``before`` (a
    bitmask, discard first), times that of not calling with it."""
    value = H.mask_value(before)
    laid = mask_of(turn.laid)
    scores: list[float] = []
    chosen: float | None = None
    for d in legal_discards(before, rules):
        rest = before ^ d.mask
        left = value - H.mask_value(d.mask)
        stock = H.stock_eval(rest, left, rules, dist, SHED_WEIGHT)
        scores.append(stock)
        if d.mask == laid and turn.source == "stock":
            chosen = stock
        for c in turn.offered:
            e = H.hand_eval(rest | 1 << c, left + VALUE[c], rules, SHED_WEIGHT)
            scores.append(e)
            if d.mask == laid and turn.source == "pile" and c == turn.drawn:
                chosen = e
    if chosen is None:
        return FLOOR  # the model would never play this (not a legal discard of the guess)
    return _softmax_share(scores, chosen) * _no_call(value, rules)


def discard_likelihood(held: int, turn: LastTurn, rules: RuleSet) -> float:
    """Draw first: the model's chance of the observed discard from the hand ``held`` after the
    draw (the card drawn may not go straight back, R11)."""
    laid = mask_of(turn.laid)
    value = H.mask_value(held)
    drawn = -1 if turn.drawn is None else turn.drawn
    options = H.best_discard_after_draw(held, value, drawn, rules, w=SHED_WEIGHT)
    chosen = next((e for e, d in options if d.mask == laid), None)
    if chosen is None:
        return FLOOR
    return _softmax_share([e for e, _ in options], chosen)


def _no_call(value: int, rules: RuleSet) -> float:
    if value > rules.yaniv_threshold:
        return 1.0
    return max(FLOOR, 1.0 - call_chance(value))


def hand_likelihood(
    hand: Sequence[Card],
    hidden: Sequence[Card],
    turn: LastTurn,
    rules: RuleSet,
    dist: Sequence[float],
) -> float:
    """The likelihood of ``turn`` had the player held ``hand`` now (``hidden``: the part of it
    that the viewer cannot see), 1 where the guess does not fit the turn."""
    now = mask_of(hand)
    laid = mask_of(turn.laid)
    if turn.draw_first:
        return discard_likelihood(now | laid, turn, rules)
    if turn.source == "pile":
        if turn.drawn is None or not now >> turn.drawn & 1:
            return 1.0
        return turn_likelihood((now ^ 1 << turn.drawn) | laid, turn, rules, dist)
    if not hidden:
        return 1.0
    # The card drawn from the stock is one of the hidden ones (or was slapped: not judged).
    return math.fsum(
        turn_likelihood((now ^ 1 << c) | laid, turn, rules, dist) for c in hidden
    ) / len(hidden)


def kept_rates(view: PlayerView) -> list[float]:
    """Per seat the coach's low-card rate ``beta`` (by its discards this round): the
    likelihood of a hidden card of value ``v`` in its hand is ``exp(-beta * v)``."""
    turns = [0] * view.n
    for event in view.events:
        if isinstance(event, Discarded):
            turns[event.seat] += 1
    return [BETA0 + BETA1 * t for t in turns]


def play_weigh(
    view: PlayerView, beta_scale: float = 1.0, by_play: bool = True, power: float = 1.0
) -> Callable[[PlayerView, int, tuple[Card, ...]], float]:
    """A ``weigh`` for ``sample_worlds``: each opponent's hidden cards by the low-card prior
    (its rate times ``beta_scale``) and, with ``by_play``, by the likelihood of its last turn
    to the ``power`` (below 1: tempered, where the worlds' draw has read that turn already)."""
    betas = [b * beta_scale for b in kept_rates(view)]
    turns = last_turns(view) if by_play else {}
    dist = H.value_dist(view.unseen())
    rules = view.rules
    memo: dict[tuple[int, tuple[Card, ...]], float] = {}

    def weigh(v: PlayerView, seat: int, hidden: tuple[Card, ...]) -> float:
        w = math.exp(-betas[seat] * sum(VALUE[c] for c in hidden))
        turn = turns.get(seat)
        if turn is None:
            return w
        key = (seat, tuple(sorted(hidden)))
        like = memo.get(key)
        if like is None:
            hand = (*v.known[seat], *hidden)
            like = memo[key] = hand_likelihood(hand, hidden, turn, rules, dist) ** power
        return w * like

    return weigh
