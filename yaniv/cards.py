"""Cards as small ints, their notation (R3), values (R2) and hand bitmasks.

A card is an int: ``suit * 13 + rank - 1`` for the 52 natural cards (suits C D H S, ranks
A=1 .. K=13), then 52 for the red joker and 53 for the black joker. A hand may be a bitmask
with bit ``card`` set for each card it holds.

>>> card_name(parse_card("10h"))
'TH'
>>> [card_name(c) for c in parse_cards("AS Q♥ rj")]
['AS', 'QH', 'RJ']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from . import compiled as _compiled
from .errors import CardError, quoted

Card = int

SUITS = "CDHS"
RANKS = "A23456789TJQK"
RED_JOKER: Card = 52
BLACK_JOKER: Card = 53
JOKERS: tuple[Card, ...] = (RED_JOKER, BLACK_JOKER)
NUM_CARDS = 54

_SUIT_SYMBOLS = {"♣": "C", "♧": "C", "♦": "D", "♢": "D", "♥": "H", "♡": "H", "♠": "S", "♤": "S"}


def make_card(rank: int, suit: int) -> Card:
    """The natural card of ``rank`` (1..13) and ``suit`` (0..3, in the order C D H S)."""
    return suit * 13 + rank - 1


#: Rank of each card, 1..13; 0 for a joker.
RANK: tuple[int, ...] = tuple([c % 13 + 1 for c in range(52)] + [0, 0])
#: Suit of each card, 0..3; -1 for a joker.
SUIT: tuple[int, ...] = tuple([c // 13 for c in range(52)] + [-1, -1])
#: Point value of each card (R2): joker 0, ace 1, 2..10 face value, J Q K 10.
VALUE: tuple[int, ...] = tuple([min(c % 13 + 1, 10) for c in range(52)] + [0, 0])
#: Canonical name of each card (R3).
NAMES: tuple[str, ...] = tuple([RANKS[c % 13] + SUITS[c // 13] for c in range(52)] + ["RJ", "BJ"])
_BY_NAME: dict[str, Card] = {name: c for c, name in enumerate(NAMES)}


def is_joker(card: Card) -> bool:
    """Whether ``card`` is a joker."""
    return card >= 52


def card_name(card: Card) -> str:
    """The canonical notation of ``card``: ``7H``, ``TS``, ``RJ``."""
    try:
        if 0 <= card < NUM_CARDS:
            return NAMES[card]
    except TypeError:  # not a number at all
        pass
    raise CardError(f"not a card: {quoted(card)}")


#: Longest text that can name a card once trimmed (``10♥``); longer text is refused at once.
_LONGEST = 3


def parse_card(text: str) -> Card:
    """Parse one card: ``7H``, ``10h``, ``T♥``, ``rj``; raises CardError naming the text.

    >>> parse_card("QS") == make_card(12, 3)
    True
    >>> parse_card(5)
    Traceback (most recent call last):
    ...
    yaniv.errors.CardError: not a card: 5 (expected text such as 7H)
    """
    if not isinstance(text, str):
        raise CardError(f"not a card: {quoted(text)} (expected text such as 7H)")
    raw = text.strip()
    card = _BY_NAME.get(raw)  # the canonical spelling, the common case
    if card is not None:
        return card
    if len(raw) <= _LONGEST:
        s = raw.upper()
        if s[-1:] in _SUIT_SYMBOLS:
            s = s[:-1] + _SUIT_SYMBOLS[s[-1]]
        if s.startswith("10"):
            s = "T" + s[2:]
        card = _BY_NAME.get(s)
        if card is not None:
            return card
    raise CardError(
        f"unknown card {quoted(raw)}: expected a rank of {RANKS} (or 10) then a suit of {SUITS} "
        "(or a suit symbol), or RJ / BJ for a joker"
    )


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse cards separated by spaces or commas, or an iterable of card texts."""
    if isinstance(text, str):
        return [parse_card(p) for p in text.replace(",", " ").split()]
    if isinstance(text, bytes | bytearray | dict) or not isinstance(text, Iterable):
        raise CardError(
            f"not cards: {quoted(text)} (expected text such as '7H 8H' or a list of card texts)"
        )
    return [parse_card(p) for p in text]


def cards_text(cards: Iterable[Card]) -> str:
    """Cards in canonical notation, separated by spaces."""
    return " ".join(NAMES[c] for c in cards)


def deck(jokers: int = 2) -> list[Card]:
    """The full deck of the rules (R1): 52 naturals and ``jokers`` jokers (0..2)."""
    return list(range(52)) + list(JOKERS[:jokers])


def mask_of(cards: Iterable[Card]) -> int:
    """The bitmask of ``cards``."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of_pure(mask: int) -> list[Card]:
    """The cards of a bitmask, in ascending card order (in pure Python: the reference)."""
    out: list[Card] = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


#: The cards of a bitmask, in ascending card order: the compiled core's where it runs (the
#: same lists; it asks ``cards_of_pure`` for what is not a mask of 64 bits).
cards_of: Callable[[int], list[Card]] = cards_of_pure
if _compiled.AVAILABLE is not None:
    _compiled.AVAILABLE.set_cards_of_fallback(cards_of_pure)
if _compiled.core is not None:
    cards_of = _compiled.core.cards_of


def hand_value(cards: Iterable[Card]) -> int:
    """The sum of the cards' values (R2)."""
    return sum(VALUE[c] for c in cards)


def sort_key(card: Card) -> tuple[int, int]:
    """Order for showing a hand: by rank (jokers first), then suit."""
    return (RANK[card], SUIT[card])
