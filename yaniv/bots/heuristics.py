"""Fast turn heuristics on raw state (hand bitmasks, card ints), shared by the bots.

Everything here works on plain ints so that the expert's rollouts can call it on a ``Game``'s
internals as cheaply as the view-based bots call it on a ``PlayerView``. A hand is judged by
``hand_eval``: its value, less a share of what it can shed next turn (so pairs and run pieces
count), less a bonus when it is low enough to call Yaniv.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from ..cards import RANK, SUIT, VALUE, Card
from ..discards import BROKEN, Variant, classify, legal_discards, pickable, variant
from ..moves import DRAW_STOCK, Discard, Move
from ..rules import RuleSet
from ..view import PlayerView

#: Weight of the next turn's best shed in a hand's evaluation.
SHED_WEIGHT = 0.55
#: Bonus for a hand that may call Yaniv next turn.
YANIV_BONUS = 3.0
#: Value distribution (0..10) of a full deck with two jokers, for when nothing is tracked.
DECK_DIST: tuple[float, ...] = tuple(x / 54 for x in (2, 4, 4, 4, 4, 4, 4, 4, 4, 4, 16))

# Per discard variant (every option that shapes the legal discards): a cache keyed on fewer
# options gave one rule set the values of another in the same process.
_SHED: dict[Variant, dict[int, int]] = {}
_MASK_VALUE: dict[int, int] = {}


#: After this many moves in a round, bots sometimes draw from the stock to break cycles (two
#: players passing the same low cards back and forth forever).
STALL_MOVES = 80


def stalled(moves_in_round: int, rng_value: float) -> bool:
    """Whether to break a possible cycle by drawing from the stock this time."""
    return moves_in_round > STALL_MOVES and rng_value < 0.5


def break_stall(view: PlayerView, rng: random.Random) -> Move | None:
    """The stall rule of every level that does not search: where a stock draw is legal and the
    round has gone on for more than ``STALL_MOVES`` events, draw from the stock half the time
    (a coin of ``rng``, drawn only where a stock draw is legal), so that players handing the
    same low cards round the pile meet new cards; None where the turn is the bot's own."""
    if DRAW_STOCK in view.legal_moves and stalled(len(view.events), rng.random()):
        return DRAW_STOCK
    return None


def mask_value(mask: int) -> int:
    """The value of the cards of a bitmask."""
    v = _MASK_VALUE.get(mask)
    if v is None:
        v = 0
        m = mask
        while m:
            low = m & -m
            v += VALUE[low.bit_length() - 1]
            m ^= low
        if len(_MASK_VALUE) > 500_000:
            _MASK_VALUE.clear()
        _MASK_VALUE[mask] = v
    return v


def shed_max(hand: int, rules: RuleSet) -> int:
    """The most points one legal discard of ``hand`` sheds."""
    key = variant(rules)
    table = _SHED.get(key)
    if table is None:
        table = _SHED[key] = {}
    v = table.get(hand)
    if v is None:
        v = max((mask_value(d.mask) for d in legal_discards(hand, rules)), default=0)
        if len(table) > 500_000:
            table.clear()
        table[hand] = v
    return v


def hand_eval(hand: int, value: int, rules: RuleSet, w: float = SHED_WEIGHT) -> float:
    """How bad a hand is to hold after one's turn (lower is better).

    ``w`` weighs what the hand can shed next turn: at 1 the hand counts as what stays after the
    next discard; above 1 high cards start to look good, which they are not.
    """
    e = value - w * shed_max(hand, rules)
    if value <= rules.yaniv_threshold:
        e -= YANIV_BONUS
    return e


def value_dist(cards: Iterable[Card]) -> tuple[float, ...]:
    """The distribution of card values (0..10) among ``cards``."""
    counts = [0] * 11
    n = 0
    for c in cards:
        counts[VALUE[c]] += 1
        n += 1
    if n == 0:
        return DECK_DIST
    return tuple(x / n for x in counts)


def stock_eval(
    hand: int, value: int, rules: RuleSet, dist: Sequence[float], w: float = SHED_WEIGHT
) -> float:
    """Expected ``hand_eval`` after drawing an unknown card with value distribution ``dist``."""
    ms = shed_max(hand, rules)
    t = rules.yaniv_threshold
    e = 0.0
    for v, p in enumerate(dist):
        if p:
            x = value + v - w * (ms if ms > v else v)
            if value + v <= t:
                x -= YANIV_BONUS
            e += p * x
    return e


def combines(card: Card, hand: int) -> bool:
    """Whether ``card`` makes a pair with, or sits next to a same-suit card of, ``hand``."""
    if card >= 52:
        return True
    r, s = RANK[card], SUIT[card]
    for other in range(52):
        if (
            hand >> other & 1
            and other != card
            and (RANK[other] == r or (SUIT[other] == s and abs(RANK[other] - r) <= 2))
        ):
            return True
    return False


def feed_penalty(d: Discard, rules: RuleSet, collects: int = 0, weight: float = 1.0) -> float:
    """How much discarding ``d`` helps the next player, who may draw from it.

    Low cards are worth taking; so are cards that combine with ``collects`` (the cards the next
    player is known to hold).
    """
    cards = d.cards
    kind = 0 if len(cards) == 1 else classify(cards, rules)
    if kind == BROKEN:
        return 0.0
    worst = 0.0
    for c in pickable(cards, kind, rules.pickup):
        gain = max(0, 4 - VALUE[c]) * 0.6
        if collects and combines(c, collects):
            gain += 2.5
        if gain > worst:
            worst = gain
    return worst * weight


def plan_discard_first(
    hand: int,
    value: int,
    pickable_cards: Sequence[Card],
    stock_ok: bool,
    rules: RuleSet,
    dist: Sequence[float],
    collects: int = 0,
    feed_weight: float = 0.0,
    w: float = SHED_WEIGHT,
) -> list[tuple[float, Discard, Card | None]]:
    """Every legal discard with its best following draw (None: the stock), best first."""
    plans: list[tuple[float, Discard, Card | None]] = []
    for d in legal_discards(hand, rules):
        rest = hand ^ d.mask
        best, draw = draw_choice(
            rest, value - mask_value(d.mask), pickable_cards, stock_ok, rules, dist, w
        )
        if feed_weight:
            best += feed_penalty(d, rules, collects, feed_weight)
        plans.append((best, d, draw))
    plans.sort(key=lambda p: p[0])
    return plans


def best_draw(
    hand: int,
    value: int,
    pickable_cards: Sequence[Card],
    stock_ok: bool,
    rules: RuleSet,
    dist: Sequence[float],
    w: float = SHED_WEIGHT,
) -> Card | None:
    """The draw (a pickable card, or None for the stock) that leaves the best hand."""
    return draw_choice(hand, value, pickable_cards, stock_ok, rules, dist, w)[1]


def draw_choice(
    hand: int,
    value: int,
    pickable_cards: Sequence[Card],
    stock_ok: bool,
    rules: RuleSet,
    dist: Sequence[float],
    w: float = SHED_WEIGHT,
) -> tuple[float, Card | None]:
    """The best draw for ``hand`` (None: the stock) and the judgement of the hand it leaves."""
    best = stock_eval(hand, value, rules, dist, w) if stock_ok else 1e9
    draw: Card | None = None
    for c in pickable_cards:
        e = hand_eval(hand | 1 << c, value + VALUE[c], rules, w)
        if e < best:
            best, draw = e, c
    return best, draw


def best_discard_after_draw(
    hand: int,
    value: int,
    drawn: int,
    rules: RuleSet,
    collects: int = 0,
    feed_weight: float = 0.0,
    w: float = SHED_WEIGHT,
) -> list[tuple[float, Discard]]:
    """Draw-first: the legal discards of ``hand`` (the drawn card in it), best first.

    ``drawn`` is the card just taken from the pile (-1 after a stock draw). What follows the
    discard is the next turn's draw, so the rest is judged by ``hand_eval``.
    """
    out: list[tuple[float, Discard]] = []
    for d in legal_discards(hand, rules):
        if d.mask == hand or d.cards == (drawn,):
            continue
        e = hand_eval(hand ^ d.mask, value - mask_value(d.mask), rules, w)
        if feed_weight:
            e += feed_penalty(d, rules, collects, feed_weight)
        out.append((e, d))
    out.sort(key=lambda p: p[0])
    return out


def draw_first_options(
    hand: int,
    value: int,
    pickable_cards: Sequence[Card],
    stock_ok: bool,
    rules: RuleSet,
    dist: Sequence[float],
    collects: int = 0,
    feed_weight: float = 0.0,
    w: float = SHED_WEIGHT,
) -> list[tuple[float, Card | None]]:
    """Draw-first, at the start of a turn: each draw with the best discard after it, best first."""
    out: list[tuple[float, Card | None]] = []
    if stock_ok:
        # The unknown card mostly does not combine: judge the discard from the current hand.
        best = 1e9
        for d in legal_discards(hand, rules):
            if d.mask == hand:
                continue
            e = stock_eval(hand ^ d.mask, value - mask_value(d.mask), rules, dist, w)
            if e < best:
                best = e
        if best == 1e9:  # a single card: whatever is drawn, one of the two goes
            best = stock_eval(hand, value, rules, dist, w)
        out.append((best, None))
    for c in pickable_cards:
        h = hand | 1 << c
        ds = best_discard_after_draw(h, value + VALUE[c], c, rules, collects, feed_weight, w)
        out.append((ds[0][0] if ds else 1e9, c))
    out.sort(key=lambda p: p[0])
    return out
