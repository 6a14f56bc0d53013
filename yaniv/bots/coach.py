"""The coach: how likely a Yaniv call is to succeed, and the best moves with reasons.

Opponents' unknown cards are sampled from the cards this seat has not seen, weighted toward
low cards (players keep them), more so the more turns an opponent has played this round:
a card of value ``v`` has weight ``exp(-beta * v)`` with ``beta = BETA0 + BETA1 * turns``;
each opponent's cards are drawn in seat order, without replacement, from what the earlier ones
left. The raw chance of success under that model is computed exactly where one opponent's
unknown cards decide the call, and as a frequency over ``SAMPLES`` seeded samples where several
do (standard library only, a bounded cost). It is then mapped through a logistic correction
fitted to arena games (``yaniv arena ... --calibration``); see docs/bot-protocol.md. The fit
read the frequency of 1000 samples; the exact chance is that frequency's mean, so the
correction holds for it as well. Besides the raw chance the correction reads a few public facts
of the opponents (``calibration_features``): their turns, hand sizes and number, the mean value
of their discards and how often they took from the pile.
"""

from __future__ import annotations

import math
import random
from bisect import bisect
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from ..cards import NAMES, VALUE, Card, cards_text, mask_of
from ..events import Discarded, Drew
from ..game import Phase
from ..moves import YANIV, Draw, Move, Pass, Slap
from ..view import PlayerView
from . import heuristics as H

#: Low-card weighting of opponents' unknown cards (set by hand; the correction absorbs the rest).
BETA0 = 0.05
BETA1 = 0.03
#: Logistic correction of the raw frequency:
#: ``sigmoid(CAL_A * logit(p) + CAL_B + sum(CAL_W[i] * calibration_features(view)[i]))``.
#: Fitted (maximum likelihood) to 21,000 uncertain Yaniv calls of standard-rules arena games,
#: seed 101: 700 games expert-vs-medium (2 players), 250 medium-vs-medium (4 players); checked
#: on seed 202. Medium-vs-easy games were left out of the fit: the easy bot keeps higher hands
#: than the model assumes, and fitting them too made the expert-vs-medium calls 5 points
#: optimistic.
CAL_A = 1.1736
CAL_B = -1.8612
CAL_W = (0.1966, -0.2679, 0.2702, 0.1530, -1.4227)
#: Typical features (medians of those calls), for the map of ``p`` alone.
CAL_TYPICAL = (5.0, 3.0, 1.0, 9.44, 0.333)
#: Monte Carlo samples per estimate where several opponents can beat the caller.
SAMPLES = 1000


@dataclass(frozen=True, slots=True)
class Opponent:
    """What a seat knows of one opponent's hand."""

    seat: int
    known: tuple[Card, ...]
    unknown: int  # how many of its cards are not known
    turns: int  # its discards this round


def opponents(view: PlayerView) -> list[Opponent]:
    """The other active seats, with their known cards and number of unknown cards."""
    turns = [0] * view.n
    for event in view.events:
        if isinstance(event, Discarded):
            turns[event.seat] += 1
    return [
        Opponent(s, view.known[s], view.hand_sizes[s] - len(view.known[s]), turns[s])
        for s in view.active_seats()
        if s != view.seat
    ]


def calibration_features(view: PlayerView) -> tuple[float, ...]:
    """Public facts of the other active seats that the correction reads: the fewest discards
    one has made this round, the fewest cards one holds, how many there are, the mean (over
    them) of the mean value of one discard, and the mean fraction of draws taken from the pile."""
    n = view.n
    turns = [0] * n
    shed = [0] * n
    draws = [0] * n
    pile = [0] * n
    for event in view.events:
        if isinstance(event, Discarded):
            turns[event.seat] += 1
            shed[event.seat] += sum(VALUE[c] for c in event.cards)
        elif isinstance(event, Drew):
            draws[event.seat] += 1
            pile[event.seat] += event.source == "pile"
    seats = [s for s in view.active_seats() if s != view.seat]
    if not seats:
        return (0.0, 0.0, 0.0, 0.0, 0.0)
    k = len(seats)
    return (
        float(min(turns[s] for s in seats)),
        float(min(view.hand_sizes[s] for s in seats)),
        float(k),
        sum(shed[s] / max(1, turns[s]) for s in seats) / k,
        sum(pile[s] / max(1, draws[s]) for s in seats) / k,
    )


def view_seed(view: PlayerView) -> int:
    """A stable seed from the view's position (the same position, the same samples)."""
    return (
        mask_of(view.hand) * 31
        + len(view.events) * 7919
        + view.round_no * 104729
        + sum(view.scores)
        + view.seat
    ) % (2**63)


def _weights(cards: list[Card], beta: float) -> tuple[list[float], list[float]]:
    """Each card's weight ``exp(-beta * value)``, and their running sums."""
    w = [math.exp(-beta * VALUE[c]) for c in cards]
    return w, list(accumulate(w))


def _draw(
    rand: Callable[[], float],
    cards: list[Card],
    w: list[float],
    cum: list[float],
    k: int,
    taken: int,
) -> tuple[list[Card], int]:
    """``k`` cards not in the mask ``taken``, drawn one by one with chance proportional to
    their weight among those left (successive weighted sampling without replacement, the
    distribution of the Gumbel top-k trick); the cards and the mask with them added.

    A draw from all the cards that hits a taken card is drawn again, which is the same as a
    draw from the cards left; after many such misses the cards left are drawn from directly.
    """
    got: list[Card] = []
    total = cum[-1]
    last = len(cards) - 1
    misses = 0
    while len(got) < k:
        if misses < _MISSES:
            i = bisect(cum, rand() * total)
            c = cards[i if i <= last else last]
            if taken >> c & 1:
                misses += 1
                continue
        else:
            left = [i for i, c in enumerate(cards) if not taken >> c & 1]
            x = rand() * math.fsum(w[i] for i in left)
            for i in left:
                x -= w[i]
                if x < 0:
                    break
            c = cards[i]
        taken |= 1 << c
        got.append(c)
    return got, taken


#: Misses of the redraw (a taken card hit) before the cards left are drawn from directly.
_MISSES = 24


def _hidden_counts(opps: list[Opponent], pool: list[Card]) -> list[int]:
    """How many unknown cards each opponent gets from the pool (no more than the pool holds)."""
    left = len(pool)
    out = []
    for o in opps:
        k = min(max(o.unknown, 0), left)
        left -= k
        out.append(k)
    return out


def sample_unknown(
    view: PlayerView,
    samples: int,
    rng: random.Random,
    beta0: float = BETA0,
    beta1: float = BETA1,
) -> tuple[list[Card], list[tuple[Opponent, list[tuple[Card, ...]]]]]:
    """Sample opponents' unknown cards: the pool of unseen cards, and per opponent its
    ``samples`` sets of unknown cards (the i-th of each opponent make one deal of the pool).

    Opponents never share a card within a sample. Each opponent's cards are drawn, in seat
    order, by weighted sampling without replacement from the cards the earlier ones left.
    """
    pool = view.unseen()
    opps = opponents(view)
    plan = [
        (k, *_weights(pool, beta0 + beta1 * o.turns))
        for o, k in zip(opps, _hidden_counts(opps, pool), strict=True)
    ]
    rows: list[list[tuple[Card, ...]]] = [[] for _ in opps]
    rand = rng.random
    for _ in range(samples):
        taken = 0
        for (k, w, cum), out in zip(plan, rows, strict=True):
            got, taken = _draw(rand, pool, w, cum, k, taken)
            out.append(tuple(got))
    return pool, list(zip(opps, rows, strict=True))


def _fail_chance(pool: list[Card], w_of: list[float], k: int, t: int) -> float | None:
    """The chance that ``k`` cards drawn from ``pool`` as ``sample_unknown`` draws them (the
    weight of a card of value ``v`` is ``w_of[v]``) add up to ``t`` or less; None where that
    takes more than ``_DP_WORK`` steps (sampling is then cheaper).

    Exact: the paths that stay at or under ``t`` are followed through the multisets of values
    drawn so far (cards of one value are alike); a card that lifts the sum over ``t`` ends
    its path. Few multisets of low values add up to a Yaniv-sized ``t``.
    """
    if t < 0:
        return 0.0
    counts = [0] * 11
    for c in pool:
        counts[VALUE[c]] += 1
    total = sum(n * w_of[v] for v, n in enumerate(counts))
    low = [v for v in range(min(t, 10) + 1) if counts[v]]
    layer: dict[tuple[int, ...], tuple[float, int, float]] = {(0,) * len(low): (1.0, 0, 0.0)}
    work = 0
    for _ in range(k):
        nxt: dict[tuple[int, ...], tuple[float, int, float]] = {}
        for d, (p, s, gone) in layer.items():
            share = p / (total - gone)
            for i, v in enumerate(low):
                if s + v > t:
                    break
                left = counts[v] - d[i]
                if left <= 0:
                    continue
                q = share * left * w_of[v]
                nd = (*d[:i], d[i] + 1, *d[i + 1 :])
                old = nxt.get(nd)
                nxt[nd] = (q, s + v, gone + w_of[v]) if old is None else (old[0] + q, *old[1:])
            work += len(low)
            if work > _DP_WORK:
                return None
        layer = nxt
        if not layer:
            return 0.0
    return math.fsum(p for p, _, _ in layer.values())


#: Most steps of the exact computation before sampling is cheaper (a few ms of work).
_DP_WORK = 6_000


def raw_success(
    view: PlayerView,
    samples: int = SAMPLES,
    seed: int | None = None,
    beta0: float = BETA0,
    beta1: float = BETA1,
) -> tuple[float, bool]:
    """The model's chance of success, and whether it is exact (nothing unknown).

    Where one opponent's unknown cards decide it, the chance is computed exactly; with more,
    it is the frequency of success over ``samples`` samples of ``sample_unknown`` (seeded by
    the view, or by ``seed``).
    """
    mine = view.hand_value
    opps = opponents(view)
    if all(o.unknown <= 0 for o in opps):
        ok = all(sum(VALUE[c] for c in o.known) > mine for o in opps)
        return (1.0 if ok else 0.0), True
    if any(o.unknown <= 0 and sum(VALUE[c] for c in o.known) <= mine for o in opps):
        return 0.0, True
    pool = view.unseen()
    # Per opponent that draws: its unknown cards, the sum at or under which it beats me, its
    # card weights. Opponents after the last one that can beat me change nothing.
    plan = []
    for o, k in zip(opps, _hidden_counts(opps, pool), strict=True):
        if k > 0:
            beta = beta0 + beta1 * o.turns
            plan.append((k, mine - sum(VALUE[c] for c in o.known), beta))
    while plan and plan[-1][1] < 0:
        plan.pop()
    if not plan:
        return 1.0, False
    if len(plan) == 1:
        k, t, beta = plan[0]
        fail = _fail_chance(pool, [math.exp(-beta * v) for v in range(11)], k, t)
        if fail is not None:
            return 1.0 - fail, False
    rand = random.Random(view_seed(view) if seed is None else seed).random
    last = len(plan) - 1
    specs = [(k, t, j == last, *_weights(pool, beta)) for j, (k, t, beta) in enumerate(plan)]
    values = [VALUE[c] for c in pool]
    bits = [1 << c for c in pool]
    top = len(pool) - 1
    wins = 0
    for _ in range(samples):
        taken = 0
        for k, t, final, w, cum in specs:
            s = n = misses = 0
            total = cum[-1]
            while n < k:
                if misses < _MISSES:
                    i = bisect(cum, rand() * total)
                    if i > top:
                        i = top
                    if taken & bits[i]:
                        misses += 1
                        continue
                else:
                    got, _ = _draw(rand, pool, w, cum, 1, taken)
                    i = pool.index(got[0])
                taken |= bits[i]
                n += 1
                s += values[i]
                if final and s > t:
                    break
            if s <= t:
                break
        else:
            wins += 1
    return wins / samples, False


def calibrate(p: float, features: tuple[float, ...] | None = None) -> float:
    """The logistic correction of a raw frequency ``p``, given the view's
    ``calibration_features`` (None: typical values, for a table of the map alone)."""
    q = min(max(p, 0.002), 0.998)
    x = CAL_TYPICAL if features is None else features
    z = CAL_A * math.log(q / (1 - q)) + CAL_B + sum(w * f for w, f in zip(CAL_W, x, strict=True))
    return 1 / (1 + math.exp(-z))


def yaniv_success_probability(view: PlayerView) -> float:
    """The probability that calling Yaniv now succeeds: no other active player at or under my
    hand value (a tie counts against the caller). A call above the threshold, where the rules
    allow it, is a deliberate Assaf (R15) and never succeeds."""
    if view.hand_value > view.rules.yaniv_threshold:
        return 0.0
    p, exact = raw_success(view)
    return p if exact else calibrate(p, calibration_features(view))


# ----------------------------------------------------------------- Yaniv decisions


def call_expectation(view: PlayerView, p: float) -> float:
    """The expected change of my standing from calling now, in points (higher is better).

    A success costs me nothing and costs the others their hands; an Assaf costs me my hand plus
    the penalty (the penalty alone under ``caller_only``, except for a deliberate call, which
    R15 always scores in full). The bonus and the elimination limit are taken into account.
    """
    rules = view.rules
    mine = view.hand_value
    score = view.scores[view.seat]
    if rules.assaf_scoring == "caller_only" and mine <= rules.yaniv_threshold:
        fail_pts = rules.assaf_penalty
    else:
        fail_pts = mine + rules.assaf_penalty
    new = score + fail_pts
    if rules.bonus == "halve" and new in rules.bonus_targets:
        fail_pts -= new - new // 2
    elif rules.bonus == "subtract" and new % rules.bonus_step == 0:
        fail_pts -= rules.bonus_amount
    if new > rules.score_limit:
        fail_pts += 60  # losing the game (or a life) is worse than the points
    opp_hand = 0.0
    opps = opponents(view)
    for o in opps:
        opp_hand += sum(VALUE[c] for c in o.known) + o.unknown * 4.0
    opp_hand /= max(1, len(opps))
    return p * opp_hand - (1 - p) * fail_pts


def should_call(view: PlayerView, p: float, margin: float = 0.0) -> bool:
    """Whether a call with success probability ``p`` is worth it against playing on."""
    if p >= 0.995:
        return True
    mine = view.hand_value
    # Playing on: while I wait, I risk the others calling first; low hands gain little.
    wait = -0.5 * mine - 2.0
    return call_expectation(view, p) > wait + margin


# ----------------------------------------------------------------- advice


@dataclass(frozen=True, slots=True)
class Advice:
    """A suggested move, its score (lower is better) and why."""

    move: Move
    score: float
    reason: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"move": str(self.move), "score": round(self.score, 2), "reason": self.reason}


def _draw_text(card: Card | None) -> str:
    return "then draw from the stock" if card is None else f"then take {NAMES[card]}"


def advise(view: PlayerView, limit: int = 5) -> list[Advice]:
    """The best moves for the seat to act, best first, each with a short reason."""
    if not view.legal_moves:
        return []
    rules = view.rules
    hand = mask_of(view.hand)
    value = view.hand_value
    dist = H.value_dist(view.unseen())
    nxt = view.next_seat(view.seat)
    collects = mask_of(view.known[nxt])
    stock_ok = view.stock_size > 0
    out: list[Advice] = []
    if YANIV in view.legal_moves and value > rules.yaniv_threshold:
        cost = -call_expectation(view, 0.0)
        out.append(
            Advice(
                YANIV,
                100.0 if cost > 0 else -100.0,
                f"a deliberate Assaf (R15): it costs you {cost:.0f} points "
                "after any bonus" + ("; worth it" if cost <= 0 else ""),
            )
        )
    elif YANIV in view.legal_moves:
        p = yaniv_success_probability(view)
        verdict = "call it" if should_call(view, p) else "risky"
        score = -100.0 if should_call(view, p) else 100.0
        out.append(
            Advice(YANIV, score, f"{p:.0%} chance that nobody is at or under {value}; {verdict}")
        )
    moves = set(view.legal_moves)
    phase = view.phase
    if phase == Phase.SLAP:
        drawn = view.drawn if view.drawn is not None else -1
        slap = next(m for m in view.legal_moves if isinstance(m, Slap))
        if len(view.hand) == 1 and rules.slap_empty_hand == "yaniv_now":  # R22
            reason = "slapping empties your hand: a Yaniv with 0 at once"
        elif len(view.hand) == 1:
            reason = "slapping empties your hand: next turn, a Yaniv with 0"
        else:
            reason = f"slapping sheds {VALUE[drawn]} points at once"
        out.append(Advice(slap, -1.0, reason))
        out.append(Advice(Pass(), 0.0, "keeps the card"))
    elif phase == Phase.START and not rules.draw_first:
        for score, d, draw in H.plan_discard_first(
            hand, value, view.pickable, stock_ok, rules, dist, collects, 1.0
        )[:limit]:
            left = value - H.mask_value(d.mask)
            out.append(
                Advice(
                    d,
                    score,
                    f"sheds {H.mask_value(d.mask)} points, keeps "
                    f"{cards_text(c for c in view.hand if c not in d.cards)}"
                    f" ({left}); {_draw_text(draw)}",
                )
            )
    elif phase == Phase.START:
        for score, card in H.draw_first_options(
            hand, value, view.pickable, stock_ok, rules, dist, collects, 1.0
        ):
            move: Move = Draw(card)
            why = (
                "the stock: nothing on the pile helps"
                if card is None
                else f"{NAMES[card]} is low or combines with the hand"
            )
            out.append(Advice(move, score, why))
    elif phase == Phase.DRAW:
        for c in [None, *view.pickable]:
            if c is None and not stock_ok:
                continue
            e = (
                H.stock_eval(hand, value, rules, dist)
                if c is None
                else H.hand_eval(hand | 1 << c, value + VALUE[c], rules)
            )
            why = (
                f"an unknown card, on average worth {sum(v * p for v, p in enumerate(dist)):.1f}"
                if c is None
                else f"{NAMES[c]} leaves {value + VALUE[c]} in hand"
            )
            out.append(Advice(Draw(c), e, why))
    elif phase == Phase.DISCARD:
        drawn = view.drawn if view.drawn is not None else -1
        for score, d in H.best_discard_after_draw(hand, value, drawn, rules, collects, 1.0):
            if d in moves:
                out.append(Advice(d, score, f"sheds {H.mask_value(d.mask)} points"))
    out.sort(key=lambda a: a.score)
    return [a for a in out if a.move in moves][:limit]
