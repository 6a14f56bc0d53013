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
(375, slice(0, 54, None))
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

from .. import compiled as _compiled
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
    ("joker_pair", "flag"),
    ("run_naturals", 2.0),
    ("max_set", 6.0),
    ("assaf_ties", "choice"),
    ("slap_empty_hand", "choice"),
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
    p: tuple(float(p is q) for q in PHASES) for p in PHASES
}


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

    __slots__ = (
        "rules",
        "n",
        "size",
        "layout",
        "low",
        "high",
        "_planes",
        "_plane_bytes",
        "_dynamic",
        "_scale",
        "_rules_part",
        "_rule_values",
        "_score_cap",
        "_seats",
        "_known_shifts",
        "_pile_shift",
        "_getters",
        "_turns",
        "_inv_hand",
        "_inv_limit",
        "_inv_stock",
        "_inv_value",
        "_pile_cache",
        "_core",
        "_writer",
    )

    rules: RuleSet
    n: int
    size: int
    layout: dict[str, slice]  # the index range of each part
    low: NDArray[np.float32]
    high: NDArray[np.float32]  # bounds of each entry, for an observation space

    def __init__(self, rules: RuleSet, players: int, *, compiled: bool | None = None) -> None:
        """``compiled``: write with the compiled core (True, where it is built) or in Python
        (False); by default, as ``yaniv.compiled`` chooses. Both write the same arrays."""
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
        # Reciprocals, multiplied in double precision then stored as float32, alike in
        # ``write`` and in ``ObservationBuffer.update``.
        self._inv_hand = 1 / rules.hand_size
        self._inv_limit = 1 / rules.score_limit
        self._inv_stock = 1 / NUM_CARDS
        self._inv_value = 1 / (10 * rules.hand_size)
        scale = [self._inv_hand] * n + [self._inv_limit] * n + [1.0] * (2 * n)
        scale += [1.0] * len(PHASES) + [self._inv_stock, self._inv_value]
        self._scale = np.array(scale, dtype=np.float64)
        high = np.ones(self.size, dtype=np.float32)
        high[lay["hand_sizes"]] = 2.0  # a hand holds hand_size + 1 cards at most (R21)
        high[lay["scores"]] = top_score * self._inv_limit
        high[lay["hand_value"]] = 2.0
        high[lay["rules"]] = np.maximum(self._rule_values, 1.0)
        self.high = high
        self.low = np.zeros(self.size, dtype=np.float32)
        self._seats = [[(seat + k) % n for k in range(n)] for seat in range(n)]
        # The pile list last seen, how many of its groups are in the bits, the last of
        # those groups, and the bits (see ``_pile_below_top``).
        self._pile_cache: tuple[list[tuple[int, ...]], int, tuple[int, ...], int] | None = None
        # Per seat: the others' known cards and where their plane starts in the bits.
        self._known_shifts = [
            [(s, NUM_CARDS * k) for k, s in enumerate(order) if k] for order in self._seats
        ]
        self._pile_shift = NUM_CARDS * n
        self._getters = [_getter(order) for order in self._seats]
        # Per seat, per seat to move (-1: nobody): the part ``to_move``.
        self._turns = [
            {
                **{m: tuple(float((m - seat) % n == k) for k in range(n)) for m in range(n)},
                -1: (0.0,) * n,
            }
            for seat in range(n)
        ]
        self._core = _compiled.choose(compiled)
        # The compiled ``write``: every part but the rules, in one call (None: pure Python).
        self._writer = None
        if self._core is not None:
            self._writer = self._core.Writer(
                n,
                self.size,
                lay["hand_sizes"].start,
                lay["scores"].start,
                lay["out"].start,
                lay["to_move"].start,
                lay["phase"].start,
                lay["stock"].start,
                lay["hand_value"].start,
                self._inv_hand,
                self._inv_limit,
                self._inv_stock,
                self._inv_value,
                top_score,
            )

    def new(self) -> NDArray[np.float32]:
        """A zeroed observation array, the rule part written (it never changes)."""
        out = np.zeros(self.size, dtype=np.float32)
        out[self._rules_part] = self._rule_values
        return out

    # ------------------------------------------------------------- writing

    def write(
        self, game: Game, seat: int, out: NDArray[np.float32] | None = None
    ) -> NDArray[np.float32]:
        """Write ``seat``'s observation of ``game`` into ``out`` (a new array if None).

        Reads only public facts and the seat's own hand, as its view shows them.
        """
        if out is None:
            out = self.new()
        writer = self._writer
        if writer is not None and writer(game, seat, out):
            return out
        to_move = game.to_move
        if game.phase is _SLAP and seat != to_move:
            # Another seat's slap window: the view shows the position before its draw.
            return self.write_view(game.view(seat), out)
        self._write_bits(self._card_bits(game, seat), out)
        getter = self._getters[seat]
        scores = game.scores
        dynamic = (
            getter(game.counts)
            + (getter(scores) if max(scores) <= self._score_cap else self._capped(scores, seat))
            + getter(game.out)
            + self._turns[seat][-1 if to_move is None else to_move]
            + _PHASE_HOT[game.phase]
            + (len(game.stock), game.values[seat])
        )
        self._write_dynamic(dynamic, out)
        return out

    def _card_bits(self, game: Game, seat: int) -> int:
        """The card planes of ``seat``'s observation as one int: bit k is entry k."""
        core = self._core
        if core is not None:
            bits = core.card_bits(game, seat, self._known_shifts[seat], self._pile_shift)
            if bits is not None:
                return cast(int, bits)
        return self._card_bits_pure(game, seat)

    def _card_bits_pure(self, game: Game, seat: int) -> int:
        """``_card_bits`` in pure Python: the reference, and where the compiled core is not."""
        bits = game.hands[seat]
        known = game.known
        for s, shift in self._known_shifts[seat]:
            k = known[s]
            if k:
                bits |= k << shift
        groups = game.pile
        top = 0
        if groups:
            for c in groups[-1]:
                top |= 1 << c
        pile = self._pile_below_top(groups)
        take = 0
        for c in game.pickable:
            take |= 1 << c
        shift = self._pile_shift
        bits |= (pile | top) << shift | top << (shift + 54) | take << (shift + 108)
        drawn = game.drawn
        if drawn >= 0 and game.to_move == seat:
            bits |= 1 << (drawn + shift + 162)
        return bits

    def _pile_below_top(self, groups: list[tuple[int, ...]]) -> int:
        """The cards of every pile group but the top one, as bits.

        Only the two most recent groups ever change (a draw takes from the previous discard,
        a slap joins the last one), and a refill or a new round makes a new list; so the
        groups below those two are kept as bits from call to call, checked by identity.
        """
        cached = self._pile_cache
        bottom = len(groups) - 2  # groups[:bottom] can no longer change
        mask = 0
        done = 0
        if cached is not None and cached[0] is groups:
            done, last, mask = cached[1], cached[2], cached[3]
            if done > bottom or (done and groups[done - 1] is not last):
                mask = done = 0
        for i in range(done, bottom):
            for c in groups[i]:
                mask |= 1 << c
        if bottom > 0:
            self._pile_cache = (groups, bottom, groups[bottom - 1], mask)
            done = bottom
        else:
            done = 0
        for group in groups[done:-1]:
            for c in group:
                mask |= 1 << c
        return mask

    def _capped(self, scores: list[int] | tuple[int, ...], seat: int) -> tuple[int, ...]:
        cap = self._score_cap
        return tuple(min(scores[s], cap) for s in self._seats[seat])

    def write_view(
        self, view: PlayerView, out: NDArray[np.float32] | None = None
    ) -> NDArray[np.float32]:
        """Write the observation of a seat's view into ``out`` (a new array if None)."""
        if out is None:
            out = self.new()
        seat = view.seat
        if not 0 <= seat < self.n or view.n != self.n:
            raise SetupError(
                f"an observation is of one of {self.n} seats, not of seat {seat} "
                f"in a game of {view.n}"
            )
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
        core = self._core
        if core is not None and core.write_planes(bits, out, self._planes):
            return
        self._write_bits_pure(bits, out)

    def _write_bits_pure(self, bits: int, out: NDArray[np.float32]) -> None:
        """``_write_bits`` with numpy: the reference, and where the compiled core is not."""
        raw = np.frombuffer(bits.to_bytes(self._plane_bytes, "little"), dtype=np.uint8)
        out[: self._planes] = np.unpackbits(raw, count=self._planes, bitorder="little")

    def _write_dynamic(self, values: tuple[float, ...], out: NDArray[np.float32]) -> None:
        out[self._dynamic] = np.multiply(values, self._scale)

    def describe(self) -> list[tuple[str, int, int]]:
        """Each part with its first index and its end (exclusive), in array order."""
        return [(name, s.start, s.stop) for name, s in self.layout.items()]

    def buffer(self, seat: int, out: NDArray[np.float32] | None = None) -> ObservationBuffer:
        """A preallocated observation of ``seat`` that ``update`` keeps current in place (in
        ``out``, a contiguous float32 array of ``size``, such as a row of a batch, if given)."""
        return ObservationBuffer(self, seat, out)


class ObservationBuffer:
    """One seat's observation array, brought up to date in place by ``update``.

    Between two updates only some parts change (a hand size, whose turn, the phase, the
    stock), so only the entries that changed are rewritten, through a memoryview of the
    array's bytes (writing one float there costs a fraction of a numpy item assignment).
    The array equals ``observer.write(game, seat)`` after every update.
    """

    __slots__ = (
        "observer",
        "seat",
        "array",
        "_floats",
        "_bits",
        "_counts",
        "_scores",
        "_out",
        "_turn",
        "_phase",
        "_stock",
        "_value",
        "_at",
        "_dirty",
    )

    def __init__(
        self, observer: Observer, seat: int, out: NDArray[np.float32] | None = None
    ) -> None:
        self.observer = observer
        self.seat = seat
        if out is None:
            raw = bytearray(observer.size * 4)
            self.array: NDArray[np.float32] = np.frombuffer(raw, dtype=np.float32)
            self._floats = memoryview(raw).cast("f")
        else:
            if out.shape != (observer.size,) or out.dtype != np.float32:
                raise ValueError(f"out: expected a float32 array of shape ({observer.size},)")
            out[:] = 0.0
            self.array = out
            self._floats = out.data.cast("B").cast("f")  # raises unless contiguous
        self.array[observer._rules_part] = observer._rule_values
        lay = observer.layout
        # Where each part starts; the turn part's entry for each seat to move (-1: nobody).
        turn: dict[int | None, int] = {None: -1}
        for m in range(observer.n):
            turn[m] = lay["to_move"].start + (m - seat) % observer.n
        self._at = (
            lay["hand_sizes"].start,
            lay["scores"].start,
            lay["out"].start,
            turn,
            lay["phase"].start,
            lay["stock"].start,
            lay["hand_value"].start,
        )
        self._forget()
        self._turn = self._phase = -1  # the entry set to 1 in each one-hot part (-1: none)
        self._dirty = False  # whether the compiled writer wrote last (the parts are unknown)

    def _forget(self) -> None:
        """Make the next update rewrite every part but the one-hot ones."""
        self._bits = -1
        self._counts: tuple[int, ...] = ()
        self._scores: tuple[int, ...] = ()
        self._out: tuple[bool, ...] = ()
        self._stock = self._value = -1

    def rewrite(self, game: Game) -> NDArray[np.float32]:
        """``update`` after the array was written by someone else (the compiled SeatBuffers'
        writer): every part is written again."""
        self._dirty = True
        return self.update(game)

    def update(self, game: Game) -> NDArray[np.float32]:
        """Bring the array up to date with ``game``; returns it (not a copy)."""
        observer = self.observer
        seat = self.seat
        writer = observer._writer
        # (its memoryview: the buffer of a memoryview costs less to get than a numpy array's)
        if writer is not None and writer(game, seat, self._floats):
            self._dirty = True  # the whole array at once: cheaper in C than finding changes
            return self.array
        if self._dirty:  # what the parts hold is not what the fields below remember
            self.array[observer._dynamic] = 0.0
            self._forget()
            self._turn = self._phase = -1
            self._dirty = False
        to_move = game.to_move
        phase = game.phase
        sizes_at, scores_at, out_at, turn_at, phase_at, stock_at, value_at = self._at
        if phase is _SLAP and seat != to_move:
            view = game.view(seat)
            observer.write_view(view, self.array)
            self._forget()
            self._turn = turn_at[view.to_move]
            self._phase = phase_at + PHASES.index(view.phase)
            return self.array
        bits = observer._card_bits(game, seat)
        if bits != self._bits:
            observer._write_bits(bits, self.array)
            self._bits = bits
        floats = self._floats
        getter = observer._getters[seat]
        counts = getter(game.counts)
        if counts != self._counts:
            scale = observer._inv_hand
            for k, v in enumerate(counts):
                floats[sizes_at + k] = v * scale
            self._counts = counts
        scores = getter(game.scores)
        if scores != self._scores:
            cap, scale = observer._score_cap, observer._inv_limit
            for k, v in enumerate(scores):
                floats[scores_at + k] = min(v, cap) * scale
            self._scores = scores
        out = getter(game.out)
        if out != self._out:
            for k, v in enumerate(out):
                floats[out_at + k] = float(v)
            self._out = out
        turn = turn_at[to_move]
        if turn != self._turn:
            if self._turn >= 0:
                floats[self._turn] = 0.0
            if turn >= 0:
                floats[turn] = 1.0
            self._turn = turn
        where = phase_at + phase
        if where != self._phase:
            if self._phase >= 0:
                floats[self._phase] = 0.0
            floats[where] = 1.0
            self._phase = where
        stock = len(game.stock)
        if stock != self._stock:
            floats[stock_at] = stock * observer._inv_stock
            self._stock = stock
        value = game.values[seat]
        if value != self._value:
            floats[value_at] = value * observer._inv_value
            self._value = value
        return self.array


__all__ = ["PHASES", "RULE_FEATURES", "ObservationBuffer", "Observer"]
