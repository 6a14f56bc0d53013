"""Typed events of a game, and what each seat (or a spectator) may see of them.

The engine appends one event for every happening: a deal, a discard, a draw, a slap, a
declined slap, a stock refill and the showdown. Each event knows its own secrets:
``seen_by(seat)`` gives the form a seat may see (``None`` for a spectator), or ``None`` when
that seat may not see the event at all. A seat sees its own dealt hand and the card it drew
from the stock; the others see only that the stock was drawn. A declined slap (R22) is seen by
the player alone, so nobody else learns that a slap window opened.

>>> Drew(1, "stock", 12).seen_by(0)
Drew(seat=1, source='stock', card=None)
>>> event_from_dict(event_to_dict(Discarded(0, (5, 6, 7))))
Discarded(seat=0, cards=(5, 6, 7))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import NAMES, Card, parse_card, parse_cards
from .errors import YanivError, is_whole
from .state import RoundResult


@dataclass(frozen=True, slots=True)
class Dealt:
    """A round was dealt (R4): each hand (``None`` where hidden), the card turned up."""

    round: int
    starter: int
    up: Card
    hands: tuple[tuple[Card, ...] | None, ...]  # empty for a seat that is out
    hand_sizes: tuple[int, ...]
    scores: tuple[int, ...]  # before the round

    def seen_by(self, seat: int | None) -> Dealt:
        """Only ``seat``'s own hand stays."""
        hands = tuple(h if s == seat else None for s, h in enumerate(self.hands))
        return Dealt(self.round, self.starter, self.up, hands, self.hand_sizes, self.scores)


@dataclass(frozen=True, slots=True)
class Discarded:
    """``seat`` discarded these cards, in laid order (R8, R9)."""

    seat: int
    cards: tuple[Card, ...]

    def seen_by(self, seat: int | None) -> Discarded:
        """Public."""
        return self


@dataclass(frozen=True, slots=True)
class Drew:
    """``seat`` drew from the ``stock`` or the ``pile``; ``card`` is None where hidden."""

    seat: int
    source: str  # "stock" or "pile"
    card: Card | None

    def seen_by(self, seat: int | None) -> Drew:
        """A stock card is seen by the drawer alone."""
        if self.source == "stock" and seat != self.seat:
            return Drew(self.seat, "stock", None)
        return self


@dataclass(frozen=True, slots=True)
class Slapped:
    """``seat`` slapped the card it just drew onto its discard (R22)."""

    seat: int
    card: Card

    def seen_by(self, seat: int | None) -> Slapped:
        """Public."""
        return self


@dataclass(frozen=True, slots=True)
class Passed:
    """``seat`` declined a slap (R22); only that seat knows a slap was possible."""

    seat: int

    def seen_by(self, seat: int | None) -> Passed | None:
        """Seen by the player alone."""
        return self if seat == self.seat else None


@dataclass(frozen=True, slots=True)
class Refilled:
    """The stock ran out and the pile but its top group became the new stock (R11)."""

    count: int

    def seen_by(self, seat: int | None) -> Refilled:
        """Public (the new order is not part of the event)."""
        return self


@dataclass(frozen=True, slots=True)
class Showdown:
    """A Yaniv call and its outcome, every hand shown (R14-R20)."""

    result: RoundResult

    def seen_by(self, seat: int | None) -> Showdown:
        """Public."""
        return self


Event = Dealt | Discarded | Drew | Slapped | Passed | Refilled | Showdown

_TYPES: dict[type[Any], str] = {
    Dealt: "deal",
    Discarded: "discard",
    Drew: "draw",
    Slapped: "slap",
    Passed: "pass",
    Refilled: "refill",
    Showdown: "showdown",
}


def _name(card: Card | None) -> str | None:
    return None if card is None else NAMES[card]


def event_to_dict(event: Event) -> dict[str, Any]:
    """A JSON-ready dict with a ``type`` key; cards in notation."""
    data: dict[str, Any] = {"type": _TYPES[type(event)]}
    if isinstance(event, Dealt):
        data.update(
            round=event.round,
            starter=event.starter,
            up=NAMES[event.up],
            hands=[None if h is None else [NAMES[c] for c in h] for h in event.hands],
            hand_sizes=list(event.hand_sizes),
            scores=list(event.scores),
        )
    elif isinstance(event, Discarded):
        data.update(seat=event.seat, cards=[NAMES[c] for c in event.cards])
    elif isinstance(event, Drew):
        data.update(seat=event.seat, source=event.source, card=_name(event.card))
    elif isinstance(event, Slapped):
        data.update(seat=event.seat, card=NAMES[event.card])
    elif isinstance(event, Passed):
        data.update(seat=event.seat)
    elif isinstance(event, Refilled):
        data.update(count=event.count)
    else:
        data.update(result=event.result.to_dict())
    return data


def event_from_dict(data: Any) -> Event:
    """The inverse of ``event_to_dict``; raises YanivError naming what is wrong."""
    if not isinstance(data, dict):
        raise YanivError(f"an event must be an object, not {type(data).__name__}")
    kind = data.get("type")
    try:
        if kind == "deal":
            return Dealt(
                _int(data["round"]),
                _int(data["starter"]),
                parse_card(data["up"]),
                tuple(None if h is None else tuple(parse_cards(h)) for h in data["hands"]),
                tuple(_int(v) for v in data["hand_sizes"]),
                tuple(_int(v) for v in data["scores"]),
            )
        if kind == "discard":
            return Discarded(_int(data["seat"]), tuple(parse_cards(data["cards"])))
        if kind == "draw":
            source = data["source"]
            if source not in ("stock", "pile"):
                raise YanivError(f"a draw's source is 'stock' or 'pile', not {source!r}")
            card = None if data["card"] is None else parse_card(data["card"])
            return Drew(_int(data["seat"]), source, card)
        if kind == "slap":
            return Slapped(_int(data["seat"]), parse_card(data["card"]))
        if kind == "pass":
            return Passed(_int(data["seat"]))
        if kind == "refill":
            return Refilled(_int(data["count"]))
        if kind == "showdown":
            return Showdown(RoundResult.from_dict(data["result"]))
    except KeyError as exc:
        raise YanivError(f"a {kind} event lacks {exc}") from None
    except (TypeError, ValueError, AttributeError) as exc:
        raise YanivError(f"a bad {kind} event: {exc}") from None
    raise YanivError(f"unknown event type {kind!r}")


def _int(value: Any) -> int:
    if not is_whole(value):
        raise YanivError(f"expected a whole number, got {value!r}")
    return value
