"""Level ``expert``: determinized Monte Carlo search on top of tuned hand heuristics.

At the start of a turn where Yaniv is legal and the coach's odds are neither clear-cut high nor
low, the expert samples worlds: the opponents' unknown cards drawn from the unseen cards
(keeping every public fact: hand sizes, cards known in hands; weighted toward low cards like the
coach), the rest shuffled into a stock of the right size. In every world it compares calling now
(the showdown is exact there) with its best turn followed by the rest of the round played out by
a fast heuristic for every seat on the raw game state, and keeps the choice with the best average
outcome: the others' points minus its own, with the bonus and eliminations counted.

The same search can also weigh the heuristic's ``candidates`` best turns against each other;
measured in the arena that made the expert weaker (rollout noise and a rollout policy unlike the
real opponents), so it is off by default (``candidates=1``). The expert's turns come from the
shared heuristics with a shed weight tuned in the arena (``EXPERT_SHED_WEIGHT``), plus a bonus
pull (R18): where a bonus target is in reach, a turn that leaves the hand at exactly the value
that lands the score on it (should another player end the round) gains the halving, weighed by
the chance that someone ends the round before my next turn (``bonus_pull``). The budget is a
fixed number of worlds, so a seed gives the same moves on any machine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..cards import VALUE, Card, mask_of
from ..errors import YanivError
from ..events import Discarded
from ..game import Game, Phase
from ..moves import DRAW_STOCK, DRAWS, PASS, SLAPS, YANIV, Discard, Move, Slap
from ..rules import RuleSet
from ..view import PlayerView
from . import heuristics as H
from .base import legal_moves, register
from .coach import (
    opponents,
    raw_success,
    sample_unknown,
    should_call,
    yaniv_success_probability,
)
from .heuristics import BONUS_PULL
from .medium_bot import deliberate_pays, heuristic_move
from .rollout import rollout_turns

#: The expert's weight of a hand's next shed (the medium level uses ``H.SHED_WEIGHT``); tuned in
#: arena games: 0.35 loses to medium, 0.75 / 0.9 / 1.0 beat it, above 1 hoards high cards.
EXPERT_SHED_WEIGHT = 1.0
#: The same with draw-first, where 1.0 loses to medium (43.5% of 200) and 0.55 or 0.8 win 58%.
DRAW_FIRST_SHED_WEIGHT = 0.55
#: Turns played in a rollout before the round is judged by the hands.
ROLLOUT_TURNS = 24


def shed_weight(rules: RuleSet) -> float:
    """The expert's shed weight under ``rules`` (measured: draw-first plays best lower)."""
    return DRAW_FIRST_SHED_WEIGHT if rules.draw_first else EXPERT_SHED_WEIGHT


def round_turns(view: PlayerView) -> int:
    """The discards made so far this round (one per turn)."""
    return sum(1 for e in view.events if isinstance(e, Discarded))


def rollout(
    g: Game,
    me: int,
    others: Sequence[int],
    before: Sequence[int],
    turns: int = ROLLOUT_TURNS,
    w_me: float = EXPERT_SHED_WEIGHT,
) -> float:
    """Play the round out with the fast heuristic; my outcome (higher is better)."""
    rollout_turns(g, me, w_me, turns=turns)
    return outcome(g, me, others, before)


def outcome(g: Game, me: int, others: Sequence[int], before: Sequence[int]) -> float:
    """The others' average score gain minus mine, with a game's end weighed in."""
    n = g.n
    if g.phase < Phase.ROUND_OVER:  # cut short: judge by the hands
        gain = [float(g.values[s]) for s in range(n)]
    else:
        gain = [float(g.scores[s] - before[s]) for s in range(n)]
    if not others:
        return -gain[me]
    u = sum(gain[s] for s in others) / len(others) - gain[me]
    if g.phase == Phase.GAME_OVER:
        u += 60.0 if me in g.winners else -60.0
    elif g.phase == Phase.ROUND_OVER and g.out[me]:
        u -= 60.0
    return u


def bonus_pull(view: PlayerView, weight: float = BONUS_PULL) -> tuple[int, float] | None:
    """The hand value that lands my score exactly on a bonus score (R18) if another player
    ends the round before my next turn, and what landing there is worth, weighed by the chance
    that this happens; None where no bonus is in reach (``H.pull_target``)."""
    others = [
        (view.hand_sizes[s], sum(VALUE[c] for c in view.known[s]))
        for s in view.active_seats()
        if s != view.seat
    ]
    return H.pull_target(view.rules, view.scores[view.seat], others, weight)


@register("expert")
class ExpertBot:
    """Determinized Monte Carlo search over the best few turns, with heuristic rollouts."""

    name = "expert"

    def __init__(
        self,
        seed: int | None = None,
        worlds: int = 16,
        candidates: int = 1,
        margin: float = 3.0,
        search_yaniv: bool = True,
        shed_weight: float | None = None,
        pull: float = BONUS_PULL,
    ) -> None:
        self.rng = random.Random(seed)
        self.worlds = worlds
        self.candidates = candidates
        self.margin = margin
        self.search_yaniv = search_yaniv
        self.w = shed_weight  # None: by the rules (see ``weight``)
        self.pull = pull  # 0: no bonus pull
        self.w_now = EXPERT_SHED_WEIGHT
        self._plan: tuple[int, int, Card | None] | None = None
        #: Searched only where the heuristic's two best turns are this close (points), and a
        #: call only at raw odds strictly between these (else the coach decides alone).
        self.close = 4.0
        self.sure = (0.15, 0.97)

    def weight(self, rules: RuleSet) -> float:
        """My shed weight for these rules: the one given, else the expert's."""
        return shed_weight(rules) if self.w is None else self.w

    # ------------------------------------------------------------- the decision

    def choose(self, view: PlayerView) -> Move:
        """The expert move."""
        moves = legal_moves(view)
        if len(moves) == 1:
            return moves[0]
        stall = round_turns(view) / (H.STALL_TURNS * len(view.active_seats()))
        self.w_now = self.weight(view.rules) if stall < 1 else 0.0  # racing: no hoarding
        phase = view.phase
        if phase == Phase.SLAP:
            return next((m for m in moves if isinstance(m, Slap)), PASS)
        if phase == Phase.DRAW:
            if stall >= 1:  # the same cards go round the pile: a stock draw now and then
                stop = H.break_stall(view, self.rng)
                if stop is not None:
                    return stop
            plan = self._plan
            if plan is not None and plan[:2] == (view.round_no, len(view.events)):
                m = DRAW_STOCK if plan[2] is None else DRAWS[plan[2]]
                if m in moves:
                    return m
            return heuristic_move(view, self.rng, 1.0, self.w_now)
        if phase == Phase.DISCARD:  # draw-first, after the draw
            legal = [(e, d) for e, d in self.discards_after_draw(view, stall) if d in moves]
            if not legal:
                return heuristic_move(view, self.rng, 1.0, self.w_now)
            return self._discard(view, legal, stall)
        return self._start(view, stall)

    def discards_after_draw(self, view: PlayerView, stall: float) -> list[tuple[float, Discard]]:
        """Draw-first: the discards after my draw, best first by the heuristic: the hand left,
        a penalty for feeding the next seat, and the bonus pull (none in a stalled round)."""
        drawn = view.drawn if view.drawn is not None else -1
        options = H.best_discard_after_draw(
            mask_of(view.hand),
            view.hand_value,
            drawn,
            view.rules,
            mask_of(view.known[view.next_seat(view.seat)]),
            1.0,
            self.w_now,
        )
        pull = bonus_pull(view, self.pull) if self.pull and stall < 1 else None
        if pull is not None:
            options = H.pulled_discards(options, view.hand_value, *pull)
        return options

    def _discard(self, view: PlayerView, legal: list[tuple[float, Discard]], stall: float) -> Move:
        """The discard after a draw-first draw, from ``legal`` (best first): the best."""
        return legal[0][1]

    def _start(self, view: PlayerView, stall: float) -> Move:
        rules = view.rules
        moves = view.legal_moves
        hand = mask_of(view.hand)
        value = view.hand_value
        dist = H.value_dist(view.unseen())
        collects = mask_of(view.known[view.next_seat(view.seat)])
        stock_ok = view.stock_size > 0
        if stall >= 1:
            return self._race(view, stall >= H.DESPERATE)
        # Candidate turns, best by the heuristic first: (first move, planned draw).
        cands: list[tuple[Move, Card | None]] = []
        scores: list[float] = []
        if not rules.draw_first:
            plans = H.plan_discard_first(
                hand, value, view.pickable, stock_ok, rules, dist, collects, 1.0, self.w_now
            )
            pull = bonus_pull(view, self.pull) if self.pull else None
            if pull is not None:
                plans = H.pulled_plans(
                    plans,
                    hand,
                    value,
                    view.pickable,
                    stock_ok,
                    rules,
                    dist,
                    collects,
                    self.w_now,
                    *pull,
                )
            for e, d, draw in plans:
                if d in moves and all(d != c for c, _ in cands):
                    cands.append((d, draw))
                    scores.append(e)
                if len(cands) >= self.candidates:
                    break
        else:
            pull = bonus_pull(view, self.pull) if self.pull else None
            options = (
                H.draw_first_options(
                    hand, value, view.pickable, stock_ok, rules, dist, collects, 1.0, self.w_now
                )
                if pull is None
                else H.pulled_draw_first(
                    hand, value, view.pickable, stock_ok, rules, dist, collects, self.w_now, *pull
                )
            )
            for e, card in options:
                m = DRAW_STOCK if card is None else DRAWS[card]
                if m in moves and len(cands) < self.candidates:
                    cands.append((m, None))
                    scores.append(e)
        yaniv_ok = YANIV in moves
        if yaniv_ok and value > rules.yaniv_threshold:
            yaniv_ok = deliberate_pays(view)
            if yaniv_ok:
                return YANIV
        if yaniv_ok:
            p, exact = raw_success(view, samples=400)
            if not self.search_yaniv or exact or p >= self.sure[1] or p <= self.sure[0]:
                q = p if exact else yaniv_success_probability(view)
                if should_call(view, q):
                    return YANIV
                yaniv_ok = False
        clear = len(cands) == 1 or (len(scores) > 1 and scores[1] - scores[0] > self.close)
        if not yaniv_ok and clear:
            return self._commit(view, cands[0])
        if yaniv_ok:
            cands.insert(0, (YANIV, None))
        totals = self._search(view, cands)
        if totals is None:
            return self._commit(view, cands[0])
        return self._commit(view, cands[self.settle(totals, 1 if yaniv_ok else 0)])

    def settle(self, totals: Sequence[float], base: int) -> int:
        """The candidate chosen from the search's ``totals``: the heuristic's choice ``base``
        stands unless another is better by ``margin`` a world."""
        best = max(range(len(totals)), key=lambda i: totals[i])
        if best != base and totals[best] - totals[base] < self.margin * self.worlds:
            best = base
        return best

    def _race(self, view: PlayerView, desperate: bool) -> Move:
        """A stalled round's turn: call at even odds (``desperate``: whenever allowed), else
        shed the most points with the draw that leaves the lowest hand, but for a stock draw
        now and then (``H.break_stall``): over the threshold, two players can otherwise hand
        each other the same card for ever (a 3, each keeping A 2 3: seen in the ladder)."""
        rules = view.rules
        moves = view.legal_moves
        value = view.hand_value
        if (
            YANIV in moves
            and value <= rules.yaniv_threshold
            and (desperate or yaniv_success_probability(view) >= 0.5)
        ):
            return YANIV
        stop = H.break_stall(view, self.rng)  # draw-first: the turn's draw (else not legal yet)
        if stop is not None:
            return stop
        hand = mask_of(view.hand)
        dist = H.value_dist(view.unseen())
        stock_ok = view.stock_size > 0
        if rules.draw_first:
            for _, card in H.draw_first_options(
                hand, value, view.pickable, stock_ok, rules, dist, w=0.0
            ):
                m = DRAW_STOCK if card is None else DRAWS[card]
                if m in moves:
                    return m
        else:
            for _, d, draw in H.plan_discard_first(
                hand, value, view.pickable, stock_ok, rules, dist, w=0.0
            ):
                if d in moves:
                    return self._commit(view, (d, draw))
        return heuristic_move(view, self.rng, 1.0, 0.0)

    def _commit(self, view: PlayerView, cand: tuple[Move, Card | None]) -> Move:
        move, draw = cand
        if isinstance(move, Discard):
            # The view at my draw will hold one more event: this discard.
            self._plan = (view.round_no, len(view.events) + 1, draw)
        return move

    # ------------------------------------------------------------- search

    def worlds_for(self, view: PlayerView, count: int) -> list[Game] | None:
        """Games consistent with everything the view knows, hidden cards sampled; None where
        the view cannot be rebuilt (a position built by hand with cards unaccounted for)."""
        hidden = [o.unknown for o in opponents(view)]
        pool, drawn = sample_unknown(view, count, self.rng)
        if min(hidden, default=0) < 0 or len(pool) - sum(hidden) != view.stock_size:
            return None
        out = [s for s in range(view.n) if view.out[s]]
        games = []
        for w in range(count):
            hands: list[list[Card]] = [[] for _ in range(view.n)]
            hands[view.seat] = list(view.hand)
            used = 0
            for opp, rows in drawn:
                row = rows[w]
                hands[opp.seat] = [*opp.known, *row]
                for c in row:
                    used |= 1 << c
            stock = [c for c in pool if not used >> c & 1]
            self.rng.shuffle(stock)
            try:
                g = Game.from_position(
                    view.rules,
                    hands,
                    stock,
                    view.pile,
                    view.seat,
                    scores=view.scores,
                    out=out,
                    known=view.known,
                    round_no=view.round_no,
                    seed=self.rng.getrandbits(32),
                )
            except YanivError:
                return None
            if g.pickable != view.pickable:
                return None  # the engine reads the pile otherwise: no search
            games.append(g)
        return games

    def _search(
        self, view: PlayerView, cands: list[tuple[Move, Card | None]]
    ) -> list[float] | None:
        worlds = self.worlds_for(view, self.worlds)
        if not worlds:
            return None
        me = view.seat
        others = [s for s in view.active_seats() if s != me]
        totals = [0.0] * len(cands)
        for base in worlds:
            for i, (move, draw) in enumerate(cands):
                g = base.clone()
                before = g.scores[:]
                g.apply(move)
                if g.phase == Phase.DRAW:
                    if draw is not None and draw in g.pickable:
                        g.apply(DRAWS[draw])
                    else:
                        g.apply(DRAW_STOCK if g.stock else DRAWS[g.pickable[0]])
                elif g.phase == Phase.DISCARD:
                    ds = H.best_discard_after_draw(
                        g.hands[me], g.values[me], g.drawn, g.rules, w=self.w_now
                    )
                    g.apply(ds[0][1])
                if g.phase == Phase.SLAP:
                    g.apply(SLAPS[g.drawn])
                if g.phase >= Phase.ROUND_OVER:
                    totals[i] += outcome(g, me, others, before)
                else:
                    totals[i] += rollout(g, me, others, before, w_me=self.w_now)
        return totals
