"""The small widgets of the screens: cards, the stock, an opponent's box, a tick box."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.content import Content
from textual.events import Click, Resize
from textual.message import Message
from textual.widgets import Checkbox, Static

from ..cards import Card
from .card_faces import card_text


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
        self.border_title = label if card is not None else ""
        if card is not None:
            self.update(card_text(card, palette, on_card=True))

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


class OpponentBox(Static):
    """One opponent: name, level, cards as backs, score, last action."""


class TickBox(Checkbox):
    """A check box that reads ``[x]`` when ticked and ``[ ]`` when not, in any colours."""

    def render(self) -> Content:
        """``[x] label`` or ``[ ] label``."""
        mark = Content.styled("[x]", "bold $success") if self.value else Content("[ ]")
        return Content.assemble(mark, " ", self.label)


class MoveLog(VerticalScroll):
    """The move log: its newest line stays in view as lines arrive and as the box is resized
    (the coach's box below it grows and shrinks)."""

    def follow(self) -> None:
        """Scroll to the newest line once the new lines are laid out."""
        self.call_after_refresh(self.scroll_end, animate=False, immediate=True)

    def on_resize(self, event: Resize) -> None:
        """A smaller or larger box: the newest line again."""
        self.follow()
