"""The setup screen: the person's name, the opponents and their levels, the rules, the deck.

Enter starts at once with what is shown; the screen fits 80x24 (the rules in force below
scroll). It asks the app to start the game with a ``SetupScreen.Start`` message.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Label, Select, Static

from ..errors import YanivError
from ..rules import OPTION_NAMES, PRESETS, RuleSet
from .controller import OPPONENT_NAMES, Options, default_level, levels
from .dialogs import rules_table
from .widgets import TickBox

#: The most computer opponents.
MAX_OPPONENTS = 7


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


def option_text(value: object) -> str:
    """An option's value as the options field writes it."""
    if isinstance(value, list | tuple):
        return ",".join(map(str, value))
    return str(value).lower()


class SetupScreen(Screen[None]):
    """The first screen: Enter starts a game; every choice can be changed first."""

    BINDINGS = [Binding("escape", "app.request_quit", "Quit")]

    class Start(Message):
        """Start a game with these options (the app opens the table)."""

        def __init__(self, options: Options) -> None:
            super().__init__()
            self.options = options

    def __init__(self, options: Options) -> None:
        super().__init__()
        self.options = options

    def compose(self) -> ComposeResult:
        o = self.options
        have = levels()
        with VerticalScroll(id="setup"):
            yield Static(
                "[b]Yaniv[/b]: press [b]Enter[/b] to start, or change the game first.",
                id="setup-title",
            )
            with Horizontal(classes="row"):
                yield Label("Your name", classes="field")
                yield Input(o.name, id="name", max_length=16, compact=True)
                yield Label("Seed", classes="field2")
                yield Input(
                    "" if o.seed is None else str(o.seed),
                    id="seed",
                    placeholder="random",
                    type="integer",
                    compact=True,
                )
            with Horizontal(classes="row"):
                yield Label("Opponents", classes="field")
                yield Select(
                    [(str(i), i) for i in range(1, MAX_OPPONENTS + 1)],
                    value=o.opponents,
                    allow_blank=False,
                    id="opp-count",
                    compact=True,
                )
                yield Label("Delay (s)", classes="field2")
                yield Input(f"{o.delay:g}", id="delay", type="number", compact=True)
            with Horizontal(classes="row"):
                yield Label("Levels", classes="field")
                with Grid(id="levels"):
                    for i in range(MAX_OPPONENTS):
                        level = (
                            o.levels[i]
                            if i < len(o.levels)
                            else (o.levels[-1] if o.levels else default_level())
                        )
                        with Horizontal(id=f"level-box-{i}", classes="level") as box:
                            box.display = i < o.opponents
                            yield Label(OPPONENT_NAMES[i], classes="level-name")
                            yield Select(
                                [(lv, lv) for lv in have],
                                value=level if level in have else default_level(),
                                allow_blank=False,
                                id=f"level-{i}",
                                compact=True,
                            )
            with Horizontal(classes="row"):
                yield Label("Rules", classes="field")
                yield Select(
                    [(p, p) for p in PRESETS],
                    value=o.preset,
                    allow_blank=False,
                    id="preset",
                    compact=True,
                )
                yield TickBox("four-colour deck", o.four_color, id="four-color", compact=True)
                yield TickBox("no colour", o.no_color, id="no-color", compact=True)
            with Horizontal(classes="row"):
                yield Label("Options", classes="field")
                diffs = o.rules.differences(PRESETS[o.preset])
                yield Input(
                    " ".join(f"{k}={option_text(v)}" for k, v in diffs.items()),
                    id="options",
                    placeholder="e.g. yaniv_threshold=5 pickup=any",
                    compact=True,
                )
            yield Static("", id="setup-error")
            yield Button("Start the game (Enter)", id="start", variant="primary", compact=True)
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
        for i in range(MAX_OPPONENTS):
            self.query_one(f"#level-box-{i}").display = i < count

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
        preset = self.query_one("#preset", Select).value
        title = Text(f"Rules in force ({preset}; changed options in yellow):", style="bold")
        self.query_one("#rules-preview", Static).update(Group(title, rules_table(rules)))

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
            four_color=self.query_one("#four-color", TickBox).value,
            no_color=self.query_one("#no-color", TickBox).value,
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
        self.post_message(self.Start(options))
