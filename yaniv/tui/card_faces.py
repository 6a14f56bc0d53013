"""How a card is drawn on screen: one notation for the whole terminal game.

Every card the screens show, in the hand, on the pile, in the opponents' boxes, in the status
line and in the round's report, goes through ``card_face``: ``10♣``, ``Q♥``, ``★`` for a
joker. The move log and the coach may keep the engine's notation (``TC``, ``RJ``).

>>> card_face(9), card_face(50), card_face(52)
('10♣', 'Q♠', '★')
>>> ui_card_names("TC was just taken, RJ stays")
'10♣ was just taken, ★ stays'
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rich.text import Text

from ..cards import NAMES, RANK, SUIT, Card

SUIT_SYMBOLS = "♣♦♥♠"  # in the engine's suit order: C D H S
RANK_FACES = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
JOKER_FACE = "★"
#: A card's back (the stock, an opponent's hidden cards).
BACK = "▮"

#: Suit colours (clubs, diamonds, hearts, spades), then the red and the black joker. ``two``
#: is the usual red and black; ``four`` gives each suit its own colour. The ``card`` colours
#: are drawn on a card's light face; the ``text`` colours on the screen's background, where
#: ``None`` leaves the text in the foreground colour (black would vanish on a dark theme).
CARD_COLOURS: dict[str, tuple[str, str, str, str, str, str]] = {
    "two": ("#000000", "#c80000", "#c80000", "#000000", "#c80000", "#000000"),
    "four": ("#007800", "#0040d0", "#c80000", "#000000", "#c80000", "#000000"),
}
TEXT_COLOURS: dict[str, tuple[str | None, ...]] = {
    "two": (None, "#ff5f5f", "#ff5f5f", None, "#ff5f5f", None),
    "four": ("#3cc83c", "#6496ff", "#ff5f5f", None, "#ff5f5f", None),
}
#: The palettes a player may choose; ``mono`` draws no colours at all.
PALETTES = ("two", "four", "mono")

_ENGINE_NAME = re.compile(r"(?<![\w-])(?:10|[A2-9TJQK])[CDHS](?![\w-])|(?<![\w-])[RB]J(?![\w-])")
_BY_NAME = {name: card for card, name in enumerate(NAMES)}


def card_face(card: Card) -> str:
    """The card as shown everywhere on screen: ``10♥``, ``Q♠``, ``★`` for a joker."""
    if card >= 52:
        return JOKER_FACE
    return RANK_FACES[RANK[card]] + SUIT_SYMBOLS[SUIT[card]]


def card_colour(card: Card, palette: str = "two", on_card: bool = False) -> str | None:
    """The colour ``card`` is drawn in (None: the foreground colour)."""
    if palette not in CARD_COLOURS:
        return None
    index = SUIT[card] if card < 52 else 4 + (card - 52)
    return (CARD_COLOURS if on_card else TEXT_COLOURS)[palette][index]


def card_text(card: Card, palette: str = "two", on_card: bool = False, bold: bool = True) -> Text:
    """The card's face in its colour; ``on_card`` for a card's light face, else for text."""
    colour = card_colour(card, palette, on_card)
    style = " ".join(part for part in ("bold" if bold else "", colour or "") if part)
    return Text(card_face(card), style=style)


def cards_line(cards: Iterable[Card], palette: str = "two") -> Text:
    """Cards side by side, separated by spaces, for a line of text."""
    text = Text()
    for i, card in enumerate(cards):
        if i:
            text.append(" ")
        text.append_text(card_text(card, palette))
    return text


def cards_words(cards: Iterable[Card]) -> str:
    """Cards as plain words: ``7♥ 8♥ ★``."""
    return " ".join(card_face(c) for c in cards)


def ui_card_names(text: str) -> str:
    """``text`` with the engine's card names (``TC``, ``RJ``) in the screen's notation.

    For sentences that come from the engine or the controller (a refused move's reason) and
    are shown in the hand or status panels.
    """

    def face(match: re.Match[str]) -> str:
        name = match.group(0).replace("10", "T")
        card = _BY_NAME.get(name)
        return match.group(0) if card is None else card_face(card)

    return _ENGINE_NAME.sub(face, text)
