"""A game told in plain words: turns, round results and score equations.

The one place where events become sentences, for the terminal game, ``yaniv replay`` and the
web app alike. A ``Narrator`` reads the events one seat may see (``game.events_since``) and
keeps a line per turn, so the card a player drew from the stock is named to that player only.

>>> from yaniv.cards import parse_cards
>>> from yaniv.moves import Discard, Draw
>>> seven, eight, nine, four = parse_cards("7H 8H 9H 4C")
>>> describe_turn("Dana", [Discard((seven, eight, nine)), Draw(four)])
'Dana discards 7H 8H 9H and takes 4C from the pile'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from .cards import NAMES, Card
from .events import Dealt, Discarded, Drew, Event, Passed, Refilled, Showdown, Slapped
from .moves import DRAW_STOCK, DRAWS, PASS, SLAPS, YANIV, Discard, Draw, Move, Pass, Slap, Yaniv
from .rules import RuleSet
from .state import ResultKind, RoundResult

_SECOND = {
    "discard": "discard",
    "draw": "draw",
    "take": "take",
    "slap": "slap down",
    "call": "call",
}
_THIRD = {
    "discard": "discards",
    "draw": "draws",
    "take": "takes",
    "slap": "slaps down",
    "call": "calls",
}


def describe_turn(
    name: str,
    moves: Sequence[Move],
    you: bool = False,
    drawn: Card | None = None,
    card: Callable[[Card], str] = NAMES.__getitem__,
) -> str:
    """A turn's moves in plain words: ``Dana discards 7H 8H 9H and takes 4C from the pile``.

    ``drawn`` names the card drawn from the stock, for the one who drew it; ``card`` names a
    card (the notation by default; a screen may use its own faces).
    """
    verbs = _SECOND if you else _THIRD
    parts: list[str] = []
    for move in moves:
        if isinstance(move, Yaniv):
            parts.append(f"{verbs['call']} Yaniv!")
        elif isinstance(move, Discard):
            parts.append(f"{verbs['discard']} {' '.join(map(card, move.cards))}")
        elif isinstance(move, Draw):
            if move.card is not None:
                parts.append(f"{verbs['take']} {card(move.card)} from the pile")
            elif drawn is not None:
                parts.append(f"{verbs['draw']} {card(drawn)} from the stock")
            else:
                parts.append(f"{verbs['draw']} from the stock")
        elif isinstance(move, Slap):
            parts.append(f"then {verbs['slap']} {card(move.card)}")
        elif isinstance(move, Pass) and you:
            parts.append("then keep it")
    if not parts:
        return f"{name} ..."
    text = parts[0]
    for part in parts[1:]:
        text += (", " if part.startswith("then") else " and ") + part
    return f"{name} {text}"


def result_headline(result: RoundResult, names: Sequence[str], you: int | None = None) -> str:
    """``Yaniv! Dana wins the round with 5`` or ``Assaf! Avi caught Dana's Yaniv``.

    ``you`` is the seat addressed as "you", if any.
    """
    is_you = result.caller == you
    caller = "You" if is_you else names[result.caller]
    whose = "your" if is_you else f"{names[result.caller]}'s"
    if result.kind == ResultKind.YANIV:
        text = (
            f"Yaniv! {caller} win{'' if is_you else 's'} the round with "
            f"{result.hand_values[result.caller]}"
        )
    elif result.kind == ResultKind.ASSAF:
        by = " and ".join("you" if s == you else names[s] for s in result.assafers)
        text = f"Assaf! {by[0].upper() + by[1:]} caught {whose} Yaniv"
    else:
        text = f"{caller} called Yaniv above the threshold: a deliberate Assaf"
    if result.game_winners:
        text += (
            ". Game over: "
            + " and ".join("you" if s == you else names[s] for s in result.game_winners)
            + " won"
        )
    return text


def points_equation(result: RoundResult, seat: int, names: Sequence[str], rules: RuleSet) -> str:
    """How ``seat``'s round points come about: ``5 + 30 = 35, Assaf by Dana``."""
    value, points = result.hand_values[seat], result.points[seat]
    if seat == result.caller:
        if result.kind == ResultKind.YANIV:
            return "0, Yaniv!"
        by = ", ".join(names[s] for s in result.assafers) or "nobody"
        note = "Assaf by " + by if result.kind == ResultKind.ASSAF else "deliberate Yaniv"
        if points == value + rules.assaf_penalty:
            return f"{value} + {rules.assaf_penalty} = {points}, {note}"
        return f"{points}, {note}"
    if seat in result.assafers:
        return "0, Assaf!" if result.kind == ResultKind.ASSAF else "0, lowest hand"
    return str(points)


def score_equation(result: RoundResult, seat: int, rules: RuleSet) -> str:
    """The score's change: ``40 + 35 = 75``, a bonus named, an elimination named."""
    new, points, bonus = result.scores[seat], result.points[seat], result.bonuses[seat]
    old = new + bonus - points
    text = f"{old} + {points} = {old + points}"
    if bonus:
        how = "halved" if rules.bonus == "halve" else f"- {bonus} bonus"
        text += f", {how}: {new}"
    if seat in result.newly_out:
        text += ", OUT"
    return text


@dataclass
class Line:
    """One line of a game's story: a turn (open while ``seat`` still acts) or a note
    (``seat`` -1: a deal, a refill, a round's result)."""

    seat: int
    moves: list[Move] = field(default_factory=list)
    text: str = ""
    done: bool = False
    drawn: Card | None = None  # the stock card, when the reader drew it


class Narrator:
    """Tells the events one seat sees (``you``; None for a spectator) as a line per turn.

    A turn's line is done (and ends with a full stop) once its last part is in: the draw of a
    discard-first turn, the discard of a draw-first one (``draw_first``). A slap, or the
    reader's own declined slap, joins the line of the turn it belongs to.
    """

    def __init__(
        self,
        names: Sequence[str],
        you: int | None = None,
        draw_first: bool = False,
        card: Callable[[Card], str] = NAMES.__getitem__,
    ) -> None:
        self.names = tuple(names)
        self.you = you
        self.draw_first = draw_first
        self.card = card
        self.lines: list[Line] = []
        self._last: Event | None = None  # the event read last

    def read(self, events: Iterable[Event]) -> None:
        """Add these events (in order, each once) to the story."""
        for event in events:
            self._read(event)

    def texts(self) -> list[str]:
        """The story's lines, oldest first."""
        return [line.text for line in self.lines]

    def _read(self, event: Event) -> None:
        self._read_one(event)
        self._last = event

    def _read_one(self, event: Event) -> None:
        if isinstance(event, Dealt):
            starts = "start" if event.starter == self.you else "starts"
            self._note(
                f"Round {event.round}: {self._name(event.starter)} {starts}, "
                f"{self.card(event.up)} turned up"
            )
        elif isinstance(event, Refilled):
            self._note(
                f"The stock is empty: {event.count} cards of the pile are shuffled into a new stock"
            )
        elif isinstance(event, Showdown):
            caller = event.result.caller
            last = self._last
            if isinstance(last, Slapped) and last.seat == caller:  # slap_empty_hand (R22)
                has = "have" if caller == self.you else "has"
                self._note(f"{self._name(caller)} {has} no card left: a Yaniv with 0")
            else:
                self._add(caller, YANIV, None, ends=True)
            self._note(result_headline(event.result, self.names, self.you))
        elif isinstance(event, Slapped | Passed):
            line = next((x for x in reversed(self.lines) if x.seat == event.seat), None)
            if line is not None:
                line.moves.append(SLAPS[event.card] if isinstance(event, Slapped) else PASS)
                self._tell(line)
        elif isinstance(event, Discarded):
            self._add(event.seat, Discard(event.cards), None, ends=self.draw_first)
        elif isinstance(event, Drew):
            move = DRAW_STOCK if event.source == "stock" else DRAWS[event.card or 0]
            drawn = event.card if event.source == "stock" else None
            self._add(event.seat, move, drawn, ends=not self.draw_first)

    def _add(self, seat: int, move: Move, drawn: Card | None, ends: bool) -> None:
        line = self.lines[-1] if self.lines else None
        if line is None or line.done or line.seat != seat:
            line = Line(seat)
            self.lines.append(line)
        line.moves.append(move)
        if drawn is not None:
            line.drawn = drawn
        line.done = ends
        self._tell(line)

    def _tell(self, line: Line) -> None:
        text = describe_turn(
            self._name(line.seat), line.moves, line.seat == self.you, line.drawn, self.card
        )
        line.text = text + ("." if line.done and not text.endswith("!") else "")

    def _note(self, text: str) -> None:
        self.lines.append(Line(-1, text=text + ".", done=True))

    def _name(self, seat: int) -> str:
        return "You" if seat == self.you else self.names[seat]
