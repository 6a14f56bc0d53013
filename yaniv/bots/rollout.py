"""The fast heuristic's whole turn on the raw game: the rollouts of the expert and the master,
and the self-play of the game-level utility (utility.py), which the coach uses: here, below all
three, so that none imports another for it."""

from __future__ import annotations

import math
from functools import cache

from .. import compiled as _compiled
from ..cards import VALUE, deck
from ..game import Game, Phase
from ..moves import DRAW_STOCK, DRAWS, SLAPS, YANIV
from ..rules import RuleSet
from . import heuristics as H

#: Highest hand value at which a rollout player calls, by the fewest cards an opponent holds.
CALL_AT = (0, 1, 3, 5, 7, 7, 7, 7, 7, 7, 7, 7)
#: With ``judged_calls``, a rollout player calls where ``quick_call_chance`` is at least
#: ``CALL_CHANCE`` to the power of its opponents still in the game (``call_chance_needed``),
#: each unseen card's value drawn with likelihood ``exp(-CALL_BETA * value)`` (the low cards
#: that players keep). Fitted to the expert's calls on its self-play (standard rules, 1,747
#: callable positions in 2 players, 1,833 in 4): the rule agrees with the expert's choice at
#: 84 % and 90 % of them, ``CALL_AT`` at 76 % and 84 %. The power keeps the expert's call rate
#: at fuller tables: with eight players in, the expert calls at 12 % of its callable turns,
#: ``CALL_CHANCE`` alone at 1 % (the rounds dragged on), the power at 10 %.
CALL_CHANCE = 0.915
CALL_BETA = 0.2
#: Unseen cards beyond which ``_above`` is not tabled (a hand of more is as good as certain
#: to be worth more than a call's threshold).
_MOST_UNSEEN = 12


@cache
def _above(jokers: int) -> tuple[tuple[float, ...], ...]:
    """Per count ``k`` of unseen cards (0..``_MOST_UNSEEN``), per total ``x``: the chance that
    ``k`` cards drawn (with replacement, by the low-card likelihood) are worth more than ``x``."""
    weights = [0.0] * 11
    for c in deck(jokers):
        weights[VALUE[c]] += math.exp(-CALL_BETA * VALUE[c])
    total = sum(weights)
    card = [w / total for w in weights]
    tables = []
    dist = [1.0]  # of the sum of k cards
    for _ in range(_MOST_UNSEEN + 1):
        tail, above = [0.0] * len(dist), 0.0
        for x in range(len(dist) - 1, -1, -1):
            tail[x] = above
            above += dist[x]
        tables.append(tuple(tail))
        nxt = [0.0] * (len(dist) + 10)
        for s, p in enumerate(dist):
            for v, q in enumerate(card):
                nxt[s + v] += p * q
        dist = nxt
    return tuple(tables)


def quick_call_chance(g: Game, p: int) -> float:
    """A fast guess at the chance that seat ``p`` calling now succeeds, from what it can see
    of each opponent (its cards known from the pile and how many others it holds)."""
    tables = _above(g.rules.jokers)
    mine = g.values[p]
    chance = 1.0
    for s in range(g.n):
        if s == p or g.out[s]:
            continue
        known = g.known[s]
        unseen = g.counts[s] - known.bit_count()
        x = mine - H.mask_value(known)
        if x < 0:
            continue
        table = tables[min(unseen, _MOST_UNSEEN)]
        chance *= table[x] if x < len(table) else 0.0
    return chance


def call_chance_needed(g: Game, per_opponent: bool = True) -> float:
    """The quick chance at which a rollout player with ``judged_calls`` calls: ``CALL_CHANCE``
    per opponent still in the game (the expert calls at a lower chance at a fuller table), or
    without ``per_opponent`` ``CALL_CHANCE`` at any table (the bar before session 31)."""
    if not per_opponent:
        return CALL_CHANCE
    opponents = sum(1 for out in g.out if not out) - 1
    return CALL_CHANCE ** max(1, opponents)


def judged_call(g: Game, p: int, per_opponent: bool = True) -> bool:
    """Whether seat ``p``, at or under the threshold, calls with ``judged_calls``."""
    return quick_call_chance(g, p) >= call_chance_needed(g, per_opponent)


def table_call(g: Game, p: int) -> bool:
    """Whether seat ``p`` calls by ``CALL_AT`` (the fewest cards an opponent holds)."""
    fewest = min(g.counts[s] for s in range(g.n) if s != p and not g.out[s])
    return g.values[p] <= min(CALL_AT[min(fewest, 11)], g.rules.yaniv_threshold)


def rollout_turn(
    g: Game,
    me: int,
    w_me: float,
    w_others: float = H.SHED_WEIGHT,
    judged_calls: bool = False,
    like_expert: bool = False,
    per_opponent_calls: bool = True,
) -> None:
    """One whole turn of the fast heuristic for the seat to move, on the raw game.

    Seat ``me`` judges hands with weight ``w_me``, the others with ``w_others`` (by default
    like the medium level). A call is made by ``CALL_AT`` (the fewest cards an opponent holds),
    or with ``judged_calls`` by ``judged_call`` (closer to the expert's calls; without
    ``per_opponent_calls`` at one bar whatever the opponents' number). With
    ``like_expert`` the turn is the expert's: a discard that feeds the next seat is penalised
    (``H.feed_penalty`` toward its known cards) and the hand is pulled toward a bonus score
    (``H.pull_target``).
    """
    core = _compiled.choose(None)
    args = (me, w_me, w_others, judged_calls, like_expert, per_opponent_calls)
    if core is None or not core.rollout_turn(g, *args, *_tables(g)):
        _python_turn(g, *args)  # else the turn was made in C (yaniv/_plan.c), the same


def _tables(g: Game) -> tuple[tuple[tuple[float, ...], ...], dict[int, int]]:
    """The tables of ``g``'s rules that the C turn reads: ``_above`` and the shed table."""
    return _above(g.rules.jokers), H._shed_table(g.rules)


def _python_turn(
    g: Game,
    me: int,
    w_me: float,
    w_others: float,
    judged_calls: bool,
    like_expert: bool,
    per_opponent_calls: bool,
) -> None:
    """``rollout_turn`` in Python: the reference, and where C leaves the turn."""
    p = g.to_move
    assert p is not None  # a rollout stops when the round is over
    w = w_me if p == me else w_others
    rules = g.rules
    value = g.values[p]
    if g.can_yaniv() and value <= rules.yaniv_threshold:
        # An empty hand has nothing to lay: calling is its one move.
        if judged_calls:
            call = not g.hands[p] or judged_call(g, p, per_opponent_calls)
        else:
            call = table_call(g, p)
        if call:
            g.apply(YANIV)
            return
    hand = g.hands[p]
    stock_ok = bool(g.stock)
    collects, pull = _expert_aims(g, p) if like_expert else (0, None)
    if not rules.draw_first:
        _, pick, draw = H.turn_plan(
            hand, value, g.pickable, stock_ok, rules, w, collects, pull, like_expert
        )
        g.apply(pick)
        if draw is None and not stock_ok:
            draw = g.pickable[0]
        g.apply(DRAW_STOCK if draw is None else DRAWS[draw])
        if g.phase == Phase.SLAP:
            g.apply(SLAPS[g.drawn])
        return
    feed = 1.0 if like_expert else 0.0
    card = H.draw_first_choice(hand, value, g.pickable, stock_ok, rules, w, collects, feed, pull)
    g.apply(DRAW_STOCK if card is None else DRAWS[card])
    discard_after_draw(g, w, like_expert)


def rollout_turns(
    g: Game,
    me: int,
    w_me: float,
    w_others: float = H.SHED_WEIGHT,
    judged_calls: bool = False,
    like_expert: bool = False,
    per_opponent_calls: bool = True,
    turns: int = 1,
) -> int:
    """Up to ``turns`` whole turns of ``rollout_turn`` (its arguments), stopping when the
    round is over; returns the count played. On the compiled core the turns follow one another
    in C, each the turn ``rollout_turn`` makes (Python plays any that C leaves)."""
    core = _compiled.choose(None)
    args = (me, w_me, w_others, judged_calls, like_expert, per_opponent_calls)
    played = 0
    while played < turns and g.phase < Phase.ROUND_OVER:
        if core is not None:
            played += core.rollout_turns(g, *args, *_tables(g), turns - played)
            if played >= turns or g.phase >= Phase.ROUND_OVER:
                break
        _python_turn(g, *args)  # a turn C left (it stopped before its first move)
        played += 1
    return played


def _expert_aims(g: Game, p: int) -> tuple[int, tuple[int, float] | None]:
    """What the expert's turn of seat ``p`` weighs besides its hand: the cards the next seat
    is known to collect (a discard that feeds them is penalised), and the bonus score its hand
    is pulled toward (None: none)."""
    others = [
        (g.counts[s], H.mask_value(g.known[s])) for s in range(g.n) if s != p and not g.out[s]
    ]
    return g.known[g.next_seat(p)], H.pull_target(g.rules, g.scores[p], others, H.BONUS_PULL)


def discard_after_draw(g: Game, w: float, like_expert: bool = False) -> None:
    """Draw first: the discard of the seat to move after its draw, judged with shed weight
    ``w``; with ``like_expert`` the expert's (the feed penalty and the bonus pull)."""
    p = g.to_move
    assert p is not None and g.phase == Phase.DISCARD
    collects, pull = _expert_aims(g, p) if like_expert else (0, None)
    feed = 1.0 if like_expert else 0.0
    g.apply(H.after_draw_choice(g.hands[p], g.values[p], g.drawn, g.rules, collects, feed, w, pull))


if _compiled.AVAILABLE is not None:
    _compiled.AVAILABLE.setup_rollout(
        RuleSet, CALL_AT, CALL_CHANCE, H.HAZARD, H.PULL_REACH, H.BONUS_PULL, _MOST_UNSEEN,
        SLAPS, Phase.SLAP, Phase.DISCARD, discard_after_draw,
    )  # fmt: skip
