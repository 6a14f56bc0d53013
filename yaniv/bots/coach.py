"""The coach: how likely a Yaniv call is to succeed, and the best moves with reasons.

Opponents' unknown cards are sampled from the cards this seat has not seen, weighted toward
low cards (players keep them), more so the more turns an opponent has played this round:
a card of value ``v`` has weight ``exp(-beta * v)`` with ``beta = BETA0 + BETA1 * turns``.
The raw Monte Carlo frequency is then mapped through a logistic correction fitted to arena
games (``yaniv arena ... --calibration``); see docs/bot-protocol.md. Besides the raw frequency
the correction reads a few public facts of the opponents (``calibration_features``): their
turns, hand sizes and number, the mean value of their discards and how often they took from
the pile.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

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
#: Monte Carlo samples per estimate.
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
    return (float(min(turns[s] for s in seats)), float(min(view.hand_sizes[s] for s in seats)),
            float(k), sum(shed[s] / max(1, turns[s]) for s in seats) / k,
            sum(pile[s] / max(1, draws[s]) for s in seats) / k)


def view_seed(view: PlayerView) -> int:
    """A stable seed from the view's position (the same position, the same samples)."""
    return (mask_of(view.hand) * 31 + len(view.events) * 7919 + view.round_no * 104729
            + sum(view.scores) + view.seat) % (2**63)


def sample_unknown(
    view: PlayerView, samples: int, rng: np.random.Generator,
    beta0: float = BETA0, beta1: float = BETA1,
) -> tuple[np.ndarray, list[tuple[Opponent, np.ndarray]]]:
    """Sample opponents' unknown cards: the pool of unseen cards, and per opponent an index array.

    Each opponent's array has shape ``(samples, unknown)``: indexes into the pool. Opponents
    never share a card within a sample. Weighted sampling without replacement uses the
    Gumbel top-k trick.
    """
    pool = np.array(view.unseen(), dtype=np.int64)
    values = np.array([VALUE[c] for c in pool], dtype=np.float64)
    taken = np.zeros((samples, len(pool)), dtype=bool)
    out: list[tuple[Opponent, np.ndarray]] = []
    for opp in opponents(view):
        k = min(opp.unknown, len(pool))
        if k <= 0:
            out.append((opp, np.zeros((samples, 0), dtype=np.int64)))
            continue
        beta = beta0 + beta1 * opp.turns
        keys = -beta * values + rng.gumbel(size=(samples, len(pool)))
        keys[taken] = -np.inf
        idx = np.argpartition(-keys, k - 1, axis=1)[:, :k]
        np.put_along_axis(taken, idx, True, axis=1)
        out.append((opp, idx))
    return pool, out


def raw_success(view: PlayerView, samples: int = SAMPLES, seed: int | None = None,
                beta0: float = BETA0, beta1: float = BETA1) -> tuple[float, bool]:
    """The sampled frequency of success, and whether it is exact (nothing unknown)."""
    mine = view.hand_value
    opps = opponents(view)
    if all(o.unknown <= 0 for o in opps):
        ok = all(sum(VALUE[c] for c in o.known) > mine for o in opps)
        return (1.0 if ok else 0.0), True
    if any(o.unknown <= 0 and sum(VALUE[c] for c in o.known) <= mine for o in opps):
        return 0.0, True
    rng = np.random.default_rng(view_seed(view) if seed is None else seed)
    pool, drawn = sample_unknown(view, samples, rng, beta0, beta1)
    values = np.array([VALUE[c] for c in pool], dtype=np.int64)
    success = np.ones(samples, dtype=bool)
    for opp, idx in drawn:
        total = values[idx].sum(axis=1) + sum(VALUE[c] for c in opp.known)
        success &= total > mine
    return float(success.mean()), False


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
        out.append(Advice(YANIV, 100.0 if cost > 0 else -100.0,
                          f"a deliberate Assaf (R15): it costs you {cost:.0f} points "
                          "after any bonus" + ("; worth it" if cost <= 0 else "")))
    elif YANIV in view.legal_moves:
        p = yaniv_success_probability(view)
        verdict = "call it" if should_call(view, p) else "risky"
        score = -100.0 if should_call(view, p) else 100.0
        out.append(Advice(YANIV, score, f"{p:.0%} chance that nobody is at or under {value}; "
                                        f"{verdict}"))
    moves = set(view.legal_moves)
    phase = view.phase
    if phase == Phase.SLAP:
        drawn = view.drawn if view.drawn is not None else -1
        out.append(Advice(next(m for m in view.legal_moves if isinstance(m, Slap)), -1.0,
                          f"slapping sheds {VALUE[drawn]} points at once"))
        out.append(Advice(Pass(), 0.0, "keeps the card"))
    elif phase == Phase.START and not rules.draw_first:
        for score, d, draw in H.plan_discard_first(
            hand, value, view.pickable, stock_ok, rules, dist, collects, 1.0
        )[:limit]:
            left = value - H.mask_value(d.mask)
            out.append(Advice(d, score, f"sheds {H.mask_value(d.mask)} points, keeps "
                                        f"{cards_text(c for c in view.hand if c not in d.cards)}"
                                        f" ({left}); {_draw_text(draw)}"))
    elif phase == Phase.START:
        for score, card in H.draw_first_options(hand, value, view.pickable, stock_ok, rules,
                                                dist, collects, 1.0):
            move: Move = Draw(card)
            why = ("the stock: nothing on the pile helps" if card is None else
                   f"{NAMES[card]} is low or combines with the hand")
            out.append(Advice(move, score, why))
    elif phase == Phase.DRAW:
        for c in [None, *view.pickable]:
            if c is None and not stock_ok:
                continue
            e = (H.stock_eval(hand, value, rules, dist) if c is None
                 else H.hand_eval(hand | 1 << c, value + VALUE[c], rules))
            why = ("an unknown card, on average worth "
                   f"{sum(v * p for v, p in enumerate(dist)):.1f}" if c is None else
                   f"{NAMES[c]} leaves {value + VALUE[c]} in hand")
            out.append(Advice(Draw(c), e, why))
    elif phase == Phase.DISCARD:
        drawn = view.drawn if view.drawn is not None else -1
        for score, d in H.best_discard_after_draw(hand, value, drawn, rules, collects, 1.0):
            if d in moves:
                out.append(Advice(d, score, f"sheds {H.mask_value(d.mask)} points"))
    out.sort(key=lambda a: a.score)
    return [a for a in out if a.move in moves][:limit]
