"""The table screen: opponents, stock, pile, the person's hand, the move log, the coach.

State down, messages up: every refresh draws the person's ``PlayerView`` (the words come from
``table_text``); keys and clicks become moves sent to the controller, the one place that
talks to the engine. Computer seats think in a worker thread.
"""

from __future__ import annotations

import dataclasses
import time

from rich.console import RenderableType
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical
from textual.events import Resize, ScreenResume
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static
from textual.worker import get_current_worker

from ..cards import Card, sort_key
from ..game import Phase
from ..moves import DRAW_STOCK, DRAWS, PASS, SLAPS, YANIV, Discard, Move
from ..view import PlayerView
from .card_faces import BACK
from .controller import HUMAN, Controller, Options, selection_move
from .dialogs import ConfirmScreen, HelpScreen, RoundEndScreen
from .table_text import (
    PILE_KEYS,
    coach_report,
    deliberate_question,
    last_actions,
    log_text,
    opponent_text,
    pile_keys,
    pile_note,
    pile_title,
    previous_discard,
    selection_text,
    status_text,
    takeable,
    yaniv_refusal,
)
from .widgets import CardWidget, MoveLog, OpponentBox, StockWidget

#: The smallest terminal the table is drawn in.
MIN_WIDTH, MIN_HEIGHT = 80, 24
#: Seconds a computer move takes, and the pause between rounds, while the person watches the
#: rest of a game at speed.
WATCH_DELAY = 0.1
WATCH_PAUSE = 1.0
#: From this height on, the table spreads out.
TALL_HEIGHT = 32
MAX_HAND = 12
MAX_PILE = 14


class TableScreen(Screen[None]):
    """The game table: opponents, stock, pile, the player's hand, the move log, the coach."""

    BINDINGS = [
        *(
            Binding(str(i % 10), f"pick({i - 1})", "select", show=i == 1, key_display="1-9")
            for i in range(1, 11)
        ),
        Binding("left", "cursor(-1)", "", show=False),
        Binding("right", "cursor(1)", "", show=False),
        Binding("space", "toggle_cursor", "select", show=False),
        Binding("enter,d", "discard", "discard"),
        Binding("s", "draw_stock", "stock"),
        # One binding of `a` per count of takeable cards, so that the footer names exactly the
        # keys there are (`a`, `a/b`, `a-c`); check_action enables the one that fits.
        *(
            Binding(PILE_KEYS[0], f"take(0, {count})", "pile card", key_display=pile_keys(count))
            for count in range(1, MAX_PILE + 1)
        ),
        *(Binding(k, f"take({i})", "", show=False) for i, k in enumerate(PILE_KEYS) if i),
        Binding("y", "yaniv", "YANIV!"),
        Binding("y", "no_yaniv", "", show=False),  # when no Yaniv is allowed: say why
        Binding("l", "slap", "slap"),
        Binding("p", "pass_slap", "keep"),
        Binding("escape", "clear", "clear", show=False),
        Binding("h", "coach", "coach"),
        Binding("question_mark", "help", "help", key_display="?"),
        Binding("q", "app.request_quit", "quit"),
    ]

    class NewGame(Message):
        """The game is over for the person: a new game at once, or the setup screen first."""

        def __init__(self, options: Options, setup: bool) -> None:
            super().__init__()
            self.options = options
            self.setup = setup

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
        self.watching = False  # the person is out and watches the rest at speed
        self.view: PlayerView = controller.view()

    # ------------------------------------------------------------- layout

    def compose(self) -> ComposeResult:
        n = self.view.n
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
                with MoveLog(id="log"):
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

    def refresh_table(self) -> None:
        """Render the human seat's view into every widget."""
        view = self.view = self.controller.view()
        hand = self.hand
        self.selected = [c for c in self.selected if c in hand]
        self.cursor = max(0, min(self.cursor, len(hand) - 1))
        names = view.names
        levels = self.controller.options.levels
        actions = last_actions(view)
        # opponents
        for seat in range(1, view.n):
            box = self.query_one(f"#opp-{seat}", OpponentBox)
            box.border_title = f"{names[seat]} [b]{view.scores[seat]}[/b]"
            box.border_subtitle = levels[seat - 1] if seat - 1 < len(levels) else ""
            box.set_class(view.to_move == seat, "-turn")
            box.set_class(view.out[seat], "-out")
            box.update(opponent_text(view, seat, self.palette, actions.get(seat, "")))
        # stock and pile
        self.query_one("#stock-size", Static).update(f"{view.stock_size} cards")
        group = previous_discard(view)
        cards = takeable(view)
        for i, widget in enumerate(self.query("#pile CardWidget").results(CardWidget)):
            card = group[i] if i < len(group) else None
            mark = card is not None and card in cards
            widget.show(
                card,
                self.palette,
                PILE_KEYS[cards.index(card)] if mark and card is not None else "",
            )
            widget.set_class(mark, "-pickable")
        self.query_one("#pile-note", Static).update(pile_note(view, self.palette))
        self.query_one("#pile-box").border_title = pile_title(view, HUMAN)
        # hand
        for i, widget in enumerate(self.query("#hand CardWidget").results(CardWidget)):
            card = hand[i] if i < len(hand) else None
            widget.show(card, self.palette, str((i + 1) % 10) if i < 10 else "")
            widget.set_class(card is not None and card in self.selected, "-selected")
            cursor = self.cursor_shown and i == self.cursor and card is not None
            widget.set_class(cursor, "-cursor")
            widget.border_subtitle = "▲" if cursor else ""
        hand_box = self.query_one("#hand-box")
        hand_box.border_title = (
            f"{names[HUMAN]}: hand {view.hand_value}"
            f" · score {view.scores[HUMAN]}" + (" · out of the game" if view.out[HUMAN] else "")
        )
        hand_box.set_class(view.my_turn, "-turn")
        move, reason = selection_move(self.selected, view)
        self.query_one("#selection", Static).update(
            selection_text(view, self.selected, self.message, self.palette, move, reason)
        )
        self.query_one("#status", Static).update(status_text(view, self.palette))
        self.query_one("#log-text", Static).update(log_text(self.controller.log, HUMAN))
        self.query_one("#log", MoveLog).follow()
        self.refresh_bindings()
        if self.coach_on:
            self.query_one("#coach", Static).update(self.coach_text)

    # ------------------------------------------------------------- game flow

    def after_change(self) -> None:
        """After any move: show the round's end, or let the next computer seat play."""
        view = self.controller.view()
        if view.phase is Phase.ROUND_OVER and self.watching:
            self.set_timer(max(WATCH_PAUSE, 0.01), lambda: self.round_closed("next"))
            return
        if view.phase in (Phase.ROUND_OVER, Phase.GAME_OVER):
            self.app.push_screen(
                RoundEndScreen(view, self.palette, self.controller.record_path), self.round_closed
            )
            return
        seat = self.controller.bot_to_act
        if seat is not None:
            self.generation += 1
            seat_view = self.controller.view(seat)
            delay = WATCH_DELAY if self.watching else self.controller.options.delay
            self.bot_turn(
                seat,
                seat_view,
                self.generation,
                delay if seat_view.phase == Phase.START else delay / 2,
            )
        if self.coach_on:
            self.ask_coach()

    def round_closed(self, result: str | None) -> None:
        """The round-end screen was closed: next round, new game, setup or quit."""
        if result == "skip":
            self.skip_to_the_end()
        elif result in ("next", "watch"):
            self.watching = self.watching or result == "watch"
            self.controller.next_round()
            self.selected = []
            self.message = ""
            self.refresh_table()
            self.after_change()
        elif result in ("new", "setup"):
            # The same choices again, but a fresh shuffle unless the player sets a seed.
            options = dataclasses.replace(self.controller.options, seed=None)
            self.post_message(self.NewGame(options, setup=result == "setup"))
        else:
            self.app.exit()

    @work(thread=True, exclusive=True, group="bots")
    def skip_to_the_end(self) -> None:
        """The person is out: the computer plays the rest at once, then the result shows."""
        self.generation += 1  # a bot move still on its way is dropped
        self.controller.finish()
        self.app.call_from_thread(self.after_skip)

    def after_skip(self) -> None:
        """Show the game's end after skipping to it."""
        self.refresh_table()
        self.after_change()

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
            move = self.controller.choose(seat)
        except Exception:  # a bot bug must not end the game: it plays its first legal move
            move = (
                next(m for m in view.legal_moves if m != YANIV)
                if len(view.legal_moves) > 1
                else view.legal_moves[0]
            )
        if not worker.is_cancelled:
            self.app.call_from_thread(self.bot_moved, seat, move, generation)

    def bot_moved(self, seat: int, move: Move, generation: int) -> None:
        """Play a computer seat's chosen move (in the UI thread)."""
        if generation != self.generation or self.controller.bot_to_act != seat:
            return
        if self.app.screen is not self:  # help or quit is open: the table waits
            self.pending = (seat, move, generation)
            return
        error = self.controller.play(seat, move)
        if error is not None:  # a bot bug must not stop the game: play a legal move
            fallback = self.controller.view(seat).legal_moves
            self.notify(
                f"{self.controller.names[seat]} tried '{move}': {error}", severity="warning"
            )
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
            count = len(takeable(view))
            index = parameters[0] if parameters else 0
            wanted = parameters[1] if len(parameters) > 1 else None
            return isinstance(index, int) and index < count and (wanted is None or wanted == count)
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

    def say(self, message: str) -> None:
        """Show a refusal under the hand, with the bell."""
        self.message = message
        self.app.bell()
        self.refresh_table()

    def action_discard(self) -> None:
        """Discard the selected cards."""
        move, reason = selection_move(self.selected, self.view)
        if move is None:
            self.say(reason[0].upper() + reason[1:])
            return
        self.human_play(move)

    def draw(self, draw: Move) -> None:
        """Draw; at the start of a discard-first turn, discard the selection first."""
        view = self.view
        if view.phase == Phase.START and not view.rules.draw_first:
            move, reason = selection_move(self.selected, view)
            if move is None:
                self.say(
                    "Discard first: " + reason
                    if self.selected
                    else "Discard first: select cards (1-9)"
                )
                return
            self.human_play(move, draw)
        else:
            self.human_play(draw)

    def action_draw_stock(self) -> None:
        """Draw the stock's top card."""
        self.draw(DRAW_STOCK)

    def action_take(self, index: int, count: int = 0) -> None:
        """Take the ``index``-th marked card of the previous discard (``count``: how many
        there are, for the footer)."""
        cards = takeable(self.view)
        if 0 <= index < len(cards):
            self.draw(DRAWS[cards[index]])

    def action_yaniv(self) -> None:
        """Call Yaniv; above the threshold (a deliberate Assaf) ask first, saying its cost."""
        view = self.view
        if view.hand_value > view.rules.yaniv_threshold:
            self.app.push_screen(
                ConfirmScreen(deliberate_question(view), yes="call Yaniv", no="play on"),
                self._deliberate_answer,
            )
            return
        self.human_play(YANIV)

    def _deliberate_answer(self, yes: bool | None) -> None:
        if yes and self.controller.view().can_yaniv:
            self.human_play(YANIV)

    def action_no_yaniv(self) -> None:
        """Say why Yaniv may not be called now."""
        self.say(yaniv_refusal(self.controller.view()))

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
        """Show the keys, the cards' values and the rules in force."""
        self.app.push_screen(HelpScreen(self.view.rules, self.controller.record_path))

    def on_card_widget_picked(self, event: CardWidget.Picked) -> None:
        """A click: select a hand card, take a pile card, draw from the stock."""
        if event.zone == "hand":
            self.action_pick(event.index)
        elif event.zone == "stock":
            if self.check_action("draw_stock", ()):
                self.action_draw_stock()
        else:
            group = previous_discard(self.view)
            cards = takeable(self.view)
            if event.index < len(group) and group[event.index] in cards:
                self.action_take(cards.index(group[event.index]))

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
        text = coach_report(view, self.controller.table.opponents_level(view))
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self.coach_done, text, asked)

    def coach_done(self, text: RenderableType, asked: int) -> None:
        """Show the coach's report, unless a newer question is pending."""
        if asked != self.coach_asked:
            return
        self.coach_text = text
        if self.coach_on:
            self.query_one("#coach", Static).update(text)
