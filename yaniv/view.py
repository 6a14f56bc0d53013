"""PlayerView: exactly what one seat may know, and the round's public event log.

Bots and front ends decide from views, never from the full game, so no hidden card can leak
by accident. A view is a frozen snapshot that serialises to JSON and back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .cards import NAMES, VALUE, Card, cards_of, deck, parse_card, parse_cards
from .game import Phase, RoundResult
from .moves import Move, parse_move
from .rules import RuleSet

if TYPE_CHECKING:
    from .game import Game

VIEW_VERSION = 1


@dataclass(frozen=True, slots=True)
class PlayerView:
    """One seat's knowledge of a game at one moment."""

    seat: int
    rules: RuleSet
    names: tuple[str, ...]
    round_no: int
    phase: Phase
    to_move: int | None
    hand: tuple[Card, ...]  # this seat's cards
    hand_sizes: tuple[int, ...]
    scores: tuple[int, ...]
    out: tuple[bool, ...]
    pile: tuple[tuple[Card, ...], ...]  # discard groups, oldest first, each in laid order
    pickable: tuple[Card, ...]  # cards of the previous discard that may be drawn this turn
    stock_size: int
    known: tuple[tuple[Card, ...], ...]  # per seat: cards seen taken from the pile, still held
    drawn: Card | None  # this seat's card just drawn (slap window) or taken (draw-first)
    legal_moves: tuple[Move, ...]  # empty unless this seat is to act
    events: tuple[tuple[int, str], ...]  # this round: (seat, move); a refill is (-1, "refill N")
    starter: int | None  # who started this round (None for a position built directly)
    result: RoundResult | None  # the last finished round, with every hand revealed
    winners: tuple[int, ...]

    # ------------------------------------------------------------- derived facts

    @property
    def n(self) -> int:
        """The number of seats."""
        return len(self.names)

    @property
    def hand_value(self) -> int:
        """The value of this seat's hand."""
        return sum(VALUE[c] for c in self.hand)

    @property
    def my_turn(self) -> bool:
        """Whether this seat is to act."""
        return self.to_move == self.seat

    @property
    def can_yaniv(self) -> bool:
        """Whether this seat may call Yaniv now."""
        return any(str(m) == "yaniv" for m in self.legal_moves)

    def active_seats(self) -> list[int]:
        """The seats still in the game."""
        return [s for s in range(self.n) if not self.out[s]]

    def unseen(self) -> list[Card]:
        """Cards this seat cannot place: not in its hand, not on the pile, not known in a hand.

        These are the stock and the unknown cards of the other hands.
        """
        placed = set(self.hand)
        for group in self.pile:
            placed.update(group)
        for cards in self.known:
            placed.update(cards)
        return [c for c in deck(self.rules.jokers) if c not in placed]

    def next_seat(self, seat: int) -> int:
        """The next seat clockwise that is still in the game."""
        nxt = (seat + 1) % self.n
        while self.out[nxt]:
            nxt = (nxt + 1) % self.n
        return nxt

    # ------------------------------------------------------------- JSON

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; cards and moves in notation."""
        return {
            "version": VIEW_VERSION,
            "seat": self.seat,
            "rules": self.rules.to_dict(),
            "names": list(self.names),
            "round": self.round_no,
            "phase": self.phase.label,
            "to_move": self.to_move,
            "hand": [NAMES[c] for c in self.hand],
            "hand_sizes": list(self.hand_sizes),
            "scores": list(self.scores),
            "out": [s for s in range(self.n) if self.out[s]],
            "pile": [[NAMES[c] for c in g] for g in self.pile],
            "pickable": [NAMES[c] for c in self.pickable],
            "stock_size": self.stock_size,
            "known": [[NAMES[c] for c in k] for k in self.known],
            "drawn": None if self.drawn is None else NAMES[self.drawn],
            "legal_moves": [str(m) for m in self.legal_moves],
            "events": [[s, text] for s, text in self.events],
            "starter": self.starter,
            "result": None if self.result is None else self.result.to_dict(),
            "winners": list(self.winners),
        }

    def to_json(self) -> str:
        """The view as one line of JSON."""
        return json.dumps(self.to_dict(), separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PlayerView:
        """The inverse of ``to_dict``."""
        names = tuple(data["names"])
        out_seats = set(data["out"])
        return cls(
            seat=int(data["seat"]),
            rules=RuleSet().replace(**data["rules"]),
            names=names,
            round_no=int(data["round"]),
            phase=Phase[data["phase"].upper()],
            to_move=data["to_move"],
            hand=tuple(parse_cards(data["hand"])),
            hand_sizes=tuple(data["hand_sizes"]),
            scores=tuple(data["scores"]),
            out=tuple(s in out_seats for s in range(len(names))),
            pile=tuple(tuple(parse_cards(g)) for g in data["pile"]),
            pickable=tuple(parse_cards(data["pickable"])),
            stock_size=int(data["stock_size"]),
            known=tuple(tuple(parse_cards(k)) for k in data["known"]),
            drawn=None if data["drawn"] is None else parse_card(data["drawn"]),
            legal_moves=tuple(parse_move(m) for m in data["legal_moves"]),
            events=tuple((int(s), str(t)) for s, t in data["events"]),
            starter=data["starter"],
            result=None if data["result"] is None else RoundResult.from_dict(data["result"]),
            winners=tuple(data["winners"]),
        )

    @classmethod
    def from_json(cls, text: str) -> PlayerView:
        """The inverse of ``to_json``."""
        return cls.from_dict(json.loads(text))


def make_view(game: Game, seat: int) -> PlayerView:
    """The view of ``seat`` (use ``game.view(seat)``)."""
    if not isinstance(seat, int) or not 0 <= seat < game.n:
        raise ValueError(f"no seat {seat!r} in a game of {game.n} players")
    own_turn = game.to_move == seat
    drawn = game.drawn if own_turn and game.drawn >= 0 else None
    return PlayerView(
        seat=seat,
        rules=game.rules,
        names=game.names,
        round_no=game.round_no,
        phase=game.phase,
        to_move=game.to_move,
        hand=tuple(cards_of(game.hands[seat])),
        hand_sizes=tuple(game.counts),
        scores=tuple(game.scores),
        out=tuple(game.out),
        pile=tuple(game.pile),
        pickable=game.pickable,
        stock_size=len(game.stock),
        known=tuple(tuple(cards_of(k)) for k in game.known),
        drawn=drawn,
        legal_moves=tuple(game.legal_moves()) if own_turn else (),
        events=game.public_events(),
        starter=None if game.deal is None else game.deal.starter,
        result=game.result,
        winners=game.winners,
    )
