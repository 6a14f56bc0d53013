"""The action table: every move a rule set allows, as a fixed list of integers.

One table per rule set (tables are cached and shared by rule sets that agree on what the table
depends on). Its entries, in index order:

1. ``yaniv``;
2. every discard of at most ``hand_size`` cards, laid in the canonical order that
   ``discards.canonical`` gives (one entry per distinct outcome), sorted by number of cards,
   then kind (single, set, run), then the laid cards as card ints;
3. ``draw stock``, then ``draw CARD`` for each card of the deck in card order;
4. with ``slapdown`` on: ``slap CARD`` for each natural card in card order, then ``pass``.

>>> from yaniv.rules import RuleSet
>>> table = action_table(RuleSet())
>>> len(table), table.move(0), table.move(table.stock)
(2950, Yaniv(), Draw(card=None))
>>> from yaniv.moves import parse_move
>>> table.index(parse_move("discard 7S 7H")) == table.index(parse_move("discard 7H 7S"))
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

import numpy as np
from numpy.typing import NDArray

from .. import compiled as _compiled
from .. import discards as D
from ..cards import NUM_CARDS, deck, mask_of
from ..errors import InvalidMoveError, RuleError
from ..game import Game, Phase
from ..moves import DRAW_STOCK, DRAWS, PASS, SLAPS, YANIV, Discard, Move
from ..rules import RuleSet
from ..view import PlayerView

_JOKER_BITS = (1 << 52) | (1 << 53)
_RANK_BITS = [0] + [sum(1 << (s * 13 + r - 1) for s in range(4)) for r in range(1, 14)]
_SUIT_BITS = [((1 << 13) - 1) << (s * 13) for s in range(4)]

_START, _DRAW, _DISCARD, _SLAP = Phase.START, Phase.DRAW, Phase.DISCARD, Phase.SLAP


def as_rules(rules: RuleSet | str | Mapping[str, Any] | None) -> RuleSet:
    """A rule set from a RuleSet, a preset name, or a dict of options (None: standard)."""
    if rules is None:
        return RuleSet()
    if isinstance(rules, RuleSet):
        return rules
    if isinstance(rules, str):
        return RuleSet.preset(rules)
    if isinstance(rules, Mapping):
        return RuleSet.from_dict(rules)
    raise RuleError(f"rules must be a RuleSet, a preset name or a dict, not {rules!r:.60}")


def _table_key(rules: RuleSet) -> tuple[object, ...]:
    """What a table's entries depend on: the deck, the longest discard, what may be discarded
    in which canonical orders (as ``discards`` keys its tables), and whether slaps exist."""
    return (rules.jokers, rules.hand_size, *D.variant(rules), rules.slapdown != "off")


class ActionTable:
    """Every move a rule set allows, each with a fixed index; masks of the legal ones."""

    __slots__ = (
        "rules",
        "moves",
        "size",
        "yaniv",
        "discard_start",
        "discard_stop",
        "stock",
        "draw",
        "slap",
        "pass_",
        "max_discard",
        "_index",
        "_cards_mask",
        "_single",
        "_singles",
        "_sets",
        "_runs",
        "_draw_of",
        "_slap_of",
        "_pair",
        "_core",
        "_parts",
        "_fast",
    )

    rules: RuleSet  # the rule set it was first built for (others with the same key share it)
    moves: tuple[Move, ...]
    size: int
    yaniv: int  # index of ``yaniv`` (0)
    discard_start: int  # discards are indices discard_start .. discard_stop - 1
    discard_stop: int
    stock: int  # index of ``draw stock``
    draw: NDArray[np.intp]  # per card: the index of ``draw CARD`` (-1 where not in the deck)
    slap: NDArray[np.intp]  # per card: the index of ``slap CARD`` (-1 where none)
    pass_: int  # index of ``pass`` (-1 without slapdown)
    max_discard: int  # the most cards a discard holds (hand_size)

    def __init__(self, rules: RuleSet, *, compiled: bool | None = None) -> None:
        """``compiled``: list legal actions with the compiled core (True, where it is built)
        or in Python (False); by default, as ``yaniv.compiled`` chooses. Both list alike."""
        self.rules = rules
        cards = deck(rules.jokers)
        self.max_discard = rules.hand_size
        every = D.legal_discards(mask_of(cards), rules)
        discards = sorted(
            (d for d in every if len(d.cards) <= self.max_discard),
            key=lambda d: (len(d.cards), D.classify(d.cards, rules), d.cards),
        )
        moves: list[Move] = [YANIV]
        self.yaniv = 0
        self.discard_start = len(moves)
        moves.extend(Discard(d.cards) for d in discards)
        self.discard_stop = len(moves)
        self.stock = len(moves)
        moves.append(DRAW_STOCK)
        draw = np.full(NUM_CARDS, -1, dtype=np.intp)
        for c in cards:
            draw[c] = len(moves)
            moves.append(DRAWS[c])
        slap = np.full(NUM_CARDS, -1, dtype=np.intp)
        self.pass_ = -1
        if rules.slapdown != "off":
            for c in cards:
                if c < 52:  # a joker is never slapped (R22)
                    slap[c] = len(moves)
                    moves.append(SLAPS[c])
            self.pass_ = len(moves)
            moves.append(PASS)
        self.moves = tuple(moves)
        self.size = len(moves)
        self.draw = draw
        self.slap = slap
        self._index: dict[Move, int] = {m: i for i, m in enumerate(moves)}
        self._draw_of = [int(i) for i in draw]
        self._slap_of = [int(i) for i in slap]
        self._cards_mask = [m.mask if isinstance(m, Discard) else 0 for m in moves]
        self._single = [self._index.get(Discard((c,)), -1) for c in range(NUM_CARDS)]
        self._singles = tuple(self._single)  # the compiled compose reads a tuple
        self._pair = self._index.get(D.JOKER_PAIR)  # with joker_pair (R8), and two jokers
        # Per rank (suit) part of a hand: the actions of its sets (runs). Few parts exist.
        self._sets: dict[int, list[int]] = {}
        self._runs: dict[int, list[int]] = {}
        self._core = _compiled.choose(compiled)
        # The compiled ``legal_actions`` of the common phases (None: pure Python).
        self._fast = None
        # What the compiled compose reads of the table and the rules, after the hand.
        self._parts = (
            self._singles,
            self._sets,
            self._runs,
            self._of_rank,
            self._of_suit,
            self._pair,
            rules.jokers_in_sets,
            rules.joker_in_run != "never",
            rules.run_naturals,
        )
        if self._core is not None:
            self._fast = self._core.Actions(
                *self._parts, tuple(self._draw_of), self.stock, self.yaniv
            )

    def __len__(self) -> int:
        return self.size

    def __repr__(self) -> str:
        return (
            f"<ActionTable {self.size} actions: yaniv, "
            f"{self.discard_stop - self.discard_start} discards of up to "
            f"{self.max_discard} cards, {self.slap_start - self.stock} draws"
            + (f", {self.pass_ - self.slap_start} slaps, pass>" if self.pass_ >= 0 else ">")
        )

    @property
    def slap_start(self) -> int:
        """Index of the first slap (``size`` without slapdown)."""
        return self.stock + 1 + int((self.draw >= 0).sum())

    # ------------------------------------------------------------- moves and indices

    def move(self, index: int) -> Move:
        """The move of action ``index``; raises InvalidMoveError for an index out of range."""
        i = int(index)
        if not 0 <= i < self.size:
            raise InvalidMoveError(
                f"action {index!r:.20} is not in the table (0 to {self.size - 1})"
            )
        return self.moves[i]

    def index(self, move: Move) -> int:
        """The action of ``move``; a set laid in any order maps to its canonical entry, and a
        run given out of order to its laid one where it lies in one order only (R9).

        Raises InvalidMoveError for a move that is never legal under these rules (a broken
        discard, a card outside the deck, a slap without slapdown).
        """
        found = self._index.get(move)
        if found is not None:
            return found
        move = D.as_laid(move, self.rules)
        found = self._index.get(move)
        if found is not None:
            return found
        if isinstance(move, Discard) and len(move.cards) > 1:
            kind = D.classify(move.cards, self.rules)
            if kind == D.SET:
                found = self._index.get(Discard(D.canonical(move.cards, kind, self.rules)))
                if found is not None:
                    return found
        raise InvalidMoveError(
            f"'{move}' is not an action of this table: never legal under these rules"
        )

    def indices(self, moves: Iterable[Move]) -> list[int]:
        """The actions of ``moves``, in order."""
        return [self.index(m) for m in moves]

    # ------------------------------------------------------------- masks

    def legal_actions(self, game: Game) -> list[int]:
        """The actions of the moves legal now for the seat to act in ``game``.

        A hand's discards are composed from cached parts (its singles, the sets of each of its
        ranks, the runs of each of its suits), as the engine composes them, so no hand needs
        a table of its own.
        """
        fast = self._fast
        if fast is not None:
            found = fast(game)
            if found is not None:
                return cast("list[int]", found)
        phase = game.phase
        if phase is _START:
            if not game.rules.draw_first:
                out = self._discards(game.hands[cast(int, game.to_move)])
                if game.can_yaniv():
                    out.append(self.yaniv)
                return out
            out = self._draws(game)
            if game.can_yaniv():
                out.append(self.yaniv)
            return out
        if phase is _DRAW:
            return self._draws(game)
        if phase is _SLAP:
            return [self._slap_of[game.drawn], self.pass_]
        if phase is _DISCARD:
            hand = game.hands[cast(int, game.to_move)]
            # Never the whole hand, nor the card just taken from the pile alone (R21).
            cards_of_action = self._cards_mask
            drawn = self._single[game.drawn] if game.drawn >= 0 else -1
            return [i for i in self._discards(hand) if cards_of_action[i] != hand and i != drawn]
        return []

    def _draws(self, game: Game) -> list[int]:
        draw_of = self._draw_of
        out = [draw_of[c] for c in game.pickable]
        if game.stock:
            out.append(self.stock)
        return out

    def _discards(self, hand: int) -> list[int]:
        """The actions of the hand's discards of at most ``max_discard`` cards."""
        core = self._core
        if core is not None:
            found = core.compose(hand, *self._parts)
            if found is not None:
                return cast("list[int]", found)
        return self._discards_pure(hand)

    def _of_rank(self, part: int) -> list[int]:
        found = self._sets.get(part)
        if found is None:
            found = self._sets[part] = self._part(part, D.SET)
        return found

    def _of_suit(self, part: int) -> list[int]:
        found = self._runs.get(part)
        if found is None:
            found = self._runs[part] = self._part(part, D.RUN)
        return found

    def _discards_pure(self, hand: int) -> list[int]:
        """``_discards`` in pure Python: the reference, and where the compiled core is not."""
        sets, runs = self._sets, self._runs

        def of_rank(part: int) -> list[int]:
            found = sets.get(part)
            if found is None:
                found = sets[part] = self._part(part, D.SET)
            return found

        def of_suit(part: int) -> list[int]:
            found = runs.get(part)
            if found is None:
                found = runs[part] = self._part(part, D.RUN)
            return found

        rules = self.rules
        return D.compose(
            hand,
            rules.jokers_in_sets,
            rules.joker_in_run,
            self._single,
            of_rank,
            of_suit,
            pair=self._pair,
            run_naturals=rules.run_naturals,
        )

    def _part(self, part: int, kind: int) -> list[int]:
        """The actions of the sets (or runs) of the cards of one rank (or suit) in ``part``."""
        rules = self.rules
        return [
            self._index[d]
            for d in D.legal_discards(part, rules)
            if 1 < len(d.cards) <= self.max_discard and D.classify(d.cards, rules) == kind
        ]

    def mask(
        self,
        source: Game | PlayerView,
        out: NDArray[np.int8] | None = None,
        seat: int | None = None,
    ) -> NDArray[np.int8]:
        """The legal actions as a 0/1 int8 array of ``len(table)``, written into ``out`` if given.

        For a game, the moves of the seat to act (all zeros when ``seat`` is given and is not
        to act, or when nobody is); for a view, the view's legal moves.
        """
        if out is None:
            out = np.zeros(self.size, dtype=np.int8)
        else:
            out[:] = 0
        if isinstance(source, PlayerView):
            if source.legal_moves:
                out[self.indices(source.legal_moves)] = 1
            return out
        if seat is None or seat == source.to_move:
            legal = self.legal_actions(source)
            if legal:
                out[legal] = 1
        return out


class MaskBuffer:
    """A 0/1 int8 action mask kept in place: each update clears the last legal entries and
    sets the new ones, through the array's bytes (no numpy call). It remembers the position
    it was written for, so an environment reads legality from it only there (``is_of``)."""

    __slots__ = ("array", "_raw", "_on", "_core", "_at")

    def __init__(
        self, size: int, out: NDArray[np.int8] | None = None, *, compiled: bool | None = None
    ) -> None:
        self._core = _compiled.choose(compiled)
        self._raw: bytearray | memoryview
        if out is None:
            self._raw = bytearray(size)
            self.array: NDArray[np.int8] = np.frombuffer(self._raw, dtype=np.int8)
        else:  # a contiguous int8 array of ``size`` (a row of a batch), kept in place
            if out.shape != (size,) or out.dtype != np.int8:
                raise ValueError(f"out: expected an int8 array of shape ({size},)")
            out[:] = 0
            self.array = out
            self._raw = out.data.cast("B")
        self._on: list[int] = []
        self._at: tuple[list[tuple[int, Move]] | None, int] = (None, -1)

    def update(self, legal: list[int], game: Game | None = None) -> NDArray[np.int8]:
        """Make exactly the actions ``legal`` 1, those of ``game`` where it stands now (if
        given); returns the array (not a copy)."""
        self._at = (None, -1) if game is None else (game.moves, len(game.moves))
        core = self._core
        if core is not None and core.write_mask(self._raw, self._on, legal):
            self._on = legal
            return self.array
        raw = self._raw
        for i in self._on:
            raw[i] = 0
        for i in legal:
            raw[i] = 1
        self._on = legal
        return self.array

    def is_of(self, game: Game) -> bool:
        """Whether the mask was last written for ``game`` where it stands now: the round's
        move list (by identity: a deal makes a new one) and its length (moves are only
        appended), so a move made on the game outside the environment is seen too."""
        moves, made = self._at
        return moves is game.moves and made == len(moves)

    def __getitem__(self, index: int) -> int:
        return self._raw[index]


_TABLES: dict[tuple[object, ...], ActionTable] = {}


def action_table(rules: RuleSet | str | Mapping[str, Any] | None = None) -> ActionTable:
    """The action table of a rule set (a RuleSet, a preset name or a dict), built once."""
    rules = as_rules(rules)
    key = _table_key(rules)
    table = _TABLES.get(key)
    if table is None:
        table = _TABLES[key] = ActionTable(rules)
    return table


__all__ = ["ActionTable", "MaskBuffer", "action_table", "as_rules"]
