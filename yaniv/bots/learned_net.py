"""The learned level's encoding and network, in numpy: what ``learned_bot`` plays with.

A decision is scored move by move: every legal move of a view gets the features of the state
(the same for all its moves) and of the move itself, and a small MLP maps the pair to a logit.
Scoring the moves a view offers, rather than the entries of a fixed action table, keeps one
network valid under every rule set and for 2 to 8 players: nothing in it is sized by the deck's
discards or the number of seats. The other seats are summed up as the next seat to play and
the seat with the fewest cards (equal for two players), so a two-player network still reads a
table of eight; what it learned there it applies as it is (docs/bots.md).

The training example (examples/train_league.py) builds the same features with these functions
and exports its weights to the ``.npz`` file that ``Network.load`` reads, so the two cannot
drift apart. Importing this module needs numpy (``pip install 'yaniv[rl]'``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..cards import NUM_CARDS, RANK, SUIT, VALUE, mask_of
from ..errors import YanivError
from ..game import Phase
from ..moves import Discard, Draw, Move, Pass, Slap, Yaniv
from ..view import PlayerView
from .expert_bot import bonus_pull, round_turns
from .heuristics import shed_max

#: The shipped weights and what made them.
WEIGHTS = Path(__file__).with_name("data") / "learned.npz"
META = Path(__file__).with_name("data") / "learned.json"
#: Version of the encoding below; a weight file of another version is refused.
ENCODING = 1

#: Card planes of the state: the hand, the pile cards that may be drawn, every card on the
#: pile, and the cards seen taken by the next seat and by the other seats.
STATE_PLANES = 5
#: Card planes of a move: the cards it lays, the cards held after it, the card it takes.
MOVE_PLANES = 3
_SIZES = 8  # hand sizes one-hot: 0..6, 7 and more
_PHASES = (Phase.START, Phase.DRAW, Phase.DISCARD, Phase.SLAP)
STATE_SCALARS = len(_PHASES) + 2 * _SIZES + 22
MOVE_SCALARS = 6 + 11
STATE_SIZE = STATE_PLANES * NUM_CARDS + STATE_SCALARS
MOVE_SIZE = MOVE_PLANES * NUM_CARDS + MOVE_SCALARS
_STATE_BYTES = (STATE_PLANES * NUM_CARDS + 7) // 8
_MOVE_BYTES = (MOVE_PLANES * NUM_CARDS + 7) // 8


def _hot(n: int) -> list[float]:
    out = [0.0] * _SIZES
    out[min(n, _SIZES - 1)] = 1.0
    return out


def _planes(masks: Sequence[int], planes: int, nbytes: int) -> NDArray[np.float32]:
    """Rows of card planes: each int's bit k is entry k of its row."""
    raw = b"".join(m.to_bytes(nbytes, "little") for m in masks)
    bits = np.unpackbits(
        np.frombuffer(raw, dtype=np.uint8).reshape(len(masks), nbytes), axis=1, bitorder="little"
    )
    return bits[:, : planes * NUM_CARDS].astype(np.float32)


def _value(mask: int) -> int:
    v = 0
    while mask:
        low = mask & -mask
        v += VALUE[low.bit_length() - 1]
        mask ^= low
    return v


def _pairs(mask: int) -> tuple[int, int]:
    """Ranks held twice or more, and same-suit neighbours (run pieces), in a hand."""
    ranks = [0] * 14
    pieces = 0
    m = mask
    while m:
        low = m & -m
        c = low.bit_length() - 1
        m ^= low
        if c < 52:
            ranks[RANK[c]] += 1
            if RANK[c] < 13 and mask >> (c + 1) & 1 and SUIT[c + 1] == SUIT[c]:
                pieces += 1
    return sum(1 for r in ranks[1:] if r >= 2), pieces


def encode(view: PlayerView) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """The state's features (``STATE_SIZE``) and one row of ``MOVE_SIZE`` per legal move of
    ``view``, in the order of ``view.legal_moves``."""
    moves = view.legal_moves
    if not moves:
        raise YanivError(
            f"seat {view.seat} has no move to make (phase {view.phase.label}): nothing to encode"
        )
    rules = view.rules
    me = view.seat
    hand = mask_of(view.hand)
    value = view.hand_value
    threshold = rules.yaniv_threshold
    limit = rules.score_limit
    others = [s for s in view.active_seats() if s != me]
    nxt = view.next_seat(me) if others else me
    fewest = min(others, key=lambda s: (view.hand_sizes[s], (s - me) % view.n)) if others else me
    pile = 0
    for group in view.pile:
        pile |= mask_of(group)
    take = mask_of(view.pickable)
    seen_next = mask_of(view.known[nxt]) if others else 0
    seen_rest = 0
    for s in others:
        if s != nxt:
            seen_rest |= mask_of(view.known[s])
    bits = (
        hand
        | take << NUM_CARDS
        | pile << (2 * NUM_CARDS)
        | seen_next << (3 * NUM_CARDS)
        | seen_rest << (4 * NUM_CARDS)
    )
    in_deck = ((1 << 52) - 1) | ((1 << rules.jokers) - 1) << 52
    unseen = in_deck & ~(hand | pile | seen_next | seen_rest)
    n_unseen = unseen.bit_count()
    mean_unseen = _value(unseen) / n_unseen if n_unseen else 5.0
    scores = view.scores
    other_scores = [scores[s] for s in others] or [scores[me]]
    pull = bonus_pull(view)
    need, worth = pull if pull is not None else (-1, 0.0)
    stall = round_turns(view) / (12 * max(1, len(others) + 1))
    can_call = any(isinstance(m, Yaniv) for m in moves)
    scalars = [float(view.phase is p) for p in _PHASES]
    scalars += _hot(view.hand_sizes[nxt]) + _hot(view.hand_sizes[fewest])
    scalars += [
        value / 50,
        len(view.hand) / 10,
        threshold / 50,
        float(can_call),
        float(value <= threshold),
        scores[me] / limit,
        min(other_scores) / limit,
        max(other_scores) / limit,
        (limit - scores[me]) / 100,
        view.stock_size / NUM_CARDS,
        min(stall, 2.0),
        len(others) / 7,
        mean_unseen / 10,
        _value(seen_next) / 50,
        _value(mask_of(view.known[fewest])) / 50 if others else 0.0,
        worth / 50,
        float(rules.draw_first),
        float(rules.slapdown != "off"),
        float(rules.yaniv_above_threshold),
        rules.assaf_penalty / 100,
        float(view.drawn is not None),
        shed_max(hand, rules) / 50,
    ]
    state = np.concatenate(
        [_planes([bits], STATE_PLANES, _STATE_BYTES)[0], np.array(scalars, dtype=np.float32)]
    )
    phase = view.phase
    masks: list[int] = []
    rows: list[list[float]] = []
    for m in moves:
        laid = got = 0
        kind = 0
        after = hand
        expect = 0.0
        if isinstance(m, Yaniv):
            kind = 0
        elif isinstance(m, Discard):
            kind = 1
            laid = m.mask
            after = hand & ~laid
        elif isinstance(m, Draw):
            if m.card is None:
                kind = 2
                expect = mean_unseen
            else:
                kind = 3
                got = 1 << m.card
                after = hand | got
        elif isinstance(m, Slap):
            kind = 4
            laid = 1 << m.card
            after = hand & ~laid
        elif isinstance(m, Pass):
            kind = 5
        after_value = _value(after) + expect
        pairs, pieces = _pairs(after)
        laid_value = _value(laid)
        row = [0.0] * 6
        row[kind] = 1.0
        row += [
            laid_value / 50,
            laid.bit_count() / 5,
            after_value / 50,
            after.bit_count() / 10,
            float(after_value <= threshold),
            shed_max(after, rules) / 50 if after else 0.0,
            (VALUE[m.card] if isinstance(m, Draw) and m.card is not None else expect) / 10,
            pairs / 3,
            pieces / 3,
            float(need >= 0 and round(after_value) == need) * worth / 50,
            float(phase is Phase.DRAW and kind == 3 and (got & pile) != 0),
        ]
        masks.append(laid | after << NUM_CARDS | got << (2 * NUM_CARDS))
        rows.append(row)
    move_rows = np.concatenate(
        [_planes(masks, MOVE_PLANES, _MOVE_BYTES), np.array(rows, dtype=np.float32)], axis=1
    )
    return state, move_rows


@dataclass(frozen=True)
class Network:
    """The policy MLP: a move's logit from the state's and the move's features.

    ``layers`` are (weight, bias) pairs; the first weight has ``STATE_SIZE + MOVE_SIZE`` rows
    (the state's part is applied once per decision), the last one column (the logit).
    """

    layers: tuple[tuple[NDArray[np.float32], NDArray[np.float32]], ...]
    meta: dict[str, Any]

    def logits(self, state: NDArray[np.float32], moves: NDArray[np.float32]) -> NDArray[Any]:
        """One logit per row of ``moves``."""
        (w0, b0), *rest = self.layers
        h = np.maximum(moves @ w0[STATE_SIZE:] + (state @ w0[:STATE_SIZE] + b0), 0.0)
        for i, (w, b) in enumerate(rest):
            h = h @ w + b
            if i < len(rest) - 1:
                h = np.maximum(h, 0.0)
        return h[:, 0]

    def choose(self, view: PlayerView) -> Move:
        """The legal move of the highest logit (the first of equals, so it is deterministic)."""
        moves = view.legal_moves
        if len(moves) == 1:
            return moves[0]
        state, rows = encode(view)
        return moves[int(np.argmax(self.logits(state, rows)))]

    @classmethod
    def load(cls, path: Path | str = WEIGHTS) -> Network:
        """Read a weight file written by ``save`` (the training example's export)."""
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {k: data[k] for k in data.files}
        except (OSError, ValueError) as exc:
            raise YanivError(f"cannot read the learned weights {str(path)!r}: {exc}") from exc
        try:
            meta = json.loads(str(arrays.pop("meta")))
            count = int(meta["layers"])
            layers = tuple(
                (
                    arrays[f"w{i}"].astype(np.float32),
                    arrays[f"b{i}"].astype(np.float32),
                )
                for i in range(count)
            )
        except (KeyError, ValueError, TypeError) as exc:
            raise YanivError(f"{str(path)!r} is not a learned weight file: {exc}") from exc
        if meta.get("encoding") != ENCODING:
            raise YanivError(
                f"{str(path)!r} holds weights for encoding {meta.get('encoding')!r}; "
                f"this version reads encoding {ENCODING}"
            )
        first = layers[0][0].shape
        if first[0] != STATE_SIZE + MOVE_SIZE or layers[-1][0].shape[1] != 1:
            raise YanivError(
                f"{str(path)!r}: layer shapes {[w.shape for w, _ in layers]} do not fit the "
                f"features ({STATE_SIZE} + {MOVE_SIZE} in, one logit out)"
            )
        for (w, b), (w2, _) in zip(layers, layers[1:], strict=False):
            if b.shape != (w.shape[1],) or w2.shape[0] != w.shape[1]:
                raise YanivError(f"{str(path)!r}: layer shapes do not chain")
        return cls(layers, meta)

    def save(self, path: Path | str) -> None:
        """Write the weights as float16 (half the size, the same moves in practice: the
        export checks it) with ``meta`` (the command, seed and cost that made them)."""
        arrays: dict[str, Any] = {}
        for i, (w, b) in enumerate(self.layers):
            arrays[f"w{i}"] = w.astype(np.float16)
            arrays[f"b{i}"] = b.astype(np.float16)
        meta = {**self.meta, "layers": len(self.layers), "encoding": ENCODING}
        arrays["meta"] = np.array(json.dumps(meta, sort_keys=True))
        np.savez_compressed(Path(path), **arrays)


_CACHE: dict[Path, Network] = {}


def shipped(path: Path | str = WEIGHTS) -> Network:
    """The network of a weight file, read once per process."""
    key = Path(path).resolve()
    net = _CACHE.get(key)
    if net is None:
        if not key.exists():
            raise YanivError(
                f"the learned level's weights are missing ({key}); rebuild them as "
                "docs/training.md says"
            )
        net = _CACHE[key] = Network.load(key)
    return net


__all__ = [
    "ENCODING",
    "MOVE_SIZE",
    "STATE_SIZE",
    "WEIGHTS",
    "Network",
    "encode",
    "shipped",
]
