"""The terminal game's options and its side of the table (yaniv/session.py).

Widgets render ``PlayerView`` snapshots and send moves up through the controller, a thin layer
over the session's ``Table``, which owns the game, the bots, the story in plain words and the
record on disk. It knows nothing of Textual, so it is tested without a screen.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .. import discards as D
from .. import record
from ..bots.base import bot_names
from ..cards import NAMES, RANK, SUIT, Card, mask_of
from ..errors import YanivError
from ..game import Game, Phase
from ..moves import Discard, Move
from ..narration import Line, describe_turn
from ..rules import RuleSet
from ..session import Seat, Table
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


def selection_move(selected: Sequence[Card], view: PlayerView) -> tuple[Discard | None, str]:
    """The legal discard made of exactly the selected cards, or None and the reason why not.

    The player selects cards in any order; the discard's laid order is found among the legal
    discards (a run ascending, jokers in their gaps). For a set, whose ends matter to the next
    player, the first and last cards selected go to the ends where the rules allow. A run whose
    cards lie in more than one order (a joker at either end) is laid in the order selected, if
    that is one of them, and otherwise refused with the orders it could be (R9).
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
    if len(matches) > 1 and all(D.classify(d.cards, view.rules) == D.RUN for d in matches):
        laid = next((d for d in matches if d.cards == tuple(selected)), None)
        if laid is None:
            orders = D.orders_text(D.laid_orders(selected, view.rules))
            return None, f"these cards {orders}; select them in the order to lay"
        return laid, ""
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
        if len(cards) == 2 and not rules.joker_pair:
            return "two jokers alone are not a set under these rules (joker_pair=false)"
        return "jokers alone are not a discard"
    # One natural card and jokers: meant as a run where jokers may not join sets.
    as_run = len(naturals) == 1 and len(cards) >= 3 and not rules.jokers_in_sets
    if len({RANK[c] for c in naturals}) == 1 and not as_run:
        if jokers and not rules.jokers_in_sets:
            return "jokers may not join a set under these rules (jokers_in_sets=false)"
        if rules.max_set and len(cards) > rules.max_set:
            return f"a set holds {rules.max_set} cards at most under these rules (max_set)"
        return "not a legal set"
    if len({SUIT[c] for c in naturals}) > 1:
        return "not a set (ranks differ) nor a run (suits differ)"
    if len(cards) < 3:
        return "a run needs three cards or more"
    if jokers and rules.joker_in_run == "never":
        return "jokers may not join a run under these rules (joker_in_run=never)"
    if len(naturals) < rules.run_naturals:
        return f"a run needs {rules.run_naturals} natural cards under these rules (run_naturals)"
    ranks = sorted(RANK[c] for c in naturals)
    gaps = ranks[-1] - ranks[0] + 1 - len(ranks)
    if len(set(ranks)) < len(ranks):
        return "a run may not hold the same rank twice"
    if gaps > jokers:
        return f"not a run: {gaps} missing card{'s' * (gaps > 1)} and {jokers} joker(s) to fill"
    if rules.joker_in_run == "gaps_only":
        return "jokers may stand only inside a run under these rules (joker_in_run=gaps_only)"
    return "not a run that fits between A and K"


class Controller:
    """The terminal game's side of a table: the person in seat 0, computer opponents after.

    The table (yaniv/session.py) owns the game, the bots, the story and the record; this class
    adds what the terminal game chose before the game (its ``Options``)."""

    def __init__(self, options: Options, table: Table | None = None) -> None:
        options.check()
        self.options = options
        if table is None:
            names = [options.name.strip(), *OPPONENT_NAMES[: options.opponents]]
            seed = options.seed
            seats = [Seat(names[0])] + [
                Seat(names[s], "bot", level=lv, seed=None if seed is None else seed * 100 + s)
                for s, lv in enumerate(options.levels, 1)
            ]
            table = Table(options.rules, seats, seed=seed, record_path=self._new_path(options))
        self.table = table
        self.levels: dict[int, str] = {
            s: seat.level or seat.kind for s, seat in enumerate(table.seats) if s != HUMAN
        }

    @staticmethod
    def _new_path(options: Options) -> Path | None:
        if options.data_dir is None:
            return None
        stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
        seed = "" if options.seed is None else f"-seed{options.seed}"
        return Path(options.data_dir) / "games" / f"{stamp}{seed}.json"

    # ------------------------------------------------------------- state, read only

    @property
    def game(self) -> Game:
        """The game at the table (read it; moves go through ``play``)."""
        return self.table.game

    @property
    def record_path(self) -> Path | None:
        """Where the game is saved after every move."""
        return self.table.record_path

    @property
    def names(self) -> tuple[str, ...]:
        """The seats' names; seat 0 is the person."""
        return self.table.names

    def view(self, seat: int = HUMAN) -> PlayerView:
        """What ``seat`` may know now."""
        return self.table.view(seat)

    @property
    def bot_to_act(self) -> int | None:
        """The computer seat that must move now, if any."""
        return self.table.automatic_to_act

    @property
    def human_to_act(self) -> bool:
        """Whether the person must move now."""
        return self.table.waiting_for == HUMAN

    @property
    def log(self) -> list[Line]:
        """The story of the game as the person saw it, a line per turn."""
        return self.table.story(HUMAN)

    @property
    def last_action(self) -> dict[int, str]:
        """Each seat's last turn this round in a few words (``discards 7H and draws...``)."""
        out: dict[int, str] = {}
        for line in reversed(self.log):
            if line.seat < 0 and line.text.startswith("Round "):
                break
            if line.seat >= 0 and line.seat not in out:
                out[line.seat] = describe_turn("", line.moves).strip()
        return out

    def choose(self, seat: int) -> Move:
        """The computer seat's move (slow: call it from a worker thread)."""
        return self.table.decide(seat)

    # ------------------------------------------------------------- moves

    def play(self, seat: int, move: Move) -> str | None:
        """Play ``move`` for ``seat``; returns the reason it is refused, or None."""
        reason = self.table.why_not(seat, move)
        if reason is not None:
            return reason
        self.table.play(seat, move)
        return None

    def next_round(self) -> None:
        """Deal the next round after a round is over."""
        self.table.next_round()

    def save(self) -> Path | None:
        """Write the game's record (an unfinished round included); returns its path."""
        return self.table.save()

    def finish(self) -> int:
        """Play the rest of the game at once (the person is out); returns the moves played."""
        return self.table.play_automatic(until_human=True, deal=True)

    def close(self) -> None:
        """Stop the table's worker and programs: the game is left."""
        self.table.close()

    # ------------------------------------------------------------- words

    def log_lines(self) -> list[str]:
        """The move log, oldest first."""
        return [line.text for line in self.log]


def resume_game(file: Path | None, games: Path, options: Options) -> Controller:
    """The controller of a saved terminal game: ``file``, or the latest unfinished game in
    ``games``; the display choices of ``options`` stay. Raises YanivError saying why not."""
    path = file if file is not None else latest_unfinished(games)
    table = Table.resume(path)
    seats = table.seats
    if seats[0].automatic or not all(s.kind == "bot" for s in seats[1:]):
        table.close()
        raise YanivError(f"{path} is not a game of one person against the computer")
    if table.game.is_over:
        table.close()
        raise YanivError(f"{path} is a finished game: yaniv replay shows it")
    chosen = dataclasses.replace(
        options,
        rules=table.rules,
        preset=table.rules.preset_name() or "custom",
        levels=tuple(s.level or DEFAULT_LEVEL for s in seats[1:]),
        name=seats[0].name,
        seed=None,
    )
    return Controller(chosen, table)


def latest_unfinished(games: Path) -> Path:
    """The most recently saved game in ``games`` that is not over; raises YanivError."""
    found = sorted(games.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    for path in found:
        try:
            data = record.load(path)
        except YanivError:
            continue
        if not data.get("winners") and isinstance(data.get("table"), dict):
            return path
    raise YanivError(f"no unfinished game is saved in {games}")
