"""Cards drawn with suit symbols and colours, and the small widgets of the table."""

from __future__ import annotations

from rich.text import Text
from textual.events import Click
from textual.message import Message
from textual.widgets import Static

from ..cards import RANK, SUIT, Card

SUIT_SYMBOLS = "♣♦♥♠"
RANK_FACES = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
#: Suit colours: the usual two (red and black) and a four-colour deck.
PALETTES: dict[str, tuple[str, str, str, str]] = {
    "two": ("black", "red", "red", "black"),
    "four": ("green4", "blue", "red", "black"),
}
BACK = "▮"


def face(card: Card) -> str:
    """The card as shown on the table: ``10♥``, ``Q♠``, ``★`` for a joker."""
    if card >= 52:
        return "★"
    return RANK_FACES[RANK[card]] + SUIT_SYMBOLS[SUIT[card]]


def card_text(card: Card, palette: str = "two", bold: bool = True) -> Text:
    """The card's face in its suit's colour (``palette`` ``two``, ``four`` or ``mono``)."""
    style = "bold" if bold else ""
    if palette != "mono":
        colours = PALETTES.get(palette, PALETTES["two"])
        colour = ("red" if card == 52 else "black") if card >= 52 else colours[SUIT[card]]
        style = f"{style} {colour}".strip()
    if card >= 52:
        return Text("★" + ("R" if card == 52 else "B"), style=style)
    return Text(face(card), style=style)


def cards_line(cards: tuple[Card, ...] | list[Card], palette: str = "two") -> Text:
    """Cards side by side, separated by spaces."""
    text = Text()
    for i, card in enumerate(cards):
        if i:
            text.append(" ")
        text.append_text(card_text(card, palette))
    return text


class CardWidget(Static):
    """One card (or the stock's back), clickable; ``zone`` says where it lies."""

    class Picked(Message):
        """The card was clicked."""

        def __init__(self, zone: str, index: int) -> None:
            super().__init__()
            self.zone = zone
            self.index = index

    def __init__(self, zone: str, index: int, **kwargs: object) -> None:
        super().__init__("", **kwargs)  # type: ignore[arg-type]
        self.zone = zone
        self.index = index
        self.card: Card | None = None

    def show(self, card: Card | None, palette: str, label: str = "") -> None:
        """Show ``card`` (None hides the widget) with ``label`` on its top border."""
        self.card = card
        self.display = card is not None
        if card is not None:
            self.update(card_text(card, palette))
            self.border_title = label

    def on_click(self, event: Click) -> None:
        """Tell the screen which card was clicked."""
        event.stop()
        self.post_message(self.Picked(self.zone, self.index))


class StockWidget(Static):
    """The stock: a card back; a click draws from it."""

    def on_click(self, event: Click) -> None:
        """Tell the screen the stock was clicked."""
        event.stop()
        self.post_message(CardWidget.Picked("stock", 0))
