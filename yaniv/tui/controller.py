"""The one place where the terminal game talks to the engine.

Widgets render ``PlayerView`` snapshots and send moves up; the controller owns the ``Game``,
the bots, the move log in plain words and the game's record on disk. It knows nothing of
Textual, so it is tested without a screen.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .. import discards as D
from .. import record
from ..bots import get_bot
from ..bots.base import Bot, bot_names
from ..cards import NAMES, RANK, SUIT, Card, cards_text, mask_of
from ..errors import YanivError
from ..events import Drew
from ..game import Game, Phase, ResultKind, RoundResult
from ..moves import Discard, Draw, Move, Pass, Slap, Yaniv
from ..rules import RuleSet
from ..view import PlayerView

#: The computer opponents' names, seat 1 onwards.
OPPONENT_NAMES = ("Dana", "Avi", "Noa", "Yossi", "Maya", "Eli", "Tamar")
#: The levels offered, weakest first (those not installed are left out by ``levels()``).
LEVELS = ("random", "easy", "medium", "expert")
DEFAULT_LEVEL = "medium"
HUMAN = 0


def levels() -> list[str]:
    """The bot levels that can be played against now."""
    names = bot_names()
    return [lv for lv in LEVELS if lv in names] + [n for n in names if n not in LEVELS]


def default_level() -> str:
    """``medium`` where it exists, else the strongest level installed."""
    have = levels()
    if DEFAULT_LEVEL in have:
        return DEFAULT_LEVEL
    return next((lv for lv in reversed(LEVELS) if lv in have), have[0])


@dataclass(frozen=True)
class Options:
    """Everything chosen before a game: the setup screen's fields and the command's flags."""

    rules: RuleSet = field(default_factory=RuleSet)
    preset: str = "standard"
    levels: tuple[str, ...] = (DEFAULT_LEVEL,) * 3
    name: str = "You"
    seed: int | None = None
    delay: float = 0.6
    four_color: bool = False
    no_color: bool = False
    data_dir: Path | None = None

    @property
    def opponents(self) -> int:
        """How many computer opponents."""
        return len(self.levels)

    def check(self) -> None:
        """Raise YanivError when these options cannot make a game."""
        if not 1 <= self.opponents <= 7:
            raise YanivError(f"opponents must be 1 to 7, not {self.opponents}")
        have = levels()
        for lv in self.levels:
            if lv not in have:
                raise YanivError(f"unknown level {lv!r}; levels: {', '.join(have)}")
        if not self.name.strip():
            raise YanivError("your name may not be empty")
        if self.delay < 0:
            raise YanivError(f"the delay must be 0 or more seconds, not {self.delay}")
        Game.new(self.rules, players=self.opponents + 1, seed=0)  # SetupError if unplayable


_SECOND = {"discard": "discard", "draw": "draw", "take": "take", "slap": "slap down",
           "call": "call"}
_THIRD = {"discard": "discards", "draw": "draws", "take": "takes", "slap": "slaps down",
          "call": "calls"}


def describe_turn(name: str, moves: Sequence[Move], you: bool = False,
                  drawn: Card | None = None) -> str:
    """A turn's moves in plain words: ``Dana discards 7H 8H 9H and takes 4C from the pile``."""
    verbs = _SECOND if you else _THIRD
    parts: list[str] = []
    for move in moves:
        if isinstance(move, Yaniv):
            parts.append(f"{verbs['call']} Yaniv!")
        elif isinstance(move, Discard):
            parts.append(f"{verbs['discard']} {cards_text(move.cards)}")
        elif isinstance(move, Draw):
            if move.card is not None:
                parts.append(f"{verbs['take']} {NAMES[move.card]} from the pile")
            elif drawn is not None:
                parts.append(f"{verbs['draw']} {NAMES[drawn]} from the stock")
            else:
                parts.append(f"{verbs['draw']} from the stock")
        elif isinstance(move, Slap):
            parts.append(f"then {verbs['slap']} {NAMES[move.card]}")
        elif isinstance(move, Pass) and you:
            parts.append("then keep it")
    if not parts:
        return f"{name} ..."
    text = parts[0]
    for part in parts[1:]:
        text += (", " if part.startswith("then") else " and ") + part
    return f"{name} {text}"


def selection_move(selected: Sequence[Card], view: PlayerView) -> tuple[Discard | None, str]:
    """The legal discard made of exactly the selected cards, or None and the reason why not.

    The player selects cards in any order; the discard's laid order is found among the legal
    discards (a run ascending, jokers in their gaps). For a set, whose ends matter to the next
    player, the first and last cards selected go to the ends where the rules allow.
    """
    options = [m for m in view.legal_moves if isinstance(m, Discard)]
    if not selected:
        return None, "select cards to discard"
    if not options:
        if view.rules.draw_first and view.phase == Phase.START:
            return None, "draw first: the stock (s) or a marked pile card"
        return None, "no discard is due now"
    mask = mask_of(selected)
    matches = [d for d in options if d.mask == mask]
    if matches:
        wanted = D.canonical(tuple(selected), D.SET, view.rules)
        return next((d for d in matches if d.cards == wanted), matches[0]), ""
    return None, _why_not(selected, view)


def _why_not(selected: Sequence[Card], view: PlayerView) -> str:
    rules = view.rules
    cards = list(selected)
    if view.phase == Phase.DISCARD:
        if len(cards) == len(view.hand):
            return "one card at least must stay in your hand (R21)"
        if len(cards) == 1 and cards[0] == view.drawn:
            return f"{NAMES[cards[0]]} was just taken: it may not go back alone"
    naturals = [c for c in cards if c < 52]
    jokers = len(cards) - len(naturals)
    if not naturals:
        return "jokers alone are not a discard"
    if len({RANK[c] for c in naturals}) == 1:
        if jokers and not rules.jokers_in_sets:
            return "jokers may not join a set under these rules (jokers_in_sets=false)"
        return "not a legal set"
    if len({SUIT[c] for c in naturals}) > 1:
        return "not a set (ranks differ) nor a run (suits differ)"
    if len(cards) < 3:
        return "a run needs three cards or more"
    if jokers and rules.joker_in_run == "never":
        return "jokers may not join a run under these rules (joker_in_run=never)"
    ranks = sorted(RANK[c] for c in naturals)
    gaps = ranks[-1] - ranks[0] + 1 - len(ranks)
    if len(set(ranks)) < len(ranks):
        return "a run may not hold the same rank twice"
    if gaps > jokers:
        return f"not a run: {gaps} missing card{'s' * (gaps > 1)} and {jokers} joker(s) to fill"
    if rules.joker_in_run == "gaps_only":
        return "jokers may stand only inside a run under these rules (joker_in_run=gaps_only)"
    return "not a run that fits between A and K"


@dataclass
class LogLine:
    """One line of the move log: a turn (still open while ``seat`` is to move) or a note."""

    seat: int  # -1 for a note
    moves: list[Move] = field(default_factory=list)
    text: str = ""
    done: bool = False


class Controller:
    """Owns the game, the bots and the record; the app asks it for views and sends it moves."""

    def __init__(self, options: Options) -> None:
        options.check()
        self.options = options
        n = options.opponents + 1
        names = [options.name.strip(), *OPPONENT_NAMES[: options.opponents]]
        self.game = Game.new(options.rules, players=n, seed=options.seed, names=names)
        self.levels: dict[int, str] = {s + 1: lv for s, lv in enumerate(options.levels)}
        self.bots: dict[int, Bot] = {
            seat: get_bot(lv, None if options.seed is None else options.seed * 100 + seat)
            for seat, lv in self.levels.items()
        }
        self.log: list[LogLine] = [LogLine(-1, text="Round 1", done=True)]
        self.last_action: dict[int, str] = {}
        self._drawn: Card | None = None
        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        self.record_path: Path | None = (
            None if options.data_dir is None
            else Path(options.data_dir) / "games" / f"{stamp}-seed{options.seed}.json"
        )

    # ------------------------------------------------------------- state, read only

    @property
    def names(self) -> tuple[str, ...]:
        """The seats' names; seat 0 is the person."""
        return self.game.names

    def view(self, seat: int = HUMAN) -> PlayerView:
        """What ``seat`` may know now."""
        return self.game.view(seat)

    @property
    def bot_to_act(self) -> int | None:
        """The computer seat that must move now, if any."""
        seat = self.game.to_move
        return seat if seat is not None and seat != HUMAN else None

    @property
    def human_to_act(self) -> bool:
        """Whether the person must move now."""
        return self.game.to_move == HUMAN

    def choose(self, seat: int, view: PlayerView) -> Move:
        """The bot's move (slow: call it from a worker thread, with a view taken before)."""
        return self.bots[seat].choose(view)

    # ------------------------------------------------------------- moves

    def play(self, seat: int, move: Move) -> str | None:
        """Play ``move`` for ``seat``; returns the reason it is refused, or None."""
        if self.game.to_move != seat:
            return "it is not that seat's turn"
        reason = self.game.why_illegal(move)
        if reason is not None:
            return reason
        self.game.play(move, seat)
        drawn = None
        if seat == HUMAN and isinstance(move, Draw) and move.card is None:
            # The person's own events name the card drawn from the stock.
            drawn = next((e.card for e in reversed(self.game.round_events(seat))
                          if isinstance(e, Drew)), None)
        self._note(seat, move, drawn)
        if self.game.phase in (Phase.ROUND_OVER, Phase.GAME_OVER):
            self._round_over()
        return None

    def _note(self, seat: int, move: Move, drawn: Card | None) -> None:
        last = self.log[-1]
        if last.seat != seat or last.done:
            last = LogLine(seat)
            self.log.append(last)
            self._drawn = None
        if drawn is not None:
            self._drawn = drawn
        last.moves.append(move)
        you = seat == HUMAN
        last.text = describe_turn("You" if you else self.names[seat], last.moves, you,
                                  self._drawn if you else None)
        self.last_action[seat] = describe_turn("", last.moves).strip()
        if self.game.to_move != seat:
            last.done = True
            if not last.text.endswith("!"):
                last.text += "."

    def _round_over(self) -> None:
        result = self.game.result
        assert result is not None
        self.log.append(LogLine(-1, text=result_headline(result, self.names) + ".", done=True))
        self.save()

    def next_round(self) -> None:
        """Deal the next round after a round is over."""
        self.game.next_round()
        self.last_action.clear()
        self.log.append(LogLine(-1, text=f"Round {self.game.round_no}", done=True))

    def save(self) -> Path | None:
        """Write the game's record (an unfinished round included); returns its path."""
        if self.record_path is None:
            return None
        try:
            return record.save(self.game, self.record_path)
        except OSError:
            return None

    # ------------------------------------------------------------- words

    def log_lines(self) -> list[str]:
        """The move log, oldest first."""
        return [line.text for line in self.log]



def result_headline(result: RoundResult, names: Sequence[str], human: int | None = HUMAN) -> str:
    """``Yaniv! Dana wins the round with 5`` or ``Assaf! Avi caught Dana's Yaniv``."""
    you = result.caller == human
    caller = "You" if you else names[result.caller]
    whose = "your" if you else f"{names[result.caller]}'s"
    if result.kind == ResultKind.YANIV:
        text = (f"Yaniv! {caller} win{'' if you else 's'} the round with "
                f"{result.hand_values[result.caller]}")
    elif result.kind == ResultKind.ASSAF:
        by = " and ".join("you" if s == human else names[s] for s in result.assafers)
        text = f"Assaf! {by[0].upper() + by[1:]} caught {whose} Yaniv"
    else:
        text = f"{caller} called Yaniv above the threshold: a deliberate Assaf"
    if result.game_winners:
        text += ". Game over: " + " and ".join(
            "you" if s == human else names[s] for s in result.game_winners) + " won"
    return text


def points_equation(result: RoundResult, seat: int, names: Sequence[str],
                    rules: RuleSet) -> str:
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

