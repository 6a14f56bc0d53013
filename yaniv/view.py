"""PlayerView: exactly what one seat (or a spectator) may know, with the round's events.

Bots and front ends decide from views, never from the full game, so no hidden card can leak
by accident. A view is a frozen snapshot that serialises to JSON and back; ``Game.view``
makes them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .cards import NAMES, VALUE, Card, deck, parse_card, parse_cards
from .discards import MoveList, move_list
from .errors import ViewError, YanivError, is_whole
from .events import Event, event_from_dict, event_to_dict
from .moves import YANIV, Move, parse_move
from .rules import RuleSet
from .state import Phase, RoundResult

VIEW_VERSION = 2
#: The seat of a spectator's view: no hand, no moves, every public fact.
SPECTATOR = -1


@dataclass(frozen=True, slots=True)
class PlayerView:
    """One seat's knowledge of a game at one moment (``seat`` is SPECTATOR for a spectator)."""

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
    legal_moves: MoveList[Move]  # empty unless this seat is to act; ``in`` takes any set order
    events: tuple[Event, ...]  # this round's events, as this seat may see them
    starter: int | None  # who started this round (None for a position built directly)
    result: RoundResult | None  # the last finished round, with every hand revealed
    winners: tuple[int, ...]
    score_history: tuple[tuple[int, ...], ...]  # every seat's score after each finished round

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
        return YANIV in self.legal_moves

    @property
    def is_spectator(self) -> bool:
        """Whether this is a spectator's view (no hand, no moves)."""
        return self.seat == SPECTATOR

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

    def to_dict(self, events: bool = True) -> dict[str, Any]:
        """A JSON-ready dict; cards and moves in notation (``events=False``: the events left
        out, an empty list, for a caller that encodes them itself: yaniv/server/journal.py)."""
        return {
            "version": VIEW_VERSION,
            "seat": None if self.seat == SPECTATOR else self.seat,
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
            "events": [event_to_dict(e) for e in self.events] if events else [],
            "starter": self.starter,
            "result": None if self.result is None else self.result.to_dict(),
            "winners": list(self.winners),
            "score_history": [list(scores) for scores in self.score_history],
        }

    def to_json(self) -> str:
        """The view as one line of JSON."""
        return json.dumps(self.to_dict(), separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Any) -> PlayerView:
        """The inverse of ``to_dict``; raises ViewError naming what is wrong."""
        if not isinstance(data, dict):
            raise ViewError(f"a view must be an object, not {type(data).__name__}")
        try:
            return cls._from_dict(data)
        except KeyError as exc:
            raise ViewError(f"the view lacks the key {exc.args[0]!r}") from None
        except (YanivError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise ViewError(f"the view is malformed: {exc}") from None

    @classmethod
    def _from_dict(cls, data: dict[str, Any]) -> PlayerView:
        names = tuple(data["names"])
        if not all(isinstance(name, str) for name in names):
            raise ViewError("every name must be text")
        n = len(names)
        out_seats = set(_ints(data["out"], "out"))
        rules = RuleSet.from_dict(data["rules"])
        phase = data["phase"]
        if not isinstance(phase, str) or phase.upper() not in Phase.__members__:
            raise ViewError(
                f"phase {phase!r:.30} is not one of " + ", ".join(p.label for p in Phase)
            )
        seat = SPECTATOR if data["seat"] is None else _int(data["seat"], "seat")
        return cls(
            seat=seat,
            rules=rules,
            names=names,
            round_no=_int(data["round"], "round"),
            phase=Phase[phase.upper()],
            to_move=None if data["to_move"] is None else _int(data["to_move"], "to_move"),
            hand=tuple(parse_cards(data["hand"])),
            hand_sizes=_ints(data["hand_sizes"], "hand_sizes", n),
            scores=_ints(data["scores"], "scores", n),
            out=tuple(s in out_seats for s in range(n)),
            pile=tuple(tuple(parse_cards(g)) for g in data["pile"]),
            pickable=tuple(parse_cards(data["pickable"])),
            stock_size=_int(data["stock_size"], "stock_size"),
            known=tuple(tuple(parse_cards(k)) for k in data["known"]),
            drawn=None if data["drawn"] is None else parse_card(data["drawn"]),
            legal_moves=move_list((parse_move(m) for m in data["legal_moves"]), rules),
            events=tuple(event_from_dict(e) for e in data["events"]),
            starter=None if data["starter"] is None else _int(data["starter"], "starter"),
            result=None if data["result"] is None else RoundResult.from_dict(data["result"]),
            winners=_ints(data["winners"], "winners"),
            score_history=tuple(_ints(s, "score_history", n) for s in data["score_history"]),
        )

    @classmethod
    def from_json(cls, text: str) -> PlayerView:
        """The inverse of ``to_json``."""
        return cls.from_dict(json.loads(text))


def _int(value: Any, key: str) -> int:
    if not is_whole(value):
        raise ViewError(f"{key} must be a whole number, not {value!r:.30}")
    return value


def _ints(values: Any, key: str, length: int | None = None) -> tuple[int, ...]:
    if not isinstance(values, list) or (length is not None and len(values) != length):
        size = "" if length is None else f"{length} "
        raise ViewError(f"{key} must be a list of {size}whole numbers")
    return tuple(_int(v, key) for v in values)
