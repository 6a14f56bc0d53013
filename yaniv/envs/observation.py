"""Observations: what one seat may know, written into a preallocated float32 array.

Like OpenSpiel's observer, an ``Observer`` is made once per rule set and player count; its
``layout`` names the index range of each part, and ``write`` fills an array in place. Seats
are relative: the observing seat first, then the others clockwise (``seat + 1``, ``seat + 2``,
...). Every part is built from what the seat's ``PlayerView`` shows: ``write_view`` reads a
view; ``write`` reads the same public facts from a game without making a view (the fast path),
and falls back to the view where the two could differ (another seat's slap window, R22).
docs/envs.md lists the parts.

>>> from yaniv import Game, RuleSet
>>> observer = Observer(RuleSet(), players=2)
>>> observer.size, observer.layout["hand"]
(366, slice(0, 54, None))
>>> game = Game.new(RuleSet(), 2, seed=1)
>>> obs = observer.write(game, 0)
>>> int(obs[observer.layout["hand"]].sum())
5
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from ..cards import NUM_CARDS
from ..errors import SetupError
from ..game import Game, Phase
from ..rules import CHOICES, RuleSet
from ..view import PlayerView

_SLAP = Phase.SLAP
#: Phases in the one-hot part ``phase``, in this order.
PHASES: tuple[Phase, ...] = tuple(Phase)

#: The rule options written in the part ``rules``, in this order: (option, how it is written).
#: A word option is one-hot over its choices; a flag is 0/1; a number is divided by the scale.
RULE_FEATURES: tuple[tuple[str, str | float], ...] = (
    ("draw_first", "flag"),
    ("jokers_in_sets", "flag"),
    ("joker_in_run", "choice"),
    ("pickup", "choice"),
    ("slapdown", "choice"),
    ("yaniv_above_threshold", "flag"),
    ("assaf_scoring", "choice"),
    ("bonus", "choice"),
    ("end_mode", "choice"),
    ("next_starter", "choice"),
    ("yaniv_threshold", 50.0),
    ("assaf_penalty", 100.0),
    ("hand_size", 10.0),
    ("jokers", 2.0),
)


def _rule_values(rules: RuleSet) -> list[float]:
    values: list[float] = []
    for name, how in RULE_FEATURES:
        value = getattr(rules, name)
        if how == "flag":
            values.append(float(value))
        elif how == "choice":
            values.extend(float(value == choice) for choice in CHOICES[name])
        else:
            values.append(value / cast(float, how))
    return values


#: Each phase's one-hot part ``phase``.
_PHASE_HOT: dict[Phase, tuple[float, ...]] = {
    p: tuple(float(p is q) for q in PHASES) for p in PHASES}


def _getter(order: list[int]) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
    """A function picking the items of ``order`` from a per-seat sequence, as a tuple."""
    get = itemgetter(*order)
    return cast("Callable[[Sequence[Any]], tuple[Any, ...]]", get)


def _bits(cards: object) -> int:
    mask = 0
    for c in cards:  # type: ignore[attr-defined]
        mask |= 1 << c
    return mask


class Observer:
    """Writes one seat's observation of a game (or of its view) into a float32 array."""

    __slots__ = ("rules", "n", "size", "layout", "low", "high", "_planes", "_plane_bytes",
                 "_dynamic", "_scale", "_rules_part", "_rule_values", "_score_cap", "_seats",
                 "_known_shifts", "_pile_shift", "_getters", "_turns")

    rules: RuleSet
    n: int
    size: int
    layout: dict[str, slice]  # the index range of each part
    low: NDArray[np.float32]
    high: NDArray[np.float32]  # bounds of each entry, for an observation space

    def __init__(self, rules: RuleSet, players: int) -> None:
        if not 2 <= players <= 8:
            raise SetupError(f"{players} players: an observation is for 2 to 8 players")
        self.rules = rules
        n = self.n = players
        rule_values = _rule_values(rules)
        parts: list[tuple[str, int]] = [
            ("hand", NUM_CARDS),
            ("known", NUM_CARDS * (n - 1)),
            ("pile", NUM_CARDS),
            ("top", NUM_CARDS),
            ("takeable", NUM_CARDS),
            ("drawn", NUM_CARDS),
            ("hand_sizes", n),
            ("scores", n),
            ("out", n),
            ("to_move", n),
            ("phase", len(PHASES)),
            ("stock", 1),
            ("hand_value", 1),
            ("rules", len(rule_values)),
        ]
        self.layout = {}
        start = 0
        for name, length in parts:
            self.layout[name] = slice(start, start + length)
            start += length
        self.size = start
        self._planes = NUM_CARDS * (n + 4)
        self._plane_bytes = (self._planes + 7) // 8
        lay = self.layout
        self._dynamic = slice(lay["hand_sizes"].start, lay["hand_value"].stop)
        self._rules_part = lay["rules"]
        self._rule_values = np.array(rule_values, dtype=np.float32)
        # Scores: a score passes the limit by at most one round's points (R14, R15).
        top_score = rules.score_limit + 10 * rules.hand_size + rules.assaf_penalty
        self._score_cap = top_score
        high = np.ones(self.size, dtype=np.float32)
        high[lay["hand_sizes"]] = (rules.hand_size + 1) / rules.hand_size
        high[lay["scores"]] = top_score / rules.score_limit
        high[lay["hand_value"]] = (rules.hand_size + 1) / rules.hand_size
        high[lay["rules"]] = np.maximum(self._rule_values, 1.0)
        self.high = high
        self.low = np.zeros(self.size, dtype=np.float32)
        scale = [1 / rules.hand_size] * n + [1 / rules.score_limit] * n + [1.0] * (2 * n)
        scale += [1.0] * len(PHASES) + [1 / NUM_CARDS, 1 / (10 * rules.hand_size)]
        self._scale = np.array(scale, dtype=np.float32)
        self._seats = [[(seat + k) % n for k in range(n)] for seat in range(n)]
        # Per seat: the others' known cards and where their plane starts in the bits.
        self._known_shifts = [[(s, NUM_CARDS * k) for k, s in enumerate(order) if k]
                              for order in self._seats]
        self._pile_shift = NUM_CARDS * n
        self._getters = [_getter(order) for order in self._seats]
        # Per seat, per seat to move (-1: nobody): the part ``to_move``.
        self._turns = [
            {**{m: tuple(float((m - seat) % n == k) for k in range(n)) for m in range(n)},
             -1: (0.0,) * n}
            for seat in range(n)
        ]

    def new(self) -> NDArray[np.float32]:
        """A zeroed observation array, the rule part written (it never changes)."""
        out = np.zeros(self.size, dtype=np.float32)
        out[self._rules_part] = self._rule_values
        return out

    # ------------------------------------------------------------- writing

    def write(self, game: Game, seat: int, out: NDArray[np.float32] | None = None
              ) -> NDArray[np.float32]:
        """Write ``seat``'s observation of ``game`` into ``out`` (a new array if None).

        Reads only public facts and the seat's own hand, as its view shows them.
        """
        if out is None:
            out = self.new()
        phase = game.phase
        to_move = game.to_move
        if phase is _SLAP and seat != to_move:
            # Another seat's slap window: the view shows the position before its draw.
            return self.write_view(game.view(seat), out)
        bits = game.hands[seat]
        known = game.known
        for s, shift in self._known_shifts[seat]:
            k = known[s]
            if k:
                bits |= k << shift
        groups = game.pile
        pile = top = 0
        if groups:
            for c in groups[-1]:
                top |= 1 << c
            for group in groups[-2::-1]:
                for c in group:
                    pile |= 1 << c
        take = 0
        for c in game.pickable:
            take |= 1 << c
        shift = self._pile_shift
        bits |= (pile | top) << shift | top << (shift + 54) | take << (shift + 108)
        if to_move == seat and game.drawn >= 0:
            bits |= 1 << (game.drawn + shift + 162)
        raw = np.frombuffer(bits.to_bytes(self._plane_bytes, "little"), dtype=np.uint8)
        out[: self._planes] = np.unpackbits(raw, count=self._planes, bitorder="little")
        getter = self._getters[seat]
        scores = game.scores
        dynamic = (
            getter(game.counts)
            + (getter(scores) if max(scores) <= self._score_cap else self._capped(scores, seat))
            + getter(game.out)
            + self._turns[seat][-1 if to_move is None else to_move]
            + _PHASE_HOT[phase]
            + (len(game.stock), game.values[seat])
        )
        part = out[self._dynamic]
        part[:] = dynamic
        part *= self._scale
        return out

    def _capped(self, scores: list[int] | tuple[int, ...], seat: int) -> tuple[int, ...]:
        cap = self._score_cap
        return tuple(min(scores[s], cap) for s in self._seats[seat])

    def write_view(self, view: PlayerView, out: NDArray[np.float32] | None = None
                   ) -> NDArray[np.float32]:
        """Write the observation of a seat's view into ``out`` (a new array if None)."""
        if out is None:
            out = self.new()
        seat = view.seat
        if not 0 <= seat < self.n or view.n != self.n:
            raise SetupError(f"an observation is of one of {self.n} seats, not of seat {seat} "
                             f"in a game of {view.n}")
        order = self._seats[seat]
        bits = _bits(view.hand)
        shift = NUM_CARDS
        for s in order[1:]:
            bits |= _bits(view.known[s]) << shift
            shift += NUM_CARDS
        bits |= _bits(c for group in view.pile for c in group) << shift
        top = view.pile[-1] if view.pile else ()
        bits |= _bits(top) << (shift + NUM_CARDS)
        bits |= _bits(view.pickable) << (shift + 2 * NUM_CARDS)
        if view.drawn is not None:
            bits |= 1 << (view.drawn + shift + 3 * NUM_CARDS)
        self._write_bits(bits, out)
        # Written plainly, apart from ``write``'s shortcuts: tests hold one against the other.
        cap = self._score_cap
        dynamic: list[float] = [view.hand_sizes[s] for s in order]
        dynamic += [min(view.scores[s], cap) for s in order]
        dynamic += [float(view.out[s]) for s in order]
        dynamic += [float(view.to_move == s) for s in order]
        dynamic += [float(view.phase is p) for p in PHASES]
        dynamic += [view.stock_size, view.hand_value]
        self._write_dynamic(tuple(dynamic), out)
        return out

    def _write_bits(self, bits: int, out: NDArray[np.float32]) -> None:
        """The card planes: bit k of ``bits`` is entry k."""
        raw = np.frombuffer(bits.to_bytes(self._plane_bytes, "little"), dtype=np.uint8)
        out[: self._planes] = np.unpackbits(raw, count=self._planes, bitorder="little")

    def _write_dynamic(self, values: tuple[float, ...], out: NDArray[np.float32]) -> None:
        part = out[self._dynamic]
        part[:] = values
        part *= self._scale

    def describe(self) -> list[tuple[str, int, int]]:
        """Each part with its first index and its end (exclusive), in array order."""
        return [(name, s.start, s.stop) for name, s in self.layout.items()]


__all__ = ["PHASES", "RULE_FEATURES", "Observer"]
