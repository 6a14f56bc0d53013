"""The values that describe a game's state: its phase, a round's deal, log and result.

They sit below the engine (game.py) and the views (view.py), which both use them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import Any

from .cards import NAMES, Card, parse_cards
from .moves import Move


class Phase(IntEnum):
    """Where a turn, round or game stands."""

    START = 0  # a turn begins: Yaniv, or the turn's first part
    DRAW = 1  # after a discard: must draw
    DISCARD = 2  # draw-first, after the draw: must discard
    SLAP = 3  # after a stock draw that matches: slap or pass
    ROUND_OVER = 4
    GAME_OVER = 5

    @property
    def label(self) -> str:
        """The phase's name in scenario files and views: ``start``, ``round_over``..."""
        return self.name.lower()


class ResultKind(Enum):
    """How a round ended."""

    YANIV = "yaniv"
    ASSAF = "assaf"
    DELIBERATE = "deliberate"  # R15: a call above the threshold


@dataclass(frozen=True, slots=True)
class RoundResult:
    """The showdown of a round and what it did to the scores."""

    kind: ResultKind
    caller: int
    hands: tuple[tuple[Card, ...], ...]  # every seat's hand at the showdown (empty when out)
    hand_values: tuple[int, ...]
    assafers: tuple[int, ...]  # the seats that scored 0 beside or instead of the caller
    points: tuple[int, ...]  # round points before the bonus
    bonuses: tuple[int, ...]  # points taken off by the bonus (R18)
    scores: tuple[int, ...]  # after the bonus
    newly_out: tuple[int, ...]
    winner: int
    next_starter: int | None  # None when the game is over
    game_winners: tuple[int, ...]  # empty unless the game is over

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict, cards in notation."""
        return {
            "kind": self.kind.value,
            "caller": self.caller,
            "hands": [[NAMES[c] for c in h] for h in self.hands],
            "hand_values": list(self.hand_values),
            "assafers": list(self.assafers),
            "points": list(self.points),
            "bonuses": list(self.bonuses),
            "scores": list(self.scores),
            "newly_out": list(self.newly_out),
            "winner": self.winner,
            "next_starter": self.next_starter,
            "game_winners": list(self.game_winners),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RoundResult:
        """The inverse of ``to_dict``."""
        return cls(
            kind=ResultKind(data["kind"]),
            caller=int(data["caller"]),
            hands=tuple(tuple(parse_cards(h)) for h in data["hands"]),
            hand_values=tuple(data["hand_values"]),
            assafers=tuple(data["assafers"]),
            points=tuple(data["points"]),
            bonuses=tuple(data["bonuses"]),
            scores=tuple(data["scores"]),
            newly_out=tuple(data["newly_out"]),
            winner=int(data["winner"]),
            next_starter=data["next_starter"],
            game_winners=tuple(data["game_winners"]),
        )


@dataclass(frozen=True, slots=True)
class Deal:
    """A round's deal: each seat's hand, the turned-up card, the stock (top first), the starter."""

    hands: tuple[tuple[Card, ...], ...]
    up: Card
    stock: tuple[Card, ...]
    starter: int


@dataclass(frozen=True, slots=True)
class RoundLog:
    """One finished round: its deal, every move with its seat, every stock refill, the result."""

    deal: Deal
    moves: tuple[tuple[int, Move], ...]
    refills: tuple[tuple[int, tuple[Card, ...]], ...]  # (moves made before it, new stock top first)
    result: RoundResult
