"""Moves and their text notation.

A turn is a sequence of atomic moves: ``yaniv``; or ``discard`` then ``draw``; or, with
draw-first, ``draw`` then ``discard``; after a stock draw, maybe ``slap`` or ``pass``.

>>> str(parse_move("discard 10h jh Q♥"))
'discard TH JH QH'
>>> parse_move("draw stock") == DRAW_STOCK
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cards import NAMES, NUM_CARDS, VALUE, Card, cards_text, parse_card
from .errors import CardError, InvalidMoveError


@dataclass(frozen=True, slots=True)
class Yaniv:
    """Call Yaniv at the start of one's turn (R13)."""

    def __str__(self) -> str:
        return "yaniv"


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard these cards, in laid order (R8, R9)."""

    cards: tuple[Card, ...]
    mask: int = field(init=False, compare=False, repr=False, hash=False)
    value: int = field(init=False, compare=False, repr=False, hash=False)  # points shed

    def __post_init__(self) -> None:
        m = v = 0
        for c in self.cards:
            m |= 1 << c
            v += VALUE[c]
        object.__setattr__(self, "mask", m)
        object.__setattr__(self, "value", v)

    def __str__(self) -> str:
        return "discard " + cards_text(self.cards)


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw the stock's top card (``card is None``) or a card of the previous discard (R10)."""

    card: Card | None = None

    def __str__(self) -> str:
        return "draw stock" if self.card is None else "draw " + NAMES[self.card]


@dataclass(frozen=True, slots=True)
class Slap:
    """Slap the card just drawn from the stock onto one's discard (R22)."""

    card: Card

    def __str__(self) -> str:
        return "slap " + NAMES[self.card]


@dataclass(frozen=True, slots=True)
class Pass:
    """Decline a slap (R22)."""

    def __str__(self) -> str:
        return "pass"


Move = Yaniv | Discard | Draw | Slap | Pass

YANIV = Yaniv()
PASS = Pass()
DRAW_STOCK = Draw(None)
#: One shared Draw and Slap object per card, so hot paths allocate nothing.
DRAWS: tuple[Draw, ...] = tuple(Draw(c) for c in range(NUM_CARDS))
SLAPS: tuple[Slap, ...] = tuple(Slap(c) for c in range(NUM_CARDS))

VERBS = ("yaniv", "discard", "draw", "slap", "pass")


def parse_move(text: str | Move) -> Move:
    """Parse a move's text; raises InvalidMoveError naming the text and what is wrong."""
    if isinstance(text, Yaniv | Discard | Draw | Slap | Pass):
        return text
    if not isinstance(text, str):
        raise InvalidMoveError(f"not a move: {text!r:.60}")
    words = text.split(maxsplit=NUM_CARDS + 1)
    if len(words) > NUM_CARDS + 1:
        raise InvalidMoveError(f"bad move {text!r:.60}: more cards than a deck holds")
    if not words:
        raise InvalidMoveError("empty move: expected one of " + ", ".join(VERBS))
    verb, args = words[0].lower(), words[1:]
    try:
        if verb in ("yaniv", "pass"):
            if args:
                raise InvalidMoveError(f"bad move {text!r:.60}: '{verb}' takes no cards")
            return YANIV if verb == "yaniv" else PASS
        if verb == "discard":
            if not args:
                raise InvalidMoveError(f"bad move {text!r:.60}: name the cards to discard")
            cards = tuple(parse_card(a) for a in args)
            if len(set(cards)) != len(cards):
                raise InvalidMoveError(f"bad move {text!r:.60}: a card is named twice")
            return Discard(cards)
        if verb == "draw":
            if len(args) != 1:
                raise InvalidMoveError(
                    f"bad move {text!r:.60}: expected 'draw stock' or 'draw CARD'"
                )
            return DRAW_STOCK if args[0].lower() == "stock" else DRAWS[parse_card(args[0])]
        if verb == "slap":
            if len(args) != 1:
                raise InvalidMoveError(f"bad move {text!r:.60}: expected 'slap CARD'")
            return SLAPS[parse_card(args[0])]
    except CardError as exc:
        raise InvalidMoveError(f"bad move {text!r:.60}: {exc}") from None
    raise InvalidMoveError(f"unknown move {text!r:.60}: expected one of " + ", ".join(VERBS))
