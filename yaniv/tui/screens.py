"""The screens of the terminal game: setup, table, round end, help, quit."""

from __future__ import annotations

import dataclasses
import importlib
import time
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.events import Resize, ScreenResume
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Checkbox, Footer, Input, Label, Select, Static
from textual.worker import get_current_worker

from ..cards import Card, sort_key
from ..errors import YanivError
from ..events import Discarded, Slapped
from ..game import Phase
from ..moves import DRAW_STOCK, DRAWS, PASS, SLAPS, YANIV, Discard, Move
from ..rules import DESCRIPTIONS, OPTION_NAMES, PRESETS, RuleSet
from ..view import PlayerView
from .controller import (
    HUMAN,
    Controller,
    Options,
    default_level,
    levels,
    points_equation,
    result_headline,
    score_equation,
    selection_move,
)
from .widgets import BACK, CardWidget, StockWidget, cards_line, face

#: Keys that take a marked card of the previous discard, in order.
PILE_KEYS = "abcefgijkmnortuvwxz"
#: The smallest terminal the table is drawn in.
MIN_WIDTH, MIN_HEIGHT = 80, 24
#: From this height on, the table spreads out.
TALL_HEIGHT = 32
MAX_HAND = 12
MAX_PILE = 14
#: How many rounds the score table shows.
SCORE_ROUNDS = 12


def load_coach() -> Any:
    """The coach module, or None while it is not installed."""
    try:
        return importlib.import_module("yaniv.bots.coach")
    except ImportError:
        return None


def parse_options_text(text: str) -> dict[str, str]:
    """``"yaniv_threshold=5, pickup=any"`` as a dict; raises YanivError on a malformed item."""
    pairs: dict[str, str] = {}
    for item in text.replace(",", " ").split():
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise YanivError(f"{item!r}: expected OPTION=VALUE, e.g. yaniv_threshold=5")
        if key not in OPTION_NAMES:
            raise YanivError(f"unknown option {key!r}; options: {', '.join(OPTION_NAMES)}")
        pairs[key] = value
    return pairs


def rules_table(rules: RuleSet) -> Table:
    """The rules in force, changed options highlighted."""
    changed = rules.differences()
    table = Table(box=None, show_header=False, padding=(0, 1))
    table.add_column(style="bold")
    table.add_column()
    table.add_column(style="dim")
    for key, value in rules.to_dict().items():
        shown = ",".join(map(str, value)) if isinstance(value, list) else str(value).lower()
        table.add_row(key, Text(shown, style="yellow" if key in changed else ""),
                      DESCRIPTIONS[key])
    return table


# ----------------------------------------------------------------- setup


class SetupScreen(Screen[None]):
    """The first screen: Enter starts a game; every choice can be changed first."""

    BINDINGS = [Binding("escape", "app.request_quit", "Quit")]

    def __init__(self, options: Options) -> None:
        super().__init__()
        self.options = options

    def compose(self) -> ComposeResult:
        o = self.options
        have = levels()
        with VerticalScroll(id="setup"):
            yield Static("[b]Yaniv[/b]: press [b]Enter[/b] to start, or change the game first.",
                         id="setup-title")
            with Horizontal(classes="row"):
                yield Label("Your name", classes="field")
                yield Input(o.name, id="name", max_length=16)
                yield Label("Seed", classes="field")
                yield Input("" if o.seed is None else str(o.seed), id="seed",
                            placeholder="random", type="integer")
            with Horizontal(classes="row"):
                yield Label("Opponents", classes="field")
                yield Select([(str(i), i) for i in range(1, 8)], value=o.opponents,
                             allow_blank=False, id="opp-count")
                yield Label("Delay (s)", classes="field")
                yield Input(f"{o.delay:g}", id="delay", type="number")
            with Horizontal(classes="row"):
                yield Label("Levels", classes="field")
                with Grid(id="levels"):
                    for i in range(7):
                        level = o.levels[i] if i < len(o.levels) else (
                            o.levels[-1] if o.levels else default_level())
                        select = Select([(lv, lv) for lv in have],
                                        value=level if level in have else default_level(),
                                        allow_blank=False, id=f"level-{i}",
                                        prompt=f"opponent {i + 1}")
                        select.border_title = f"opponent {i + 1}"
                        select.display = i < o.opponents
                        yield select
            with Horizontal(classes="row"):
                yield Label("Rules", classes="field")
                yield Select([(p, p) for p in PRESETS], value=o.preset, allow_blank=False,
                             id="preset")
                yield Checkbox("four-colour deck", o.four_color, id="four-color")
                yield Checkbox("no colour", o.no_color, id="no-color")
            with Horizontal(classes="row"):
                yield Label("Options", classes="field")
                diffs = o.rules.differences(PRESETS[o.preset])
                yield Input(" ".join(f"{k}={_opt(v)}" for k, v in diffs.items()),
                            id="options", placeholder="e.g. yaniv_threshold=5 pickup=any")
            yield Static("", id="setup-error")
            yield Button("Start the game (Enter)", id="start", variant="primary")
            yield Static(id="rules-preview")
        yield Footer()

    def on_mount(self) -> None:
        """Focus the start button so that Enter starts at once."""
        self.query_one("#start", Button).focus()
        self.update_preview()

    @on(Select.Changed, "#opp-count")
    def opponents_changed(self, event: Select.Changed) -> None:
        """Show one level choice per opponent."""
        count = event.value if isinstance(event.value, int) else 3
        for i in range(7):
            self.query_one(f"#level-{i}", Select).display = i < count

    @on(Select.Changed, "#preset")
    @on(Input.Changed, "#options")
    def update_preview(self) -> None:
        """Show the rules in force, or what is wrong with the options."""
        try:
            rules = self.rules()
        except YanivError as exc:
            self.query_one("#setup-error", Static).update(Text(str(exc), style="bold red"))
            return
        self.query_one("#setup-error", Static).update("")
        self.query_one("#rules-preview", Static).update(rules_table(rules))

    def rules(self) -> RuleSet:
        """The rule set chosen on the screen; raises YanivError."""
        preset = self.query_one("#preset", Select).value
        name = preset if isinstance(preset, str) else "standard"
        pairs = parse_options_text(self.query_one("#options", Input).value)
        return RuleSet.preset(name).with_options(pairs)

    def chosen(self) -> Options:
        """The options chosen on the screen; raises YanivError naming what is wrong."""
        rules = self.rules()
        preset = self.query_one("#preset", Select).value
        count = self.query_one("#opp-count", Select).value
        n = count if isinstance(count, int) else 3
        picked = [self.query_one(f"#level-{i}", Select).value for i in range(n)]
        seed_text = self.query_one("#seed", Input).value.strip()
        delay_text = self.query_one("#delay", Input).value.strip() or "0"
        try:
            seed = int(seed_text) if seed_text else None
        except ValueError:
            raise YanivError(f"the seed must be a whole number, not {seed_text!r}") from None
        try:
            delay = float(delay_text)
        except ValueError:
            raise YanivError(f"the delay must be a number of seconds, not {delay_text!r}") from None
        options = Options(
            rules=rules,
            preset=preset if isinstance(preset, str) else "standard",
            levels=tuple(str(lv) for lv in picked),
            name=self.query_one("#name", Input).value.strip(),
            seed=seed,
            delay=delay,
            four_color=self.query_one("#four-color", Checkbox).value,
            no_color=self.query_one("#no-color", Checkbox).value,
            data_dir=self.options.data_dir,
        )
        options.check()
        return options

    @on(Button.Pressed, "#start")
    @on(Input.Submitted)
    def start(self) -> None:
        """Start the game, or say what is wrong."""
        try:
            options = self.chosen()
        except (YanivError, ValueError) as exc:
            self.query_one("#setup-error", Static).update(Text(str(exc), style="bold red"))
            self.app.bell()
            return
        self.app.switch_screen(TableScreen(Controller(options)))


def _opt(value: object) -> str:
    if isinstance(value, list | tuple):
        return ",".join(map(str, value))
    return str(value).lower()


# ----------------------------------------------------------------- the table


class OpponentBox(Static):
    """One opponent: name, level, cards as backs, score, last action."""


class TableScreen(Screen[None]):
    """The game table: opponents, stock, pile, the player's hand, the move log, the coach."""

    BINDINGS = [
        *(Binding(str(i % 10), f"pick({i - 1})", "select", show=i == 1,
                  key_display="1-9") for i in range(1, 11)),
        Binding("left", "cursor(-1)", "", show=False),
        Binding("right", "cursor(1)", "", show=False),
        Binding("space", "toggle_cursor", "select", show=False),
        Binding("enter,d", "discard", "discard"),
        Binding("s", "draw_stock", "stock"),
        Binding("a", "take(0)", "pile card", key_display="a/b"),
        *(Binding(k, f"take({i})", "", show=False) for i, k in enumerate(PILE_KEYS) if i),
        Binding("y", "yaniv", "YANIV!"),
        Binding("l", "slap", "slap"),
        Binding("p", "pass_slap", "keep"),
        Binding("escape", "clear", "clear", show=False),
        Binding("h", "coach", "coach"),
        Binding("question_mark", "help", "help", key_display="?"),
        Binding("q", "app.request_quit", "quit"),
    ]

    def __init__(self, controller: Controller) -> None:
        super().__init__()
        self.controller = controller
        opts = controller.options
        self.palette = "mono" if opts.no_color else ("four" if opts.four_color else "two")
        self.selected: list[Card] = []
        self.cursor = 0
        self.cursor_shown = False  # the cursor appears once the arrow keys are used
        self.message = ""
        self.coach_on = False
        self.coach_text: RenderableType = ""
        self.coach_asked = 0
        self.generation = 0
        self.pending: tuple[int, Move, int] | None = None  # a bot move held while a modal is up
        self.view: PlayerView = controller.view()

    # ------------------------------------------------------------- layout

    def compose(self) -> ComposeResult:
        n = self.controller.game.n
        yield Static(id="status")
        with Horizontal(id="main"):
            with Vertical(id="left"):
                with Grid(id="opponents", classes=f"n{min(n - 1, 4)}"):
                    for seat in range(1, n):
                        yield OpponentBox(id=f"opp-{seat}", classes="opponent")
                with Horizontal(id="center"):
                    with Vertical(id="stock-box"):
                        yield StockWidget(BACK * 3, id="stock")
                        yield Static(id="stock-size")
                    with Vertical(id="pile-box"):
                        with Horizontal(id="pile"):
                            for i in range(MAX_PILE):
                                yield CardWidget("pile", i, classes="card")
                        yield Static(id="pile-note")
                with Vertical(id="hand-box"):
                    with Horizontal(id="hand"):
                        for i in range(MAX_HAND):
                            yield CardWidget("hand", i, classes="card")
                    yield Static(id="selection")
            with Vertical(id="side"):
                with VerticalScroll(id="log"):
                    yield Static(id="log-text")
                yield Static(id="coach")
        yield Static(id="too-small")
        yield Footer()

    def on_mount(self) -> None:
        """Draw the table and let the computer play if it starts."""
        self.query_one("#stock-box").border_title = "Stock"
        self.query_one("#pile-box").border_title = "Previous discard"
        self.query_one("#log").border_title = "Moves"
        self.query_one("#coach").border_title = "Coach (h)"
        self.query_one("#coach").display = False
        self.check_size(self.app.size.width, self.app.size.height)
        self.refresh_table()
        self.after_change()

    def on_resize(self, event: Resize) -> None:
        """Say so instead of drawing a table that does not fit."""
        self.check_size(event.size.width, event.size.height)

    def check_size(self, width: int, height: int) -> None:
        """Hide the table in a terminal smaller than MIN_WIDTH x MIN_HEIGHT."""
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        self.set_class(small, "-small")
        self.set_class(height >= TALL_HEIGHT, "-tall")
        self.query_one("#too-small", Static).update(
            f"The terminal is too small for the table: {width}x{height}.\n"
            f"Please make it at least {MIN_WIDTH}x{MIN_HEIGHT} (q quits)."
        )

    # ------------------------------------------------------------- drawing

    @property
    def hand(self) -> list[Card]:
        """The player's hand in the order shown (by rank, jokers first)."""
        return sorted(self.view.hand, key=sort_key)

    def previous_discard(self) -> tuple[Card, ...]:
        """The group the pickable cards come from."""
        pile = self.view.pile
        if not pile:
            return ()
        if self.view.phase == Phase.DRAW and len(pile) > 1:
            return pile[-2]
        return pile[-1]

    def refresh_table(self) -> None:
        """Render the human seat's view into every widget."""
        view = self.view = self.controller.view()
        hand = self.hand
        self.selected = [c for c in self.selected if c in hand]
        self.cursor = max(0, min(self.cursor, len(hand) - 1))
        names = view.names
        # opponents
        for seat in range(1, view.n):
            box = self.query_one(f"#opp-{seat}", OpponentBox)
            box.border_title = f"{names[seat]} [b]{view.scores[seat]}[/b]"
            box.border_subtitle = self.controller.levels[seat]
            box.set_class(view.to_move == seat, "-turn")
            box.set_class(view.out[seat], "-out")
            box.update(self.opponent_text(seat))
        # stock and pile
        self.query_one("#stock-size", Static).update(f"{view.stock_size} cards")
        group = self.previous_discard()
        pickable = [c for c in group if c in view.pickable]
        for i, widget in enumerate(self.query("#pile CardWidget").results(CardWidget)):
            card = group[i] if i < len(group) else None
            mark = card is not None and card in view.pickable
            widget.show(card, self.palette, PILE_KEYS[pickable.index(card)]
                        if mark and card is not None else "")
            widget.set_class(mark, "-pickable")
        self.query_one("#pile-note", Static).update(self.pile_note(group, pickable))
        pile_box = self.query_one("#pile-box")
        owner = self.pile_owner()
        pile_box.border_title = (
            "Turned-up card" if owner is None
            else "Your discard" if owner == HUMAN else f"{names[owner]}'s discard"
        )
        # hand
        for i, widget in enumerate(self.query("#hand CardWidget").results(CardWidget)):
            card = hand[i] if i < len(hand) else None
            widget.show(card, self.palette, str((i + 1) % 10) if i < 10 else "")
            widget.set_class(card is not None and card in self.selected, "-selected")
            cursor = self.cursor_shown and i == self.cursor and card is not None
            widget.set_class(cursor, "-cursor")
            widget.border_subtitle = "▲" if cursor else ""
        hand_box = self.query_one("#hand-box")
        hand_box.border_title = (f"{names[HUMAN]}: hand {view.hand_value}"
                                 f" · score {view.scores[HUMAN]}"
                                 + (" · out of the game" if view.out[HUMAN] else ""))
        hand_box.set_class(view.my_turn, "-turn")
        self.query_one("#selection", Static).update(self.selection_text())
        self.query_one("#status", Static).update(self.status_text())
        self.query_one("#log-text", Static).update(self.log_text())
        self.query_one("#log", VerticalScroll).scroll_end(animate=False)
        self.refresh_bindings()
        if self.coach_on:
            self.query_one("#coach", Static).update(self.coach_text)

    def pile_owner(self) -> int | None:
        """Who laid the previous discard (None for the turned-up card)."""
        in_group = set(self.previous_discard())
        for event in reversed(self.view.events):
            if isinstance(event, Discarded) and in_group & set(event.cards):
                return event.seat
            if isinstance(event, Slapped) and event.card in in_group:
                return event.seat
        return None

    def pile_note(self, group: tuple[Card, ...], pickable: list[Card]) -> Text:
        """Which marked cards may be taken, and a just-laid discard."""
        text = Text()
        if pickable:
            keys = "/".join(PILE_KEYS[i] for i in range(len(pickable)))
            text.append(f"may take ({keys}): ", style="dim")
            text.append_text(cards_line(pickable, self.palette))
        view = self.view
        if view.phase == Phase.DRAW and len(view.pile) > 1 and view.pile[-1] is not group:
            who = "you" if view.my_turn else view.names[view.to_move or 0]
            text.append(f"   just discarded by {who}: ", style="dim")
            text.append_text(cards_line(view.pile[-1], self.palette))
        return text

    def opponent_text(self, seat: int) -> Text:
        """The two lines of an opponent's box: cards and score, then the last action."""
        view = self.view
        text = Text(no_wrap=True, overflow="ellipsis")
        if view.out[seat]:
            text.append("out of the game", style="dim")
            return text
        count = view.hand_sizes[seat]
        text.append(BACK * count, style="blue" if self.palette != "mono" else "")
        text.append(f" {count}")
        if view.known[seat]:
            text.append("  has ")
            text.append_text(cards_line(view.known[seat], self.palette))
        text.append("\n")
        if view.to_move == seat:
            text.append("thinking…", style="italic")
        else:
            text.append(self.controller.last_action.get(seat, ""), style="dim")
        return text

    def status_text(self) -> Text:
        """Whose turn it is and what the player may do."""
        view = self.view
        rules = view.rules
        head = Text(f"Round {view.round_no} · ", style="bold")
        preset = rules.preset_name() or "custom"
        if view.phase in (Phase.ROUND_OVER, Phase.GAME_OVER):
            return head + Text("The round is over.")
        if not view.my_turn:
            who = view.names[view.to_move] if view.to_move is not None else "?"
            return head + Text(f"{who} is playing…", style="italic") + Text(
                f"   ({preset} rules, Yaniv at {rules.yaniv_threshold} or less)", style="dim")
        keys = [PILE_KEYS[i] for i in range(len(view.pickable))]
        short = "s stock" + (f", {'/'.join(keys[:2])}{'…' * (len(keys) > 2)} pile"
                             if keys else "")
        if view.phase == Phase.SLAP:
            drawn = face(view.drawn) if view.drawn is not None else "?"
            text = f"You drew {drawn}: it matches your discard. l: slap it down, p: keep it"
        elif view.phase == Phase.START and rules.draw_first:
            text = f"YOUR TURN: draw first ({short}), then discard"
        elif view.phase == Phase.START:
            text = f"YOUR TURN: select cards (1-9), then draw: {short}"
        elif view.phase == Phase.DRAW:
            text = f"YOUR TURN: now draw: {short}"
        else:
            text = "YOUR TURN: now select cards to discard and press Enter"
        mono = self.palette == "mono"
        if view.can_yaniv and view.hand_value > rules.yaniv_threshold:
            head += Text(f"y: Yaniv at {view.hand_value}, a deliberate Assaf", style="bold") + Text(
                " · or ")
        elif view.can_yaniv:
            head += Text(f"y: YANIV! ({view.hand_value})",
                         style="bold" if mono else "bold yellow") + Text(" · or ")
        return head + Text(text, style="bold reverse" if mono else "bold green")

    def selection_text(self) -> Text:
        """The selection and whether it is a legal discard, or the last error."""
        if self.message:
            return Text(self.message, style="bold red")
        view = self.view
        if not self.selected:
            if view.my_turn and any(isinstance(m, Discard) for m in view.legal_moves):
                return Text("Select the cards to discard: their numbers, or a click.",
                            style="dim")
            return Text("")
        text = Text("Selected: ") + cards_line(self.selected, self.palette)
        move, reason = selection_move(self.selected, view)
        if move is not None:
            text.append(f"  ✓ a legal discard ({len(move.cards)} card"
                        f"{'s' * (len(move.cards) > 1)}, "
                        f"{sum(min(c % 13 + 1, 10) for c in move.cards if c < 52)} points)",
                        style="green" if self.palette != "mono" else "bold")
        else:
            text.append(f"  ✗ {reason}", style="red" if self.palette != "mono" else "bold")
        return text

    def log_text(self) -> Text:
        """The move log, the person's own lines in bold."""
        text = Text()
        for i, line in enumerate(self.controller.log):
            if i:
                text.append("\n")
            style = "bold" if line.seat == HUMAN else ("underline" if line.seat < 0 else "")
            text.append(line.text, style=style)
        return text

    # ------------------------------------------------------------- game flow

    def after_change(self) -> None:
        """After any move: show the round's end, or let the next computer seat play."""
        game = self.controller.game
        if game.phase in (Phase.ROUND_OVER, Phase.GAME_OVER):
            self.app.push_screen(RoundEndScreen(self.controller, self.palette), self.round_closed)
            return
        seat = self.controller.bot_to_act
        if seat is not None:
            self.generation += 1
            view = self.controller.view(seat)
            delay = self.controller.options.delay
            self.bot_turn(seat, view, self.generation,
                          delay if view.phase == Phase.START else delay / 2)
        if self.coach_on:
            self.ask_coach()

    def round_closed(self, result: str | None) -> None:
        """The round-end screen was closed: next round, new game or quit."""
        if result == "next":
            self.controller.next_round()
            self.selected = []
            self.message = ""
            self.refresh_table()
            self.after_change()
        elif result == "new":
            # The same choices again, but a fresh shuffle unless the player sets a seed.
            options = dataclasses.replace(self.controller.options, seed=None)
            self.app.switch_screen(SetupScreen(options))
        else:
            self.app.exit()

    @work(thread=True, exclusive=True, group="bots")
    def bot_turn(self, seat: int, view: PlayerView, generation: int, delay: float) -> None:
        """Think for a computer seat in a thread, paced by ``delay``, then play in the UI."""
        worker = get_current_worker()
        end = time.monotonic() + delay
        while time.monotonic() < end:
            if worker.is_cancelled:
                return
            time.sleep(min(0.05, max(0.0, end - time.monotonic())))
        try:
            move = self.controller.choose(seat, view)
        except Exception:  # a bot bug must not end the game: it plays its first legal move
            move = next(m for m in view.legal_moves if m != YANIV) if len(
                view.legal_moves) > 1 else view.legal_moves[0]
        if not worker.is_cancelled:
            self.app.call_from_thread(self.bot_moved, seat, move, generation)

    def bot_moved(self, seat: int, move: Move, generation: int) -> None:
        """Play a computer seat's chosen move (in the UI thread)."""
        if generation != self.generation or self.controller.game.to_move != seat:
            return
        if self.app.screen is not self:  # help or quit is open: the table waits
            self.pending = (seat, move, generation)
            return
        error = self.controller.play(seat, move)
        if error is not None:  # a bot bug must not stop the game: play a legal move
            fallback = self.controller.view(seat).legal_moves
            self.notify(f"{self.controller.names[seat]} tried '{move}': {error}",
                        severity="warning")
            self.controller.play(seat, next(m for m in fallback if m != YANIV))
        self.refresh_table()
        self.after_change()

    def on_screen_resume(self, event: ScreenResume) -> None:
        """Back from help or quit: play the computer's move that waited."""
        if self.pending is not None:
            seat, move, generation = self.pending
            self.pending = None
            self.bot_moved(seat, move, generation)

    def human_play(self, *moves: Move) -> bool:
        """Play the person's moves in order; shows the first refusal."""
        for move in moves:
            error = self.controller.play(HUMAN, move)
            if error is not None:
                self.message = f"Not allowed: {error}"
                self.app.bell()
                self.refresh_table()
                return False
        self.message = ""
        self.selected = [c for c in self.selected if c in self.controller.view().hand]
        if any(isinstance(m, Discard) for m in moves):
            self.selected = []
        self.refresh_table()
        self.after_change()
        return True

    # ------------------------------------------------------------- actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer each key only when it means something now."""
        view = self.view
        mine = view.my_turn
        if action == "yaniv":
            return mine and view.can_yaniv
        if action in ("slap", "pass_slap"):
            return mine and view.phase == Phase.SLAP
        if action == "draw_stock":
            return mine and view.phase in (Phase.START, Phase.DRAW) and view.stock_size > 0
        if action == "take":
            index = parameters[0] if parameters else 0
            return (mine and view.phase in (Phase.START, Phase.DRAW)
                    and isinstance(index, int) and index < len(view.pickable))
        if action == "discard":
            return mine and any(isinstance(m, Discard) for m in view.legal_moves)
        return True

    def action_pick(self, index: int) -> None:
        """Select or unselect the hand's card at ``index``."""
        hand = self.hand
        if not 0 <= index < len(hand):
            return
        card = hand[index]
        self.cursor = index
        if card in self.selected:
            self.selected.remove(card)
        else:
            self.selected.append(card)
        self.message = ""
        self.refresh_table()

    def action_cursor(self, step: int) -> None:
        """Move the hand's cursor."""
        if self.hand:
            if self.cursor_shown:
                self.cursor = (self.cursor + step) % len(self.hand)
            self.cursor_shown = True
            self.refresh_table()

    def action_toggle_cursor(self) -> None:
        """Select or unselect the card under the cursor."""
        self.action_pick(self.cursor)

    def action_clear(self) -> None:
        """Unselect every card."""
        self.selected = []
        self.message = ""
        self.refresh_table()

    def action_discard(self) -> None:
        """Discard the selected cards."""
        move, reason = selection_move(self.selected, self.view)
        if move is None:
            self.message = reason[0].upper() + reason[1:]
            self.app.bell()
            self.refresh_table()
            return
        self.human_play(move)

    def draw(self, draw: Move) -> None:
        """Draw; at the start of a discard-first turn, discard the selection first."""
        view = self.view
        if view.phase == Phase.START and not view.rules.draw_first:
            move, reason = selection_move(self.selected, view)
            if move is None:
                self.message = ("Discard first: " + reason
                                if self.selected else "Discard first: select cards (1-9)")
                self.app.bell()
                self.refresh_table()
                return
            self.human_play(move, draw)
        else:
            self.human_play(draw)

    def action_draw_stock(self) -> None:
        """Draw the stock's top card."""
        self.draw(DRAW_STOCK)

    def action_take(self, index: int) -> None:
        """Take the ``index``-th marked card of the previous discard."""
        group = self.previous_discard()
        pickable = [c for c in group if c in self.view.pickable]
        if 0 <= index < len(pickable):
            self.draw(DRAWS[pickable[index]])

    def action_yaniv(self) -> None:
        """Call Yaniv."""
        self.human_play(YANIV)

    def action_slap(self) -> None:
        """Slap the drawn card down."""
        if self.view.drawn is not None:
            self.human_play(SLAPS[self.view.drawn])

    def action_pass_slap(self) -> None:
        """Keep the drawn card."""
        self.human_play(PASS)

    def action_coach(self) -> None:
        """Show or hide the coach."""
        self.coach_on = not self.coach_on
        self.query_one("#coach").display = self.coach_on
        if self.coach_on:
            self.ask_coach()
        self.refresh_table()

    def action_help(self) -> None:
        """Show the keys and the rules in force."""
        self.app.push_screen(HelpScreen(self.view.rules))

    def on_card_widget_picked(self, event: CardWidget.Picked) -> None:
        """A click: select a hand card, take a pile card, draw from the stock."""
        if event.zone == "hand":
            self.action_pick(event.index)
        elif event.zone == "stock":
            if self.check_action("draw_stock", ()):
                self.action_draw_stock()
        else:
            group = self.previous_discard()
            if event.index < len(group) and group[event.index] in self.view.pickable:
                pickable = [c for c in group if c in self.view.pickable]
                self.action_take(pickable.index(group[event.index]))

    # ------------------------------------------------------------- coach

    def ask_coach(self) -> None:
        """Ask the coach about the person's position, in a thread."""
        if self.controller.human_to_act:
            self.coach_text = Text("thinking…", style="dim")
            self.coach_asked += 1
            self.coach_turn(self.controller.view(), self.coach_asked)
        else:
            self.coach_text = Text("The coach speaks on your turn.", style="dim")
        self.query_one("#coach", Static).update(self.coach_text)

    @work(thread=True, exclusive=True, group="coach")
    def coach_turn(self, view: PlayerView, asked: int) -> None:
        """Compute the coach's figures off the UI thread."""
        text = coach_report(view, self.palette)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self.coach_done, text, asked)

    def coach_done(self, text: RenderableType, asked: int) -> None:
        """Show the coach's report, unless a newer question is pending."""
        if asked != self.coach_asked:
            return
        self.coach_text = text
        if self.coach_on:
            self.query_one("#coach", Static).update(text)


def coach_report(view: PlayerView, palette: str) -> RenderableType:
    """The coach's report on a position: the chance a Yaniv call succeeds, and its advice."""
    coach = load_coach()
    if coach is None:
        return Text("The coach is not installed yet.", style="dim")
    lines: list[RenderableType] = []
    try:
        deliberate = view.hand_value > view.rules.yaniv_threshold
        if view.phase == Phase.START:
            if view.can_yaniv and deliberate:
                lines.append(Text(f"A call now is a deliberate Assaf: your hand {view.hand_value} "
                                  f"is over {view.rules.yaniv_threshold}.", style="dim"))
            elif view.can_yaniv:
                p = float(coach.yaniv_success_probability(view))
                lines.append(Text(f"A Yaniv call now succeeds with probability {p:.0%}.",
                                  style="bold"))
            else:
                lines.append(Text(f"Yaniv needs {view.rules.yaniv_threshold} or less; "
                                  f"your hand is {view.hand_value}.", style="dim"))
        advice_list = [a for a in coach.advise(view) if not (deliberate and a.move == YANIV)]
        for i, advice in enumerate(advice_list[:3]):
            line = Text(f"{i + 1}. ", style="bold")
            line.append(str(advice.move), style="bold")
            line.append(f": {advice.reason}")
            lines.append(line)
    except Exception as exc:  # the coach must never take the game down
        lines.append(Text(f"The coach failed: {exc}", style="red"))
    if not lines:
        lines.append(Text("No advice.", style="dim"))
    return Group(*lines)


# ----------------------------------------------------------------- round end


class RoundEndScreen(ModalScreen[str]):
    """Every hand revealed, each player's points as an equation, the scores by round."""

    BINDINGS = [
        Binding("enter,space", "close", "continue"),
        Binding("n", "new", "new game"),
        Binding("q", "quit", "quit"),
    ]

    def __init__(self, controller: Controller, palette: str) -> None:
        super().__init__()
        self.controller = controller
        self.palette = palette

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="round-end"):
            yield Static(self.report(), id="round-report")
            yield Static(self.footer_text(), id="round-keys")
        yield Footer()

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.controller.game.is_over

    def footer_text(self) -> Text:
        """What Enter does."""
        if self.over:
            path = self.controller.record_path
            saved = f"The game is saved: yaniv replay {path}\n" if path else ""
            return Text(saved + "Enter: a new game · q: quit", style="bold")
        if self.controller.game.out[HUMAN]:
            return Text("You are out. Enter: watch the next round · n: a new game · q: quit",
                        style="bold")
        return Text("Enter: next round · q: quit", style="bold")

    def report(self) -> RenderableType:
        """The showdown and the score table."""
        game = self.controller.game
        result = game.result
        assert result is not None
        names = game.names
        head = Text(result_headline(result, names), style="bold")
        table = Table(title=f"Round {game.round_no}", expand=False, title_justify="left")
        for col in ("player", "hand", "value", "round points", "score"):
            table.add_column(col)
        for seat in range(game.n):
            if not result.hands[seat] and seat not in result.newly_out:
                continue
            style = "bold" if seat in (result.winner,) else ""
            table.add_row(Text(names[seat], style=style),
                          cards_line(sorted(result.hands[seat], key=sort_key), self.palette),
                          str(result.hand_values[seat]),
                          points_equation(result, seat, names, game.rules),
                          score_equation(result, seat, game.rules))
        scores = Table(title="Scores by round", expand=False, title_justify="left")
        scores.add_column("round")
        for seat in range(game.n):
            scores.add_column(names[seat], justify="right")
        shown = list(enumerate(game.history, 1))[-SCORE_ROUNDS:]
        if len(game.history) > SCORE_ROUNDS:
            scores.caption = f"the last {SCORE_ROUNDS} of {len(game.history)} rounds"
        for number, log in shown:
            r = log.result
            scores.add_row(str(number), *(
                f"{r.scores[s]} (+{r.points[s]})" if r.hands[s] else "out"
                for s in range(game.n)))
        parts: list[RenderableType] = []
        if result.game_winners:
            parts.append(Text(" GAME OVER: " + " and ".join(
                "you" if s == HUMAN else names[s] for s in result.game_winners)
                + (" win! " if len(result.game_winners) > 1 or HUMAN in result.game_winners
                   else " wins! "), style="bold reverse"))
        parts += [head, table]
        if any(result.bonuses):
            parts.append(Text("Bonus: " + ", ".join(
                f"{names[s]} lands on {result.scores[s] + result.bonuses[s]}, "
                f"{result.bonuses[s]} off" for s in range(game.n) if result.bonuses[s])))
        if result.newly_out:
            parts.append(Text("Out of the game: " + ", ".join(names[s] for s in result.newly_out),
                              style="bold red" if self.palette != "mono" else "bold"))
        parts.append(scores)
        return Group(*parts)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer a new game only when the game is over for the person."""
        if action == "new":
            return self.over or self.controller.game.out[HUMAN]
        return True

    def action_close(self) -> None:
        """Next round, or a new game when it is over."""
        self.dismiss("new" if self.over else "next")

    def action_new(self) -> None:
        """A new game (after the last round, or once the person is out)."""
        if self.over or self.controller.game.out[HUMAN]:
            self.dismiss("new")

    def action_quit(self) -> None:
        """Quit, after confirmation."""
        self.app.push_screen(QuitScreen(), self._quit_answer)

    def _quit_answer(self, quit_: bool | None) -> None:
        if quit_:
            self.dismiss("quit")


# ----------------------------------------------------------------- help and quit


class HelpScreen(ModalScreen[None]):
    """The keys and the rules in force."""

    BINDINGS = [Binding("escape,question_mark,q,enter", "close", "close")]

    KEYS = (
        ("1-9, 0", "select or unselect the 1st..9th, 10th card of your hand"),
        ("← →, space", "move along your hand, select the card under the cursor"),
        ("Enter or d", "discard the selected cards"),
        ("s", "draw the stock's top card (discarding the selection first)"),
        ("a, b, …", "take the marked card of the previous discard (after the discard)"),
        ("y", "call Yaniv (offered only when your hand is low enough)"),
        ("l / p", "slapdown: slap the drawn card down / keep it"),
        ("Esc", "clear the selection"),
        ("h", "show or hide the coach"),
        ("?", "this help"),
        ("q", "quit (asks first)"),
        ("mouse", "click a card to select it, the stock or a marked pile card to draw"),
    )

    def __init__(self, rules: RuleSet) -> None:
        super().__init__()
        self.rules = rules

    def compose(self) -> ComposeResult:
        keys = Table(title="Keys", box=None, show_header=False, title_justify="left")
        keys.add_column(style="bold")
        keys.add_column()
        for key, what in self.KEYS:
            keys.add_row(key, what)
        preset = self.rules.preset_name() or "custom"
        turn = ("draw (stock or pile), then discard" if self.rules.draw_first
                else "discard, then draw (stock or pile)")
        summary = Text(
            f"A turn: call Yaniv with {self.rules.yaniv_threshold} or less, or {turn}. "
            "A discard is a single card, a set of equal ranks, or a run of 3+ in one suit. "
            "Lowest hand at the call wins the round; the caller caught (Assaf) scores "
            f"+{self.rules.assaf_penalty}.")
        with VerticalScroll(id="help"):
            yield Static(keys)
            yield Static(summary, id="help-summary")
            yield Static(Text(f"Rules in force ({preset}):", style="bold"))
            yield Static(rules_table(self.rules))
            yield Static(Text("Esc or ? closes this help.", style="dim"))

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)


class QuitScreen(ModalScreen[bool]):
    """Ask before quitting."""

    BINDINGS = [
        Binding("y", "answer(True)", "quit"),
        Binding("n,escape", "answer(False)", "stay"),
    ]

    def __init__(self, question: str = "Quit the game? The game so far is saved.") -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="quit-box"):
            yield Static(f"{self.question}\n\n"
                         "[b]y[/b]: quit    [b]n[/b] / Esc: keep playing", id="quit-text")
            with Horizontal(id="quit-buttons"):
                yield Button("Quit", id="yes", variant="error")
                yield Button("Keep playing", id="no", variant="primary")

    def on_mount(self) -> None:
        """Focus 'keep playing' so that a stray Enter does not quit."""
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Answer with a button."""
        self.dismiss(event.button.id == "yes")

    def action_answer(self, quit_: bool) -> None:
        """Answer with a key."""
        self.dismiss(quit_)

