"""Worlds consistent with what one seat knows: the public search API for bots and researchers.

A ``PlayerView`` hides the other hands' unknown cards and the stock's order. ``sample_worlds``
deals those hidden cards afresh, as often as asked, from the view alone, so that nothing the
seat could not know reaches a search; ``World.game`` builds the full game of one world, which
plays on from there with a fresh seed (a stock that runs out is reshuffled by the world's own
chance, not by the real game's). This is determinization, the basis of perfect-information
Monte Carlo and of information-set MCTS, and the chance node of an OpenSpiel-style game.

>>> from yaniv import Game, RuleSet
>>> game = Game.new(RuleSet(), players=3, seed=4)
>>> view = game.view(1)
>>> worlds = sample_worlds(view, 2, seed=9)
>>> [len(hand) for hand in worlds[0].hands] == list(view.hand_sizes)
True
>>> worlds[0].hands[1] == view.hand
True
>>> worlds[0].game(view, seed=1).view(1).hand == view.hand
True

Sampling is uniform over the deals the view allows, unless ``odds`` skews it (a belief about
which cards each opponent holds: its hidden cards are drawn with chance in proportion to the
product of their odds) or ``weigh`` gives each opponent's sampled cards a likelihood (for
example from an opponent model of its observed discards and draws); each world then carries
the product of its weights, for weighted averages or resampling.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from . import compiled as _compiled
from .cards import NUM_CARDS, Card
from .errors import YanivError, is_whole
from .events import Drew
from .game import Game
from .state import Phase
from .view import SPECTATOR, PlayerView

#: ``weigh(view, seat, unknown_cards)``: the likelihood of an opponent's hidden cards, >= 0.
Weigh = Callable[[PlayerView, int, tuple[Card, ...]], float]
#: Per opponent seat, per card (``NUM_CARDS`` entries): the odds that the card is among that
#: seat's hidden ones, >= 0 (0: never).
Odds = Mapping[int, Sequence[float]]

#: The phases a world can be built in: a turn in progress.
_TURN = (Phase.START, Phase.DRAW, Phase.DISCARD, Phase.SLAP)
#: The most worlds one call samples (each is a few hundred bytes).
MAX_WORLDS = 100_000


class SearchError(YanivError, ValueError):
    """A world cannot be sampled from this view (the message says why)."""


@dataclass(frozen=True, slots=True)
class World:
    """One deal of the hidden cards: every seat's hand (card order) and the stock, top first."""

    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    weight: float = 1.0

    def game(self, view: PlayerView, seed: int | None = None, like: Game | None = None) -> Game:
        """The game of this world, at the view's position; it plays on with chance of its own
        (``seed``: its refills and later deals; None draws one). ``like``: the game of another
        world of the same view, as this method built it: this one is then a copy of it with
        this world's hidden cards, the position not checked again (a search builds hundreds
        of worlds of one view; a game moved on, or plainly of another view, is not copied)."""
        if seed is None:
            seed = random.SystemRandom().getrandbits(63)
        if (
            like is not None
            and is_whole(seed)
            and not like.moves
            and (like.n, like.round_no, like.phase, like.scores)
            == (view.n, view.round_no, view.phase, list(view.scores))
        ):
            return like._with_hidden(self.hands, self.stock, seed)
        phase = view.phase
        drawn = _drawn(view) if phase in (Phase.DISCARD, Phase.SLAP) else None
        return Game.from_position(
            view.rules,
            [list(h) for h in self.hands],
            list(self.stock),
            [list(g) for g in view.pile],
            _to_move(view),
            scores=view.scores,
            out=[s for s in range(view.n) if view.out[s]],
            known=[list(k) for k in view.known],
            names=view.names,
            seed=seed,
            phase=phase,
            drawn=drawn,
            round_no=view.round_no,
        )


def hidden_counts(view: PlayerView) -> list[int]:
    """Per seat, how many of its cards ``view`` cannot see (0 for its own seat and the out)."""
    return [
        0 if s == view.seat or view.out[s] else view.hand_sizes[s] - len(view.known[s])
        for s in range(view.n)
    ]


def sample_worlds(
    view: PlayerView,
    count: int,
    rng: random.Random | None = None,
    *,
    seed: int | None = None,
    weigh: Weigh | None = None,
    odds: Odds | None = None,
) -> list[World]:
    """``count`` worlds consistent with ``view``: its own hand, every public fact (the pile,
    the cards seen taken into hands, hand sizes, the stock's size) and nothing else.

    The unseen cards are dealt uniformly into the other hands' unknown places and the stock
    (``rng``, or a generator seeded with ``seed``). A spectator's view samples every hand.
    With ``odds``, a seat it names gets a set of hidden cards with chance in proportion to
    the product of their odds among the unseen cards that the seats before it left
    (conditional Poisson sampling: exact for one seat); the stock is the rest, shuffled.
    Raises SearchError for a view of a finished round, one whose counts do not add up, or
    odds that are malformed or leave a seat too few cards.
    """
    if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_WORLDS:
        raise SearchError(f"count {count!r:.20}: expected a whole number 0 to {MAX_WORLDS}")
    if view.phase not in _TURN or view.to_move is None:
        raise SearchError(f"no world to sample: the round is over (phase {view.phase.label})")
    if rng is None:
        rng = random.Random(seed)
    pool = view.unseen()
    hidden = hidden_counts(view)
    if any(k < 0 for k in hidden) or sum(hidden) + view.stock_size != len(pool):
        raise SearchError(
            f"the view's counts do not add up: {len(pool)} unseen cards for "
            f"{sum(hidden)} hidden in hands and a stock of {view.stock_size}"
        )
    skew = _checked_odds(view, odds, hidden) if odds is not None else {}
    own = view.hand
    worlds: list[World] = []
    for _ in range(count):
        cards = pool[:]
        rng.shuffle(cards)
        hands: list[tuple[Card, ...]] = []
        weight = 1.0
        k = 0
        for s in range(view.n):
            if s == view.seat:
                hands.append(own)
                continue
            if s in skew:
                _skewed_to_front(cards, k, hidden[s], skew[s], rng)
            unknown = tuple(cards[k : k + hidden[s]])
            k += hidden[s]
            if weigh is not None and unknown:
                weight *= _weight(weigh(view, s, unknown), s)
            hands.append(tuple(sorted((*view.known[s], *unknown))))
        worlds.append(World(tuple(hands), tuple(cards[k:]), weight))
    return worlds


def _checked_odds(view: PlayerView, odds: Odds, hidden: list[int]) -> dict[int, list[float]]:
    """The odds of the seats with hidden cards, each a list of ``NUM_CARDS`` numbers >= 0."""
    if not isinstance(odds, Mapping):
        raise SearchError(f"odds {odds!r:.30}: expected a mapping of seat to a list of odds")
    out: dict[int, list[float]] = {}
    for seat, row in odds.items():
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < view.n:
            raise SearchError(f"odds for seat {seat!r:.20}: expected a seat 0 to {view.n - 1}")
        if isinstance(row, str | bytes) or not isinstance(row, Sequence) or len(row) != NUM_CARDS:
            raise SearchError(f"odds for seat {seat}: expected {NUM_CARDS} numbers, one a card")
        values = [_weight(v, seat, "odds") for v in row]
        if not all(math.isfinite(v) for v in values):
            raise SearchError(f"odds for seat {seat}: expected finite numbers")
        if hidden[seat]:
            out[seat] = values
    return out


def _skewed_to_front(
    cards: list[Card],
    start: int,
    k: int,
    odds: Sequence[float],
    rng: random.Random,
    compiled: bool | None = None,
) -> None:
    """Move to ``cards[start:start + k]`` a set of ``k`` of ``cards[start:]`` drawn with chance
    in proportion to the product of their ``odds`` (conditional Poisson sampling by the
    elementary symmetric sums of the odds, a pass over the cards; the rest keep their order).
    On the compiled core in C (``_plan.c``): the same sums and draws of ``rng``, the same
    worlds (``compiled``: as ``yaniv.compiled`` chooses)."""
    core = _compiled.choose(compiled)
    if core is not None and core.skewed_front(cards, start, k, odds, rng.random):
        return  # drawn in C; where the odds leave too few cards, the loop below says so
    rest = cards[start:]
    w = [odds[c] for c in rest]
    u = len(rest)
    # e[j][m]: the sum over every m-set of rest[j:] of the product of its odds.
    e = [[0.0] * (k + 1) for _ in range(u + 1)]
    e[u][0] = 1.0
    for j in range(u - 1, -1, -1):
        row, nxt, wj = e[j], e[j + 1], w[j]
        row[0] = 1.0
        for m in range(1, k + 1):
            row[m] = nxt[m] + wj * nxt[m - 1]
    if not e[0][k] > 0:
        raise SearchError(f"the odds leave fewer than {k} possible cards for a hand")
    chosen: list[Card] = []
    left: list[Card] = []
    need = k
    for j, c in enumerate(rest):
        if need and rng.random() * e[j][need] < w[j] * e[j + 1][need - 1]:
            chosen.append(c)
            need -= 1
        else:
            left.append(c)
    cards[start:] = chosen + left


def _weight(value: float, seat: int, what: str = "weigh") -> float:
    if not isinstance(value, int | float) or not value >= 0:  # NaN too
        raise SearchError(f"{what} gave {value!r:.20} for seat {seat}: expected a number >= 0")
    return float(value)


def _drawn(view: PlayerView) -> Card | None:
    """The card the seat to move has just taken: its own view says so; another seat saw a
    pile card taken in a draw-first turn (a stock card it never sees)."""
    if view.drawn is not None:
        return view.drawn
    last = view.events[-1] if view.events else None
    if isinstance(last, Drew) and last.seat == view.to_move and last.source == "pile":
        return last.card
    return None


def _to_move(view: PlayerView) -> int:
    to_move = view.to_move
    assert to_move is not None  # sample_worlds refused a finished round
    return to_move


def determinized(
    view: PlayerView, count: int, seed: int | None = None, weigh: Weigh | None = None
) -> list[Game]:
    """The games of ``count`` worlds of ``view`` (``sample_worlds`` then ``World.game``), each
    with its own seed derived from ``seed``."""
    rng = random.Random(seed)
    worlds = sample_worlds(view, count, rng, weigh=weigh)
    return [w.game(view, seed=rng.getrandbits(63)) for w in worlds]


def consistent(view: PlayerView, game: Game) -> bool:
    """Whether ``game`` shows ``view``'s seat exactly what the view shows (hands hidden).

    A test of a world's consistency: the game's view of the same seat equals the view in
    every public fact and the seat's own hand."""
    seat = None if view.seat == SPECTATOR else view.seat
    mine = game.view(seat)
    keys: Sequence[str] = (
        "hand",
        "hand_sizes",
        "scores",
        "out",
        "pile",
        "pickable",
        "stock_size",
        "known",
        "drawn",
        "phase",
        "to_move",
        "round_no",
        "legal_moves",
    )
    return all(getattr(mine, k) == getattr(view, k) for k in keys)


__all__ = [
    "MAX_WORLDS",
    "Odds",
    "SearchError",
    "Weigh",
    "World",
    "consistent",
    "determinized",
    "hidden_counts",
    "sample_worlds",
]
