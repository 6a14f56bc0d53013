"""Level ``master``: determinized search over the expert's best turns, weighed by the chance of
winning the game.

At the start of a turn where the choice is close (the expert's heuristic ranks its best turns within
a few points of each other, or a Yaniv call is neither clearly good nor clearly bad), the master
samples worlds consistent with its view (``yaniv.search.sample_worlds``): the opponents' unknown
cards and the stock, each opponent's hidden cards drawn by a learned belief of what it holds
(``belief.hand_odds``: a network trained on the expert's self-play; a hand in proportion to the
product of its cards' odds). With ``belief=False`` they are drawn uniformly and resampled by an
opponent model of what each opponent kept (low cards more likely the longer it has played this
round, the coach's model) and of its last turn (how likely that discard and draw were had it held
those cards: ``inference.play_weigh``; sampling-importance-resampling). With ``play_power`` the
belief's worlds are resampled by that last turn's likelihood alone, to that power (0: not, the
default). Either way the worlds used are equally weighted. In every world it plays each candidate
turn (the heuristic's best ``candidates`` turns), then the rest of the round by the expert's fast
rollout policy for every seat (the others judging hands with the expert's shed weight for the rules,
as the expert does: lower in draw-first; with its feed penalty and bonus pull, so that 97-100 % of
its turns are the expert's; a call made where ``rollout.quick_call_chance`` is high, the bar lower
at a fuller table, as the expert's are; ``per_opponent_calls=False``: one bar at any table).
All candidates share each world, its stock order and its chance (common random numbers), so
their difference is measured on the same deals. Each finished
round is judged by the game-level utility (``yaniv.bots.utility``): the chance of winning the game
from the scores it leaves, with the bonus, the limit and the end mode of the rules; a game that ends
counts 1 for a win (shared where tied) and 0 for a loss. A call in doubt is not played out in the
searched worlds (too few for a showdown's noise): it is worth its chance of success times the
utility of its two outcomes (``coach.call_value``), against the turns' rollouts; the chance is
counted in 200 worlds of the belief and calibrated on the expert's self-play
(``belief.call_chance``), or with ``call_odds='coach'`` is the coach's calibrated odds. The default
is the coach's verdict on the call, else the heuristic's turn; another candidate replaces it only if
it is better by ``margin`` and by ``z`` standard errors of the paired difference over the same
worlds (``Z``; ``Z_MANY`` at a table of three or more searched in ``MANY_WORLDS`` worlds or more):
without that test a small budget's noise made the master far weaker than the expert (32.5 % of 200
two-player games at 20 ms).

The budget is ``think_ms`` per decision, spent as a count of simulated turns
(``TURNS_PER_MS`` per millisecond, measured on the 2-core development machine), never by the
clock: the same seed and budget give the same moves on any machine, a slower one taking
longer. In draw-first the discard after the draw is searched the same way, its candidates the
heuristic's best discards with the drawn card known (``search_discards``). Every other decision
(draws after a discard, a slap, a stalled round's race) is the expert's.
"""

from __future__ import annotations

import math
import random
from bisect import bisect
from collections.abc import Sequence
from itertools import accumulate

from ..cards import Card
from ..errors import YanivError
from ..game import Game, Phase
from ..moves import DRAW_STOCK, DRAWS, SLAPS, YANIV, Discard, Move
from ..search import Odds, SearchError, Weigh, World, sample_worlds
from ..view import PlayerView
from .base import register
from .belief import BeliefNet, call_chance, hand_odds
from .coach import call_value, mean_and_error, yaniv_success_probability
from .expert_bot import ExpertBot, shed_weight
from .inference import play_weigh
from .rollout import discard_after_draw, rollout_turns
from .utility import win_probability

#: The decision budget's default, in milliseconds of this machine (p99 under 1 s, measured).
THINK_MS = 250
#: Simulated turns per millisecond of budget (a rollout turn costs about 50 us here).
TURNS_PER_MS = 16
#: Candidate turns searched (besides a doubtful Yaniv call).
CANDIDATES = 3
#: Worlds searched at least and at most per decision, whatever the budget.
MIN_WORLDS = 6
MAX_WORLDS = 64
#: Worlds drawn uniformly per world kept (the resampling's pool).
OVERSAMPLE = 4
#: Worlds sampled at a time.
BATCH = 8
#: Turns per active player after which a rollout round is judged by its hands, and the most
#: turns of a rollout whatever the players (so a search of 8 keeps to its budget).
ROLLOUT_TURNS_PER_PLAYER = 12
ROLLOUT_TURNS_MAX = 48
#: How much better in win chance (0..1) a candidate must be to replace the heuristic's choice.
MARGIN = 0.003
#: ...and by how many standard errors of the paired difference (over the same worlds): with
#: few worlds the difference is mostly noise, and replacing the heuristic's choice on noise
#: made the master weaker than the expert it searches from. ``Z`` at a table of two, and at a
#: larger one searched in fewer than ``MANY_WORLDS`` worlds (where the error itself is
#: measured poorly); ``Z_MANY`` at a larger one searched in more. Measured in four players:
#: at the default budget (41 to 64 worlds) z = 1 won 36.0 % of 550 games to z = 2's 33.8 %; at
#: ``--think-ms 20`` (6 to 13 worlds, mostly) 96 of 400 games to z = 2's 117 (docs/bots.md).
Z = 2.0
Z_MANY = 1.0
MANY_WORLDS = 24
#: With that test guarding the default, more is searched than the expert searches: turns
#: whose heuristic scores are within 8 points (the expert's 4), and every call that is not
#: exactly decided (the expert leaves raw odds of 15 % and less, 97 % and more, to the coach).
#: Each measured alone on the same 200 two-player deals at 20 ms: +2.0 and +1.0 points, within
#: their noise (+-8.6, +-7.7).
CLOSE = 8.0
SURE = (0.0, 0.999)


def turn_weight(players: int) -> float:
    """What one simulated turn of ``players`` active players costs, in turns of the budget:
    1 up to 4 players, ``(players / 4) ** 2`` above (measured: a searched decision of 8
    players took 2.4 times that of 4 at the same count of turns, and more in its tail)."""
    return max(1.0, (players / 4) ** 2)


def resample(worlds: Sequence[World], keep: int, rng: random.Random) -> list[World]:
    """``keep`` worlds drawn from ``worlds`` in proportion to their weights (systematic
    resampling), each with weight 1; uniformly where every weight is 0."""
    weights = [w.weight for w in worlds]
    total = sum(weights)
    if total <= 0:
        weights = [1.0] * len(worlds)
        total = float(len(worlds))
    cum = list(accumulate(weights))
    start = rng.random() * total / keep
    out = []
    for i in range(keep):
        j = min(len(worlds) - 1, bisect(cum, start + i * total / keep))
        w = worlds[j]
        out.append(World(w.hands, w.stock, 1.0))
    return out


@register("master")
class MasterBot(ExpertBot):
    """Determinized search with common random numbers, judged by the chance of winning."""

    name = "master"

    def __init__(
        self,
        seed: int | None = None,
        think_ms: float = THINK_MS,
        candidates: int = CANDIDATES,
        margin: float = MARGIN,
        worlds: int | None = None,
        coach_call: bool = True,
        others_weight: float | None = None,
        z: float | None = None,
        coach_base: bool = True,
        beta_scale: float = 1.0,
        by_play: bool = True,
        belief: bool = True,
        call_odds: str = "belief",
        judged_calls: bool = True,
        per_opponent_calls: bool = True,
        like_expert: bool = True,
        play_power: float = 0.0,
        search_discards: bool = True,
    ) -> None:
        super().__init__(seed, candidates=candidates, margin=margin)
        self.coach_call = coach_call  # False: a call is judged by the worlds' showdowns
        # The shed weight of the others in rollouts (None: the expert's for the rules).
        self.others_weight = others_weight
        self.z = z  # standard errors a candidate must beat the default by (None: paired_z's)
        self.coach_base = coach_base  # the default: the coach's verdict on a call
        self.beta_scale = beta_scale  # of the opponent model's low-card rates, for the worlds
        self.by_play = by_play  # the worlds also weighed by each opponent's last turn
        self.belief = belief  # the worlds drawn by the learned belief instead of those two
        self.net: BeliefNet | None = None  # that belief's network (None: the shipped one)
        self._odds: tuple[PlayerView, Odds] | None = None  # the belief of the view searched
        # The belief's worlds resampled by each opponent's last turn, its likelihood to this
        # power (0: not resampled); and that weigh for the view searched.
        if not 0 <= play_power < math.inf:
            raise ValueError(f"play_power {play_power!r}: expected a number 0 or more")
        self.play_power = play_power
        self._weigh: tuple[PlayerView, Weigh] | None = None
        if call_odds not in ("coach", "belief"):
            raise ValueError(f"call_odds {call_odds!r:.20}: expected 'coach' or 'belief'")
        self.call_odds = call_odds  # a call's chance of success: the coach's, or the belief's
        self.judged_calls = judged_calls  # rollout calls by a quick chance (False: by CALL_AT)
        # that chance's bar falls with the opponents' number (False: one bar at every table)
        self.per_opponent_calls = per_opponent_calls
        self.like_expert = like_expert  # rollout turns with the expert's feed penalty and pull
        self.search_discards = search_discards  # draw-first: the discard after the draw too
        self.close = CLOSE
        self.sure = SURE
        self.max_worlds = MAX_WORLDS
        if not think_ms > 0:
            raise ValueError(f"think_ms {think_ms!r}: expected a positive number")
        self.think_ms = think_ms
        self.fixed_worlds = worlds  # None: as many as the budget allows
        self.simulated = 0  # rollout turns simulated so far (for benchmarks)

    # ------------------------------------------------------------- worlds

    def odds(self, view: PlayerView) -> Odds:
        """The belief's odds of ``view``, computed once per view searched."""
        if self._odds is None or self._odds[0] is not view:
            self._odds = (view, hand_odds(view, self.net))
        return self._odds[1]

    def sample(self, view: PlayerView, count: int) -> list[World]:
        """``count`` worlds of ``view``, equally weighted: drawn by the learned belief
        (``belief.hand_odds``; with ``play_power``, resampled by each opponent's last turn), or
        without it resampled by the opponent model: the low-card prior and each opponent's last
        turn (``inference.play_weigh``)."""
        if self.belief and not self.play_power:
            return sample_worlds(view, count, self.rng, odds=self.odds(view))
        if self._weigh is None or self._weigh[0] is not view:
            if self.belief:  # the belief has the low-card prior already: the last turn only
                weigh = play_weigh(view, 0.0, power=self.play_power)
            else:
                weigh = play_weigh(view, self.beta_scale, self.by_play)
            self._weigh = (view, weigh)
        odds = self.odds(view) if self.belief else None
        pool = sample_worlds(view, count * OVERSAMPLE, self.rng, weigh=self._weigh[1], odds=odds)
        return resample(pool, count, self.rng)

    # ------------------------------------------------------------- search

    def _discard(self, view: PlayerView, legal: list[tuple[float, Discard]], stall: float) -> Move:
        """Draw-first: the discard after my draw, searched like a turn's start where the
        heuristic's best discards are within ``close`` points (the drawn card is known now,
        and a draw searched at the turn's start was played on with the heuristic's discard);
        the heuristic's best where clear, and in a stalled round's race."""
        cands = legal[: self.candidates]
        close = len(cands) > 1 and cands[1][0] - cands[0][0] <= self.close
        if not (self.search_discards and close) or stall >= 1:
            return cands[0][1]
        totals = self._search(view, [(d, None) for _, d in cands])
        if totals is None:
            return cands[0][1]
        return cands[self.settle(totals, 0)][1]

    def _search(
        self, view: PlayerView, cands: list[tuple[Move, Card | None]]
    ) -> list[float] | None:
        """Each candidate's total win chance over the worlds (``self.worlds`` of them: the
        expert's margin test reads totals), after the paired test (``_tested``)."""
        values = self.world_values(view, cands)
        if values is None:
            return None
        return self._tested(cands, values, self.default_choice(view, cands, values), view.n)

    def default_choice(
        self, view: PlayerView, cands: list[tuple[Move, Card | None]], values: list[list[float]]
    ) -> int:
        """The candidate the search must beat: the coach's verdict on a call (the expert's
        where its odds are clear), else the heuristic's turn."""
        base = next((i for i, (m, _) in enumerate(cands) if m != YANIV), 0)
        if self.coach_base and self.coach_call and cands[0][0] == YANIV and base > 0:
            play_on = call_value(view).play_on
            if values[0] and values[0][0] > play_on:
                base = 0
        return base

    def world_values(
        self, view: PlayerView, cands: list[tuple[Move, Card | None]]
    ) -> list[list[float]] | None:
        """Per candidate, my chance of winning the game in each world searched (the same
        worlds for all); a call, the coach's price of it in every world. None where no world
        could be searched."""
        if self.fixed_worlds is not None:
            most = least = self.fixed_worlds
            budget = 0
        else:
            most, least = self.max_worlds, MIN_WORLDS
            budget = int(self.think_ms * TURNS_PER_MS)
        me = view.seat
        active = len(view.active_seats())
        # A turn of many players costs more (refills, a longer showdown and utility): counted
        # at its weight, so the budget holds in time (measured: 2 to 4 players cost alike).
        budget = int(budget / turn_weight(active))
        cap = min(ROLLOUT_TURNS_MAX, ROLLOUT_TURNS_PER_PLAYER * active)
        w_others = shed_weight(view.rules) if self.others_weight is None else self.others_weight
        values: list[list[float]] = [[] for _ in cands]  # per candidate, per world
        # A call is priced by the coach (its calibrated odds and the utility of the showdown's
        # two outcomes), not by the worlds' showdowns: those are dealt by the uncalibrated
        # low-card model, which puts too many low cards in the others' hands (calibrated, a
        # raw 30 % is 46 %), so a search that read them declined good calls.
        called = [self.coach_call and move == YANIV for move, _ in cands]
        done = 0
        used = 0
        first: Game | None = None  # the first world's game: the others are copies of it
        while done < most and (done < least or used < budget):
            try:
                batch = self.sample(view, min(BATCH, most - done))
            except SearchError:
                break
            for world in batch:
                if done >= least and used >= budget:
                    break
                try:
                    base = world.game(view, seed=self.rng.getrandbits(63), like=first)
                except YanivError:
                    return None  # a position built by hand that the engine cannot rebuild
                if base.pickable != view.pickable:
                    return None  # the engine reads the pile otherwise: no search
                first = first or base
                for i, cand in enumerate(cands):
                    if called[i]:
                        continue
                    g = base.clone()
                    self._play_turn(g, me, cand)
                    used += rollout_turns(
                        g,
                        me,
                        self.w_now,
                        w_others,
                        self.judged_calls,
                        self.like_expert,
                        self.per_opponent_calls,
                        cap,
                    )
                    values[i].append(self.judge(g, me))
                done += 1
        if not done:
            return None
        if any(called):
            if self.call_odds == "belief":
                p = call_chance(view, self.rng, odds=self.odds(view))
            else:
                p = yaniv_success_probability(view)
            value = call_value(view)
            worth = p * value.success + (1 - p) * value.failure
            values = [[worth] * done if c else v for c, v in zip(called, values, strict=True)]
        self.simulated += used
        self.worlds = done
        return values

    def paired_z(self, players: int, worlds: int) -> float:
        """The standard errors a candidate must win by at a table of ``players`` seats, its
        difference measured over ``worlds`` worlds."""
        if self.z is not None:
            return self.z
        return Z_MANY if players > 2 and worlds >= MANY_WORLDS else Z

    def _tested(
        self,
        cands: list[tuple[Move, Card | None]],
        values: list[list[float]],
        base: int,
        players: int,
    ) -> list[float]:
        """Each candidate's total over the worlds; one that does not beat the default choice
        ``base`` by ``paired_z`` standard errors of their paired difference (the same worlds)
        is put below it, so that noise never replaces it."""
        z = self.paired_z(players, len(values[base]))
        totals = [math.fsum(v) for v in values]
        for i, v in enumerate(values):
            if i == base:
                continue
            diffs = [a - b for a, b in zip(v, values[base], strict=True)]
            mean, error = mean_and_error(diffs) if len(diffs) > 1 else (diffs[0], 0.0)
            if mean <= z * error:
                totals[i] = min(totals[i], totals[base] - 1.0)
        return totals

    def _play_turn(self, g: Game, me: int, cand: tuple[Move, Card | None]) -> None:
        """Play candidate ``cand`` (a first move and its planned draw) as my whole turn."""
        move, draw = cand
        g.apply(move)
        if g.phase == Phase.DRAW:
            if draw is not None and draw in g.pickable:
                g.apply(DRAWS[draw])
            else:
                g.apply(DRAW_STOCK if g.stock else DRAWS[g.pickable[0]])
        elif g.phase == Phase.DISCARD:  # draw first: the discard the expert would make
            discard_after_draw(g, self.w_now, self.like_expert)
        if g.phase == Phase.SLAP:
            g.apply(SLAPS[g.drawn])

    @staticmethod
    def judge(g: Game, me: int) -> float:
        """My chance of winning the game once this simulated round is over (or cut short:
        judged as if the lowest hand had won it, every other seat scoring its hand)."""
        if g.phase == Phase.GAME_OVER:
            return 1.0 / len(g.winners) if me in g.winners else 0.0
        scores = list(g.scores)
        if g.phase < Phase.ROUND_OVER:
            active = [s for s in range(g.n) if not g.out[s]]
            low = min(active, key=lambda s: g.values[s])
            for s in active:
                if s != low:
                    scores[s] += g.values[s]
        return win_probability(g.rules, scores, me, g.out)
