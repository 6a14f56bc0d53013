"""The coach: how likely a Yaniv call is to succeed, whether it is worth it, and the best moves
with reasons.

Opponents' unknown cards are sampled from the cards this seat has not seen, weighted toward
low cards (players keep them), more so the more turns an opponent has played this round:
a card of value ``v`` has weight ``exp(-beta * v)`` with ``beta = BETA0 + BETA1 * turns``;
each opponent's cards are drawn in seat order, without replacement, from what the earlier ones
left. The raw chance of success under that model is computed exactly where one opponent's
unknown cards decide the call, and as a frequency over ``SAMPLES`` seeded samples where several
do (standard library only, a bounded cost). It is then mapped through a logistic correction
(``calibrate``) that also reads a few public facts of the opponents (``calibration_features``):
their turns, hand sizes and number, the mean value of their discards and how often they took
from the pile. Its parameters are refitted by ``benchmarks/coach_calibration.py --fit`` to
every position where a mover of each built-in level could call, and shipped in
``data/coach_calibration.json`` (``CAL_FILE``); the constants below are the fallback.

Whether to call is weighed in the chance of winning the game, like the master's search
(``yaniv.bots.utility``): ``call_value`` prices a success and an Assaf by scoring each, as the
engine would, over deals of the opponents' unknown cards, and playing on as a typical round
from these scores; ``should_call`` calls where ``p * success + (1 - p) * failure`` beats it.
So a sure call that lands an opponent on a bonus is declined, and a risky one that can put
the last opponent out is made, under any bonus, end mode, penalty or Assaf scoring. Each
showdown priced is kept for the round's later decisions (the scores do not change within it),
and a deliberate call whose verdict is clear after a few deals is not priced further.
"""

from __future__ import annotations

import functools
import json
import math
import random
import threading
from bisect import bisect
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from itertools import accumulate
from typing import Any

from ..cards import NAMES, VALUE, Card, cards_text, mask_of
from ..events import Discarded, Drew
from ..game import Phase
from ..moves import YANIV, Draw, Move, Pass, Slap
from ..rules import RuleSet
from ..scoring import RoundScore, bonus, score_round
from ..state import ResultKind
from ..view import PlayerView
from . import heuristics as H
from . import utility as U

#: Low-card weighting of opponents' unknown cards (set by hand; the correction absorbs the rest).
BETA0 = 0.05
BETA1 = 0.03
#: Logistic correction of the raw frequency:
#: ``sigmoid(CAL_A * logit(p) + CAL_B + sum(CAL_W[i] * calibration_features(view)[i]))``.
#: These are the fallback where ``CAL_FILE`` is missing: fitted (maximum likelihood) to 21,000
#: uncertain Yaniv calls of standard-rules arena games, seed 101: 700 games expert-vs-medium
#: (2 players), 250 medium-vs-medium (4 players); checked on seed 202. Medium-vs-easy games
#: were left out of that fit.
CAL_A = 1.1736
CAL_B = -1.8612
CAL_W = (0.1966, -0.2679, 0.2702, 0.1530, -1.4227, 0.0, 0.0, 0.0, 0.0, 0.0)
#: A level's correction may carry one weight more than ``CAL_W``: that of the hinge
#: ``min(0, logit(p) - logit(HINGE_AT))``, which lets the low tail bend: fitted per level
#: without it, the calls judged 10-20 % were judged 16 % on average where 25-27 % of them
#: succeeded (2 players, medium, expert and learned opponents, other seeds' games).
HINGE_AT = 0.2
_HINGE_LOGIT = math.log(HINGE_AT / (1 - HINGE_AT))
#: Typical features (medians of those calls), for the map of ``p`` alone.
CAL_TYPICAL = (5.0, 3.0, 1.0, 9.44, 0.333, 0.25, 4.5, 4.0, 9.0, 0.0)
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


#: The turns feature is counted up to this many: a stalled round of hundreds of turns would
#: otherwise carry the logit anywhere (a raw chance of 0 was read as 0.9999).
TURNS_CAP = 12


def calibration_features(view: PlayerView) -> tuple[float, ...]:
    """Public facts of the other active seats that the correction reads.

    First the fewest discards one has made this round (up to ``TURNS_CAP``), the fewest cards
    one holds, how many there are, the mean (over them) of the mean value of one discard, and
    the mean fraction of draws taken from the pile; then what tells a style of play apart
    (greedy players against those who keep pairs and sit on a low hand): the mean fraction of
    discards of several cards, the mean value of the pile cards taken, the longest run of
    turns one kept the same hand size, the lowest bound on the hand one held at the start of
    its last turn (its last discard and its known cards, less a pile card taken then), and the
    turns they started with two cards or fewer (both counts up to ``TURNS_CAP``)."""
    n = view.n
    turns = [0] * n
    shed = [0] * n
    draws = [0] * n
    pile = [0] * n
    multi = [0] * n
    taken_value = [0] * n
    last_discard = [0] * n
    last_pick = [0] * n
    size = [view.rules.hand_size] * n
    same = [0] * n
    longest = [0] * n
    low_turns = 0
    for event in view.events:
        if isinstance(event, Discarded):
            s = event.seat
            if s != view.seat and size[s] <= 2:
                low_turns += 1
            turns[s] += 1
            value = sum(VALUE[c] for c in event.cards)
            shed[s] += value
            multi[s] += len(event.cards) > 1
            last_discard[s] = value
            last_pick[s] = 0
            new = size[s] - len(event.cards) + 1
            same[s] = same[s] + 1 if new == size[s] else 0
            longest[s] = max(longest[s], same[s])
            size[s] = new
        elif isinstance(event, Drew):
            draws[event.seat] += 1
            if event.source == "pile":
                pile[event.seat] += 1
                if event.card is not None:
                    taken_value[event.seat] += VALUE[event.card]
                    last_pick[event.seat] = VALUE[event.card]
    seats = [s for s in view.active_seats() if s != view.seat]
    if not seats:
        return (0.0,) * len(CAL_W)
    k = len(seats)
    bound = min(
        last_discard[s] + sum(VALUE[c] for c in view.known[s]) - last_pick[s] for s in seats
    )
    return (
        float(min(TURNS_CAP, *(turns[s] for s in seats))),
        float(min(view.hand_sizes[s] for s in seats)),
        float(k),
        sum(shed[s] / max(1, turns[s]) for s in seats) / k,
        sum(pile[s] / max(1, draws[s]) for s in seats) / k,
        sum(multi[s] / max(1, turns[s]) for s in seats) / k,
        sum(taken_value[s] / max(1, pile[s]) for s in seats) / k,
        float(min(TURNS_CAP, max(longest[s] for s in seats))),
        float(bound),
        float(min(TURNS_CAP, low_turns)),
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


#: The correction's parameters ``(a, b, w)``.
Params = tuple[float, float, tuple[float, ...]]
#: A refitted correction, in the package (``benchmarks/coach_calibration.py --fit ... --write``):
#: one for any opponents and, under ``by_level``, one per built-in level and table size
#: (``table_size``) for opponents all of that level; where it is missing or unreadable the
#: built-in ``CAL_A``, ``CAL_B``, ``CAL_W`` hold.
CAL_FILE = "coach_calibration.json"
#: The levels' corrections, by the table's size: one opponent, or more.
TABLE_SIZES = ("2", "3+")


def table_size(players: int) -> str:
    """The key of a table of ``players`` seats among ``TABLE_SIZES``."""
    return "2" if players <= 2 else "3+"


def _params_of(data: Any) -> Params | None:
    """A correction's ``(a, b, w)`` from its JSON object; None where it is not one."""
    try:
        w = tuple(float(x) for x in data["w"])
        if len(w) in (len(CAL_W), len(CAL_W) + 1):  # with the hinge's weight, or without
            return float(data["a"]), float(data["b"]), w
    except (ValueError, KeyError, TypeError):
        pass
    return None


def corrections(data: Any) -> tuple[Params, dict[tuple[str, str], Params]]:
    """The general correction and those per (level, table size) in the data file's JSON
    (``CAL_FILE``): the built-in constants where the general one is missing or malformed, and
    an entry left out where it is."""
    general = _params_of(data) if isinstance(data, dict) else None
    if general is None:
        return (CAL_A, CAL_B, CAL_W), {}
    levels = data.get("by_level")
    own: dict[tuple[str, str], Params] = {}
    for level, sizes in levels.items() if isinstance(levels, dict) else ():
        for size, entry in sizes.items() if isinstance(sizes, dict) else ():
            if size in TABLE_SIZES and (params := _params_of(entry)) is not None:
                own[str(level), size] = params
    return general, own


@functools.cache
def _shipped() -> tuple[Params, dict[tuple[str, str], Params]]:
    """The shipped corrections (``corrections`` of the package's data file)."""
    try:
        text = resources.files("yaniv.bots").joinpath("data", CAL_FILE).read_text("utf-8")
        return corrections(json.loads(text))
    except (OSError, ValueError):
        return corrections(None)


def cal_params(against: str | None = None, players: int = 2) -> Params:
    """The correction in use: for a table of ``players`` whose opponents are all of the
    built-in level ``against``, that level's where one is shipped; else the shipped general
    one, else the built-in constants.

    The levels play a low hand differently (an easy bot calls whenever it may, an expert waits
    for better odds), so what a public position hides depends on who sits there: a table that
    knows its opponents' level says so."""
    general, own = _shipped()
    if against is None:
        return general
    return own.get((against, table_size(players)), general)


def calibrated_levels() -> frozenset[tuple[str, str]]:
    """The (level, table size) pairs with a correction of their own."""
    return frozenset(_shipped()[1])


def hinge(logit: float) -> float:
    """The hinge feature of a raw chance's logit: 0 above ``HINGE_AT``, the distance below."""
    return min(0.0, logit - _HINGE_LOGIT)


def calibrate(
    p: float, features: tuple[float, ...] | None = None, params: Params | None = None
) -> float:
    """The logistic correction of a raw frequency ``p``, given the view's
    ``calibration_features`` (None: typical values, for a table of the map alone) and the
    correction's ``params`` (None: ``cal_params()``); a weight after the features' is the
    hinge's (``HINGE_AT``)."""
    a, b, ws = cal_params() if params is None else params
    q = min(max(p, 0.002), 0.998)
    x = CAL_TYPICAL if features is None else features
    logit = math.log(q / (1 - q))
    if len(ws) > len(x):
        x = (*x, hinge(logit))
    z = a * logit + b + sum(w * f for w, f in zip(ws, x, strict=True))
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))


def yaniv_success_probability(view: PlayerView, against: str | None = None) -> float:
    """The probability that calling Yaniv now succeeds: no other active player at or under my
    hand value (a tie counts against the caller). A call above the threshold, where the rules
    allow it, is a deliberate Assaf (R15) and never succeeds. ``against``: the built-in level
    of every opponent, where the table knows it (``cal_params``)."""
    if view.hand_value > view.rules.yaniv_threshold:
        return 0.0
    p, exact = raw_success(view)
    return p if exact else calibrate(p, calibration_features(view), cal_params(against, view.n))


# ----------------------------------------------------------------- Yaniv decisions

#: Deals of the opponents' unknown cards (the coach's low-card model, seeded by the view) over
#: which a call's two outcomes are priced; fewer with many players, whose utility costs more.
CALL_WORLDS = 32
CALL_WORLDS_MANY = 16


@dataclass(frozen=True, slots=True)
class CallValue:
    """What a Yaniv call now is worth, in this seat's chance of winning the game
    (``yaniv.bots.utility``): after a success, after an Assaf (or a deliberate call's R15
    scoring), and on playing on."""

    success: float
    failure: float
    play_on: float

    def expectation(self, p: float) -> float:
        """The change in the chance of winning from calling, at success probability ``p``."""
        return p * self.success + (1 - p) * self.failure - self.play_on


def _after(rules: RuleSet, score: RoundScore, seat: int) -> float:
    """``seat``'s chance of winning the game after a round scored so: 1 (shared where tied)
    or 0 where the game ends, else the utility's chance from the new scores."""
    if score.game_winners:
        won = seat in score.game_winners
        return 1 / len(score.game_winners) if won else 0.0
    return U.win_chances(rules, score.scores, score.out)[seat]


#: A deliberate call (R15, above the threshold) never succeeds: its failure alone is priced,
#: first on this many deals; where that mean is clearly apart from playing on (by more than
#: ``CLEAR_Z`` standard errors of it and ``CLEAR_MIN``), the verdict is taken there, and the
#: other deals are not drawn. Measured on 7,546 priced deliberate calls of medium self-play
#: (hebrew preset, 30 games): a third of the deals drawn, no verdict changed.
CLEAR_DEALS = 8
CLEAR_Z = 3.0
CLEAR_MIN = 0.01

#: Priced outcomes of a showdown, ``(success, chance of winning after it)``, per context
#: ``(rules, scores, out, caller, caller's value)`` and then per tuple of the opponents'
#: values: the scores stay for a whole round, so later decisions of the round find their
#: deals priced. At most ``_PRICED_CONTEXTS`` contexts are kept (the oldest go first).
_PRICED: dict[tuple[Any, ...], dict[tuple[int, ...], tuple[bool, float]]] = {}
_PRICED_CONTEXTS = 4096
# The server decides its rooms' bots on threads at once: two evicting the oldest context
# together would both delete it (a KeyError that stops a room's bots).
_PRICED_LOCK = threading.Lock()


def _priced_table(
    rules: RuleSet, scores: list[int], out: list[bool], me: int, mine: int
) -> dict[tuple[int, ...], tuple[bool, float]]:
    ctx = (rules, tuple(scores), tuple(out), me, mine, U.table_source())
    with _PRICED_LOCK:
        table = _PRICED.get(ctx)
        if table is None:
            if len(_PRICED) >= _PRICED_CONTEXTS:
                del _PRICED[next(iter(_PRICED))]
            table = _PRICED[ctx] = {}
    return table


def _deal_values(
    view: PlayerView, opps: list[Opponent], known: list[int], count: int, rng: random.Random
) -> list[tuple[int, ...]]:
    """``count`` deals of the opponents' unknown cards (``sample_unknown`` with ``rng``, so
    two calls on one generator draw what one call of both counts would), as value tuples."""
    _, drawn = sample_unknown(view, count, rng)
    rows = [r for _, r in drawn]
    value = VALUE.__getitem__
    return [
        tuple(k + sum(map(value, r[i])) for k, r in zip(known, rows, strict=True))
        for i in range(count)
    ]


def mean_and_error(xs: list[float]) -> tuple[float, float]:
    """The mean of ``xs`` and its standard error (``xs`` holds two or more)."""
    m = math.fsum(xs) / len(xs)
    var = math.fsum((x - m) ** 2 for x in xs) / (len(xs) - 1)
    return m, math.sqrt(var / len(xs))


def _call_value(view: PlayerView) -> CallValue:
    rules = view.rules
    me = view.seat
    mine = view.hand_value
    scores = list(view.scores)
    out = list(view.out)
    opps = opponents(view)
    # Playing on is priced as a typical round of these players from these scores: the value the
    # utility's chain gives the position, since each of its steps is one such round.
    play_on = U.win_chances(rules, scores, out)[me]
    worlds = CALL_WORLDS if len(opps) <= 2 else CALL_WORLDS_MANY
    known = [sum(VALUE[c] for c in o.known) for o in opps]
    table = _priced_table(rules, scores, out, me, mine)
    values = [0] * view.n
    values[me] = mine

    def price(deal: tuple[int, ...]) -> tuple[bool, float]:
        got = table.get(deal)  # deals of the same values score alike
        if got is None:
            for o, v in zip(opps, deal, strict=True):
                values[o.seat] = v
            score = score_round(rules, scores, out, values, me)
            got = table[deal] = (score.kind is ResultKind.YANIV, _after(rules, score, me))
        return got

    if all(o.unknown <= 0 for o in opps):
        deals = [tuple(known)]
    else:
        rng = random.Random(view_seed(view))
        deals = _deal_values(view, opps, known, min(CLEAR_DEALS, worlds), rng)
        if mine > rules.yaniv_threshold and len(deals) < worlds:
            first, error = mean_and_error([price(d)[1] for d in deals])
            if abs(first - play_on) <= max(CLEAR_Z * error, CLEAR_MIN):  # not clear yet
                deals += _deal_values(view, opps, known, worlds - len(deals), rng)
        elif len(deals) < worlds:
            deals += _deal_values(view, opps, known, worlds - len(deals), rng)
    wins: list[float] = []
    losses: list[float] = []
    for deal in deals:
        ok, after = price(deal)
        (wins if ok else losses).append(after)
    # An outcome no deal showed is priced on the first deal, moved just enough to give it: the
    # others above my hand for a success; for an Assaf the opponent with the fewest cards
    # (the likeliest to be low) at my value.
    if not wins and mine <= rules.yaniv_threshold and opps:
        wins.append(price(tuple(max(v, mine + 1) for v in deals[0]))[1])
    if not losses and opps:
        low = min(range(len(opps)), key=lambda i: (view.hand_sizes[opps[i].seat], opps[i].seat))
        moved = list(deals[0])
        moved[low] = min(moved[low], mine)
        losses.append(price(tuple(moved))[1])
    success = math.fsum(wins) / len(wins) if wins else 0.0
    failure = math.fsum(losses) / len(losses) if losses else success
    return CallValue(success, failure, play_on)


def call_value(view: PlayerView) -> CallValue:
    """A Yaniv call's two outcomes and playing on, priced in the chance of winning the game.

    Each outcome is the mean, over the deals of the opponents' unknown cards (``CALL_WORLDS``)
    where it happens, of the chance of winning after the round is scored as the engine scores
    it (``yaniv.scoring.score_round``: R14 or R15, caller-only Assaf, ties, the bonus R18,
    elimination or the end of a first-over game), so that landing an opponent on a bonus,
    putting one out or going out oneself are priced by the game-level utility. Playing on is a
    typical round from these scores (the utility's own value of the position).
    """
    global _last
    last = _last
    source = U.table_source()
    if last is not None and last[0] is view and last[1] == source:  # asked twice of one view
        return last[2]
    value = _call_value(view)
    _last = (view, source, value)
    return value


_last: tuple[PlayerView, str | None, CallValue] | None = None


def call_expectation(view: PlayerView, p: float) -> float:
    """The expected change in my chance of winning the game from calling now at success
    probability ``p``, against playing on (positive: the call is worth more)."""
    return call_value(view).expectation(p)


def should_call(view: PlayerView, p: float, margin: float = 0.0) -> bool:
    """Whether a call with success probability ``p`` is worth more than playing on, in the
    chance of winning the game, by more than ``margin`` (a chance, 0..1)."""
    return call_expectation(view, p) > margin


def deliberate_cost(view: PlayerView) -> int:
    """The points a call now adds to my score after the bonus, should it fail (an Assaf, or a
    deliberate call scored by R15)."""
    rules = view.rules
    mine = view.hand_value
    score = view.scores[view.seat]
    if rules.assaf_scoring == "caller_only" and mine <= rules.yaniv_threshold:
        pts = rules.assaf_penalty
    else:
        pts = mine + rules.assaf_penalty
    return pts - bonus(score + pts, rules) if pts else 0


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


def advise(view: PlayerView, limit: int = 5, against: str | None = None) -> list[Advice]:
    """The best moves for the seat to act, best first, each with a short reason (``against``:
    the opponents' level, as ``yaniv_success_probability`` takes it)."""
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
        worth = should_call(view, 0.0)  # the points are shown; the game-level utility decides
        out.append(
            Advice(
                YANIV,
                -100.0 if worth else 100.0,
                f"a deliberate Assaf (R15): it costs you {deliberate_cost(view)} points "
                "after any bonus" + ("; worth it" if worth else ""),
            )
        )
    elif YANIV in view.legal_moves:
        p = yaniv_success_probability(view, against)
        call = should_call(view, p)
        verdict = "call it" if call else "risky"
        out.append(
            Advice(
                YANIV,
                -100.0 if call else 100.0,
                f"{p:.0%} chance that nobody is at or under {value}; {verdict}",
            )
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
