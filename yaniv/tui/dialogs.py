"""The boxes that open over the table: help, a yes/no question (quit, a deliberate Assaf), and
the end of a round or of the game."""

from __future__ import annotations

from pathlib import Path

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from ..cards import sort_key
from ..game import Phase
from ..narration import points_equation, result_headline, score_equation
from ..rules import DESCRIPTIONS, RuleSet
from ..view import PlayerView
from .card_faces import cards_line
from .table_text import PILE_KEYS

#: The person's seat.
HUMAN = 0
#: How many rounds the score table shows.
SCORE_ROUNDS = 12


def rules_table(rules: RuleSet) -> Table:
    """The rules in force, changed options highlighted."""
    changed = rules.differences()
    table = Table(box=None, show_header=False, padding=(0, 1))
    table.add_column(style="bold")
    table.add_column()
    table.add_column(style="dim")
    for key, value in rules.to_dict().items():
        shown = ",".join(map(str, value)) if isinstance(value, list) else str(value).lower()
        table.add_row(key, Text(shown, style="yellow" if key in changed else ""), DESCRIPTIONS[key])
    return table


# ----------------------------------------------------------------- help


class HelpScreen(ModalScreen[None]):
    """The keys, the cards' values and the rules in force."""

    BINDINGS = [Binding("escape,question_mark,q,enter", "close", "close")]

    KEYS = (
        ("1-9, 0", "select or unselect the 1st..9th, 10th card of your hand"),
        ("← →, space", "move along your hand, select the card under the cursor"),
        ("Enter or d", "discard the selected cards"),
        ("s", "draw the stock's top card (discarding the selection first)"),
        (
            f"{PILE_KEYS[0]}, {PILE_KEYS[1]}, …",
            "take the marked card of the previous discard (after the discard)",
        ),
        ("y", "call Yaniv (it says why not when you may not)"),
        ("l / p", "slapdown: slap the drawn card down / keep it"),
        ("Esc", "clear the selection"),
        ("h", "show or hide the coach"),
        ("?", "this help"),
        ("q", "quit (asks first)"),
        ("mouse", "click a card to select it, the stock or a marked pile card to draw"),
    )
    VALUES = "Card values: joker (★) 0, A 1, 2-10 their face value, J Q K 10."

    def __init__(self, rules: RuleSet, record_path: Path | None = None) -> None:
        super().__init__()
        self.rules = rules
        self.record_path = record_path

    def compose(self) -> ComposeResult:
        keys = Table(title="Keys", box=None, show_header=False, title_justify="left")
        keys.add_column(style="bold")
        keys.add_column()
        for key, what in self.KEYS:
            keys.add_row(key, what)
        rules = self.rules
        preset = rules.preset_name() or "custom"
        turn = (
            "draw (stock or pile), then discard"
            if rules.draw_first
            else "discard, then draw (stock or pile)"
        )
        deliberate = (
            f" Yaniv may also be called above {rules.yaniv_threshold}: a deliberate "
            "Assaf, scored hand + penalty (it asks first)."
            if rules.yaniv_above_threshold
            else ""
        )
        summary = Text(
            f"A turn: call Yaniv with {rules.yaniv_threshold} or less, or {turn}. "
            "A discard is a single card, a set of equal ranks, or a run of 3+ in one suit. "
            "Lowest hand at the call wins the round; the caller caught (Assaf) scores "
            f"+{rules.assaf_penalty}.{deliberate}"
        )
        with VerticalScroll(id="help"):
            yield Static(Text(self.VALUES, style="bold"), id="help-values")
            yield Static(keys)
            yield Static(summary, id="help-summary")
            yield Static(Text(f"Rules in force ({preset}):", style="bold"))
            yield Static(rules_table(rules))
            if self.record_path is not None:
                yield Static(
                    Text(
                        f"This game is saved after every move in {self.record_path} "
                        "(yaniv play --resume goes on with it; yaniv replay shows it)."
                    )
                )
            yield Static(Text("Esc or ? closes this help.", style="dim"))

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)


# ----------------------------------------------------------------- questions


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question: ``y`` answers yes, ``n`` or Esc no; Enter takes the focused button
    (``no`` at first, so a stray Enter changes nothing)."""

    BINDINGS = [
        Binding("y", "answer(True)", "yes"),
        Binding("n,escape", "answer(False)", "no"),
    ]

    def __init__(self, question: str, yes: str = "yes", no: str = "no") -> None:
        super().__init__()
        self.question = question
        self.yes = yes
        self.no = no

    def compose(self) -> ComposeResult:
        keys = Text.assemble(
            "\n\n", ("y", "bold"), f": {self.yes}    ", ("n", "bold"), f" / Esc: {self.no}"
        )
        with Vertical(id="confirm-box"):
            yield Static(Text(self.question) + keys, id="confirm-text")
            with Horizontal(id="confirm-buttons"):
                yield Button(self.yes[:1].upper() + self.yes[1:], id="yes", variant="error")
                yield Button(self.no[:1].upper() + self.no[1:], id="no", variant="primary")

    def on_mount(self) -> None:
        """Focus 'no' so that a stray Enter does nothing."""
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Answer with a button."""
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        """Answer with a key."""
        self.dismiss(yes)


class QuitScreen(ConfirmScreen):
    """Ask before quitting."""

    def __init__(self, question: str = "Quit the game? The game so far is saved.") -> None:
        super().__init__(question, yes="quit", no="keep playing")


# ----------------------------------------------------------------- round end


class RoundEndScreen(ModalScreen[str]):
    """Every hand revealed, each player's points as an equation, the scores by round.

    Closes with ``next`` (the next round), ``new`` (a new game at once, same choices),
    ``setup`` (the setup screen) or ``quit``. The key line stays in view below the report,
    which scrolls when it is long.
    """

    BINDINGS = [
        Binding("enter,space", "close", "continue"),
        Binding("w", "watch", "watch at speed"),
        Binding("r", "result", "skip to the result"),
        Binding("n", "new", "new game now"),
        Binding("s", "setup", "setup screen"),
        Binding("q", "quit", "quit"),
    ]

    def __init__(self, view: PlayerView, palette: str, record_path: Path | None = None) -> None:
        super().__init__()
        self.view = view
        self.palette = palette
        self.record_path = record_path

    def compose(self) -> ComposeResult:
        with Vertical(id="round-end"):
            with VerticalScroll(id="round-body"):
                yield Static(self.report(), id="round-report")
            yield Static(self.footer_text(), id="round-keys")
        yield Footer()

    def on_mount(self) -> None:
        """The report scrolls with the arrow keys."""
        self.query_one("#round-body").focus()

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.view.phase == Phase.GAME_OVER

    @property
    def person_out(self) -> bool:
        """Whether the person is out of a game that goes on."""
        return self.view.out[HUMAN] and not self.over

    def footer_text(self) -> Text:
        """What each key does."""
        new = Text.assemble(
            ("n", "bold"),
            ": a new game now (same players and rules) · ",
            ("s", "bold"),
            ": the setup screen, to change them · ",
            ("q", "bold"),
            ": quit",
        )
        if self.over:
            saved = Text(
                f"The game is saved: yaniv replay {self.record_path}\n" if self.record_path else ""
            )
            return saved + Text.assemble(("Enter", "bold"), " or ") + new
        if self.person_out:
            return (
                Text.assemble(
                    "You are out. ",
                    ("Enter", "bold"),
                    ": watch the next round · ",
                    ("w", "bold"),
                    ": watch the rest at speed, no stops · ",
                    ("r", "bold"),
                    ": skip to the result\n",
                )
                + new
            )
        return Text.assemble(("Enter", "bold"), ": next round · ", ("q", "bold"), ": quit")

    def report(self) -> RenderableType:
        """The showdown and the score table."""
        view = self.view
        result = view.result
        if result is None:
            return Text("The round is over.")
        names = view.names
        rules = view.rules
        head = Text(result_headline(result, names), style="bold")
        table = Table(title=f"Round {view.round_no}", expand=False, title_justify="left")
        for col in ("player", "hand", "value", "round points", "score"):
            table.add_column(col)
        for seat in range(view.n):
            if not result.hands[seat] and seat not in result.newly_out:
                continue
            style = "bold" if seat == result.winner else ""
            table.add_row(
                Text(names[seat], style=style),
                cards_line(sorted(result.hands[seat], key=sort_key), self.palette),
                str(result.hand_values[seat]),
                points_equation(result, seat, names, rules),
                score_equation(result, seat, rules),
            )
        parts: list[RenderableType] = []
        if result.game_winners:
            parts.append(
                Text(
                    " GAME OVER: "
                    + " and ".join("you" if s == HUMAN else names[s] for s in result.game_winners)
                    + (
                        " win! "
                        if len(result.game_winners) > 1 or HUMAN in result.game_winners
                        else " wins! "
                    ),
                    style="bold reverse",
                )
            )
        parts += [head, table]
        if any(result.bonuses):
            parts.append(
                Text(
                    "Bonus: "
                    + ", ".join(
                        f"{names[s]} lands on {result.scores[s] + result.bonuses[s]}, "
                        f"{result.bonuses[s]} off"
                        for s in range(view.n)
                        if result.bonuses[s]
                    )
                )
            )
        if result.newly_out:
            parts.append(
                Text(
                    "Out of the game: " + ", ".join(names[s] for s in result.newly_out),
                    style="bold red" if self.palette != "mono" else "bold",
                )
            )
        parts.append(self.scores_table())
        return Group(*parts)

    def scores_table(self) -> Table:
        """Each seat's score after each round, with the round's change (the last rounds)."""
        view = self.view
        rules = view.rules
        history = view.score_history
        scores = Table(title="Scores by round", expand=False, title_justify="left")
        scores.add_column("round")
        for seat in range(view.n):
            scores.add_column(view.names[seat], justify="right")
        first = max(0, len(history) - SCORE_ROUNDS)
        if first:
            scores.caption = f"the last {SCORE_ROUNDS} of {len(history)} rounds"
        for k in range(first, len(history)):
            before = history[k - 1] if k else (0,) * view.n
            row = []
            for s in range(view.n):
                was_out = rules.end_mode == "elimination" and before[s] > rules.score_limit
                change = history[k][s] - before[s]
                row.append("out" if was_out else f"{history[k][s]} ({change:+d})")
            scores.add_row(str(k + 1), *row)
        return scores

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer a new game only when the game is over for the person; watching at speed and
        skipping to the result only once the person is out of a game that goes on."""
        if action in ("new", "setup"):
            return self.over or self.person_out
        if action in ("watch", "result"):
            return self.person_out
        return True

    def action_close(self) -> None:
        """Next round, or a new game at once when it is over."""
        self.dismiss("new" if self.over else "next")

    def action_watch(self) -> None:
        """The person is out: watch the rest of the game at speed, without stopping."""
        if self.person_out:
            self.dismiss("watch")

    def action_result(self) -> None:
        """The person is out: play the rest at once and show the result."""
        if self.person_out:
            self.dismiss("skip")

    def action_new(self) -> None:
        """A new game at once, with the same choices and a new shuffle."""
        if self.over or self.person_out:
            self.dismiss("new")

    def action_setup(self) -> None:
        """The setup screen, to change the choices before a new game."""
        if self.over or self.person_out:
            self.dismiss("setup")

    def action_quit(self) -> None:
        """Quit, after confirmation."""
        self.app.push_screen(QuitScreen(), self._quit_answer)

    def _quit_answer(self, quit_: bool | None) -> None:
        if quit_:
            self.dismiss("quit")
