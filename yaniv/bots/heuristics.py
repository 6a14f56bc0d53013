"""Fast turn heuristics on raw state (hand bitmasks, card ints), shared by the bots.

Everything here works on plain ints so that the expert's rollouts can call it on a ``Game``'s
internals as cheaply as the view-based bots call it on a ``PlayerView``. A hand is judged by
``hand_eval``: its value, less a share of what it can shed next turn (so pairs and run pieces
count), less a bonus when it is low enough to call Yaniv.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import cast

from .. import compiled as _compiled
from ..cards import RANK, SUIT, VALUE, Card
from ..discards import BROKEN, Variant, classify, discards_of, legal_discards, pickable, variant
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
_DECK_STOCK: dict[tuple[int, int, int, float], float] = {}  # stock_eval from a full deck


#: After this many moves in a round, bots sometimes draw from the stock to break cycles (two
#: players passing the same low cards back and forth forever).
STALL_MOVES = 80


#: Turns per player still in the round after which the round counts as stalled: players who
#: each aim at a bonus target, or trade the same cards through the pile, can keep a round going
#: for ever (hundreds of arena games hit the move cap). A stalled expert races: it sheds points
#: with no bonus pull and no hoarding, and calls at even odds; after ``DESPERATE`` times as many,
#: whenever it may (so do the utility's self-play seats). Normal rounds end long before: this
#: changes no decision in them.
STALL_TURNS = 12
DESPERATE = 2


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


def _shed_table(rules: RuleSet) -> dict[int, int]:
    """``shed_max``'s table of these rules' discard variant (the compiled ``turn_plan``
    reads and fills the same)."""
    key = variant(rules)
    table = _SHED.get(key)
    if table is None:
        table = _SHED[key] = {}
    return table


def shed_max(hand: int, rules: RuleSet) -> int:
    """The most points one legal discard of ``hand`` sheds."""
    table = _shed_table(rules)
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
    if dist is not DECK_DIST:
        return _stock_eval(ms, value, t, dist, w)
    # The rollouts' case, the hottest of the master's search: memoized on all it depends on.
    key = (ms, value, t, w)
    e = _DECK_STOCK.get(key)
    if e is None:
        if len(_DECK_STOCK) > 100_000:
            _DECK_STOCK.clear()
        e = _DECK_STOCK[key] = _stock_eval(ms, value, t, dist, w)
    return e


def _stock_eval(ms: int, value: int, t: int, dist: Sequence[float], w: float) -> float:
    """``stock_eval`` of a hand of value ``value`` whose best discard sheds ``ms``, threshold
    ``t``."""
    e = 0.0
    for v, p in enumerate(dist):
        if p:
            x = value + v - w * (ms if ms > v else v)
            if value + v <= t:
                x -= YANIV_BONUS
            e += p * x
    return e


def _combining(card: Card) -> int:
    """The cards that ``card`` (not a joker) pairs with or sits next to in its suit."""
    r, s = RANK[card], SUIT[card]
    return sum(
        1 << other
        for other in range(52)
        if other != card and (RANK[other] == r or (SUIT[other] == s and abs(RANK[other] - r) <= 2))
    )


_COMBINING = tuple(_combining(c) for c in range(52))


def combines(card: Card, hand: int) -> bool:
    """Whether ``card`` makes a pair with, or sits next to a same-suit card of, ``hand``."""
    return card >= 52 or bool(hand & _COMBINING[card])


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


def turn_plan(
    hand: int,
    value: int,
    pickable_cards: tuple[Card, ...],
    stock_ok: bool,
    rules: RuleSet,
    w: float,
    collects: int = 0,
    pull: tuple[int, float] | None = None,
    feed: bool = False,
    compiled: bool | None = None,
) -> tuple[float, Discard, Card | None]:
    """Discard first: the legal discard and the draw after it (None: the stock) that leave the
    best hand, and its judgement (``draw_choice``, over ``DECK_DIST``): the rollouts' turn.
    ``pull`` (need, worth): with the bonus pull (``pulled_draw_choice``); ``feed``: with the
    feed penalty toward ``collects``. The first of equal judgements is kept.

    On the compiled core the loop runs in C (``_plan.c``), with the same arithmetic in the same
    order: the same floats and the same choice (``compiled``: as ``yaniv.compiled`` chooses).
    """
    lister = discards_of(rules)
    discards = lister(hand)
    core = _compiled.choose(compiled)
    if core is not None:
        need, worth = pull if pull is not None else (-1, 0.0)
        found = core.turn_plan(
            discards, lister, _shed_table(rules), pickable_cards, rules, hand, value, stock_ok,
            w, need, worth, collects, feed,
        )  # fmt: skip
        if found is not None:
            return cast("tuple[float, Discard, Card | None]", found)
    best = 1e9
    plan: tuple[float, Discard, Card | None] | None = None
    for d in discards:
        rest = hand ^ d.mask
        vr = value - mask_value(d.mask)
        if pull is None:
            e, dr = draw_choice(rest, vr, pickable_cards, stock_ok, rules, DECK_DIST, w)
        else:
            e, dr = pulled_draw_choice(
                rest, vr, pickable_cards, stock_ok, rules, DECK_DIST, w, *pull
            )
        if feed:
            e += feed_penalty(d, rules, collects)
        if e < best:
            best, plan = e, (e, d, dr)
    if plan is None:
        raise ValueError(f"no legal discard of the hand {hand:#x}")
    return plan


def best_discard_after_draw(
    hand: int,
    value: int,
    drawn: int,
    rules: RuleSet,
    collects: int = 0,
    feed_weight: float = 0.0,
    w: float = SHED_WEIGHT,
    compiled: bool | None = None,
) -> list[tuple[float, Discard]]:
    """Draw-first: the legal discards of ``hand`` (the drawn card in it), best first.

    ``drawn`` is the card just taken from the pile (-1 after a stock draw). What follows the
    discard is the next turn's draw, so the rest is judged by ``hand_eval``. On the compiled
    core the loop runs in C (``_plan.c``): the same floats in the same order (``compiled``: as
    ``yaniv.compiled`` chooses).
    """
    lister = discards_of(rules)
    discards = lister(hand)
    core = _compiled.choose(compiled)
    if core is not None:
        found = core.discards_after_draw(
            discards, lister, _shed_table(rules), rules, hand, value, drawn, w, collects,
            feed_weight,
        )  # fmt: skip
        if found is not None:
            return cast("list[tuple[float, Discard]]", found)
    out: list[tuple[float, Discard]] = []
    for d in discards:
        if d.mask == hand or d.cards == (drawn,):
            continue
        e = hand_eval(hand ^ d.mask, value - mask_value(d.mask), rules, w)
        if feed_weight:
            e += feed_penalty(d, rules, collects, feed_weight)
        out.append((e, d))
    out.sort(key=lambda p: p[0])
    return out


def after_draw_choice(
    hand: int,
    value: int,
    drawn: int,
    rules: RuleSet,
    collects: int = 0,
    feed_weight: float = 0.0,
    w: float = SHED_WEIGHT,
    pull: tuple[int, float] | None = None,
    compiled: bool | None = None,
) -> Discard:
    """Draw first, after the draw: the discard that ``best_discard_after_draw`` puts first, or
    with ``pull`` (need, worth) the one ``pulled_discards`` puts first: the rollouts' discard.
    On the compiled core in C (``_plan.c``), the same choice (``compiled``: as
    ``yaniv.compiled`` chooses)."""
    core = _compiled.choose(compiled)
    if core is not None:
        lister = discards_of(rules)
        need, worth = pull if pull is not None else (-1, 0.0)
        found = core.after_draw_choice(
            lister(hand), lister, _shed_table(rules), rules, hand, value, drawn, w, collects,
            feed_weight, need, worth,
        )  # fmt: skip
        if found is not None:
            return cast(Discard, found)
    # the Python loop: where C could not choose, its list could not be made in C either
    ds = best_discard_after_draw(hand, value, drawn, rules, collects, feed_weight, w, False)
    if pull is not None:
        ds = pulled_discards(ds, value, *pull)
    if not ds:
        raise ValueError(f"no legal discard of the hand {hand:#x} after drawing {drawn}")
    return ds[0][1]


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


def draw_first_choice(
    hand: int,
    value: int,
    pickable_cards: tuple[Card, ...],
    stock_ok: bool,
    rules: RuleSet,
    w: float,
    collects: int = 0,
    feed_weight: float = 0.0,
    pull: tuple[int, float] | None = None,
    compiled: bool | None = None,
) -> Card | None:
    """Draw first, at the start of a turn: the draw (None: the stock) that
    ``draw_first_options`` puts first, or with ``pull`` (need, worth) ``pulled_draw_first``
    (whose discards weigh the feed penalty at 1): the rollouts' draw. On the compiled core in C
    (``_plan.c``), the same judgements (``compiled``: as ``yaniv.compiled`` chooses)."""
    core = _compiled.choose(compiled)
    if core is not None:
        lister = discards_of(rules)
        need, worth = pull if pull is not None else (-1, 0.0)
        found = core.draw_first_choice(
            lister(hand), lister, _shed_table(rules), pickable_cards, rules, hand, value,
            stock_ok, w, collects, 1.0 if pull is not None else feed_weight, need, worth,
        )  # fmt: skip
        if found is not None:
            return None if found < 0 else cast(Card, found)
    if pull is None:
        opts = draw_first_options(
            hand, value, pickable_cards, stock_ok, rules, DECK_DIST, collects, feed_weight, w
        )
    else:
        opts = pulled_draw_first(
            hand, value, pickable_cards, stock_ok, rules, DECK_DIST, collects, w, *pull
        )
    return opts[0][1]


# ------------------------------------------------------------------ the bonus pull (R18)

#: Weight of the bonus pull (R18): aiming the hand I hold after my turn at the value that lands
#: my score exactly on a bonus target should another player end the round. Measured in the
#: arena against medium, seed 1, with the coach of 73192b5: 4 players 43.6% of 1000 games
#: (27.3% of 300 without the pull), 2 players 68.4% of 1000.
BONUS_PULL = 1.0
#: Rough chance, by an opponent's hand size (0..5 cards), that it ends the round before my next
#: turn.
HAZARD = (0.0, 0.3, 0.18, 0.08, 0.03, 0.01)
#: Most points a hand is pulled toward a bonus score from (a hand worth more is not aimed).
PULL_REACH = 50


def bonus_need(rules: RuleSet, score: int) -> tuple[int, int] | None:
    """The bonus score (R18) that ``score`` aims at: the points that land it there exactly,
    at most ``PULL_REACH``, and the points the bonus takes off; None where none is in reach.

    Under ``halve``, the first of the targets within reach (worth half the target); under
    ``subtract``, the next multiple of ``bonus_step`` (worth ``bonus_amount``)."""
    if rules.bonus == "halve":
        for t in rules.bonus_targets:
            need = t - score
            if 0 < need <= PULL_REACH:
                return need, t - t // 2
        return None
    if rules.bonus == "subtract":
        need = rules.bonus_step - score % rules.bonus_step
        return (need, rules.bonus_amount) if need <= PULL_REACH else None
    return None


def pull_target(
    rules: RuleSet, score: int, opponents: Iterable[tuple[int, int]], weight: float
) -> tuple[int, float] | None:
    """The hand value that lands ``score`` exactly on a bonus score (R18) if another player
    ends the round before my next turn, and what landing there is worth (times ``weight``),
    weighed by the chance that this happens; None where no bonus is in reach (``bonus_need``).

    ``opponents`` gives each opponent still in the round as (hand size, value of its cards
    seen taken from the pile). An opponent whose known cards alone are over the threshold
    cannot call at its next turn (unless calls above it are allowed), so it ends no round
    before mine.
    """
    aim = bonus_need(rules, score)
    if aim is None:
        return None
    stay = 1.0
    for size, known in opponents:
        if known > rules.yaniv_threshold and not rules.yaniv_above_threshold:
            continue
        stay *= 1 - HAZARD[min(size, len(HAZARD) - 1)]
    need, worth = aim
    return need, weight * worth * (1 - stay)


def pulled_stock_eval(
    rest: int,
    vr: int,
    rules: RuleSet,
    dist: Sequence[float],
    w: float,
    need: int,
    worth: float,
) -> float:
    """``stock_eval`` of the hand ``rest`` (value ``vr``) before a stock draw, less the pull's
    ``worth`` by the chance that the card drawn makes the hand's value ``need``."""
    e = stock_eval(rest, vr, rules, dist, w)
    if 0 <= need - vr <= 10:
        e -= worth * dist[need - vr]
    return e


def pulled_draw_choice(
    rest: int,
    vr: int,
    pickable_cards: Sequence[Card],
    stock_ok: bool,
    rules: RuleSet,
    dist: Sequence[float],
    w: float,
    need: int,
    worth: float,
) -> tuple[float, Card | None]:
    """``draw_choice`` with the bonus pull: a hand of value ``need`` after the draw is worth
    ``worth`` (after a stock draw, by the chance of the card's value)."""
    best = pulled_stock_eval(rest, vr, rules, dist, w, need, worth) if stock_ok else 1e9
    draw: Card | None = None
    for c in pickable_cards:
        e = hand_eval(rest | 1 << c, vr + VALUE[c], rules, w)
        if vr + VALUE[c] == need:
            e -= worth
        if e < best:
            best, draw = e, c
    return best, draw


def pulled_plans(
    plans: list[tuple[float, Discard, Card | None]],
    hand: int,
    value: int,
    pickable: Sequence[Card],
    stock_ok: bool,
    rules: RuleSet,
    dist: Sequence[float],
    collects: int,
    w: float,
    need: int,
    worth: float,
) -> list[tuple[float, Discard, Card | None]]:
    """``plan_discard_first``'s plans re-judged with the bonus pull: a hand of value ``need``
    after the draw is worth ``worth`` (a stock draw by the chance of its value), best first."""
    out: list[tuple[float, Discard, Card | None]] = []
    for _, d, _ in plans:
        best, draw = pulled_draw_choice(
            hand ^ d.mask,
            value - mask_value(d.mask),
            pickable,
            stock_ok,
            rules,
            dist,
            w,
            need,
            worth,
        )
        best += feed_penalty(d, rules, collects, 1.0)
        out.append((best, d, draw))
    out.sort(key=lambda p: p[0])
    return out


def pulled_discards(
    options: list[tuple[float, Discard]], value: int, need: int, worth: float
) -> list[tuple[float, Discard]]:
    """``best_discard_after_draw``'s options (the card drawn already in ``value``) re-judged
    with the bonus pull: a hand left of value ``need`` is worth ``worth``; best first."""
    out = [(e - (worth if value - mask_value(d.mask) == need else 0.0), d) for e, d in options]
    out.sort(key=lambda p: p[0])
    return out


def pulled_draw_first(
    hand: int,
    value: int,
    pickable: Sequence[Card],
    stock_ok: bool,
    rules: RuleSet,
    dist: Sequence[float],
    collects: int,
    w: float,
    need: int,
    worth: float,
) -> list[tuple[float, Card | None]]:
    """``draw_first_options`` with the bonus pull: each draw judged by its best discard
    after it, a hand left of value ``need`` worth ``worth`` (after a stock draw, by the chance
    that the card drawn makes it); best first."""
    out: list[tuple[float, Card | None]] = []
    if stock_ok:
        best = 1e9
        for d in legal_discards(hand, rules):
            if d.mask == hand:
                continue
            vr = value - mask_value(d.mask)
            best = min(best, pulled_stock_eval(hand ^ d.mask, vr, rules, dist, w, need, worth))
        if best == 1e9:  # a single card: whatever is drawn, one of the two goes
            best = stock_eval(hand, value, rules, dist, w)
        out.append((best, None))
    for c in pickable:
        v = value + VALUE[c]
        ds = best_discard_after_draw(hand | 1 << c, v, c, rules, collects, 1.0, w)
        ds = pulled_discards(ds, v, need, worth)
        out.append((ds[0][0] if ds else 1e9, c))
    out.sort(key=lambda p: p[0])
    return out


if _compiled.AVAILABLE is not None:
    _compiled.AVAILABLE.setup_plan(DECK_DIST, _COMBINING, YANIV_BONUS, VALUE)
