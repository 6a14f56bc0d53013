"""A learned belief about the opponents' hidden cards: per card, the chance that an opponent
holds it, from what one seat has seen this round.

A small network (two hidden layers) reads, for one opponent, the cards the viewer cannot
place, that opponent's discards this round (all of them, the last, the one before), the pile
cards it was offered and passed over (at its last turn, and before), the cards seen taken
into its hand, the card it took last, and a few counts (its hidden cards, its turns and stock
draws this round, its last draw's source, the rules' threshold, the stock, its score...). It
gives one logit per card; the chance is their sigmoid. It was trained by supervised learning
on the expert's self-play, the hidden cards as the labels (``scripts/train_belief.py``; the
figures are in docs/bots.md), and is run here in plain Python (no numpy: the master is a core
level): the card planes are 0/1, so the first layer is a sum of the weight rows they select.

``hand_odds(view)`` gives, per opponent with hidden cards, the odds ``p / (1 - p)`` of every
card: what ``yaniv.search.sample_worlds(odds=...)`` draws the worlds by.
"""

from __future__ import annotations

import json
import math
import random
from array import array
from collections.abc import Sequence
from functools import cache
from operator import mul
from pathlib import Path
from typing import Any

from ..cards import NUM_CARDS, VALUE, Card, mask_of
from ..discards import classify, pickable
from ..errors import YanivError
from ..events import Dealt, Discarded, Drew, Slapped
from ..rules import RuleSet
from ..search import Odds, sample_worlds
from ..view import PlayerView

#: Worlds drawn by ``call_chance``, and half a world's share: how near 0 or 1 a share is
#: taken to be before it is calibrated.
CALL_WORLDS = 200
EDGE = 0.5 / CALL_WORLDS

#: The shipped weights (float32, little-endian, layer by layer) and their shapes and origin.
WEIGHTS = Path(__file__).with_name("data") / "belief.f32"
META = Path(__file__).with_name("data") / "belief.json"
#: Version of the encoding below; a weight file of another version is refused.
ENCODING = 1
#: Card planes: candidates, discards, last discard, the one before, passed over at the last
#: turn, passed over before, known in the hand, taken at the last turn.
PLANES = 8
_HIDDEN, _TURNS, _STOCK_DRAWS, _SOURCES = 8, 10, 8, 3
SCALARS = _HIDDEN + _TURNS + _STOCK_DRAWS + _SOURCES + 10
INPUTS = PLANES * NUM_CARDS + SCALARS
#: Chances are kept within these bounds, so that no card is ruled out or certain by the net
#: alone (the view decides that: only unseen cards are ever drawn).
LOW, HIGH = 1e-4, 1 - 1e-4


class BeliefError(YanivError):
    """The belief network's weights are missing or do not fit this encoding."""


def _hot(n: int, size: int) -> list[float]:
    out = [0.0] * size
    out[min(max(n, 0), size - 1)] = 1.0
    return out


def _offered(group: tuple[Card, ...] | None, rules: RuleSet) -> tuple[Card, ...]:
    if group is None:
        return ()
    kind = 0 if len(group) == 1 else classify(group, rules)
    return pickable(group, kind, rules.pickup)


def features(view: PlayerView, seat: int) -> tuple[list[int], list[float]]:
    """The network's input for opponent ``seat`` as ``view`` sees it: the card planes as the
    indices of their 1 entries (plane ``i``, card ``c``: ``i * NUM_CARDS + c``), and the
    ``SCALARS`` numbers that follow them."""
    rules = view.rules
    cand = mask_of(view.unseen())
    laid = last = before = passed_last = passed_before = took_last = 0
    turns = stock_draws = slapped = 0
    source = 2  # no draw yet; 0 stock, 1 pile
    group: tuple[Card, ...] | None = None  # the pile's top group
    offered: tuple[Card, ...] = ()
    for event in view.events:
        if isinstance(event, Dealt):
            group = (event.up,)
        elif isinstance(event, Discarded):
            if event.seat == seat:
                if not rules.draw_first:
                    offered = _offered(group, rules)
                mask = mask_of(event.cards)
                laid |= mask
                before, last = last, mask
                turns += 1
            group = event.cards
        elif isinstance(event, Drew):
            if event.seat == seat:
                if rules.draw_first:
                    offered = _offered(group, rules)
                took = 0 if event.card is None else 1 << event.card
                passed_before |= passed_last
                passed_last = mask_of(offered) & ~took
                took_last = took
                stock_draws += event.source == "stock"
                source = 0 if event.source == "stock" else 1
        elif isinstance(event, Slapped):
            group = None
            slapped |= event.seat == seat
    known = view.known[seat]
    masks = (
        cand,
        laid,
        last,
        before,
        passed_last,
        passed_before & ~passed_last,
        mask_of(known),
        took_last,
    )
    active = [i * NUM_CARDS + c for i, m in enumerate(masks) for c in _bits(m)]
    scalars = [
        *_hot(view.hand_sizes[seat] - len(known), _HIDDEN),
        *_hot(turns, _TURNS),
        *_hot(stock_draws, _STOCK_DRAWS),
        *_hot(source, _SOURCES),
        rules.yaniv_threshold / 10,
        float(rules.draw_first),
        view.stock_size / 50,
        view.n / 8,
        view.scores[seat] / max(1, rules.score_limit),
        rules.jokers / 2,
        sum(VALUE[c] for c in known) / 50,
        cand.bit_count() / NUM_CARDS,
        float(seat == view.next_seat(view.seat)),
        float(slapped),
    ]
    return active, scalars


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


class BeliefNet:
    """The network: ``INPUTS`` -> ``hidden`` -> ``hidden`` -> ``NUM_CARDS`` logits, ReLU."""

    def __init__(self, hidden: int, values: Sequence[float]) -> None:
        sizes = ((INPUTS, hidden), (hidden, hidden), (hidden, NUM_CARDS))
        need = sum(i * o + o for i, o in sizes)
        if len(values) != need:
            raise BeliefError(f"the belief weights hold {len(values)} numbers, {need} expected")
        layers: list[tuple[list[list[float]], list[float]]] = []
        at = 0
        for n_in, n_out in sizes:
            # Stored as in PyTorch (out x in); the first layer is kept input-major, so that a
            # 0/1 input selects a row.
            w = [list(values[at + r * n_in : at + (r + 1) * n_in]) for r in range(n_out)]
            at += n_in * n_out
            b = list(values[at : at + n_out])
            at += n_out
            layers.append((w, b))
        (w1, self.b1), (self.w2, self.b2), (self.w3, self.b3) = layers
        self.rows1 = [list(col) for col in zip(*w1, strict=True)]  # input-major

    def logits(self, active: Sequence[int], scalars: Sequence[float]) -> list[float]:
        """The logits of one input (``features``)."""
        h = self.b1[:]
        rows = self.rows1
        for i in active:
            h = list(map(float.__add__, h, rows[i]))
        base = PLANES * NUM_CARDS
        for j, x in enumerate(scalars):
            if x:
                h = [a + x * r for a, r in zip(h, rows[base + j], strict=True)]
        h = [a if a > 0 else 0.0 for a in h]
        h2 = [max(0.0, b + sum(map(mul, row, h))) for row, b in zip(self.w2, self.b2, strict=True)]
        return [b + sum(map(mul, row, h2)) for row, b in zip(self.w3, self.b3, strict=True)]


def _read_meta(path: Path) -> dict[str, Any]:
    try:
        meta: dict[str, Any] = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise BeliefError(f"cannot read the belief network: {exc}") from exc
    if not isinstance(meta, dict):
        raise BeliefError(f"cannot read the belief network: {path} holds no JSON object")
    return meta


@cache
def _meta() -> dict[str, Any]:
    return _read_meta(META)


def load(weights: Path, meta: dict[str, Any] | None = None) -> BeliefNet:
    """The network of a weight file (``scripts/train_belief.py`` writes one, with its metadata
    in the ``.json`` beside it unless ``meta`` is given)."""
    meta = _read_meta(weights.with_suffix(".json")) if meta is None else meta
    try:
        raw = array("f")
        raw.frombytes(weights.read_bytes())
    except (OSError, ValueError) as exc:
        raise BeliefError(f"cannot read the belief network: {exc}") from exc
    if meta.get("encoding") != ENCODING:
        raise BeliefError(
            f"the belief weights are of encoding {meta.get('encoding')!r}, this code reads "
            f"{ENCODING}"
        )
    try:
        hidden = int(meta["hidden"])
    except (KeyError, TypeError, ValueError) as exc:
        raise BeliefError(f"the belief's metadata has no usable hidden size ({exc!r:.60})") from exc
    return BeliefNet(hidden, raw.tolist())


@cache
def shipped() -> BeliefNet:
    """The shipped network (read once)."""
    return load(WEIGHTS, _meta())


@cache
def call_calibration() -> tuple[float, float]:
    """``a, b`` of the call chance's calibration, ``sigmoid(a * logit(raw) + b)``, fitted by
    ``scripts/fit_call_calibration.py`` and shipped in the belief's metadata."""
    try:
        fitted = _meta()["call_calibration"]
        a, b = float(fitted["a"]), float(fitted["b"])
    except (KeyError, TypeError, ValueError) as exc:
        raise BeliefError(
            f"the belief's metadata has no usable call_calibration ({exc!r:.60}): run "
            "scripts/fit_call_calibration.py"
        ) from exc
    if not (math.isfinite(a) and math.isfinite(b) and a > 0):
        raise BeliefError(f"the belief's call_calibration a={a!r}, b={b!r}: expected finite, a > 0")
    return a, b


def logit(p: float) -> float:
    """``log(p / (1 - p))`` of a share of worlds, kept off 0 and 1 by half a world of
    ``CALL_WORLDS``."""
    p = min(max(p, EDGE), 1.0 - EDGE)
    return math.log(p / (1.0 - p))


def tempered(p: float, a: float, b: float) -> float:
    """``sigmoid(a * logit(p) + b)``: a chance recalibrated by a fitted temper (``p`` itself,
    but for ``logit``'s edges, at ``a = 1, b = 0``)."""
    return 1.0 / (1.0 + math.exp(-(a * logit(p) + b)))


def chances(view: PlayerView, seat: int, net: BeliefNet | None = None) -> list[float]:
    """Per card, the network's chance that opponent ``seat`` holds it among its hidden cards
    (only the unseen ones mean anything; the rest are set to 0)."""
    active, scalars = features(view, seat)
    unseen = set(view.unseen())
    out = [0.0] * NUM_CARDS
    for c, z in enumerate((net or shipped()).logits(active, scalars)):
        if c in unseen:
            out[c] = min(HIGH, max(LOW, 1.0 / (1.0 + math.exp(-z))))
    return out


def hand_odds(view: PlayerView, net: BeliefNet | None = None) -> dict[int, list[float]]:
    """Per opponent with hidden cards, every card's odds ``p / (1 - p)`` of being among them:
    the ``odds`` of ``sample_worlds``."""
    out: dict[int, list[float]] = {}
    for seat in view.active_seats():
        if seat == view.seat or view.hand_sizes[seat] <= len(view.known[seat]):
            continue
        out[seat] = [p / (1.0 - p) for p in chances(view, seat, net)]
    return out


def call_chance(
    view: PlayerView,
    rng: random.Random,
    worlds: int = CALL_WORLDS,
    odds: Odds | None = None,
    calibrated: bool = True,
) -> float:
    """The chance that a Yaniv call now succeeds under the belief: the share of ``worlds``
    worlds drawn by ``odds`` (``hand_odds(view)`` where not given) in which every other active
    hand is worth more than this seat's (a tie is an Assaf, R15), calibrated on the expert's
    self-play (``call_calibration``; the raw share is under-confident in the middle) unless
    ``calibrated`` is false; 0 above the threshold (a deliberate Assaf)."""
    mine = view.hand_value
    if mine > view.rules.yaniv_threshold:
        return 0.0
    others = [s for s in view.active_seats() if s != view.seat]
    drawn = sample_worlds(view, worlds, rng, odds=hand_odds(view) if odds is None else odds)
    wins = sum(all(sum(VALUE[c] for c in w.hands[s]) > mine for s in others) for w in drawn)
    if not calibrated:
        return wins / worlds
    return tempered(wins / worlds, *call_calibration())
